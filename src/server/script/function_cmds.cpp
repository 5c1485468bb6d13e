// FUNCTION LOAD/DELETE/FLUSH/LIST/DUMP/RESTORE/STATS/KILL/HELP and FCALL,
// FCALL_RO over the engine in function_lib.h.
#include <strings.h>

#include <string>

#include "common/strutil.h"
#include "event/event_loop.h"
#include "server/core/client.h"
#include "server/core/reply_helpers.h"
#include "server/core/state.h"
#include "server/request/monitor.h"
#include "server/script/function_lib.h"
#include "server/script/functions.h"
#include "server/script/lua_sandbox.h"
#include "server/script/run_context.h"
#include "server/script/script.h"

namespace server::script {

namespace {

bool argIs(Client* c, size_t i, const char* word) {
  return strcasecmp(std::string(c->arg(i)).c_str(), word) == 0;
}

void pushArgTable(lua_State* L, Client* c, size_t first, size_t n) {
  lua_createtable(L, static_cast<int>(n), 0);
  for (size_t i = 0; i < n; i++) {
    std::string_view a = c->arg(first + i);
    lua_pushlstring(L, a.data(), a.size());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
}

void fcallGeneric(Client* c, bool ro) {
  monitor::feedAlways(c, *c->cur_cmd);
  FunctionsEngine& e = functionsEngine();
  const Function* fn = e.find(c->arg(1));
  if (fn == nullptr) {
    c->addError("Function not found");
    return;
  }
  int64_t numkeys;
  if (!c->argInt64Msg(2, &numkeys, "Bad number of keys provided")) return;
  if (numkeys > static_cast<int64_t>(c->argc()) - 3) {
    c->addError("Number of keys can't be greater than number of args");
    return;
  }
  if (numkeys < 0) {
    c->addError("Number of keys can't be negative");
    return;
  }
  if (ro && !(fn->flags & kFlagNoWrites)) {
    c->addError("Can not execute a script with write flag using *_ro command.");
    return;
  }
  if (!(fn->flags & (kFlagAllowOom | kFlagNoWrites)) && oomReached()) {
    // Redis refuses it before the script runs, as any deny-oom command.
    c->addError("-OOM command not allowed when used memory > 'maxmemory'.");
    return;
  }
  if (!writesAllowed(c, fn->flags)) return;
  RunContext ctx;
  ctx.caller = c;
  ctx.L = e.state();
  ctx.funcname = fn->name;
  ctx.flags = fn->flags;
  ctx.is_eval = false;
  ctx.read_only = ro || (fn->flags & kFlagNoWrites);
  ctx.slot = declaredKeysSlot(c, 3, static_cast<size_t>(numkeys));
  lua_State* L = ctx.L;
  lua_rawgeti(L, LUA_REGISTRYINDEX, fn->ref);
  size_t nk = static_cast<size_t>(numkeys);
  pushArgTable(L, c, 3, nk);
  pushArgTable(L, c, 3 + nk, c->argc() - 3 - nk);
  runScript(ctx, 2);
}

void fcallCommand(Client* c) {
  fcallGeneric(c, false);
}
void fcallRoCommand(Client* c) {
  fcallGeneric(c, true);
}

void functionLoadCommand(Client* c) {
  bool replace = false;
  size_t i = 2;
  for (; i + 1 < c->argc(); i++) {
    if (argIs(c, i, "replace")) {
      replace = true;
    } else {
      c->addErrorFormat("Unknown option given: %s", std::string(c->arg(i)).c_str());
      return;
    }
  }
  std::string name, err;
  if (!functionsEngine().load(c->arg(c->argc() - 1), replace, &name, &err)) {
    c->addError(err);
    return;
  }
  g_server->dirty++;
  c->addBulk(name);
}

void functionDeleteCommand(Client* c) {
  if (!functionsEngine().remove(std::string(c->arg(2)))) {
    c->addError("Library not found");
    return;
  }
  g_server->dirty++;
  c->addOk();
}

void functionFlushCommand(Client* c) {
  if (c->argc() > 3) {
    c->addError("unknown subcommand or wrong number of arguments for 'flush'. Try FUNCTION HELP.");
    return;
  }
  if (c->argc() == 3 && !argIs(c, 2, "sync") && !argIs(c, 2, "async")) {
    c->addError("FUNCTION FLUSH only supports SYNC|ASYNC option");
    return;
  }
  functionsEngine().flush();
  g_server->dirty++;
  c->addOk();
}

void functionListCommand(Client* c) {
  bool with_code = false;
  const std::string* pattern = nullptr;
  std::string pat;
  // Each option once: a second one is an unknown argument, as in Redis.
  for (size_t i = 2; i < c->argc(); i++) {
    if (!with_code && argIs(c, i, "withcode")) {
      with_code = true;
    } else if (pattern == nullptr && argIs(c, i, "libraryname")) {
      if (i + 1 >= c->argc()) {
        c->addError("library name argument was not given");
        return;
      }
      pat = std::string(c->arg(++i));
      pattern = &pat;
    } else {
      c->addErrorFormat("Unknown argument %s", std::string(c->arg(i)).c_str());
      return;
    }
  }
  resp::Writer& w = c->reply();
  void* slot = w.beginDeferred();
  int64_t n = 0;
  for (const auto& [name, lib] : functionsEngine().libraries()) {
    if (pattern != nullptr && !common::strutil::globMatch(*pattern, name)) continue;
    n++;
    w.mapLen(with_code ? 4 : 3);
    w.bulk("library_name");
    w.bulk(name);
    w.bulk("engine");
    w.bulk("LUA");
    w.bulk("functions");
    w.arrayLen(static_cast<int64_t>(lib->functions.size()));
    for (const auto& [fname, fn] : lib->functions) {
      w.mapLen(3);
      w.bulk("name");
      w.bulk(fname);
      w.bulk("description");
      if (fn.has_description)
        w.bulk(fn.description);
      else
        w.null();
      w.bulk("flags");
      int nflags = 0;
      for (int b = 0; flagNames()[b] != nullptr; b++)
        if (fn.flags & flagByIndex(b)) nflags++;
      w.setLen(nflags);
      for (int b = 0; flagNames()[b] != nullptr; b++)
        if (fn.flags & flagByIndex(b)) w.bulk(flagNames()[b]);
    }
    if (with_code) {
      w.bulk("library_code");
      w.bulk(lib->code);
    }
  }
  w.endDeferredArray(slot, n);
}

void functionStatsCommand(Client* c) {
  // FUNCTION STATS may interrupt a busy function, not a busy EVAL.
  if (current() != nullptr && current()->is_eval) {
    c->addError(busyError(true));
    return;
  }
  resp::Writer& w = c->reply();
  w.mapLen(2);
  w.bulk("running_script");
  RunContext* ctx = current();
  if (ctx == nullptr || ctx->is_eval) {
    w.null();
  } else {
    w.mapLen(3);
    w.bulk("name");
    w.bulk(ctx->funcname);
    w.bulk("command");
    const auto& argv = ctx->caller->argv();
    w.arrayLen(static_cast<int64_t>(argv.size()));
    for (std::string_view a : argv) w.bulk(a);
    w.bulk("duration_ms");
    w.integer(event::EventLoop::nowMs() - ctx->start_ms);
  }
  w.bulk("engines");
  w.mapLen(1);
  w.bulk("LUA");
  w.mapLen(2);
  w.bulk("libraries_count");
  w.integer(static_cast<int64_t>(librariesCount()));
  w.bulk("functions_count");
  w.integer(static_cast<int64_t>(functionsCount()));
}

void functionKillCommand(Client* c) {
  killScript(c, false);
}

void functionDumpCommand(Client* c) {
  c->addBulk(dumpFunctionsPayload());
}

void functionRestoreCommand(Client* c) {
  RestorePolicy policy = RestorePolicy::kAppend;
  if (c->argc() > 4) {
    c->addError(
        "unknown subcommand or wrong number of arguments for 'restore'. Try FUNCTION HELP.");
    return;
  }
  if (c->argc() == 4) {
    if (argIs(c, 3, "flush")) {
      policy = RestorePolicy::kFlush;
    } else if (argIs(c, 3, "append")) {
      policy = RestorePolicy::kAppend;
    } else if (argIs(c, 3, "replace")) {
      policy = RestorePolicy::kReplace;
    } else {
      c->addError("Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
      return;
    }
  }
  std::string err;
  if (!restoreFunctionsPayload(c->arg(2), policy, &err)) {
    c->addError(err);
    return;
  }
  g_server->dirty++;
  c->addOk();
}

void functionHelpCommand(Client* c) {
  static const char* const kHelp[] = {
      "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "LOAD [REPLACE] <FUNCTION CODE>",
      "    Create a new library with the given library name and code.",
      "DELETE <LIBRARY NAME>",
      "    Delete the given library.",
      "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
      "    Return general information on all the libraries:",
      "    * Library name",
      "    * The engine used to run the Library",
      "    * Library description",
      "    * Functions list",
      "    * Library code (if WITHCODE is given)",
      "    It also possible to get only function that matches a pattern using LIBRARYNAME "
      "argument.",
      "STATS",
      "    Return information about the current function running:",
      "    * Function name",
      "    * Command used to run the function",
      "    * Duration in MS that the function is running",
      "    If no function is running, return nil",
      "    In addition, returns a list of available engines.",
      "KILL",
      "    Kill the current running function.",
      "FLUSH [ASYNC|SYNC]",
      "    Delete all the libraries.",
      "    When called without the optional mode argument, the behavior is determined by the",
      "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
      "    * ASYNC: Asynchronously flush the libraries.",
      "    * SYNC: Synchronously flush the libraries.",
      "DUMP",
      "    Return a serialized payload representing the current libraries, can be restored "
      "using FUNCTION RESTORE command",
      "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
      "    Restore the libraries represented by the given payload, it is possible to give a "
      "restore policy to",
      "    control how to handle existing libraries (default APPEND):",
      "    * FLUSH: delete all existing libraries.",
      "    * APPEND: appends the restored libraries to the existing libraries. On collision, "
      "abort.",
      "    * REPLACE: appends the restored libraries to the existing libraries, On collision, "
      "replace the old",
      "      libraries with the new libraries (notice that even on this option there is a "
      "chance of failure",
      "      in case of functions name collision with another library).",
      "HELP",
      "    Prints this help.",
  };
  replyHelp(c, kHelp);
}

constexpr SubcommandMaker sub{"scripting", "7.0.0"};

}  // namespace

bool functionMayWrite(std::string_view name) {
  const Function* fn = functionsEngine().find(name);
  return fn == nullptr || !(fn->flags & kFlagNoWrites);
}

bool functionFlags(std::string_view name, uint32_t* flags) {
  const Function* fn = functionsEngine().find(name);
  if (fn == nullptr) return false;
  *flags = fn->flags;
  return true;
}

void registerFunctionCommands(CommandTable& t) {
  const uint32_t kFcallFlags = kNoScript | kStale | kSkipMonitor | kNoMandatoryKeys | kMayReplicate;
  t.add({"fcall", -3, kFcallFlags, fcallCommand, 0, 0, 0, "scripting", "Invoke a function", "7.0.0",
         "Depends on the function that is executed.", "slow scripting"});
  t.add({"fcall_ro", -3, (kFcallFlags & ~kMayReplicate) | kReadOnly, fcallRoCommand, 0, 0, 0,
         "scripting", "Invoke a read-only function", "7.0.0",
         "Depends on the function that is executed.", "slow scripting"});
  t.setKeysProc("fcall", scriptKeys);
  t.setKeysProc("fcall_ro", scriptKeys);

  Command function{"function",
                   -2,
                   0,
                   functionHelpCommand,
                   0,
                   0,
                   0,
                   "scripting",
                   "A container for function commands",
                   "7.0.0",
                   "Depends on subcommand.",
                   "slow"};
  function.subcommands = {
      sub("function|delete", 3, kNoScript | kWrite, functionDeleteCommand,
          "Delete a function by name", "O(1)", "write slow scripting"),
      sub("function|dump", 2, kNoScript, functionDumpCommand,
          "Dump all functions into a serialized binary payload",
          "O(N) where N is the number of functions", "slow scripting"),
      sub("function|flush", -2, kNoScript | kWrite, functionFlushCommand, "Deleting all functions",
          "O(N) where N is the number of functions deleted", "write slow scripting"),
      sub("function|help", 2, kLoading | kStale, functionHelpCommand,
          "Show helpful text about the different subcommands", "O(1)", "slow scripting"),
      sub("function|kill", 2, kNoScript | kAllowBusy, functionKillCommand,
          "Kill the function currently in execution.", "O(1)", "slow scripting"),
      sub("function|list", -2, kNoScript, functionListCommand,
          "List information about all the functions", "O(N) where N is the number of functions",
          "slow scripting"),
      sub("function|load", -3, kNoScript | kWrite | kDenyOom, functionLoadCommand,
          "Create a function with the given arguments (name, code, description)",
          "O(1) (considering compilation time is redundant)", "write slow scripting"),
      sub("function|restore", -3, kNoScript | kWrite | kDenyOom, functionRestoreCommand,
          "Restore all the functions on the given payload",
          "O(N) where N is the number of functions on the payload", "write slow scripting"),
      sub("function|stats", 2, kNoScript | kAllowBusy, functionStatsCommand,
          "Return information about the function currently running (name, description, "
          "duration)",
          "O(1)", "slow scripting"),
  };
  t.add(std::move(function));
}

}  // namespace server::script
