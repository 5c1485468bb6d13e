// The one event loop of a process: epoll file events, millisecond timers and
// a before-sleep hook. Single-threaded; nothing here may be called from
// another thread.
//
// Contract:
// - A file event handler runs when its fd is readable/writable as asked. A
//   handler may remove any fd (its own included) and add new ones; a removed
//   fd's pending events of the current iteration are not delivered.
// - With kBarrier set on an fd, the writable handler runs before the readable
//   one in the same iteration (used to flush replies before reading more).
// - Timers fire no earlier than their deadline; a timer callback returns the
//   next delay in ms or kNoMore to delete itself.
// - beforeSleep runs once per iteration before waiting. If it (or anything
//   else) calls setDontWait(), the next wait does not block.
// - An idle loop blocks in epoll_wait until the nearest timer: no busy waiting,
//   unless setBusyPoll() asked for it (below).
// - Pollers (below) are polled once per iteration, and on every turn of a
//   busy-poll spin, and are re-armed before the loop blocks.
//
// Module event/ (namespace event): this loop. Includes only the system;
// included by net/ and everything above it (client library, redis-cli,
// redis-benchmark, the server).
#pragma once

#include <sys/epoll.h>

#include <cstdint>
#include <ctime>
#include <functional>
#include <map>
#include <vector>

namespace event {

enum Mask : int { kNone = 0, kReadable = 1, kWritable = 2, kBarrier = 4 };

class EventLoop;

// A source of work that can be checked in user space without a system call,
// with an fd notification that can be switched off meanwhile (an RDMA
// completion queue left unarmed). While registered (addPoller) the loop polls
// it instead of waiting for its fd; before blocking, the loop drops every
// poller from its list and re-arms each, so an idle source wakes the loop
// through its fd again.
class Poller {
 public:
  // Checks for work without blocking and without running handlers (work
  // found is handed over the way the source's fd handler would, e.g. marked
  // pending for the before-sleep hook). Returns true if any was found; the
  // loop then does not block in this iteration. Must not add or remove
  // pollers.
  virtual bool poll() = 0;
  // The loop is about to block and has already removed this poller from its
  // list: turn the fd notification back on, then check once more (work that
  // arrived before it was on raises no notification). Returns true if any
  // work was found; the loop then does not block. May call addPoller().
  virtual bool rearm() = 0;

 protected:
  ~Poller() = default;
};

using FileHandler = void (*)(EventLoop* loop, int fd, void* data, int mask);
using TimerId = int64_t;
constexpr int kNoMore = -1;
using TimerHandler = std::function<int(EventLoop* loop, TimerId id)>;

class EventLoop {
 public:
  // setsize: highest fd + 1 the loop can hold; grows on demand.
  explicit EventLoop(int setsize = 1024);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Returns 0, or -1 with errno set (epoll_ctl failed).
  int addFileEvent(int fd, int mask, FileHandler handler, void* data);
  // Removes the given bits (kWritable also clears kBarrier). Never fails.
  void removeFileEvent(int fd, int mask);
  int fileEvents(int fd) const;

  TimerId addTimer(int64_t ms, TimerHandler handler);
  // Safe from inside the timer's own callback. Returns false if unknown.
  bool deleteTimer(TimerId id);

  void setBeforeSleep(std::function<void(EventLoop*)> hook) { before_sleep_ = std::move(hook); }
  void setAfterSleep(std::function<void(EventLoop*)> hook) { after_sleep_ = std::move(hook); }
  void setDontWait(bool on) { dont_wait_ = on; }
  // Busy polling: before blocking, keep polling epoll without sleeping for up
  // to `us` microseconds (never past the nearest timer's deadline), then block
  // as usual. 0 (the default) turns it off; negative counts as 0. Costs CPU
  // while idle; meant for a process with a core of its own.
  void setBusyPoll(int64_t us) { busy_poll_us_ = us > 0 ? us : 0; }
  int64_t busyPollUs() const { return busy_poll_us_; }

  // Registers a poller until the loop next blocks (see Poller). Adding one
  // already registered does nothing. removePoller() is for a source going
  // away; it is safe at any time except from inside Poller::poll().
  void addPoller(Poller* p);
  void removePoller(Poller* p);

  // Runs until stop(). processEvents() runs one iteration; with block=false it
  // never waits. Returns the number of events and timers processed.
  void run();
  void stop() { stop_ = true; }
  int processEvents(bool block);

  static int64_t nowMs();
  // Inline: every command reads it twice (its duration).
  static int64_t nowUs() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
  }

 private:
  struct FileEvent {
    int mask = kNone;
    FileHandler handler = nullptr;
    void* data = nullptr;
  };
  struct Timer {
    TimerHandler handler;
    int64_t when_ms;
    bool deleted = false;
  };
  int processTimers();
  // epoll_wait into fired_, busy polling first when it is on; pollers are
  // polled first and re-armed before blocking.
  int waitForEvents(int timeout_ms);
  // Polls every registered poller; true if any found work.
  bool pollPollers();
  // Empties the poller list, re-arming each; true if any found work.
  bool rearmPollers();
  // Milliseconds until the nearest timer as an epoll_wait timeout: -1 when
  // there is none, 0 when one is due, at most INT_MAX.
  int timerWaitMs() const;
  void grow(int fd);
  uint64_t batch_ = 0;  // bumped by every processEvents (nested ones too)

  int epfd_;
  std::vector<FileEvent> events_;
  std::vector<::epoll_event> fired_;
  std::map<TimerId, Timer> timers_;
  TimerId next_timer_id_ = 1;
  std::function<void(EventLoop*)> before_sleep_;
  std::function<void(EventLoop*)> after_sleep_;
  bool stop_ = false;
  bool dont_wait_ = false;
  int64_t busy_poll_us_ = 0;
  std::vector<Poller*> pollers_;
};

}  // namespace event
