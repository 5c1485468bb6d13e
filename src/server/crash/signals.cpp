#include "server/crash/signals.h"

#include <execinfo.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>

#include "common/log.h"
#include "server/crash/crash_report.h"
#include "server/crash/safe_out.h"

namespace server::crash {

namespace {

volatile sig_atomic_t g_shutdown = 0;  // the signal that asked, 0: none

// Room for the crash handler to run when the fault is a stack overflow.
constexpr size_t kAltStackBytes = 64 * 1024;
alignas(16) char g_alt_stack[kAltStackBytes];

// Removes the foreground save's temp file (temp-<pid>.rdb in the working
// directory, which is `dir`): a second SIGINT may land in the middle of the
// shutdown's own save. Only async-signal-safe calls.
void removeSaveTempFile() {
  char digits[24];
  int n = 0;
  for (long v = static_cast<long>(getpid()); v > 0 && n < 24; v /= 10)
    digits[n++] = static_cast<char>('0' + v % 10);
  char name[48] = "temp-";
  size_t len = 5;
  while (n > 0) name[len++] = digits[--n];
  for (const char* t = ".rdb"; *t;) name[len++] = *t++;
  name[len] = '\0';
  unlink(name);
}

void onShutdownSignal(int sig) {
  SafeOut out(common::logging::outputFd());
  out.dec(getpid()).str(":signal-handler (").dec(static_cast<int64_t>(time(nullptr))).str(") ");
  if (g_shutdown && sig == SIGINT) {
    out.str("You insist... exiting now.\n");
    out.flush();
    removeSaveTempFile();
    _exit(1);
  }
  out.str(sig == SIGINT    ? "Received SIGINT scheduling shutdown...\n"
          : sig == SIGTERM ? "Received SIGTERM scheduling shutdown...\n"
                           : "Received shutdown signal, scheduling shutdown...\n");
  g_shutdown = sig;
}

void onFatalSignal(int sig, siginfo_t* info, void* ucontext) {
  reportCrash(sig, info, ucontext);
}

void onWatchdogAlarm(int, siginfo_t*, void* ucontext) {
  reportWatchdog(ucontext);
}

bool g_watchdog_armed = false;

}  // namespace

void installSignalHandlers() {
  rememberTimeZone();
  // backtrace() loads its unwinder on first use, which allocates: do it now
  // rather than inside a crash.
  void* warm[1];
  backtrace(warm, 1);

  signal(SIGHUP, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);

  struct sigaction sa = {};
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = onShutdownSignal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);

  stack_t ss = {};
  ss.ss_sp = g_alt_stack;
  ss.ss_size = sizeof(g_alt_stack);
  sigaltstack(&ss, nullptr);

  struct sigaction fatal = {};
  sigemptyset(&fatal.sa_mask);
  // One shot (a fault inside the report kills with the default action) and
  // not blocked while handled, so the final raise() takes effect at once.
  fatal.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER | SA_ONSTACK;
  fatal.sa_sigaction = onFatalSignal;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &fatal, nullptr);

  struct sigaction wd = {};
  sigemptyset(&wd.sa_mask);
  wd.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  wd.sa_sigaction = onWatchdogAlarm;
  sigaction(SIGALRM, &wd, nullptr);
}

void armWatchdog(int64_t period_ms, int64_t hz) {
  if (period_ms <= 0 && !g_watchdog_armed) return;
  if (period_ms > 0) period_ms = std::max<int64_t>(period_ms, 2 * 1000 / std::max<int64_t>(hz, 1));
  struct itimerval it = {};
  it.it_value.tv_sec = period_ms / 1000;
  it.it_value.tv_usec = (period_ms % 1000) * 1000;
  setitimer(ITIMER_REAL, &it, nullptr);
  g_watchdog_armed = period_ms > 0;
}

bool shutdownRequested() {
  return g_shutdown != 0;
}

int shutdownSignal() {
  return g_shutdown;
}

void clearShutdownRequest() {
  g_shutdown = 0;
}

}  // namespace server::crash
