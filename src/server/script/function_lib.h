// The functions engine's data: libraries, their functions, and the one
// Lua state they live in. Internal to the script module (functions.h is
// the interface).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace server::script {

struct Library;

struct Function {
  std::string name;
  std::string description;
  bool has_description = false;
  uint32_t flags = 0;   // ScriptFlag
  int ref = LUA_NOREF;  // the callback, in the state's registry
  Library* lib = nullptr;
};

struct Library {
  std::string name;
  std::string code;
  std::map<std::string, Function> functions;
};

using LibraryMap = std::map<std::string, std::unique_ptr<Library>>;

class FunctionsEngine {
 public:
  ~FunctionsEngine();
  lua_State* state();

  // FUNCTION LOAD: builds, checks and installs; *name is the library's.
  bool load(std::string_view code, bool replace, std::string* name, std::string* err);
  // Parses "#!lua name=..." (Redis's texts on failure).
  static bool parseHeader(std::string_view code, std::string* name, size_t* body_offset,
                          std::string* err);
  // Runs the library code and collects its functions, not installed. A
  // library named like one in `against` is refused unless replace.
  std::unique_ptr<Library> build(std::string_view code, bool replace, const LibraryMap* against,
                                 std::string* err);
  // True (and *err) when a function of lib exists in libs outside the
  // library named *replaced.
  bool collides(const Library& lib, const LibraryMap& libs, const std::string* replaced,
                std::string* err) const;
  // Installs lib, replacing a library of the same name.
  void install(std::unique_ptr<Library> lib);
  bool remove(const std::string& name);
  void flush();
  // Frees the callbacks of a library that is dropped.
  void releaseLibrary(Library* lib);

  const Function* find(std::string_view name) const;
  const LibraryMap& libraries() const { return libs_; }
  size_t functionCount() const { return funcs_.size(); }
  size_t vmBytes();
  size_t memory() const;

 private:
  void open();
  lua_State* L_ = nullptr;
  LibraryMap libs_;
  std::unordered_map<std::string, Function*> funcs_;
};

FunctionsEngine& functionsEngine();

}  // namespace server::script
