#include "common/worker_pool.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <thread>
#include <vector>

namespace common {
namespace {

TEST(WorkerPool, EverySlotRunsOncePerStepAndTheCallerSeesTheirWrites) {
  WorkerPool pool(4);
  ASSERT_EQ(pool.size(), 4);
  std::vector<int> hits(4, 0);
  std::vector<std::thread::id> who(4);
  for (int step = 0; step < 1000; step++) {
    auto fn = [&](int slot) {
      hits[static_cast<size_t>(slot)]++;  // plain writes: the step publishes them
      who[static_cast<size_t>(slot)] = std::this_thread::get_id();
    };
    pool.run(fn);
  }
  for (int h : hits) EXPECT_EQ(h, 1000);
  EXPECT_EQ(who[0], std::this_thread::get_id());  // slot 0 is the caller's
  for (size_t i = 1; i < who.size(); i++) EXPECT_NE(who[i], who[0]);
  EXPECT_EQ(pool.steps(), 1000u);
}

TEST(WorkerPool, ALightStepUsesTheFirstSlotsAndLeavesTheOthersAsleep) {
  WorkerPool pool(6);
  std::vector<int> hits(6, 0);
  auto fn = [&](int slot) { hits[static_cast<size_t>(slot)]++; };
  pool.run(fn);                                                 // every slot once
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // all asleep now
  uint64_t woken = pool.wakeups();
  pool.run(fn, 3);                        // slots 0, 1, 2
  EXPECT_EQ(pool.wakeups() - woken, 2u);  // only the two workers it needed
  pool.run(fn, 1);                        // the caller alone
  pool.run(fn);                           // all again: the skipped ones take this step normally
  EXPECT_EQ(hits, (std::vector<int>{4, 3, 3, 2, 2, 2}));
}

TEST(WorkerPool, ASingleSlotPoolRunsOnTheCaller) {
  WorkerPool pool(1);
  int calls = 0;
  auto fn = [&](int slot) {
    EXPECT_EQ(slot, 0);
    calls++;
  };
  pool.run(fn);
  EXPECT_EQ(calls, 1);
}

TEST(WorkerPool, IdleWorkersSleepAndAreWokenByTheNextStep) {
  WorkerPool pool(3);
  std::vector<uint64_t> sums(3, 0);
  auto fn = [&](int slot) { sums[static_cast<size_t>(slot)] += static_cast<uint64_t>(slot) + 1; };
  pool.run(fn);
  // Long past the spinning phase: the workers are in the kernel now, and
  // the next step has to wake them (and still completes).
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  pool.run(fn);
  EXPECT_GE(pool.wakeups(), 1u);
  EXPECT_EQ(sums[0], 2u);
  EXPECT_EQ(sums[1], 4u);
  EXPECT_EQ(sums[2], 6u);
}

TEST(WorkerPool, WorkersLeaveAsynchronousSignalsToTheOwner) {
  WorkerPool pool(3);
  std::vector<int> term_blocked(3, -1), segv_blocked(3, -1);
  auto fn = [&](int slot) {
    sigset_t cur;
    pthread_sigmask(SIG_BLOCK, nullptr, &cur);
    term_blocked[static_cast<size_t>(slot)] = sigismember(&cur, SIGTERM);
    segv_blocked[static_cast<size_t>(slot)] = sigismember(&cur, SIGSEGV);
  };
  pool.run(fn);
  EXPECT_EQ(term_blocked[0], 0);  // the caller's mask is untouched
  for (size_t i = 1; i < 3; i++) {
    EXPECT_EQ(term_blocked[i], 1);
    EXPECT_EQ(segv_blocked[i], 0);  // a fault is still the faulting thread's
  }
}

TEST(WorkerPool, DestroyingAPoolWithSleepingWorkersJoinsThem) {
  auto pool = std::make_unique<WorkerPool>(8);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  pool.reset();  // must return: every worker is woken and told to stop
  SUCCEED();
}

}  // namespace
}  // namespace common
