#include "server/evict/lazyfree.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "server/core/state.h"
#include "server/db/hash.h"
#include "server/db/list.h"
#include "server/db/set.h"
#include "server/db/stream.h"
#include "server/db/zset.h"
#include "server/evict/allocator.h"

namespace server::evict::lazyfree {

namespace {

// One unit of work: a value, or a whole detached keyspace.
struct Job {
  db::Value* value = nullptr;
  db::Db::Detached* keys = nullptr;
  size_t objects = 0;
};

struct Worker {
  std::mutex mu;
  std::condition_variable cv;       // work arrived / stop
  std::condition_variable idle_cv;  // queue drained
  std::deque<Job> queue;
  bool busy = false;
  bool stop = false;
  std::thread thread;
};

Worker* g_worker = nullptr;
std::atomic<size_t> g_pending{0};
std::atomic<uint64_t> g_freed{0};

void run(Worker* w) {
  evict::registerThread();
  std::unique_lock<std::mutex> lock(w->mu);
  for (;;) {
    w->cv.wait(lock, [w] { return w->stop || !w->queue.empty(); });
    if (w->queue.empty()) break;  // stop requested and nothing left
    Job job = w->queue.front();
    w->queue.pop_front();
    w->busy = true;
    lock.unlock();
    delete job.value;
    delete job.keys;
    g_pending.fetch_sub(job.objects);
    g_freed.fetch_add(job.objects);
    lock.lock();
    w->busy = false;
    if (w->queue.empty()) w->idle_cv.notify_all();
  }
  evict::unregisterThread();
}

void submit(Job job) {
  start();
  g_pending.fetch_add(job.objects);
  {
    std::lock_guard<std::mutex> lock(g_worker->mu);
    g_worker->queue.push_back(job);
  }
  g_worker->cv.notify_one();
}

}  // namespace

void install() {
  db::Db::lazy_free_value = freeValueAsync;
}

void start() {
  install();
  if (g_worker != nullptr) return;
  g_worker = new Worker();
  g_worker->thread = std::thread(run, g_worker);
}

void stop() {
  if (g_worker == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(g_worker->mu);
    g_worker->stop = true;
  }
  g_worker->cv.notify_one();
  g_worker->thread.join();
  delete g_worker;
  g_worker = nullptr;
}

void applyConfig() {
  const server::Config& cfg = server::g_server->config;
  db::Db::lazy_expire = cfg.lazyfree_lazy_expire;
  db::Db::lazy_server_del = cfg.lazyfree_lazy_server_del;
}

size_t freeEffort(const db::Value& v) {
  // Listpack and intset encodings are one allocation; so are strings.
  switch (v.kind()) {
    case db::Kind::kList: {
      auto* l = static_cast<const db::List*>(v.collection());
      return l->isQuicklist() ? l->size() : 1;
    }
    case db::Kind::kHash: {
      auto* h = static_cast<const db::Hash*>(v.collection());
      return h->isListpack() ? 1 : h->size();
    }
    case db::Kind::kSet: {
      auto* s = static_cast<const db::Set*>(v.collection());
      return s->encoding() == db::Set::Encoding::kTable ? s->size() : 1;
    }
    case db::Kind::kZSet: {
      auto* z = static_cast<const db::ZSet*>(v.collection());
      return z->isListpack() ? 1 : z->size();
    }
    case db::Kind::kStream: {
      // Redis's estimate: a node per allocation, then every group times the
      // first group's PEL.
      auto* s = static_cast<const db::Stream*>(v.collection());
      size_t effort = s->nodes.size();
      if (!s->groups.empty())
        effort += s->groups.size() * (1 + s->groups.begin()->second->pel.size());
      return effort;
    }
    case db::Kind::kNone:
    case db::Kind::kStrInline:
    case db::Kind::kStrInt:
    case db::Kind::kStrHeap:
      return 1;
  }
  return 1;  // not reached: the switch returns for every kind
}

bool freeValueAsync(db::Value& v) {
  if (freeEffort(v) <= kThreshold) return false;
  auto* moved = new db::Value(std::move(v));
  submit(Job{moved, nullptr, 1});
  return true;
}

void freeDbAsync(std::unique_ptr<db::Db::Detached> keys) {
  if (keys == nullptr || keys->size() == 0) return;  // freed here, at once
  size_t n = keys->size();
  submit(Job{nullptr, keys.release(), n});
}

size_t pendingObjects() {
  return g_pending.load();
}

uint64_t freedObjects() {
  return g_freed.load();
}

void resetStats() {
  g_freed.store(0);
}

void waitIdle(int64_t us) {
  if (g_worker == nullptr) return;
  std::unique_lock<std::mutex> lock(g_worker->mu);
  g_worker->idle_cv.wait_for(lock, std::chrono::microseconds(us),
                             [] { return g_worker->queue.empty() && !g_worker->busy; });
}

}  // namespace server::evict::lazyfree
