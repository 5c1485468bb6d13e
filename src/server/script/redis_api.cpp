#include "server/script/redis_api.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include <lauxlib.h>
}

#include "common/log.h"
#include "common/sha1.h"
#include "server/acl/check.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/core/version.h"
#include "server/persist/persist.h"
#include "server/propagate/propagate.h"
#include "server/pubsub/tracking.h"
#include "server/repl/repl.h"
#include "server/request/call.h"
#include "server/script/lua_convert.h"
#include "server/script/run_context.h"
#include "server/script/script.h"

namespace server::script {

namespace {

// Raises (call) or returns (pcall) an error table for msg.
int failCall(lua_State* L, bool raise, const char* msg) {
  pushErrorTable(L, msg, strlen(msg));
  if (raise) return lua_error(L);
  return 1;
}

// A call the server refused before running it (unknown command, arity,
// ACL, write rules, OOM): counted now, as Redis counts it (an error reply,
// the command's rejected_calls), so the script's own error reply built
// from it is not counted again.
int rejectCall(lua_State* L, bool raise, Command* cmd, const char* msg) {
  g_server->stats.countError(msg);
  if (cmd != nullptr) cmd->rejected_calls++;
  markErrorsCounted();
  pushErrorTable(L, msg, strlen(msg));
  lua_pushboolean(L, 1);
  lua_setfield(L, -2, "ignore_error_stats_update");
  if (raise) return lua_error(L);
  return 1;
}

// A number argument as Redis 7.0 turns it into a string: "%.17g" ("10",
// "3.5", "0.10000000000000001").
void numberToArg(double d, std::string* out) {
  char buf[64];
  int n = snprintf(buf, sizeof(buf), "%.17g", d);
  out->assign(buf, static_cast<size_t>(n));
}

// Copies the script client's pending reply out of its buffer.
void takeReply(Client* sc, std::string* out) {
  resp::ReplyBuffer* rb = sc->reply().buffer();
  out->clear();
  struct iovec iov[64];
  while (!rb->empty()) {
    int n = rb->iovecs(iov, 64);
    size_t total = 0;
    for (int i = 0; i < n; i++) {
      out->append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
      total += iov[i].iov_len;
    }
    rb->consume(total);
  }
}

// The script caller's ACL rules apply to every command the script runs, as
// Redis 7.0 checks them (context "lua" in ACL LOG). Returns the error text,
// or nullptr when allowed.
const char* aclDenial(RunContext* ctx, const Command* cmd, int argc, const std::string* args) {
  Client* caller = ctx->caller;
  const acl::User* user = caller != nullptr ? caller->acl_user.get() : nullptr;
  if (user == nullptr || user->unrestricted()) return nullptr;
  std::vector<std::string_view> argv(args, args + argc);
  acl::CheckResult r = acl::checkCommand(*user, *cmd, argv);
  switch (r.denial) {
    case acl::Denial::kNone:
      return nullptr;
    case acl::Denial::kCommand:
      acl::logDenial(caller, *user, r, *cmd, argv, "lua");
      return "The user executing the script can't run this command or subcommand";
    case acl::Denial::kKey:
      acl::logDenial(caller, *user, r, *cmd, argv, "lua");
      return "The user executing the script can't access at least one of the keys mentioned in "
             "the command arguments";
    case acl::Denial::kChannel:
      acl::logDenial(caller, *user, r, *cmd, argv, "lua");
      return "The user executing the script can't publish to the channel mentioned in the "
             "command";
  }
  return nullptr;
}

ClusterCallCheck g_cluster_check = nullptr;
// Scripts without a shebang keep the old freedom to use keys of several
// slots (Redis 7.0); others must say allow-cross-slot-keys.
constexpr uint32_t kCrossSlotOk = kFlagAllowCrossSlot | kFlagEvalCompat;

int genericCall(lua_State* L, bool raise) {
  RunContext* ctx = current();
  if (ctx == nullptr) return luaL_error(L, "redis.call called outside a script");
  int argc = lua_gettop(L);
  if (argc == 0)
    return failCall(L, raise, "Please specify at least one argument for this redis lib call");
  // Reused between calls: most scripts make many small calls.
  static std::vector<std::string> args;
  static std::string reply;
  if (args.size() < static_cast<size_t>(argc)) args.resize(static_cast<size_t>(argc));
  for (int i = 1; i <= argc; i++) {
    int t = lua_type(L, i);
    std::string& a = args[static_cast<size_t>(i - 1)];
    if (t == LUA_TNUMBER) {
      numberToArg(lua_tonumber(L, i), &a);
    } else if (t == LUA_TSTRING) {
      size_t n;
      const char* s = lua_tolstring(L, i, &n);
      a.assign(s, n);
    } else {
      return failCall(L, raise, "Lua redis lib command arguments must be strings or integers");
    }
  }
  // The arguments are copied: free their stack slots, so that the reply
  // has room even after a call with thousands of them (as Redis does).
  lua_pop(L, argc);
  Server& s = *g_server;
  Command* cmd = s.commands.find(args[0]);
  if (cmd != nullptr && !cmd->subcommands.empty() && argc >= 2) {
    cmd = s.commands.findSub(cmd, args[1]);
  }
  if (cmd == nullptr)
    return rejectCall(L, raise, nullptr, "Unknown Redis command called from script");
  if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity)
    return rejectCall(L, raise, cmd, "Wrong number of args calling Redis command from script");
  if ((cmd->flags & kNoScript) && !s.script_deny_disabled)
    return rejectCall(L, raise, cmd, "This Redis command is not allowed from script");
  if (const char* denied = aclDenial(ctx, cmd, argc, args.data())) {
    return rejectCall(L, raise, cmd, denied);
  }
  // May-replicate commands (PUBLISH...) count as writes here (Redis 7.0):
  // CLIENT PAUSE WRITE lets read-only scripts run.
  if ((cmd->flags & (kWrite | kMayReplicate)) && ctx->read_only)
    return rejectCall(L, raise, cmd, "Write commands are not allowed from read-only scripts.");
  // The server's state is checked for writes until the script has written:
  // then it cannot be failed halfway on a state that changed under it
  // (min-replicas-to-write losing a replica meanwhile), as Redis 7.0.
  if ((cmd->flags & kWrite) && !ctx->wrote) {
    // A replica's own scripts may not write; its master's may (Redis 7.0).
    bool from_master = ctx->caller != nullptr && (ctx->caller->flags & kMaster);
    if (repl::g_is_replica && g_server->config.replica_read_only && !from_master)
      return rejectCall(L, raise, cmd, "-READONLY You can't write against a read only replica.");
    // -MISCONF while snapshots fail, as for a client's own writes.
    if (const char* e = persist::writeError(); e != nullptr && !from_master)
      return rejectCall(L, raise, cmd, e);
    if (g_server->config.min_replicas_to_write && !repl::enoughGoodReplicas())
      return rejectCall(L, raise, cmd, "-NOREPLICAS Not enough good replicas to write.");
  }
  if ((cmd->flags & kDenyOom) && !ctx->wrote && !(ctx->flags & kFlagAllowOom) && oomReached())
    return rejectCall(L, raise, cmd, "-OOM command not allowed when used memory > 'maxmemory'.");
  // An allow-stale script on a stale replica runs only stale-safe commands.
  if (repl::g_is_replica && !(cmd->flags & kStale) && repl::servingStale())
    return rejectCall(L, raise, cmd, "Can not execute the command on a stale replica");
  static std::vector<std::string_view> argv;
  argv.assign(args.begin(), args.begin() + argc);
  if (g_cluster_check != nullptr) [[unlikely]] {
    if (const char* e =
            g_cluster_check(ctx->caller, cmd, argv, ctx->flags & kCrossSlotOk, &ctx->slot))
      return rejectCall(L, raise, cmd, e);
  }
  if (cmd->flags & kWrite) ctx->wrote = true;

  Client* sc = ctx->sclient;
  sc->swapArgv(&argv);
  callCommand(sc, cmd);
  sc->swapArgv(&argv);
  if ((cmd->flags & kReadOnly) && tracking::anyClient()) tracking::scriptRead(ctx->caller);
  takeReply(sc, &reply);
  if (pushReplyAsLua(L, reply.data(), reply.size()) == 0) {
    return failCall(L, raise, "Error converting the reply of a command called from script");
  }
  if (raise && reply[0] == '-') return lua_error(L);
  return 1;
}

int luaCall(lua_State* L) {
  return genericCall(L, true);
}
int luaPcall(lua_State* L) {
  return genericCall(L, false);
}

// error_reply / status_reply: one string argument, else an error table is
// returned (not raised), as in Redis.
int luaErrorReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING)
    return failCall(L, false, "wrong number or type of arguments");
  size_t n;
  const char* s = lua_tolstring(L, 1, &n);
  std::string msg = s[0] == '-' ? std::string(s, n) : "-" + std::string(s, n);
  pushErrorTable(L, msg.data(), msg.size());
  return 1;
}

int luaStatusReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING)
    return failCall(L, false, "wrong number or type of arguments");
  lua_newtable(L);
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "ok");
  return 1;
}

int luaSha1hex(lua_State* L) {
  if (lua_gettop(L) != 1) return failCall(L, true, "wrong number of arguments");
  size_t n;
  const char* s = lua_tolstring(L, 1, &n);
  std::string hex = common::sha1Hex(std::string_view(s ? s : "", s ? n : 0));
  lua_pushlstring(L, hex.data(), hex.size());
  return 1;
}

int luaSetresp(lua_State* L) {
  RunContext* ctx = current();
  if (lua_gettop(L) != 1) return failCall(L, true, "redis.setresp() requires one argument.");
  int v = static_cast<int>(lua_tonumber(L, -1));
  if (v != 2 && v != 3) return failCall(L, true, "RESP version must be 2 or 3.");
  if (ctx != nullptr) {
    ctx->resp = v;
    ctx->sclient->setProto(v);
  }
  return 0;
}

int luaSetRepl(lua_State* L) {
  if (lua_gettop(L) != 1) return failCall(L, true, "redis.set_repl() requires one argument.");
  int flags = static_cast<int>(lua_tonumber(L, -1));
  if ((flags & ~3) != 0)
    return failCall(
        L, true, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
  // REPL_AOF (1) and REPL_REPLICA (2) are propagate's target bits: the
  // script's next commands are fed only to those sinks.
  if (propagate::wanted()) propagate::setNestedTargets(static_cast<unsigned>(flags));
  return 0;
}

int luaReplicateCommands(lua_State* L) {
  // Effects replication is the only mode since 7.0: always true.
  lua_pushboolean(L, 1);
  return 1;
}

int luaBreakpoint(lua_State* L) {
  // The Lua debugger (SCRIPT DEBUG) is not running: nothing to stop at.
  lua_pushboolean(L, 0);
  return 1;
}

int luaDebug(lua_State*) {
  return 0;
}

int luaAclCheckCmd(lua_State* L) {
  int argc = lua_gettop(L);
  if (argc == 0)
    return failCall(L, true, "Please specify at least one argument for this redis lib call");
  for (int i = 1; i <= argc; i++) {
    if (lua_type(L, i) != LUA_TSTRING && lua_type(L, i) != LUA_TNUMBER)
      return failCall(L, true, "Lua redis lib command arguments must be strings or integers");
  }
  Command* cmd = g_server->commands.find(lua_tostring(L, 1));
  if (cmd != nullptr && !cmd->subcommands.empty() && argc >= 2)
    cmd = g_server->commands.findSub(cmd, lua_tostring(L, 2));
  if (cmd == nullptr) return failCall(L, true, "Invalid command passed to redis.acl_check_cmd()");
  RunContext* ctx = current();
  bool ok = true;
  if (ctx != nullptr && ctx->caller != nullptr && ctx->caller->acl_user != nullptr) {
    std::vector<std::string> args;
    for (int i = 1; i <= argc; i++) args.emplace_back(lua_tostring(L, i));
    std::vector<std::string_view> argv(args.begin(), args.end());
    ok = acl::checkCommand(*ctx->caller->acl_user, *cmd, argv).denial == acl::Denial::kNone;
  }
  lua_pushboolean(L, ok ? 1 : 0);
  return 1;
}

void setIntField(lua_State* L, const char* name, int v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, name);
}

}  // namespace

int luaRedisLog(lua_State* L) {
  int argc = lua_gettop(L);
  if (argc < 2) return failCall(L, true, "redis.log() requires two arguments or more.");
  if (!lua_isnumber(L, 1)) return failCall(L, true, "First argument must be a number (log level).");
  int level = static_cast<int>(lua_tonumber(L, 1));
  if (level < common::logging::kDebug || level > common::logging::kWarning)
    return failCall(L, true, "Invalid debug level.");
  if (!common::logging::enabled(static_cast<common::logging::Level>(level))) return 0;
  std::string msg;
  for (int i = 2; i <= argc; i++) {
    size_t n;
    const char* s = lua_tolstring(L, i, &n);
    if (s == nullptr) continue;
    if (i > 2) msg += ' ';
    msg.append(s, n);
  }
  common::logging::logf(static_cast<common::logging::Level>(level), "%s", msg.c_str());
  return 0;
}

void setVersionFields(lua_State* L) {
  lua_pushstring(L, kRedisVersion);
  lua_setfield(L, -2, "REDIS_VERSION");
  int major = 0, minor = 0, patch = 0;
  sscanf(kRedisVersion, "%d.%d.%d", &major, &minor, &patch);
  setIntField(L, "REDIS_VERSION_NUM", (major << 16) | (minor << 8) | patch);
}

void setLogLevelFields(lua_State* L) {
  setIntField(L, "LOG_DEBUG", common::logging::kDebug);
  setIntField(L, "LOG_VERBOSE", common::logging::kVerbose);
  setIntField(L, "LOG_NOTICE", common::logging::kNotice);
  setIntField(L, "LOG_WARNING", common::logging::kWarning);
}

void registerRedisApi(lua_State* L) {
  static const luaL_Reg kFuncs[] = {{"call", luaCall},
                                    {"pcall", luaPcall},
                                    {"error_reply", luaErrorReply},
                                    {"status_reply", luaStatusReply},
                                    {"sha1hex", luaSha1hex},
                                    {"log", luaRedisLog},
                                    {"setresp", luaSetresp},
                                    {"set_repl", luaSetRepl},
                                    {"replicate_commands", luaReplicateCommands},
                                    {"breakpoint", luaBreakpoint},
                                    {"debug", luaDebug},
                                    {"acl_check_cmd", luaAclCheckCmd},
                                    {nullptr, nullptr}};
  lua_newtable(L);
  for (const luaL_Reg* r = kFuncs; r->name; r++) {
    lua_pushcfunction(L, r->func);
    lua_setfield(L, -2, r->name);
  }
  setLogLevelFields(L);
  setIntField(L, "REPL_NONE", 0);
  setIntField(L, "REPL_AOF", 1);
  setIntField(L, "REPL_SLAVE", 2);
  setIntField(L, "REPL_REPLICA", 2);
  setIntField(L, "REPL_ALL", 3);
  setVersionFields(L);
  lua_setglobal(L, "redis");
}

void setClusterCallCheck(ClusterCallCheck f) {
  g_cluster_check = f;
}

}  // namespace server::script
