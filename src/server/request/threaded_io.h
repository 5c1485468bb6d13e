// I/O threads (io-threads, io-threads-do-reads): the reads and writes of
// clients spread over a pool of threads, while commands keep running on the
// loop's thread only.
//
// Design (fan-out, as Redis 6/7): the loop thread stays the only one that
// runs commands and touches the data set or any shared state. In
// before-sleep it hands the clients with pending replies (and,
// with io-threads-do-reads, the clients whose socket became readable in
// this iteration) to the pool in one step: each thread, the loop thread
// included, reads or writes its share of them; the loop thread waits for
// the step to end, then does the rest in arrival order: runs the requests
// read, installs write handlers, closes the clients that failed. Per-client
// order, MULTI/EXEC, blocking commands, pub/sub, tracking, scripts, the
// replication stream, CLIENT PAUSE and eviction keep their single-thread
// semantics, because nothing but raw I/O happens off the loop thread, and
// only while it waits.
//
// Only clients whose transport says its I/O may run on any thread
// (net::ConnectionType::ioFromAnyThread: all four built-in types) are
// handed out, and the transport gets its afterForeignIo() call after each
// step; the link to the master and the replicas' links are served on the
// loop thread. The threads must be marked with net::markIoThread(). A step
// over N clients uses N / 2 threads (the loop thread counted, up to
// io-threads) and wakes no other; under four clients the loop thread does
// the work alone, and idle threads sleep (common/worker_pool.h: no CPU
// while idle).
//
// Part of request/: includes core/ and common/.
#pragma once

#include <cstdint>
#include <vector>

namespace server {

class Client;

namespace threaded_io {

// Starts the threads (io-threads counts the loop thread: 1 starts none).
// Called once at start-up, after daemonizing. Each thread runs on_start
// first and on_stop before it exits (the memory accounting's registration:
// replies are freed on the threads).
void start(int threads, bool do_reads, void (*on_start)(), void (*on_stop)());
// INFO io_threads_active: 1 while steps are being taken.
bool engaged();
uint64_t readsProcessed();
uint64_t writesProcessed();

// True when the threads may read for clients (io-threads > 1 and
// io-threads-do-reads): client_io then gives clients a read handler that
// asks deferRead() first; other servers' handlers never ask.
bool readsThreaded();
// The read handler's first question: should this client's read wait for
// the next step? True (and the client is queued) under load; one test of a
// flag otherwise.
extern bool g_defer_reads;
bool deferReadSlow(Client* c);
inline bool deferRead(Client* c) {
  return g_defer_reads && deferReadSlow(c);
}
// Before-sleep: reads the queued clients in one step (or on this thread
// when few) and runs their requests in order. From a nested loop inside
// one of those requests, runs the batch's remaining requests (their bytes
// are read already: nothing else would wake the loop for them). Also
// called at accept when maxclients is reached: a queued read may be the
// end of stream of a client that has left.
// Inline tests of a flag each: a server without threads, or with nothing
// queued, pays nothing more per iteration.
extern bool g_reads_queued;
extern bool g_threads_on;
void handleDeferredReadsSlow();
inline void handleDeferredReads() {
  if (g_reads_queued) handleDeferredReadsSlow();
}
// Before-sleep: when the load is worth a step, writes the clients of
// `pending` (the pending-write queue; null entries are skipped) that the
// threads may serve, and takes them out of it; the others stay, in order,
// for the caller to write. Under light load it touches nothing.
void writeInParallelSlow(std::vector<Client*>* pending);
inline void writeInParallel(std::vector<Client*>* pending) {
  if (g_threads_on) writeInParallelSlow(pending);
}
// A client leaving the registry (request/clients.cpp) with kPendingRead.
void forget(Client* c);

}  // namespace threaded_io
}  // namespace server
