// Process signals, handled as Redis 7.0 handles them:
// - SIGHUP and SIGPIPE are ignored (a closed terminal or peer kills nothing).
// - SIGTERM and SIGINT schedule an orderly shutdown; the handler itself logs
//   "<pid>:signal-handler (<unix time>) Received SIGINT scheduling
//   shutdown..." (or SIGTERM). A second SIGINT while the shutdown is
//   pending logs "You insist... exiting now.", removes the temp file of a
//   save under way in this process (temp-<pid>.rdb) and exits at once
//   with 1.
// - SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT write a bug report
//   (crash_report.h), then the process dies by the same signal, so its exit
//   status and core dump are the ones the fault would have given.
// - SIGALRM is the software watchdog's (watchdog-period, a debugging aid as
//   in Redis): the log gets the main thread's stack when the event loop
//   did not come back to its cron within the period. Interrupted system
//   calls restart.
//
// Module crash/ (namespace server::crash): may include core/ and common/;
// its one include that runs up is commands/server/introspection.h (the
// report's INFO sections). Included by the top and commands/ (DEBUG
// SEGFAULT and friends).
#pragma once

#include <cstdint>

namespace server::crash {

// Installs every handler above. Call once, at start, after the log is open.
void installSignalHandlers();

// True once SIGTERM or SIGINT asked for a shutdown (polled by the cron),
// until the shutdown ends or is given up (a second SIGINT meanwhile exits
// at once).
bool shutdownRequested();
// The signal (SIGINT, SIGTERM) of the pending request; 0 when none.
int shutdownSignal();
// The server could not shut down (a failed save): a later SIGTERM asks again.
void clearShutdownRequest();

// From the cron of the outer event loop: (re)arms the watchdog's one-shot
// timer for period_ms (at least two cron periods, as Redis), or stops it
// with 0.
void armWatchdog(int64_t period_ms, int64_t hz);

}  // namespace server::crash
