// The functions engine: libraries, their loading, and the registry of
// functions FCALL looks up. Commands are in function_cmds.cpp.
#include "server/script/functions.h"

#include <strings.h>

#include <cctype>
#include <cstring>
#include <map>
#include <memory>
#include <unordered_map>

extern "C" {
#include <lauxlib.h>
}

#include "event/event_loop.h"
#include "resp/request_parser.h"
#include "server/script/function_lib.h"
#include "server/script/lua_convert.h"
#include "server/script/lua_sandbox.h"
#include "server/script/redis_api.h"
#include "server/script/run_context.h"

namespace server::script {

namespace {

constexpr int64_t kLoadTimeoutMs = 500;
constexpr int kLoadHookInstructions = 100000;

// The library being loaded (register_function adds to it).
Library* g_loading = nullptr;
int64_t g_load_start_ms = 0;

bool validName(std::string_view s) {
  if (s.empty()) return false;
  for (char ch : s)
    if (!isalnum(static_cast<unsigned char>(ch)) && ch != '_') return false;
  return true;
}

constexpr const char* kBadName =
    "Library names can only contain letters, numbers, or underscores(_) and must be at least one "
    "character long";

int registerError(lua_State* L, const char* msg) {
  pushErrorTable(L, msg, strlen(msg));
  return lua_error(L);
}

// redis.register_function(name, callback) or ({function_name=, callback=,
// flags=, description=}).
int luaRegisterFunction(lua_State* L) {
  Library* lib = g_loading;
  if (lib == nullptr)
    return registerError(L, "redis.register_function can only be called on FUNCTION LOAD command");
  int argc = lua_gettop(L);
  if (argc < 1 || argc > 2)
    return registerError(L, "wrong number of arguments to redis.register_function");
  Function fn;
  bool have_name = false, have_cb = false;
  if (argc == 1) {
    if (!lua_istable(L, 1))
      return registerError(L,
                           "calling redis.register_function with a single argument is only "
                           "applicable to Lua table (representing named arguments).");
    lua_pushnil(L);
    while (lua_next(L, 1)) {
      // key at -2, value at -1
      const char* key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
      if (strcmp(key, "function_name") == 0) {
        if (!lua_isstring(L, -1))
          return registerError(
              L, "function_name argument given to redis.register_function must be a string");
        size_t len = 0;
        const char* name = lua_tolstring(L, -1, &len);
        fn.name.assign(name, len);  // with any NUL in it: validName refuses it
        have_name = true;
      } else if (strcmp(key, "description") == 0) {
        if (!lua_isstring(L, -1))
          return registerError(
              L, "description argument given to redis.register_function must be a string");
        fn.description = lua_tostring(L, -1);
        fn.has_description = true;
      } else if (strcmp(key, "callback") == 0) {
        if (!lua_isfunction(L, -1))
          return registerError(
              L, "callback argument given to redis.register_function must be a function");
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, "redis_pending_callback");
        have_cb = true;
      } else if (strcmp(key, "flags") == 0) {
        if (!lua_istable(L, -1))
          return registerError(L,
                               "flags argument to redis.register_function must be a table "
                               "representing function flags");
        for (int j = 1;; j++) {
          lua_rawgeti(L, -1, j);
          if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            break;
          }
          uint32_t bit = lua_type(L, -1) == LUA_TSTRING ? flagFromName(lua_tostring(L, -1)) : 0;
          if (bit == 0) return registerError(L, "unknown flag given");
          fn.flags |= bit;
          lua_pop(L, 1);
        }
      } else {
        return registerError(L, "unknown argument given to redis.register_function");
      }
      lua_pop(L, 1);
    }
    if (!have_name)
      return registerError(L, "redis.register_function must get a function name argument");
    if (!have_cb) return registerError(L, "redis.register_function must get a callback argument");
    lua_getfield(L, LUA_REGISTRYINDEX, "redis_pending_callback");
  } else {
    if (!lua_isstring(L, 1))
      return registerError(L, "first argument to redis.register_function must be a string");
    if (!lua_isfunction(L, 2))
      return registerError(L, "second argument to redis.register_function must be a function");
    size_t len = 0;
    const char* name = lua_tolstring(L, 1, &len);
    fn.name.assign(name, len);
    lua_pushvalue(L, 2);
  }
  if (!validName(fn.name)) {
    lua_pop(L, 1);
    return registerError(L, kBadName);
  }
  if (lib->functions.count(fn.name)) {
    lua_pop(L, 1);
    return registerError(L, "Function already exists in the library");
  }
  fn.ref = luaL_ref(L, LUA_REGISTRYINDEX);
  fn.lib = lib;
  std::string name = fn.name;
  lib->functions.emplace(name, std::move(fn));
  return 0;
}

void loadHook(lua_State* L, lua_Debug*) {
  if (event::EventLoop::nowMs() - g_load_start_ms <= kLoadTimeoutMs) return;
  lua_sethook(L, loadHook, LUA_MASKLINE, 0);
  registerError(L, "FUNCTION LOAD timeout");
}

}  // namespace

FunctionsEngine::~FunctionsEngine() {
  if (L_ != nullptr) lua_close(L_);
}

lua_State* FunctionsEngine::state() {
  if (L_ == nullptr) open();
  return L_;
}

void FunctionsEngine::open() {
  L_ = newSandboxState();
  registerRedisApi(L_);
  // What library code sees while it loads: `redis` with register_function,
  // log and the constants; any other name raises.
  lua_newtable(L_);  // load env
  lua_newtable(L_);  // its redis
  lua_pushcfunction(L_, luaRegisterFunction);
  lua_setfield(L_, -2, "register_function");
  lua_pushcfunction(L_, luaRedisLog);
  lua_setfield(L_, -2, "log");
  setLogLevelFields(L_);
  setVersionFields(L_);
  lua_newtable(L_);
  pushMissingGlobalHandler(L_);
  lua_setfield(L_, -2, "__index");
  lua_setmetatable(L_, -2);
  makeReadonlyProxy(L_);
  lua_setfield(L_, -2, "redis");
  lua_newtable(L_);
  pushMissingGlobalHandler(L_);
  lua_setfield(L_, -2, "__index");
  lua_setmetatable(L_, -2);
  lua_setfield(L_, LUA_REGISTRYINDEX, "redis_load_env");
  protectGlobals(L_);
}

void FunctionsEngine::releaseLibrary(Library* lib) {
  if (L_ == nullptr) return;
  for (auto& [name, fn] : lib->functions) luaL_unref(L_, LUA_REGISTRYINDEX, fn.ref);
}

bool FunctionsEngine::parseHeader(std::string_view code, std::string* name, size_t* body_offset,
                                  std::string* err) {
  if (code.substr(0, 2) != "#!") {
    *err = "Missing library metadata";
    return false;
  }
  size_t nl = code.find('\n');
  if (nl == std::string_view::npos) {
    *err = "Invalid library metadata";
    return false;
  }
  // Split as Redis splits it (quotes as in redis.conf): the first word,
  // "#!" included, names the engine ("#! name=x" has the engine '').
  std::vector<std::string> parts;
  if (!resp::splitArgs(code.substr(0, nl), &parts) || parts.empty()) {
    *err = "Invalid library metadata";
    return false;
  }
  std::string engine = parts[0].size() >= 2 ? parts[0].substr(2) : std::string();
  std::string lower = engine;
  for (char& ch : lower) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
  if (lower != "lua") {
    *err = "Engine '" + engine + "' not found";
    return false;
  }
  bool have_name = false;
  for (size_t j = 1; j < parts.size(); j++) {
    if (parts[j].substr(0, 5) == "name=") {
      if (have_name) {
        *err = "Invalid metadata value, name argument was given multiple times";
        return false;
      }
      *name = std::string(parts[j].substr(5));
      have_name = true;
    } else {
      *err = "Invalid metadata value given: " + std::string(parts[j]);
      return false;
    }
  }
  if (!have_name) {
    *err = "Library name was not given";
    return false;
  }
  if (!validName(*name)) {
    *err = kBadName;
    return false;
  }
  *body_offset = nl;
  return true;
}

std::unique_ptr<Library> FunctionsEngine::build(std::string_view code, bool replace,
                                                const LibraryMap* against, std::string* err) {
  std::string name;
  size_t offset;
  if (!parseHeader(code, &name, &offset, err)) return nullptr;
  if (!replace && against->count(name)) {
    *err = "Library '" + name + "' already exists";
    return nullptr;
  }
  lua_State* L = state();
  int top = lua_gettop(L);
  lua_pushcfunction(L, errorHandler);
  if (luaL_loadbuffer(L, code.data() + offset, code.size() - offset, "@user_function")) {
    const char* msg = lua_tostring(L, -1);
    *err = std::string("Error compiling function: ") + (msg ? msg : "");
    lua_settop(L, top);
    return nullptr;
  }
  setProtectedEnv(L);
  auto lib = std::make_unique<Library>();
  lib->name = name;
  lib->code = std::string(code);
  lua_getfield(L, LUA_REGISTRYINDEX, "redis_load_env");
  setEnvFallback(L);
  g_loading = lib.get();
  g_load_start_ms = event::EventLoop::nowMs();
  lua_sethook(L, loadHook, LUA_MASKCOUNT, kLoadHookInstructions);
  int status = lua_pcall(L, 0, 0, top + 1);
  lua_sethook(L, nullptr, 0, 0);
  g_loading = nullptr;
  lua_pushnil(L);
  setEnvFallback(L);
  if (status != 0) {
    std::string msg = "(unknown error)";
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      if (lua_isstring(L, -1)) msg = lua_tostring(L, -1);
      lua_pop(L, 1);
    } else if (lua_isstring(L, -1)) {
      msg = lua_tostring(L, -1);
    }
    *err = "Error registering functions: " + msg;
    lua_settop(L, top);
    releaseLibrary(lib.get());
    return nullptr;
  }
  lua_settop(L, top);
  if (lib->functions.empty()) {
    *err = "No functions registered";
    return nullptr;
  }
  return lib;
}

namespace {

// Function names are case-insensitive across the engine, as in Redis 7.0
// (FCALL TEST runs "test"; two libraries may not hold "f" and "F").
std::string foldName(std::string_view name) {
  std::string out(name);
  for (char& ch : out) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
  return out;
}

// The first function of `lib` that `other` holds too, whatever the case.
const std::string* sharedFunction(const Library& lib, const Library& other) {
  for (const auto& [fname, fn] : lib.functions) {
    for (const auto& [oname, ofn] : other.functions) {
      if (strcasecmp(fname.c_str(), oname.c_str()) == 0) return &fname;
    }
  }
  return nullptr;
}

}  // namespace

bool FunctionsEngine::collides(const Library& lib, const LibraryMap& libs,
                               const std::string* replaced, std::string* err) const {
  for (const auto& [lname, other] : libs) {
    if (replaced != nullptr && lname == *replaced) continue;
    if (const std::string* fname = sharedFunction(lib, *other)) {
      *err = "Function " + *fname + " already exists";
      return true;
    }
  }
  return false;
}

void FunctionsEngine::install(std::unique_ptr<Library> lib) {
  auto it = libs_.find(lib->name);
  if (it != libs_.end()) remove(it->first);
  for (auto& [fname, fn] : lib->functions) {
    fn.lib = lib.get();
    funcs_[foldName(fname)] = &fn;
  }
  std::string name = lib->name;
  libs_.emplace(name, std::move(lib));
}

bool FunctionsEngine::remove(const std::string& name) {
  auto it = libs_.find(name);
  if (it == libs_.end()) return false;
  for (auto& [fname, fn] : it->second->functions) funcs_.erase(foldName(fname));
  releaseLibrary(it->second.get());
  libs_.erase(it);
  return true;
}

void FunctionsEngine::flush() {
  libs_.clear();
  funcs_.clear();
  if (L_ != nullptr) lua_close(L_);
  L_ = nullptr;
  open();  // the fresh state now, not at the next use (used_memory counts it)
}

bool FunctionsEngine::load(std::string_view code, bool replace, std::string* name,
                           std::string* err) {
  std::unique_ptr<Library> lib = build(code, replace, &libs_, err);
  if (lib == nullptr) return false;
  if (collides(*lib, libs_, &lib->name, err)) {
    releaseLibrary(lib.get());
    return false;
  }
  *name = lib->name;
  install(std::move(lib));
  return true;
}

const Function* FunctionsEngine::find(std::string_view name) const {
  auto it = funcs_.find(foldName(name));
  return it == funcs_.end() ? nullptr : it->second;
}

size_t FunctionsEngine::vmBytes() {
  lua_State* L = state();
  return static_cast<size_t>(lua_gc(L, LUA_GCCOUNT, 0)) * 1024 +
         static_cast<size_t>(lua_gc(L, LUA_GCCOUNTB, 0));
}

size_t FunctionsEngine::memory() const {
  // Our bookkeeping: the libraries' code and names and the functions'
  // names and descriptions, with their containers.
  size_t total = sizeof(*this);
  for (const auto& [name, lib] : libs_) {
    total += sizeof(Library) + name.size() + lib->code.size();
    for (const auto& [fname, fn] : lib->functions)
      total += sizeof(Function) + fname.size() + fn.description.size();
  }
  return total;
}

FunctionsEngine& functionsEngine() {
  static FunctionsEngine e;
  return e;
}

size_t functionsVmMemory() {
  return functionsEngine().vmBytes();
}
size_t functionsMemory() {
  return functionsEngine().memory();
}
size_t functionsCount() {
  return functionsEngine().functionCount();
}
size_t librariesCount() {
  return functionsEngine().libraries().size();
}

std::vector<std::string> libraryCodes() {
  std::vector<std::string> out;
  for (const auto& [name, lib] : functionsEngine().libraries()) out.push_back(lib->code);
  return out;
}

bool loadLibrary(std::string_view code, bool replace, std::string* err) {
  std::string name;
  return functionsEngine().load(code, replace, &name, err);
}

void flushFunctions() {
  functionsEngine().flush();
}

// ---- staging (FUNCTION RESTORE)

struct LibraryStaging::Impl {
  LibraryMap libs;
};

LibraryStaging::LibraryStaging() : impl_(new Impl) {}

LibraryStaging::~LibraryStaging() {
  for (auto& [name, lib] : impl_->libs) functionsEngine().releaseLibrary(lib.get());
  delete impl_;
}

bool LibraryStaging::add(std::string_view code, std::string* err) {
  FunctionsEngine& e = functionsEngine();
  std::unique_ptr<Library> lib = e.build(code, false, &impl_->libs, err);
  if (lib == nullptr) return false;
  if (e.collides(*lib, impl_->libs, nullptr, err)) {
    e.releaseLibrary(lib.get());
    return false;
  }
  std::string name = lib->name;
  impl_->libs.emplace(name, std::move(lib));
  return true;
}

bool LibraryStaging::commit(RestorePolicy policy, std::string* err) {
  FunctionsEngine& e = functionsEngine();
  if (policy == RestorePolicy::kFlush) {
    // The staged libraries live in the engine's Lua state: drop the old
    // libraries without closing it.
    std::vector<std::string> names;
    for (const auto& [name, lib] : e.libraries()) names.push_back(name);
    for (const auto& n : names) e.remove(n);
  } else {
    for (const auto& [name, lib] : impl_->libs) {
      bool exists = e.libraries().count(name) != 0;
      if (exists && policy == RestorePolicy::kAppend) {
        *err = "Library " + name + " already exists";
        return false;
      }
      // Functions may not collide with libraries that stay.
      const std::string* replaced = policy == RestorePolicy::kReplace ? &name : nullptr;
      for (const auto& [other_name, other] : e.libraries()) {
        if (replaced != nullptr && other_name == *replaced) continue;
        if (impl_->libs.count(other_name) && policy == RestorePolicy::kReplace) continue;
        if (const std::string* fname = sharedFunction(*lib, *other)) {
          *err = "Function " + *fname + " already exists";
          return false;
        }
      }
    }
  }
  for (auto& [name, lib] : impl_->libs) e.install(std::move(lib));
  impl_->libs.clear();
  return true;
}

}  // namespace server::script
