// A fixed set of threads that run parallel steps for the one thread that
// owns the pool (the server's I/O threads, server/request/threaded_io.h).
//
// Contract:
// - run(fn) calls fn(slot) once for every slot 0..size()-1, slot 0 on the
//   calling thread, the others on the workers, and returns when every call
//   has returned. Everything the caller wrote before run() is visible to
//   the calls, and everything they wrote is visible to the caller after it
//   (release/acquire through the step counters).
// - Only the owner thread calls run(); steps never overlap. fn must not
//   call run() itself.
// - Between steps a worker spins for a short while (a busy server hands it
//   the next step within microseconds), then sleeps in the kernel (futex):
//   an idle pool costs no CPU, and waking it costs one system call.
// - Workers block asynchronous signals: they reach the owner's thread.
// - The destructor stops and joins the workers. A forked child must not
//   use the pool (it has no workers).
//
// Module common/: includes only the standard library and the system.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

namespace common {

class WorkerPool {
 public:
  // `threads` counts the caller's own slot: 1 means no worker at all.
  // Each worker calls on_start() first and on_stop() last, on its thread
  // (the server registers the thread with its memory accounting).
  using ThreadHook = void (*)();
  explicit WorkerPool(int threads, ThreadHook on_start = nullptr, ThreadHook on_stop = nullptr);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  template <typename Fn>
  void run(Fn& fn) {
    runStep(&fn, [](void* f, int slot) { (*static_cast<Fn*>(f))(slot); });
  }

  // Steps run since start, and workers found asleep when a step began
  // (for tests and INFO-style figures).
  uint64_t steps() const { return gen_.load(std::memory_order_relaxed); }
  uint64_t wakeups() const { return wakeups_; }

 private:
  using Trampoline = void (*)(void* fn, int slot);
  struct alignas(64) Worker {
    std::thread thread;
    std::atomic<uint32_t> done{0};  // the last step this worker finished
  };

  void runStep(void* fn, Trampoline call);
  void workerMain(int slot);

  // Step counter: workers wait for it to move (futex word).
  alignas(64) std::atomic<uint32_t> gen_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  ThreadHook on_start_ = nullptr;
  ThreadHook on_stop_ = nullptr;
  void* fn_ = nullptr;
  Trampoline call_ = nullptr;
  uint64_t wakeups_ = 0;
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace common
