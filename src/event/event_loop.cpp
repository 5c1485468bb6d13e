#include "event/event_loop.h"

#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>

namespace event {

EventLoop::EventLoop(int setsize) : events_(setsize), fired_(setsize) {
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epfd_ == -1) {
    perror("epoll_create1");
    abort();
  }
}

EventLoop::~EventLoop() {
  close(epfd_);
}

void EventLoop::grow(int fd) {
  if (fd < static_cast<int>(events_.size())) return;
  size_t n = events_.size();
  while (static_cast<int>(n) <= fd) n *= 2;
  events_.resize(n);
  fired_.resize(n);
}

static uint32_t toEpoll(int mask) {
  uint32_t ev = 0;
  if (mask & kReadable) ev |= EPOLLIN;
  if (mask & kWritable) ev |= EPOLLOUT;
  return ev;
}

int EventLoop::addFileEvent(int fd, int mask, FileHandler handler, void* data) {
  grow(fd);
  FileEvent& fe = events_[fd];
  int merged = fe.mask | mask;
  struct epoll_event ee = {};
  ee.events = toEpoll(merged);
  ee.data.fd = fd;
  int op = fe.mask == kNone ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
  if (epoll_ctl(epfd_, op, fd, &ee) == -1) return -1;
  fe.mask = merged;
  fe.handler = handler;
  fe.data = data;
  return 0;
}

void EventLoop::removeFileEvent(int fd, int mask) {
  if (fd < 0 || fd >= static_cast<int>(events_.size())) return;
  FileEvent& fe = events_[fd];
  if (fe.mask == kNone) return;
  if (mask & kWritable) mask |= kBarrier;
  int left = fe.mask & ~mask;
  struct epoll_event ee = {};
  ee.events = toEpoll(left);
  ee.data.fd = fd;
  if ((left & (kReadable | kWritable)) != 0) {
    epoll_ctl(epfd_, EPOLL_CTL_MOD, fd, &ee);
    fe.mask = left;
  } else {
    // The fd may already be closed; then the kernel has dropped it already.
    epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, &ee);
    fe.mask = kNone;
  }
}

int EventLoop::fileEvents(int fd) const {
  if (fd < 0 || fd >= static_cast<int>(events_.size())) return kNone;
  return events_[fd].mask;
}

TimerId EventLoop::addTimer(int64_t ms, TimerHandler handler) {
  TimerId id = next_timer_id_++;
  timers_.emplace(id, Timer{std::move(handler), nowMs() + ms});
  return id;
}

bool EventLoop::deleteTimer(TimerId id) {
  auto it = timers_.find(id);
  if (it == timers_.end() || it->second.deleted) return false;
  // Marked, not erased: the timer may be running right now.
  it->second.deleted = true;
  return true;
}

int64_t EventLoop::nowMs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

int EventLoop::timerWaitMs() const {
  int64_t nearest = -1;
  for (const auto& [id, t] : timers_) {
    if (t.deleted) continue;
    if (nearest == -1 || t.when_ms < nearest) nearest = t.when_ms;
  }
  if (nearest == -1) return -1;
  int64_t d = nearest - nowMs();
  return static_cast<int>(std::clamp<int64_t>(d, 0, INT_MAX));
}

int EventLoop::processTimers() {
  int processed = 0;
  int64_t now = nowMs();
  // Timers added by callbacks in this pass get ids above this one and wait
  // for the next pass, so a callback cannot starve the loop.
  TimerId max_id = next_timer_id_ - 1;
  for (auto it = timers_.begin(); it != timers_.end();) {
    if (it->second.deleted) {
      it = timers_.erase(it);
      continue;
    }
    if (it->first > max_id || it->second.when_ms > now) {
      ++it;
      continue;
    }
    TimerId id = it->first;
    // Copy: the callback may add timers, which must not invalidate what runs.
    TimerHandler h = it->second.handler;
    int next = h(this, id);
    processed++;
    it = timers_.find(id);
    if (it == timers_.end()) break;  // cannot happen: erase is deferred
    if (next == kNoMore || it->second.deleted) {
      it = timers_.erase(it);
    } else {
      it->second.when_ms = nowMs() + next;
      ++it;
    }
    now = nowMs();
  }
  return processed;
}

void EventLoop::addPoller(Poller* p) {
  if (std::find(pollers_.begin(), pollers_.end(), p) == pollers_.end()) pollers_.push_back(p);
}

void EventLoop::removePoller(Poller* p) {
  pollers_.erase(std::remove(pollers_.begin(), pollers_.end(), p), pollers_.end());
}

bool EventLoop::pollPollers() {
  bool found = false;
  for (Poller* p : pollers_) found |= p->poll();
  return found;
}

bool EventLoop::rearmPollers() {
  // Swapped out first: rearm() may register its poller again.
  std::vector<Poller*> list;
  list.swap(pollers_);
  bool found = false;
  for (Poller* p : list) found |= p->rearm();
  return found;
}

int EventLoop::waitForEvents(int timeout_ms) {
  const int size = static_cast<int>(fired_.size());
  // Once per iteration whatever epoll reports: a poller's fd is silent, so a
  // loop kept busy by other fds would otherwise never hear of its work.
  if (!pollers_.empty() && pollPollers()) timeout_ms = 0;
  if (timeout_ms != 0 && busy_poll_us_ > 0) {
    // A thread that never sleeps is never woken: neither this loop nor the
    // peer whose write makes an fd ready pays for a wake-up, which on loopback
    // and RDMA costs more than the request itself. The spin ends at the
    // nearest timer so that timers keep their deadlines.
    int64_t start = nowUs();
    int64_t end = start + busy_poll_us_;
    if (timeout_ms > 0) end = std::min(end, start + int64_t{timeout_ms} * 1000);
    do {
      int n = epoll_wait(epfd_, fired_.data(), size, 0);
      if (n != 0) return n;
      if (!pollers_.empty() && pollPollers()) return 0;
    } while (nowUs() < end);
    if (timeout_ms > 0) timeout_ms = timerWaitMs();
  }
  if (timeout_ms != 0 && !pollers_.empty() && rearmPollers()) timeout_ms = 0;
  return epoll_wait(epfd_, fired_.data(), size, timeout_ms);
}

int EventLoop::processEvents(bool block) {
  if (before_sleep_) before_sleep_(this);
  int timeout = -1;
  if (!block || dont_wait_) {
    timeout = 0;
  } else {
    timeout = timerWaitMs();
  }
  dont_wait_ = false;
  int n = waitForEvents(timeout);
  if (after_sleep_) after_sleep_(this);
  int processed = 0;
  // A handler may run the loop itself (serving clients during a long load
  // or script), which refills fired_: the rest of this batch is then stale
  // and left alone (every fd is level-triggered: what is still ready is
  // reported again).
  uint64_t batch = ++batch_;
  for (int i = 0; i < n && batch_ == batch; i++) {
    int fd = fired_[i].data.fd;
    uint32_t ev = fired_[i].events;
    int what = kNone;
    if (ev & EPOLLIN) what |= kReadable;
    if (ev & EPOLLOUT) what |= kWritable;
    if (ev & (EPOLLERR | EPOLLHUP)) what |= kReadable | kWritable;
    // Re-read the registration before each call: an earlier handler in this
    // batch (or the first half of this one) may have removed or replaced it.
    FileEvent* fe = &events_[fd];
    bool invert = fe->mask & kBarrier;
    bool fired_one = false;
    if (!invert && (fe->mask & what & kReadable)) {
      fe->handler(this, fd, fe->data, kReadable);
      fired_one = true;
      fe = &events_[fd];
    }
    if (fe->mask & what & kWritable) {
      fe->handler(this, fd, fe->data, kWritable);
      fired_one = true;
      fe = &events_[fd];
    }
    if (invert && (fe->mask & what & kReadable)) {
      fe->handler(this, fd, fe->data, kReadable);
      fired_one = true;
    }
    if (fired_one) processed++;
  }
  processed += processTimers();
  return processed;
}

void EventLoop::run() {
  stop_ = false;
  while (!stop_) processEvents(true);
}

}  // namespace event
