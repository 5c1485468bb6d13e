// The AOF's background thread: fsync (appendfsync everysec), close and
// unlink of big files, so none of them blocks the event loop. Jobs run in
// the order queued: an fsync of an fd always precedes its close.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "server/persist/aof/state.h"

namespace server::persist::aof {

namespace {

struct Job {
  enum Kind { kFsync, kClose, kUnlink } kind;
  int fd;
  std::string path;
};

class Worker {
 public:
  void submit(Job j) {
    std::unique_lock<std::mutex> lk(mu_);
    if (!started_) {
      std::thread(&Worker::run, this).detach();
      started_ = true;
    }
    if (j.kind == Job::kFsync) fsyncs_++;
    queue_.push_back(std::move(j));
    cv_.notify_one();
  }
  int pendingFsyncs() const { return fsyncs_.load(); }
  int takeFsyncError() { return fsync_errno_.exchange(0); }
  void drain() {
    std::unique_lock<std::mutex> lk(mu_);
    idle_cv_.wait(lk, [this] { return queue_.empty() && !busy_; });
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
      cv_.wait(lk, [this] { return !queue_.empty(); });
      Job j = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      lk.unlock();
      switch (j.kind) {
        case Job::kFsync:
          // Reported by the main thread (the logger is not thread-safe).
          if (fdatasync(j.fd) != 0 && errno != EBADF && errno != EINVAL) fsync_errno_ = errno;
          break;
        case Job::kClose:
          close(j.fd);
          break;
        case Job::kUnlink:
          unlink(j.path.c_str());
          break;
      }
      lk.lock();
      if (j.kind == Job::kFsync) fsyncs_--;
      busy_ = false;
      if (queue_.empty()) idle_cv_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_, idle_cv_;
  std::deque<Job> queue_;
  std::atomic<int> fsyncs_{0};
  std::atomic<int> fsync_errno_{0};
  bool started_ = false;
  bool busy_ = false;
};

Worker& worker() {
  static Worker* w = new Worker();  // never destroyed: the thread outlives exit paths
  return *w;
}

}  // namespace

void fsyncInBackground(int fd) {
  worker().submit({Job::kFsync, fd, {}});
}

void closeInBackground(int fd) {
  if (fd >= 0) worker().submit({Job::kClose, fd, {}});
}

void unlinkInBackground(const std::string& path) {
  worker().submit({Job::kUnlink, -1, path});
}

int takeBackgroundFsyncError() {
  return worker().takeFsyncError();
}

int pendingFsyncs() {
  return worker().pendingFsyncs();
}

void drainBackground() {
  worker().drain();
}

}  // namespace server::persist::aof
