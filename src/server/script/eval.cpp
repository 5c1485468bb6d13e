#include "server/script/eval.h"

#include <strings.h>

#include <cctype>
#include <string>
#include <unordered_map>
#include <vector>

extern "C" {
#include <lauxlib.h>
}

#include "common/sha1.h"
#include "server/core/client.h"
#include "server/core/reply_helpers.h"
#include "server/core/state.h"
#include "server/request/monitor.h"
#include "server/script/functions.h"
#include "server/script/lua_sandbox.h"
#include "server/script/redis_api.h"
#include "server/script/run_context.h"
#include "server/script/script.h"

namespace server::script {

namespace {

struct CachedScript {
  std::string body;
  uint32_t flags;
  int ref;  // the compiled chunk in the state's registry
};

class EvalEngine {
 public:
  ~EvalEngine() {
    if (L_ != nullptr) lua_close(L_);
  }
  lua_State* state() {
    if (L_ == nullptr) open();
    return L_;
  }
  // Drops every script and starts a fresh state (SCRIPT FLUSH), at once
  // as Redis does.
  void reset() {
    if (L_ != nullptr) lua_close(L_);
    L_ = nullptr;
    scripts_.clear();
    body_bytes_ = 0;
    open();
  }
  const CachedScript* find(const std::string& sha) const {
    auto it = scripts_.find(sha);
    return it == scripts_.end() ? nullptr : &it->second;
  }
  // Compiles and caches body under sha; replies the error to c on failure.
  const CachedScript* create(Client* c, const std::string& sha, std::string_view body) {
    uint32_t flags;
    size_t offset;
    std::string err;
    if (!parseEvalShebang(body, &flags, &offset, &err)) {
      c->addError(err);
      return nullptr;
    }
    lua_State* L = state();
    if (luaL_loadbuffer(L, body.data() + offset, body.size() - offset, "@user_script")) {
      const char* msg = lua_tostring(L, -1);
      c->addErrorFormat("Error compiling script (new function): %s", msg ? msg : "");
      lua_pop(L, 1);
      return nullptr;
    }
    setProtectedEnv(L);
    int ref = luaL_ref(L, LUA_REGISTRYINDEX);
    body_bytes_ += body.size();
    auto [it, _] = scripts_.emplace(sha, CachedScript{std::string(body), flags, ref});
    return &it->second;
  }
  void pushFunction(const CachedScript& s) { lua_rawgeti(L_, LUA_REGISTRYINDEX, s.ref); }
  size_t count() const { return scripts_.size(); }
  size_t bodyBytes() const { return body_bytes_; }
  size_t vmBytes() {
    lua_State* L = state();
    return static_cast<size_t>(lua_gc(L, LUA_GCCOUNT, 0)) * 1024 +
           static_cast<size_t>(lua_gc(L, LUA_GCCOUNTB, 0));
  }

 private:
  void open() {
    L_ = newSandboxState();
    registerRedisApi(L_);
    protectGlobals(L_);
  }
  lua_State* L_ = nullptr;
  std::unordered_map<std::string, CachedScript> scripts_;
  size_t body_bytes_ = 0;
};

EvalEngine& engine() {
  static EvalEngine e;
  return e;
}

// Pushes a table of argv[first .. first+n-1] and names it as a global.
void setArgTable(lua_State* L, Client* c, size_t first, size_t n, const char* name) {
  lua_createtable(L, static_cast<int>(n), 0);
  for (size_t i = 0; i < n; i++) {
    std::string_view a = c->arg(first + i);
    lua_pushlstring(L, a.data(), a.size());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  setRawGlobal(L, name);
}

bool parseNumKeys(Client* c, int64_t* numkeys) {
  if (!c->argInt64(2, numkeys)) return false;
  if (*numkeys > static_cast<int64_t>(c->argc()) - 3) {
    c->addError("Number of keys can't be greater than number of args");
    return false;
  }
  if (*numkeys < 0) {
    c->addError("Number of keys can't be negative");
    return false;
  }
  return true;
}

// The checks a script with a shebang gets before it runs (Redis 7.0).
bool checkFlagsBeforeRun(Client* c, uint32_t flags, bool ro) {
  if (ro && !(flags & (kFlagEvalCompat | kFlagNoWrites))) {
    c->addError("Can not execute a script with write flag using *_ro command.");
    return false;
  }
  if (!(flags & kFlagEvalCompat) && !writesAllowed(c, flags)) return false;
  if (!(flags & kFlagEvalCompat) && !(flags & (kFlagAllowOom | kFlagNoWrites)) && oomReached()) {
    // Redis refuses it before the script runs, as any deny-oom command.
    c->addError("-OOM command not allowed when used memory > 'maxmemory'.");
    return false;
  }
  return true;
}

void evalGeneric(Client* c, bool by_sha, bool ro) {
  monitor::feedAlways(c, *c->cur_cmd);
  int64_t numkeys;
  if (!parseNumKeys(c, &numkeys)) return;
  EvalEngine& e = engine();
  std::string sha;
  const CachedScript* script = nullptr;
  if (by_sha) {
    sha = std::string(c->arg(1));
    for (char& ch : sha) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
    if (sha.size() == 40) script = e.find(sha);
    if (script == nullptr) {
      c->addError("-NOSCRIPT No matching script. Please use EVAL.");
      return;
    }
  } else {
    sha = common::sha1Hex(c->arg(1));
    script = e.find(sha);
    if (script == nullptr && (script = e.create(c, sha, c->arg(1))) == nullptr) return;
  }
  if (!checkFlagsBeforeRun(c, script->flags, ro)) return;
  RunContext ctx;
  ctx.caller = c;
  ctx.L = e.state();
  ctx.funcname = sha;
  ctx.flags = script->flags;
  ctx.is_eval = true;
  ctx.read_only = ro || (script->flags & kFlagNoWrites);
  ctx.slot = declaredKeysSlot(c, 3, static_cast<size_t>(numkeys));
  lua_State* L = ctx.L;
  setArgTable(L, c, 3, static_cast<size_t>(numkeys), "KEYS");
  setArgTable(L, c, 3 + static_cast<size_t>(numkeys), c->argc() - 3 - static_cast<size_t>(numkeys),
              "ARGV");
  e.pushFunction(*script);
  runScript(ctx, 0);
}

void evalCommand(Client* c) {
  evalGeneric(c, false, false);
}
void evalRoCommand(Client* c) {
  evalGeneric(c, false, true);
}
void evalshaCommand(Client* c) {
  evalGeneric(c, true, false);
}
void evalshaRoCommand(Client* c) {
  evalGeneric(c, true, true);
}

void scriptHelpCommand(Client* c) {
  static const char* const kHelp[] = {
      "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DEBUG (YES|SYNC|NO)",
      "    Set the debug mode for subsequent scripts executed.",
      "EXISTS <sha1> [<sha1> ...]",
      "    Return information about the existence of the scripts in the script cache.",
      "FLUSH [ASYNC|SYNC]",
      "    Flush the Lua scripts cache. Very dangerous on replicas.",
      "    When called without the optional mode argument, the behavior is determined by the",
      "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
      "    * ASYNC: Asynchronously flush the scripts cache.",
      "    * SYNC: Synchronously flush the scripts cache.",
      "KILL",
      "    Kill the currently executing Lua script.",
      "LOAD <script>",
      "    Load a script into the scripts cache without executing it.",
      "HELP",
      "    Prints this help.",
  };
  replyHelp(c, kHelp);
}

void scriptLoadCommand(Client* c) {
  EvalEngine& e = engine();
  std::string sha = common::sha1Hex(c->arg(2));
  if (e.find(sha) == nullptr && e.create(c, sha, c->arg(2)) == nullptr) return;
  c->addBulk(sha);
}

void scriptExistsCommand(Client* c) {
  EvalEngine& e = engine();
  c->addArrayLen(static_cast<int64_t>(c->argc() - 2));
  for (size_t i = 2; i < c->argc(); i++) {
    std::string sha(c->arg(i));
    for (char& ch : sha) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
    c->addInteger(e.find(sha) != nullptr ? 1 : 0);
  }
}

void scriptFlushCommand(Client* c) {
  if (c->argc() > 3 || (c->argc() == 3 && strcasecmp(std::string(c->arg(2)).c_str(), "sync") != 0 &&
                        strcasecmp(std::string(c->arg(2)).c_str(), "async") != 0)) {
    c->addError("SCRIPT FLUSH only support SYNC|ASYNC option");
    return;
  }
  // ASYNC and SYNC both free at once: a Lua state closes quickly.
  engine().reset();
  c->addOk();
}

void scriptKillCommand(Client* c) {
  killScript(c, true);
}

// The Lua debugger (LDB) is not implemented: NO (debugging off, the only
// state here) is accepted; YES and SYNC are refused with a clear error.
void scriptDebugCommand(Client* c) {
  std::string mode(c->arg(2));
  if (strcasecmp(mode.c_str(), "no") == 0) {
    c->addOk();
  } else if (strcasecmp(mode.c_str(), "yes") == 0 || strcasecmp(mode.c_str(), "sync") == 0) {
    c->addError("SCRIPT DEBUG (the Lua debugger) is not supported by this server");
  } else {
    c->addError("Use SCRIPT DEBUG YES/SYNC/NO");
  }
}

Command scriptSub(const char* name, int arity, uint32_t flags, CommandProc proc,
                  const char* summary, const char* since, const char* complexity, const char* acl) {
  return Command{name, arity, flags, proc, 0, 0, 0, "scripting", summary, since, complexity, acl};
}

}  // namespace

int scriptMayWrite(const std::vector<std::string_view>& argv) {
  return scriptWriteFlags(argv, true);
}

int scriptWriteFlags(const std::vector<std::string_view>& argv, bool compat_writes) {
  if (argv.size() < 2) return -1;
  auto is = [&](const char* name) { return strcasecmp(std::string(argv[0]).c_str(), name) == 0; };
  uint32_t flags = kFlagEvalCompat;
  if (is("eval")) {
    size_t offset;
    std::string err;
    if (!parseEvalShebang(argv[1], &flags, &offset, &err)) return 0;  // refused anyway
  } else if (is("evalsha")) {
    std::string sha(argv[1]);
    for (char& ch : sha) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
    const CachedScript* s = sha.size() == 40 ? engine().find(sha) : nullptr;
    if (s == nullptr) return 1;
    flags = s->flags;
  } else if (is("fcall")) {
    return functionMayWrite(argv[1]) ? 1 : 0;
  } else {
    return -1;
  }
  if (flags & kFlagEvalCompat) return compat_writes ? 1 : 0;
  return !(flags & kFlagNoWrites) ? 1 : 0;
}

uint32_t scriptCommandFlags(const std::vector<std::string_view>& argv, uint32_t cmd_flags,
                            bool* flagless) {
  if (flagless != nullptr) *flagless = false;
  if (argv.size() < 2) return cmd_flags;
  auto is = [&](const char* name) { return strcasecmp(std::string(argv[0]).c_str(), name) == 0; };
  uint32_t flags;
  if (is("eval") || is("eval_ro")) {
    size_t offset;
    std::string err;
    if (!parseEvalShebang(argv[1], &flags, &offset, &err)) return cmd_flags;  // refused anyway
  } else if (is("evalsha") || is("evalsha_ro")) {
    std::string sha(argv[1]);
    for (char& ch : sha) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
    const CachedScript* s = sha.size() == 40 ? engine().find(sha) : nullptr;
    if (s == nullptr) return cmd_flags;  // -NOSCRIPT follows
    flags = s->flags;
  } else if (is("fcall") || is("fcall_ro")) {
    if (!functionFlags(argv[1], &flags)) return cmd_flags;  // not found
  } else {
    return cmd_flags;
  }
  if (flags & kFlagEvalCompat) {
    if (flagless != nullptr) *flagless = true;
    return cmd_flags;
  }
  cmd_flags &= ~(kStale | kWrite | kDenyOom | kMayReplicate);
  if (!(flags & (kFlagAllowOom | kFlagNoWrites))) cmd_flags |= kDenyOom;
  if (!(flags & kFlagNoWrites)) cmd_flags |= kWrite;
  if (flags & kFlagAllowStale) cmd_flags |= kStale;
  return cmd_flags;
}

bool parseEvalShebang(std::string_view body, uint32_t* flags, size_t* body_offset,
                      std::string* err) {
  *flags = kFlagEvalCompat;
  *body_offset = 0;
  if (body.substr(0, 2) != "#!") return true;
  size_t nl = body.find('\n');
  if (nl == std::string_view::npos) {
    *err = "Invalid script shebang";
    return false;
  }
  std::string_view line = body.substr(0, nl);
  std::vector<std::string> parts;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && isspace(static_cast<unsigned char>(line[i]))) i++;
    size_t start = i;
    while (i < line.size() && !isspace(static_cast<unsigned char>(line[i]))) i++;
    if (i > start) parts.emplace_back(line.substr(start, i - start));
  }
  if (parts.empty() || parts[0] != "#!lua") {
    *err = "Unexpected engine in script shebang: " + (parts.empty() ? std::string() : parts[0]);
    return false;
  }
  *flags = 0;
  for (size_t j = 1; j < parts.size(); j++) {
    if (parts[j].compare(0, 6, "flags=") != 0) {
      *err = "Unknown lua shebang option: " + parts[j];
      return false;
    }
    std::string_view list = std::string_view(parts[j]).substr(6);
    size_t p = 0;
    while (p <= list.size() && !list.empty()) {
      size_t comma = list.find(',', p);
      std::string_view f = list.substr(p, comma == std::string_view::npos ? list.npos : comma - p);
      uint32_t bit = flagFromName(f);
      if (bit == 0) {
        *err = "Unexpected flag in script shebang: " + std::string(f);
        return false;
      }
      *flags |= bit;
      if (comma == std::string_view::npos) break;
      p = comma + 1;
    }
  }
  *body_offset = nl;
  return true;
}

size_t evalVmMemory() {
  return engine().vmBytes();
}
size_t evalCachedScripts() {
  return engine().count();
}
size_t evalScriptsMemory() {
  return engine().bodyBytes();
}

void registerEvalCommands(CommandTable& t) {
  const uint32_t kEvalFlags = kNoScript | kStale | kSkipMonitor | kNoMandatoryKeys | kMayReplicate;
  t.add({"eval", -3, kEvalFlags, evalCommand, 0, 0, 0, "scripting",
         "Execute a Lua script server side", "2.6.0", "Depends on the script that is executed.",
         "slow scripting"});
  t.add({"evalsha", -3, kEvalFlags, evalshaCommand, 0, 0, 0, "scripting",
         "Execute a Lua script server side", "2.6.0", "Depends on the script that is executed.",
         "slow scripting"});
  t.add({"eval_ro", -3, (kEvalFlags & ~kMayReplicate) | kReadOnly, evalRoCommand, 0, 0, 0,
         "scripting", "Execute a read-only Lua script server side", "7.0.0",
         "Depends on the script that is executed.", "slow scripting"});
  t.add({"evalsha_ro", -3, (kEvalFlags & ~kMayReplicate) | kReadOnly, evalshaRoCommand, 0, 0, 0,
         "scripting", "Execute a read-only Lua script server side", "7.0.0",
         "Depends on the script that is executed.", "slow scripting"});
  for (const char* name : {"eval", "evalsha", "eval_ro", "evalsha_ro"})
    t.setKeysProc(name, scriptKeys);

  Command script{"script",
                 -2,
                 0,
                 scriptHelpCommand,
                 0,
                 0,
                 0,
                 "scripting",
                 "A container for Lua scripts management commands",
                 "2.6.0",
                 "Depends on subcommand.",
                 "slow"};
  script.subcommands = {
      scriptSub("script|debug", 3, kNoScript, scriptDebugCommand,
                "Set the debug mode for executed scripts.", "3.2.0", "O(1)", "slow scripting"),
      scriptSub("script|exists", -3, kNoScript, scriptExistsCommand,
                "Check existence of scripts in the script cache.", "2.6.0",
                "O(N) with N being the number of scripts to check (so checking a single script is "
                "an O(1) operation).",
                "slow scripting"),
      scriptSub("script|flush", -2, kNoScript, scriptFlushCommand,
                "Remove all the scripts from the script cache.", "2.6.0",
                "O(N) with N being the number of scripts in cache", "slow scripting"),
      scriptSub("script|help", 2, kLoading | kStale, scriptHelpCommand,
                "Show helpful text about the different subcommands", "5.0.0", "O(1)",
                "slow scripting"),
      scriptSub("script|kill", 2, kNoScript | kAllowBusy, scriptKillCommand,
                "Kill the script currently in execution.", "2.6.0", "O(1)", "slow scripting"),
      scriptSub("script|load", 3, kNoScript | kStale, scriptLoadCommand,
                "Load the specified Lua script into the script cache.", "2.6.0",
                "O(N) with N being the length in bytes of the script body.", "slow scripting"),
  };
  t.add(std::move(script));
}

}  // namespace server::script
