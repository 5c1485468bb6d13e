// The bug report written when the server dies of a fault, in the shape of
// Redis 7.0's (tools and people grep for its banners):
//
//   === REDIS BUG REPORT START: Cut & paste starting from here ===
//   <log prefix> Redis 7.0.15 crashed by signal: 11, si_code: 2
//   <log prefix> Accessing address: 0x...          (SIGSEGV, SIGBUS)
//   <log prefix> Killed by PID: <pid>, UID: <uid>  (sent with kill)
//   <log prefix> Crashed running the instruction at: 0x...
//   ------ STACK TRACE ------        EIP: and Backtrace: (backtrace_symbols_fd)
//   ------ REGISTERS ------          (x86-64)
//   ------ CURRENT CLIENT INFO ------ the running command's arguments
//   ------ INFO OUTPUT ------         INFO all
//   ------ CLIENT LIST OUTPUT ------
//   === REDIS BUG REPORT END. Make sure to include from START to END. ===
//
// Everything up to the current client's arguments uses async-signal-safe
// calls only, so it is written even when the fault happened inside the
// allocator. INFO and CLIENT LIST need the allocator; they come last, under
// a watchdog alarm: if they cannot finish (a lock held by the faulting
// code) the process still dies by the original signal within seconds.
#pragma once

#include <signal.h>

namespace server::crash {

// The fatal-signal handler's body: writes the report, then re-raises sig
// with its default action. Does not return.
[[noreturn]] void reportCrash(int sig, siginfo_t* info, void* ucontext);

// The software watchdog's alarm (signals.h): the stack the main thread is
// in, between "--- WATCHDOG TIMER EXPIRED ---" and "--------" lines, as
// Redis logs it. The process goes on.
void reportWatchdog(void* ucontext);

// A failed assertion (DEBUG ASSERT): the report with "=== ASSERTION FAILED
// ===" and "==> file:line 'expr' is not true" in place of the signal lines,
// then death by SIGABRT, as Redis.
[[noreturn]] void assertFailed(const char* file, int line, const char* expr);

}  // namespace server::crash
