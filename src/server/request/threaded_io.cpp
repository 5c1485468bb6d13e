#include "server/request/threaded_io.h"

#include <sys/types.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>

#include "common/log.h"
#include "common/worker_pool.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/request/client_io.h"

namespace server::threaded_io {

bool g_defer_reads = false;
bool g_reads_queued = false;
bool g_threads_on = false;

namespace {

// Each thread reads into an arena of its own, one window per client, kept
// until the loop thread has run the requests; a client that finds less than
// one read's room left reads into its private buffer instead.
constexpr size_t kArenaBytes = 256 * 1024;
constexpr size_t kReadRoom = 16 * 1024;
// Light write passes in a row after which reads stop being deferred.
constexpr int kLightPasses = 32;
// Clients with work per thread of a step (Redis's threshold: 2).
constexpr size_t kJobsPerSlot = 2;

struct ReadJob {
  Client* c;  // null: freed before its turn
  ssize_t n;
  const char* base;
  size_t len;
};

struct WriteJob {
  Client* c;
  uint64_t written;
  bool ok;
};

struct State {
  std::unique_ptr<common::WorkerPool> pool;
  bool do_reads = false;
  // Clients with work per thread of a step (writes or reads): a step uses
  // jobs / per_slot threads, the main thread included, up to all of them;
  // under two, the main thread does the work alone.
  size_t per_slot = kJobsPerSlot;
  bool engaged = false;   // a recent write pass was a step
  int light_passes = 0;   // light write passes since the last step
  bool in_reads = false;  // handleDeferredReads is running its batch
  size_t next_read = 0;   // the batch's next read to run
  std::vector<Client*> deferred;
  std::vector<ReadJob> reads;
  std::vector<WriteJob> writes;
  std::vector<std::vector<char>> arenas;
  uint64_t reads_processed = 0;
  uint64_t writes_processed = 0;
};

State& st() {
  static State s;
  return s;
}

// Clients an I/O thread may serve: a plain client on a transport whose I/O
// may run on any thread. The replication links keep their own ordering
// with the stream and the RDB transfer: loop thread only.
bool threadable(const Client* c) {
  return c->conn() != nullptr && c->conn()->type().ioFromAnyThread() &&
         !(c->flags & (kMaster | kReplica));
}

// Slot `slot`'s share [begin, end) of n jobs, in contiguous blocks (no two
// threads write next to each other's records).
std::pair<size_t, size_t> share(size_t n, int slot, int slots) {
  size_t per = (n + static_cast<size_t>(slots) - 1) / static_cast<size_t>(slots);
  size_t begin = std::min(n, per * static_cast<size_t>(slot));
  return {begin, std::min(n, begin + per)};
}

// Threads a step over `jobs` clients uses (the main thread counted), or
// 1: not worth a step.
int slotsFor(const State& s, size_t jobs) {
  if (s.pool == nullptr || jobs == 0) return 1;
  if (s.per_slot == 0) return s.pool->size();
  return static_cast<int>(std::min<size_t>(jobs / s.per_slot, static_cast<size_t>(s.pool->size())));
}

}  // namespace

void start(int threads, bool do_reads, void (*on_start)(), void (*on_stop)()) {
  State& s = st();
  if (threads <= 1 || s.pool != nullptr) return;
  s.pool = std::make_unique<common::WorkerPool>(threads, on_start, on_stop);
  s.do_reads = do_reads;
  // The test suite's threaded pass: every thread in every step, so that
  // the threads serve the few clients of each test (tests/README.md).
  const char* always = getenv("IO_THREADS_ALWAYS");
  if (always != nullptr && strcmp(always, "1") == 0) {
    s.per_slot = 0;
    LOG_WARNING("IO_THREADS_ALWAYS=1: the I/O threads serve every client (a test setting)");
  }
  s.arenas.resize(static_cast<size_t>(threads));
  for (auto& a : s.arenas) a.resize(kArenaBytes);
  g_threads_on = true;
}

bool readsThreaded() {
  return st().pool != nullptr && st().do_reads;
}

bool engaged() {
  return st().engaged;
}

uint64_t readsProcessed() {
  return st().reads_processed;
}

uint64_t writesProcessed() {
  return st().writes_processed;
}

bool deferReadSlow(Client* c) {
  // Inside a nested loop (a busy script, a load) the outer iteration's
  // before-sleep is far away: read at once, as without threads.
  if (g_server->nestedLoops() > 0 || (c->flags & kPendingRead) || !threadable(c)) return false;
  c->flags |= kPendingRead;
  st().deferred.push_back(c);
  g_reads_queued = true;
  return true;
}

void forget(Client* c) {
  State& s = st();
  for (Client*& d : s.deferred) {
    if (d == c) d = nullptr;
  }
  for (ReadJob& j : s.reads) {
    if (j.c == c) j.c = nullptr;
  }
  c->flags &= ~kPendingRead;
}

// Runs the batch's reads from the next one not yet run. Re-entered from a
// nested loop (a busy script started by an earlier request of the batch):
// the later clients' bytes are already read, so their socket will not wake
// the nested loop; they are run there, as the serial path would (-BUSY).
void runReadJobs(State& s) {
  while (s.next_read < s.reads.size()) {
    ReadJob j = s.reads[s.next_read++];
    if (j.c == nullptr) continue;
    j.c->flags &= ~kPendingRead;
    if (j.c->flags & kCloseAsap) continue;
    afterThreadedRead(j.c, j.n, j.base, j.len);
  }
}

void handleDeferredReadsSlow() {
  State& s = st();
  if (s.in_reads) {
    runReadJobs(s);
    return;
  }
  g_reads_queued = false;
  if (s.deferred.empty()) return;
  s.reads.clear();
  for (Client* c : s.deferred) {
    if (c != nullptr) s.reads.push_back({c, 0, nullptr, 0});
  }
  s.deferred.clear();
  int slots = slotsFor(s, s.reads.size());
  if (slots > 1) {
    auto step = [&s, slots](int slot) {
      auto [begin, end] = share(s.reads.size(), slot, slots);
      std::vector<char>& arena = s.arenas[static_cast<size_t>(slot)];
      size_t used = 0;
      for (size_t i = begin; i < end; i++) {
        ReadJob& j = s.reads[i];
        if (j.c->flags & kCloseAsap) continue;
        char* dst = arena.size() - used >= kReadRoom ? arena.data() + used : nullptr;
        j.n = j.c->readInput(dst, dst != nullptr ? kReadRoom : 0, &j.base, &j.len);
        if (j.n > 0 && dst != nullptr && j.base == dst) used += static_cast<size_t>(j.n);
      }
    };
    s.pool->run(step, slots);
    s.reads_processed += s.reads.size();
    // Before any request runs: the transports catch up on their shared
    // state (every client of the batch is still alive here).
    for (ReadJob& j : s.reads) j.c->conn()->afterForeignIo();
  } else {
    for (ReadJob& j : s.reads) {
      if (j.c->flags & kCloseAsap) continue;
      j.n = j.c->readInput(g_server->shared_qbuf.data(), g_server->shared_qbuf.size(), &j.base,
                           &j.len);
    }
  }
  // In arrival order. A request may free a later client of the batch
  // (CLIENT KILL); forget() then clears its record.
  // Raised while the batch runs, so that a nested loop's call comes in.
  s.in_reads = true;
  g_reads_queued = true;
  s.next_read = 0;
  runReadJobs(s);
  s.reads.clear();
  s.in_reads = false;
  g_reads_queued = !s.deferred.empty();
}

void writeInParallelSlow(std::vector<Client*>* pending) {
  State& s = st();
  // An iteration with nothing to write (a timer, a close) says nothing of
  // the load: the threads stay engaged or not as they were.
  if (s.pool == nullptr || pending->empty()) return;
  int slots = slotsFor(s, pending->size());
  // Under light load one thread is faster than a step's hand-over: write
  // on the loop thread. The reads go back to it after a run of light
  // passes only, so that a lull between bursts does not flap them.
  if (slots < 2) {
    if (s.engaged && ++s.light_passes >= kLightPasses) {
      s.engaged = false;
      g_defer_reads = false;
    }
    return;
  }
  s.light_passes = 0;
  s.engaged = true;
  g_defer_reads = s.do_reads;
  // The threads take the threadable clients; the others stay in the
  // queue, in order, for the caller's own loop.
  s.writes.clear();
  size_t kept = 0;
  for (Client* c : *pending) {
    if (c == nullptr) continue;
    if (!threadable(c) || (c->flags & kCloseAsap)) {
      (*pending)[kept++] = c;
      continue;
    }
    c->flags &= ~kPendingWrite;
    s.writes.push_back({c, 0, true});
  }
  pending->resize(kept);
  auto step = [&s, slots](int slot) {
    auto [begin, end] = share(s.writes.size(), slot, slots);
    for (size_t i = begin; i < end; i++) {
      WriteJob& j = s.writes[i];
      j.ok = j.c->writeReplies(&j.written);
    }
  };
  s.pool->run(step, slots);
  s.writes_processed += s.writes.size();
  for (const WriteJob& j : s.writes) j.c->conn()->afterForeignIo();
  for (const WriteJob& j : s.writes) afterWrite(j.c, j.ok, j.written);
}

}  // namespace server::threaded_io
