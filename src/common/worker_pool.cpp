#include "common/worker_pool.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>

namespace common {

namespace {

// How long a worker keeps looking for the next step before it sleeps: a
// few tens of microseconds, about one event-loop iteration of a busy server.
constexpr int kSpinRounds = 4096;

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

void futexWait(std::atomic<uint32_t>* word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr,
          nullptr, 0);
}

void futexWakeAll(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr,
          nullptr, 0);
}

}  // namespace

WorkerPool::WorkerPool(int threads, ThreadHook on_start, ThreadHook on_stop)
    : on_start_(on_start), on_stop_(on_stop) {
  // Every worker's record exists before any thread starts reading them.
  for (int slot = 1; slot < threads; slot++) workers_.push_back(std::make_unique<Worker>());
  for (int slot = 1; slot < threads; slot++) {
    workers_[static_cast<size_t>(slot - 1)]->thread =
        std::thread([this, slot] { workerMain(slot); });
  }
}

WorkerPool::~WorkerPool() {
  stop_.store(true, std::memory_order_seq_cst);
  for (auto& w : workers_) {
    w->go.fetch_add(1, std::memory_order_seq_cst);
    futexWakeAll(&w->go);
  }
  for (auto& w : workers_) w->thread.join();
}

void WorkerPool::runStep(void* fn, Trampoline call, int slots) {
  size_t used = slots <= 0 || slots > size() ? workers_.size() : static_cast<size_t>(slots - 1);
  fn_ = fn;
  call_ = call;
  uint32_t g = ++gen_;
  steps_++;
  for (size_t i = 0; i < used; i++) {
    Worker& w = *workers_[i];
    // seq_cst pairs with the worker's `sleeping` store and re-check: either
    // we see it asleep and wake it, or it sees the step before sleeping.
    w.go.store(g, std::memory_order_seq_cst);
    if (w.sleeping.load(std::memory_order_seq_cst)) {
      wakeups_++;
      futexWakeAll(&w.go);
    }
  }
  call(fn, 0);
  for (size_t i = 0; i < used; i++) {
    Worker& w = *workers_[i];
    // A worker that lost its core (more threads than cores) gets it back
    // sooner if we yield rather than spin on.
    for (int spins = 0; w.done.load(std::memory_order_acquire) != g; spins++) {
      if (spins < kSpinRounds) {
        cpuRelax();
      } else {
        sched_yield();
      }
    }
  }
}

void WorkerPool::workerMain(int slot) {
  // Asynchronous signals (SIGTERM, SIGINT, SIGCHLD, ...) go to the owner's
  // thread, whose loop they must wake; faults stay with the thread at fault.
  sigset_t set;
  sigfillset(&set);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) sigdelset(&set, sig);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  if (on_start_ != nullptr) on_start_();
  Worker& me = *workers_[static_cast<size_t>(slot - 1)];
  uint32_t seen = 0;
  for (;;) {
    uint32_t g = me.go.load(std::memory_order_acquire);
    for (int spins = 0; g == seen; g = me.go.load(std::memory_order_acquire)) {
      if (++spins < kSpinRounds) {
        cpuRelax();
        continue;
      }
      me.sleeping.store(true, std::memory_order_seq_cst);
      if (me.go.load(std::memory_order_seq_cst) == seen) futexWait(&me.go, seen);
      me.sleeping.store(false, std::memory_order_seq_cst);
      spins = 0;
    }
    if (stop_.load(std::memory_order_acquire)) {
      if (on_stop_ != nullptr) on_stop_();
      return;
    }
    seen = g;
    call_(fn_, slot);
    me.done.store(g, std::memory_order_release);
  }
}

}  // namespace common
