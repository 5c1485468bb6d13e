// A fixed set of threads that run parallel steps for the one thread that
// owns the pool (the server's I/O threads, server/request/threaded_io.h).
//
// Contract:
// - run(fn, n) calls fn(slot) once for every slot 0..n-1 (n at most size();
//   all of them by default), slot 0 on the calling thread, the others on
//   the workers, and returns when every call has returned. Everything the
//   caller wrote before run() is visible to the calls, and everything they
//   wrote is visible to the caller after it (release/acquire through the
//   workers' step words). Workers past n are not woken: a light step keeps
//   the rest of the pool asleep.
// - Only the owner thread calls run(); steps never overlap. fn must not
//   call run() itself.
// - Between steps a worker spins for a short while (a busy server hands it
//   the next step within microseconds), then sleeps in the kernel (futex):
//   an idle pool costs no CPU, and waking a worker costs one system call.
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
  void run(Fn& fn, int slots = 0) {
    runStep(
        &fn, [](void* f, int slot) { (*static_cast<Fn*>(f))(slot); }, slots);
  }

  // Steps run since start, and workers found asleep when a step needed
  // them (for tests and INFO-style figures).
  uint64_t steps() const { return steps_; }
  uint64_t wakeups() const { return wakeups_; }

 private:
  using Trampoline = void (*)(void* fn, int slot);
  struct alignas(64) Worker {
    std::thread thread;
    // The step this worker is to run (its futex word), and the last one it
    // finished; equal while it has nothing to do.
    std::atomic<uint32_t> go{0};
    std::atomic<uint32_t> done{0};
    std::atomic<bool> sleeping{false};
  };

  void runStep(void* fn, Trampoline call, int slots);
  void workerMain(int slot);

  uint32_t gen_ = 0;  // the owner's step counter
  uint64_t steps_ = 0;
  std::atomic<bool> stop_{false};
  ThreadHook on_start_ = nullptr;
  ThreadHook on_stop_ = nullptr;
  void* fn_ = nullptr;
  Trampoline call_ = nullptr;
  uint64_t wakeups_ = 0;
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace common
