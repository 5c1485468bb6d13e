#include "server/script/run_context.h"

#include <cstring>
#include <string>
#include <vector>

#include "common/log.h"
#include "event/event_loop.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/db/db.h"
#include "server/db/slots.h"
#include "server/evict/evict.h"
#include "server/repl/repl.h"
#include "server/request/client_io.h"
#include "server/script/lua_convert.h"
#include "server/script/lua_sandbox.h"

namespace server::script {

namespace {

RunContext* g_current = nullptr;
Client* g_script_client = nullptr;

// The hook runs every kHookInstructions VM instructions: often enough to
// notice a timeout within a millisecond or so, rarely enough to cost
// nothing measurable.
constexpr int kHookInstructions = 100000;
constexpr int kGcPeriod = 50;

constexpr struct {
  const char* name;
  uint32_t flag;
} kFlagTable[] = {{"no-writes", kFlagNoWrites},
                  {"allow-oom", kFlagAllowOom},
                  {"allow-stale", kFlagAllowStale},
                  {"no-cluster", kFlagNoCluster},
                  {"allow-cross-slot-keys", kFlagAllowCrossSlot}};

const char* const kFlagNames[] = {
    "no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys", nullptr};

void raiseKilled(lua_State* L) {
  // A killed script gets the error again on every line, so a pcall in it
  // cannot swallow the kill.
  lua_sethook(
      L, [](lua_State* L2, lua_Debug*) { raiseKilled(L2); }, LUA_MASKLINE, 0);
  pushErrorTable(L, "Script killed by user with SCRIPT KILL...",
                 strlen("Script killed by user with SCRIPT KILL..."));
  lua_error(L);
}

// Shared query buffers taken out of service while a busy script let other
// clients read (see holdCaller); freed once no script runs.
std::vector<std::vector<char>> g_retired_buffers;

// The caller's input is held while other clients are served, so its next
// request cannot run in the middle of its own script. Its arguments and
// pipelined requests may be views into the server's shared query buffer,
// which other clients read into meanwhile: that buffer is retired (kept
// alive, unchanged) and the server gets a fresh one.
void holdCaller(Client* c, bool hold) {
  if (hold) {
    std::vector<char> fresh(g_server->shared_qbuf.size());
    g_retired_buffers.push_back(std::move(g_server->shared_qbuf));
    g_server->shared_qbuf = std::move(fresh);
  }
  if (c == nullptr || c->conn() == nullptr) return;
  if (hold)
    c->conn()->setReadHandler(nullptr);
  else
    startReading(c);
}

void countHook(lua_State* L, lua_Debug*) {
  RunContext* ctx = g_current;
  if (ctx == nullptr) return;
  if (!ctx->timed_out) {
    int64_t elapsed = event::EventLoop::nowMs() - ctx->start_ms;
    if (elapsed < g_server->config.busy_reply_threshold) return;
    LOG_WARNING(
        "Slow script detected: still in execution after %lld milliseconds. You can try killing "
        "the script using the %s command. Script name is: %s.",
        static_cast<long long>(elapsed), ctx->is_eval ? "SCRIPT KILL" : "FUNCTION KILL",
        ctx->funcname.c_str());
    ctx->timed_out = true;
    holdCaller(ctx->caller, true);
  }
  g_server->serveEventsWhileBusy();
  if (g_server->shutdown_asap) ctx->killed = true;
  if (ctx->killed) {
    LOG_WARNING("Lua script killed by user with SCRIPT KILL.");
    raiseKilled(L);
  }
}

// Formats the error table the handler produced as Redis replies it.
void replyError(RunContext& ctx) {
  lua_State* L = ctx.L;
  Client* c = ctx.caller;
  if (!lua_istable(L, -1)) {
    const char* msg = lua_tostring(L, -1);
    c->addErrorFormat("Error running script (call to %s): %s", ctx.funcname.c_str(),
                      msg ? msg : "(unknown error)");
    return;
  }
  lua_getfield(L, -1, "err");
  std::string msg = "-";
  if (lua_isstring(L, -1)) {
    size_t n;
    const char* s = lua_tolstring(L, -1, &n);
    msg.append(s, n);
  } else {
    msg += "ERR unknown error";
  }
  lua_pop(L, 1);
  lua_getfield(L, -1, "source");
  lua_getfield(L, -2, "line");
  if (lua_isstring(L, -2) && lua_isnumber(L, -1)) {
    msg += " script: " + ctx.funcname + ", on " + lua_tostring(L, -2) + ":" +
           std::to_string(lua_tointeger(L, -1)) + ".";
  }
  lua_pop(L, 2);
  lua_getfield(L, -1, "ignore_error_stats_update");
  bool no_stats = lua_toboolean(L, -1);
  lua_pop(L, 1);
  if (no_stats) {
    // Counted when the call failed; the script's command failed still.
    c->reply().error(msg);
    if (c->cur_cmd != nullptr) const_cast<Command*>(c->cur_cmd)->failed_calls++;
  } else {
    c->addError(msg);
  }
}

}  // namespace

const char* busyError(bool is_eval) {
  return is_eval ? "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or "
                   "SHUTDOWN NOSAVE."
                 : "-BUSY Redis is busy running a script. You can only call FUNCTION KILL or "
                   "SHUTDOWN NOSAVE.";
}

uint32_t flagFromName(std::string_view name) {
  for (const auto& f : kFlagTable)
    if (name == f.name) return f.flag;
  return 0;
}

const char* const* flagNames() {
  return kFlagNames;
}
uint32_t flagByIndex(int i) {
  return kFlagTable[i].flag;
}

RunContext* current() {
  return g_current;
}
bool busy() {
  return g_current != nullptr && g_current->timed_out;
}

Client* scriptClient() {
  if (g_script_client == nullptr) {
    g_script_client = new Client(nullptr, g_server->next_client_id++, &g_server->dbAt(0));
    g_script_client->flags |= kAuthenticated | kDenyBlocking | kScriptClient;
  }
  return g_script_client;
}

void runScript(RunContext& ctx, int nargs) {
  lua_State* L = ctx.L;
  Client* sc = scriptClient();
  ctx.sclient = sc;
  sc->setDb(&g_server->dbAt(ctx.caller->dbIndex()));
  sc->setProto(2);
  ctx.resp = 2;
  ctx.start_ms = event::EventLoop::nowMs();
  ctx.start_us = event::EventLoop::nowUs();
  // The message handler goes below the function and its arguments.
  int base = lua_gettop(L) - nargs;  // the function's index
  lua_pushcfunction(L, errorHandler);
  lua_insert(L, base);
  g_current = &ctx;
  lua_sethook(L, countHook, LUA_MASKCOUNT, kHookInstructions);
  int status = lua_pcall(L, nargs, 1, base);
  lua_sethook(L, nullptr, 0, 0);
  g_current = nullptr;
  if (ctx.timed_out) holdCaller(ctx.caller, false);
  if (status == 0)
    replyFromLua(ctx.caller, L, ctx.resp);
  else
    replyError(ctx);
  lua_settop(L, base - 1);
  // Garbage is collected in steps every kGcPeriod calls, as Redis does:
  // a step per call costs too much, a full cycle too much latency.
  static int calls_since_gc = 0;
  if (++calls_since_gc == kGcPeriod) {
    lua_gc(L, LUA_GCSTEP, kGcPeriod);
    calls_since_gc = 0;
  }
}

void killScript(Client* c, bool is_eval) {
  RunContext* ctx = g_current;
  if (ctx == nullptr) {
    c->addError("-NOTBUSY No scripts in execution right now.");
    return;
  }
  if (ctx->wrote) {
    c->addError(
        "-UNKILLABLE Sorry the script already executed write commands against the dataset. You "
        "can either wait the script termination or kill the server in a hard way using the "
        "SHUTDOWN NOSAVE command.");
    return;
  }
  // SCRIPT KILL does not stop a function, nor FUNCTION KILL a script:
  // the caller gets the busy error naming the right command.
  if (ctx->is_eval != is_eval) {
    c->addError(busyError(ctx->is_eval));
    return;
  }
  ctx->killed = true;
  c->addOk();
}

[[gnu::noinline]] static bool rejectWhileBusySlow(Client* c, const Command* cmd);

bool rejectWhileBusy(Client* c, const Command* cmd) {
  if (!busy() || c == g_current->caller) return false;
  return rejectWhileBusySlow(c, cmd);
}

static bool rejectWhileBusySlow(Client* c, const Command* cmd) {
  bool allowed = (cmd->flags & kAllowBusy) != 0;
  if (strcmp(cmd->name, "shutdown") == 0) {
    // Only SHUTDOWN NOSAVE may stop the server under a busy script.
    allowed = false;
    for (size_t i = 1; i < c->argc(); i++) {
      if (strcasecmp(std::string(c->arg(i)).c_str(), "nosave") == 0) allowed = true;
    }
  }
  if (allowed) return false;
  if (g_current->is_eval)
    c->addError(
        "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.");
  else
    c->addError(
        "-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN "
        "NOSAVE.");
  return true;
}

void releaseRetiredBuffers() {
  if (g_current == nullptr) g_retired_buffers.clear();
}

bool oomReached() {
  // The state when the calling command started, after its evictions (the
  // dispatcher's evict::beforeCommand), as Redis's script_oom.
  return evict::scriptOom();
}

int declaredKeysSlot(const Client* c, size_t first, size_t n) {
  if (n == 0 || !g_server->config.cluster_enabled) return -1;
  return db::keyHashSlot(c->arg(first));
}

bool writesAllowed(Client* c, uint32_t flags) {
  if ((flags & kFlagNoCluster) && g_server->config.cluster_enabled) {
    c->addError("Can not run script on cluster, 'no-cluster' flag is set.");
    return false;
  }
  if (flags & kFlagNoWrites) return true;
  if (repl::g_is_replica && g_server->config.replica_read_only && !(c->flags & kMaster)) {
    c->addError("-READONLY You can't write against a read only replica.");
    return false;
  }
  if (g_server->config.min_replicas_to_write && !repl::enoughGoodReplicas()) {
    c->addError("-NOREPLICAS Not enough good replicas to write.");
    return false;
  }
  return true;
}

}  // namespace server::script
