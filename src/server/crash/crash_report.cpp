#include "server/crash/crash_report.h"

#include <execinfo.h>
#include <ucontext.h>
#include <unistd.h>

#include <string>

#include "common/log.h"
#include "server/commands/server/introspection.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/core/version.h"
#include "server/crash/safe_out.h"

namespace server::crash {

namespace {

constexpr int kMaxFrames = 100;
constexpr size_t kMaxArgs = 128;          // arguments of the current command shown
constexpr size_t kMaxArgBytes = 1024;     // bytes shown per argument
constexpr unsigned kWatchdogSeconds = 5;  // for the parts that allocate

volatile sig_atomic_t g_dying_signal = SIGABRT;

[[noreturn]] void dieBy(int sig) {
  struct sigaction dfl = {};
  sigemptyset(&dfl.sa_mask);
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
  _exit(128 + sig);  // only if the signal was somehow ignored
}

void onWatchdog(int) {
  SafeOut out(common::logging::outputFd());
  out.str("\n").logPrefix().str("Crash report cut short: INFO or CLIENT LIST did not finish.\n");
  out.flush();
  dieBy(g_dying_signal);
}

// From here on a second fault is not reported again: it kills directly.
void resetFatalHandlers() {
  struct sigaction dfl = {};
  sigemptyset(&dfl.sa_mask);
  dfl.sa_handler = SIG_DFL;
  for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(s, &dfl, nullptr);
}

void startBanner(SafeOut& out) {
  out.str("\n\n=== REDIS BUG REPORT START: Cut & paste starting from here ===\n");
}

void stackTrace(SafeOut& out, void* pc) {
  out.str("\n------ STACK TRACE ------\n");
  int fd = common::logging::outputFd();
  if (pc != nullptr) {
    out.str("EIP:\n").flush();
    backtrace_symbols_fd(&pc, 1, fd);
  }
  out.str("\nBacktrace:\n").flush();
  void* frames[kMaxFrames];
  int n = backtrace(frames, kMaxFrames);
  backtrace_symbols_fd(frames, n, fd);
}

void registers(SafeOut& out, void* ucontext) {
#if defined(__x86_64__)
  if (ucontext == nullptr) return;
  const greg_t* r = static_cast<ucontext_t*>(ucontext)->uc_mcontext.gregs;
  struct Reg {
    const char* name;
    int index;
  };
  static const Reg kRegs[] = {
      {"RAX", REG_RAX}, {"RBX", REG_RBX}, {"RCX", REG_RCX}, {"RDX", REG_RDX}, {"RDI", REG_RDI},
      {"RSI", REG_RSI}, {"RBP", REG_RBP}, {"RSP", REG_RSP}, {"R8 ", REG_R8},  {"R9 ", REG_R9},
      {"R10", REG_R10}, {"R11", REG_R11}, {"R12", REG_R12}, {"R13", REG_R13}, {"R14", REG_R14},
      {"R15", REG_R15}, {"RIP", REG_RIP}, {"EFL", REG_EFL}};
  out.str("\n------ REGISTERS ------\n");
  int col = 0;
  for (const Reg& reg : kRegs) {
    out.str(reg.name).str(":").hex(static_cast<uint64_t>(r[reg.index]), 16);
    out.str(++col % 2 == 0 ? "\n" : " ");
  }
#else
  (void)out;
  (void)ucontext;
#endif
}

void* faultingPc(void* ucontext) {
  if (ucontext == nullptr) return nullptr;
#if defined(__x86_64__)
  return reinterpret_cast<void*>(static_cast<ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return reinterpret_cast<void*>(static_cast<ucontext_t*>(ucontext)->uc_mcontext.pc);
#else
  return nullptr;
#endif
}

void currentClient(SafeOut& out) {
  Client* c = g_server != nullptr ? g_server->current_client : nullptr;
  if (c == nullptr) return;
  out.str("\n------ CURRENT CLIENT INFO ------\n");
  out.str("id=").dec(static_cast<int64_t>(c->id())).str(" name=");
  out.bytes(c->name().data(), c->name().size());
  out.str(" db=").dec(c->dbIndex()).str(" argc=").dec(static_cast<int64_t>(c->argc())).str("\n");
  size_t shown = c->argc() < kMaxArgs ? c->argc() : kMaxArgs;
  for (size_t i = 0; i < shown; i++) {
    std::string_view a = c->arg(i);
    out.str("argv[").dec(static_cast<int64_t>(i)).str("]: '");
    out.quoted(a.data(), a.size(), kMaxArgBytes).str("'\n");
  }
  if (shown < c->argc()) {
    out.str("... and ").dec(static_cast<int64_t>(c->argc() - shown)).str(" more arguments\n");
  }
}

// The parts that allocate, under the watchdog.
void infoAndClients(SafeOut& out) {
  if (g_server == nullptr) return;
  struct sigaction wd = {};
  sigemptyset(&wd.sa_mask);
  wd.sa_handler = onWatchdog;
  sigaction(SIGALRM, &wd, nullptr);
  alarm(kWatchdogSeconds);
  try {
    out.str("\n------ INFO OUTPUT ------\n");
    std::string info = genInfoString(parseInfoSections({"all"}));
    out.bytes(info.data(), info.size());
    out.str("\n------ CLIENT LIST OUTPUT ------\n");
    for (Client* c : g_server->clients) {
      std::string line;
      formatClientLine(describeClient(c), &line);
      out.bytes(line.data(), line.size());
    }
  } catch (...) {
    out.str("(cut short: out of memory)\n");
  }
  alarm(0);
}

void endBanner(SafeOut& out) {
  out.str("\n=== REDIS BUG REPORT END. Make sure to include from START to END. ===\n\n");
  out.str(
      "  This server crashed. Please report it with the report above (from START to END)\n"
      "  and the steps that led to it.\n\n");
}

}  // namespace

void reportCrash(int sig, siginfo_t* info, void* ucontext) {
  g_dying_signal = sig;
  resetFatalHandlers();
  SafeOut out(common::logging::outputFd());
  startBanner(out);
  out.logPrefix().str("Redis ").str(kRedisVersion).str(" crashed by signal: ").dec(sig);
  out.str(", si_code: ").dec(info != nullptr ? info->si_code : 0).str("\n");
  if (info != nullptr && (sig == SIGSEGV || sig == SIGBUS)) {
    out.logPrefix().str("Accessing address: 0x");
    out.hex(reinterpret_cast<uintptr_t>(info->si_addr)).str("\n");
  }
  if (info != nullptr && info->si_code == SI_USER && info->si_pid != -1) {
    out.logPrefix().str("Killed by PID: ").dec(info->si_pid);
    out.str(", UID: ").dec(info->si_uid).str("\n");
  }
  void* pc = faultingPc(ucontext);
  if (pc != nullptr) {
    out.logPrefix().str("Crashed running the instruction at: 0x");
    out.hex(reinterpret_cast<uintptr_t>(pc)).str("\n");
  }
  stackTrace(out, pc);
  registers(out, ucontext);
  currentClient(out);
  out.flush();
  infoAndClients(out);
  endBanner(out);
  out.flush();
  dieBy(sig);
}

void reportWatchdog(void* ucontext) {
  SafeOut out(common::logging::outputFd());
  out.str("\n").logPrefix().str("--- WATCHDOG TIMER EXPIRED ---\n");
  stackTrace(out, faultingPc(ucontext));
  out.flush();
  out.logPrefix().str("--------\n\n");
}

void assertFailed(const char* file, int line, const char* expr) {
  g_dying_signal = SIGABRT;
  resetFatalHandlers();
  SafeOut out(common::logging::outputFd());
  startBanner(out);
  out.logPrefix().str("=== ASSERTION FAILED ===\n");
  out.logPrefix().str("==> ").str(file).str(":").dec(line).str(" '").str(expr);
  out.str("' is not true\n");
  stackTrace(out, nullptr);
  currentClient(out);
  out.flush();
  infoAndClients(out);
  endBanner(out);
  out.flush();
  // use-exit-on-panic: an exit instead of a signal (as Redis, for tools
  // that treat a signal death as a leak or a core to collect).
  if (g_server != nullptr && g_server->config.use_exit_on_panic) _exit(1);
  dieBy(SIGABRT);
}

}  // namespace server::crash
