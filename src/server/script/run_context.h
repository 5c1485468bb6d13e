// One script or function call in progress: who called it, under which
// rules it runs, and the busy / kill state other clients see while it
// runs. Exactly one may run at a time (the server is single-threaded and
// scripts are atomic).
//
// Execution rules (Redis 7.0):
// - Commands from the script run through the command table on the script
//   client (scriptClient()), which starts in the caller's db with RESP2;
//   it never blocks (blocking commands answer as on timeout).
// - After busy-reply-threshold ms (lua-time-limit) the script is "timed
//   out": a Lua count hook services the event loop, and other clients get
//   -BUSY except for the commands flagged allow-busy, SCRIPT KILL /
//   FUNCTION KILL and SHUTDOWN NOSAVE. The caller's input is held meanwhile.
// - A script that ran a write command cannot be killed (-UNKILLABLE).
// - Time is frozen for the keyspace while a script runs (no cron, no
//   active expiry, the command clock stays at the script's start).
#pragma once

#include <cstdint>
#include <string>

extern "C" {
#include <lua.h>
}

namespace server {
class Client;
struct Command;
}  // namespace server

namespace server::script {

// Shebang / register_function flags.
enum ScriptFlag : uint32_t {
  kFlagNoWrites = 1 << 0,
  kFlagAllowOom = 1 << 1,
  kFlagAllowStale = 1 << 2,
  kFlagNoCluster = 1 << 3,
  kFlagAllowCrossSlot = 1 << 4,
  // An EVAL script without a shebang: 6.x rules (no flag checks before it
  // runs; writes allowed unless EVAL_RO).
  kFlagEvalCompat = 1 << 8,
};

// Parses one flag name ("no-writes", ...); 0 when unknown.
uint32_t flagFromName(std::string_view name);
// The names of the flags set, in Redis's order.
const char* const* flagNames();
uint32_t flagByIndex(int i);

struct RunContext {
  Client* caller = nullptr;
  Client* sclient = nullptr;
  lua_State* L = nullptr;
  std::string funcname;  // the sha for EVAL, the function name for FCALL
  uint32_t flags = 0;    // ScriptFlag
  bool is_eval = true;
  bool read_only = false;  // *_RO or no-writes: write commands refused
  bool wrote = false;      // a write command ran: SCRIPT KILL refuses
  bool timed_out = false;
  bool killed = false;
  int resp = 2;   // redis.setresp
  int slot = -1;  // cluster mode: the hash slot the script's keys are in
  int64_t start_ms = 0;
  int64_t start_us = 0;
};

// Cluster mode: the hash slot of the n keys a script declares, from
// argument `first` on (the request was routed by them, so they share one);
// -1 when it declares none or cluster mode is off. RunContext::slot starts
// there: the keys the script then touches must hash to it too, unless its
// flags allow cross-slot keys (Redis 7.0).
int declaredKeysSlot(const Client* c, size_t first, size_t n);

// The call in progress, or nullptr.
RunContext* current();
// True while a script that exceeded busy-reply-threshold runs.
bool busy();

// The client commands from scripts run on (created on first use).
Client* scriptClient();
// A script that may write (no "no-writes" flag) counts as a write command:
// refused with -READONLY on a read-only replica (unless its master runs
// it) and -NOREPLICAS under min-replicas-to-write. False when refused (the
// error is replied).
bool writesAllowed(Client* c, uint32_t flags);

// Runs the function at the top of L's stack (below it nothing of ours)
// with `nargs` arguments pushed after it, under ctx, and writes its result
// or error to ctx.caller. Installs and removes the busy hook.
void runScript(RunContext& ctx, int nargs);

// The -BUSY error other clients get while a script (is_eval) or a function
// is busy.
const char* busyError(bool is_eval);

// SCRIPT KILL / FUNCTION KILL: replies to c.
void killScript(Client* c, bool is_eval);

// Dispatch hook: true (and c got its error) when a busy script keeps cmd
// from running for c now.
bool rejectWhileBusy(Client* c, const Command* cmd);

// Frees the query buffers a busy script retired (call when no script runs
// and no request of the script's caller is being parsed: before-sleep).
void releaseRetiredBuffers();

// Whether the OOM rules apply: used memory was still over maxmemory after
// the calling command's evictions (evict::scriptOom).
bool oomReached();

}  // namespace server::script
