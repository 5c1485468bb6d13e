#include "server/script/lua_convert.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "server/core/client.h"
#include "server/core/command.h"

namespace server::script {

namespace {

// Nesting beyond this is answered with an error rather than risking the C
// stack (Redis checks lua_checkstack the same way).
constexpr int kMaxDepth = 1000;

// Finds the CRLF ending the line at p; returns its offset or -1.
ptrdiff_t lineEnd(const char* p, size_t len) {
  const void* cr = memchr(p, '\r', len);
  if (cr == nullptr) return -1;
  ptrdiff_t off = static_cast<const char*>(cr) - p;
  if (static_cast<size_t>(off) + 1 >= len || p[off + 1] != '\n') return -1;
  return off;
}

long long lineInt(const char* p, ptrdiff_t n) {
  std::string s(p, static_cast<size_t>(n));
  return strtoll(s.c_str(), nullptr, 10);
}

void setField(lua_State* L, const char* name) {
  lua_setfield(L, -2, name);
}

size_t parse(lua_State* L, const char* p, size_t len, int depth);

// Parses `count` elements (pairs when pairs=true) into the table on top.
size_t parseAggregate(lua_State* L, const char* p, size_t len, long long count, char kind,
                      int depth) {
  size_t used = 0;
  if (kind == '*') {
    lua_createtable(L, static_cast<int>(count > 0 && count < 1 << 20 ? count : 0), 0);
    for (long long i = 1; i <= count; i++) {
      size_t n = parse(L, p + used, len - used, depth + 1);
      if (n == 0) return 0;
      used += n;
      lua_rawseti(L, -2, static_cast<int>(i));
    }
    return used;
  }
  // Map or set: {map={...}} / {set={...}}.
  lua_newtable(L);
  lua_newtable(L);
  for (long long i = 0; i < count; i++) {
    size_t n = parse(L, p + used, len - used, depth + 1);
    if (n == 0) return 0;
    used += n;
    if (kind == '%') {
      n = parse(L, p + used, len - used, depth + 1);
      if (n == 0) return 0;
      used += n;
    } else {
      lua_pushboolean(L, 1);
    }
    if (lua_isnil(L, -2)) {
      lua_pop(L, 2);  // a nil key cannot be stored
      continue;
    }
    lua_rawset(L, -3);
  }
  setField(L, kind == '%' ? "map" : "set");
  return used;
}

size_t parse(lua_State* L, const char* p, size_t len, int depth) {
  if (len < 3 || depth > kMaxDepth || !lua_checkstack(L, 8)) return 0;
  ptrdiff_t le = lineEnd(p + 1, len - 1);
  if (le < 0) return 0;
  const char* body = p + 1;
  size_t head = static_cast<size_t>(le) + 3;  // type byte + line + CRLF
  switch (p[0]) {
    case '+':
      lua_newtable(L);
      lua_pushlstring(L, body, static_cast<size_t>(le));
      setField(L, "ok");
      return head;
    case '-':
      pushErrorTable(L, p, static_cast<size_t>(le) + 1);
      lua_pushboolean(L, 1);
      setField(L, "ignore_error_stats_update");
      return head;
    case ':':
      lua_pushnumber(L, static_cast<lua_Number>(lineInt(body, le)));
      return head;
    case '$':
    case '=': {
      long long n = lineInt(body, le);
      if (n < 0) {
        lua_pushboolean(L, 0);
        return head;
      }
      if (head + static_cast<size_t>(n) + 2 > len) return 0;
      const char* data = p + head;
      if (p[0] == '$') {
        lua_pushlstring(L, data, static_cast<size_t>(n));
      } else {
        // "txt:..." : a three-letter format, a colon, the text.
        lua_newtable(L);
        lua_newtable(L);
        size_t fl = n >= 4 ? 3 : 0;
        lua_pushlstring(L, data, fl);
        setField(L, "format");
        lua_pushlstring(L, data + (fl ? 4 : 0), static_cast<size_t>(n) - (fl ? 4 : 0));
        setField(L, "string");
        setField(L, "verbatim_string");
      }
      return head + static_cast<size_t>(n) + 2;
    }
    case '*':
    case '%':
    case '~':
    case '>': {
      long long n = lineInt(body, le);
      if (n < 0) {
        lua_pushboolean(L, 0);
        return head;
      }
      size_t used = parseAggregate(L, p + head, len - head, n, p[0] == '>' ? '*' : p[0], depth);
      if (used == 0 && n > 0) return 0;
      return head + used;
    }
    case '_':
      lua_pushnil(L);
      return head;
    case '#':
      lua_pushboolean(L, body[0] == 't');
      return head;
    case ',': {
      std::string s(body, static_cast<size_t>(le));
      lua_newtable(L);
      lua_pushnumber(L, strtod(s.c_str(), nullptr));
      setField(L, "double");
      return head;
    }
    case '(':
      lua_newtable(L);
      lua_pushlstring(L, body, static_cast<size_t>(le));
      setField(L, "big_number");
      return head;
    case '|': {
      // An attribute: skip it and return the reply that follows.
      long long n = lineInt(body, le);
      size_t used = head;
      for (long long i = 0; i < 2 * n; i++) {
        size_t k = parse(L, p + used, len - used, depth + 1);
        if (k == 0) return 0;
        lua_pop(L, 1);
        used += k;
      }
      size_t k = parse(L, p + used, len - used, depth);
      return k == 0 ? 0 : used + k;
    }
    default:
      return 0;
  }
}

// Replaces CR and LF with spaces (status and error lines must stay one
// line).
std::string oneLine(const char* s, size_t n) {
  std::string out(s, n);
  for (char& ch : out)
    if (ch == '\r' || ch == '\n') ch = ' ';
  return out;
}

// Looks up t[name] for the table at idx; leaves it on the stack and
// returns its type.
int fieldType(lua_State* L, int idx, const char* name) {
  lua_pushstring(L, name);
  lua_rawget(L, idx < 0 ? idx - 1 : idx);
  return lua_type(L, -1);
}

// Reads t[name] for the table at idx: when it is a string, sets *line to it
// made one line and returns true. Leaves the stack as it was.
bool lineField(lua_State* L, int idx, const char* name, std::string* line) {
  bool found = fieldType(L, idx, name) == LUA_TSTRING;
  if (found) {
    size_t n;
    const char* s = lua_tolstring(L, -1, &n);
    *line = oneLine(s, n);
  }
  lua_pop(L, 1);
  return found;
}

void reply(Client* c, lua_State* L, int lua_resp, int depth);

void replyTable(Client* c, lua_State* L, int lua_resp, int depth) {
  resp::Writer& w = c->reply();
  int t = lua_gettop(L);
  std::string line;
  if (lineField(L, t, "err", &line)) {
    std::string msg = "-" + line;
    bool no_stats =
        fieldType(L, t, "ignore_error_stats_update") == LUA_TBOOLEAN && lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (no_stats) {
      // Counted when the call failed; the script's command failed still.
      w.error(msg);
      if (c->cur_cmd != nullptr) const_cast<Command*>(c->cur_cmd)->failed_calls++;
    } else {
      c->addError(msg);
    }
    return;
  }
  if (lineField(L, t, "ok", &line)) {
    w.status(line);
    return;
  }
  if (fieldType(L, t, "double") == LUA_TNUMBER) {
    w.doubleValue(lua_tonumber(L, -1));
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  if (lineField(L, t, "big_number", &line)) {
    w.bigNumber(line);
    return;
  }
  for (const char* kind : {"map", "set"}) {
    if (fieldType(L, t, kind) == LUA_TTABLE) {
      bool is_map = kind[0] == 'm';
      void* slot = w.beginDeferred();
      int64_t count = 0;
      lua_pushnil(L);
      while (lua_next(L, -2)) {
        // Stack: ... inner key value
        lua_pushvalue(L, -2);
        reply(c, L, lua_resp, depth + 1);  // key
        if (is_map)
          reply(c, L, lua_resp, depth + 1);  // value
        else
          lua_pop(L, 1);
        count++;
      }
      lua_pop(L, 1);
      if (is_map)
        w.endDeferredMap(slot, count);
      else
        w.endDeferredSet(slot, count);
      return;
    }
    lua_pop(L, 1);
  }
  if (fieldType(L, t, "verbatim_string") == LUA_TTABLE) {
    int v = lua_gettop(L);
    int ft = fieldType(L, v, "format");
    int st = fieldType(L, v, "string");
    if (ft == LUA_TSTRING && st == LUA_TSTRING) {
      size_t fn, sn;
      const char* f = lua_tolstring(L, -2, &fn);
      const char* s = lua_tolstring(L, -1, &sn);
      std::string fmt(f, fn);
      if (fmt.size() != 3) fmt = "txt";
      w.verbatim(std::string_view(s, sn), fmt.c_str());
      lua_pop(L, 3);
      return;
    }
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  // An array up to the first nil.
  void* slot = w.beginDeferred();
  int64_t n = 0;
  for (int j = 1;; j++) {
    lua_rawgeti(L, t, j);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      break;
    }
    reply(c, L, lua_resp, depth + 1);
    n++;
  }
  w.endDeferredArray(slot, n);
}

void reply(Client* c, lua_State* L, int lua_resp, int depth) {
  resp::Writer& w = c->reply();
  if (depth > kMaxDepth || !lua_checkstack(L, 8)) {
    lua_pop(L, 1);
    c->addError("reached lua stack limit");
    return;
  }
  switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
      size_t n;
      const char* s = lua_tolstring(L, -1, &n);
      w.bulk(s, n);
      break;
    }
    case LUA_TBOOLEAN:
      if (lua_resp == 2) {
        if (lua_toboolean(L, -1))
          w.integer(1);
        else
          w.null();
      } else {
        w.boolean(lua_toboolean(L, -1) != 0);
      }
      break;
    case LUA_TNUMBER: {
      double d = lua_tonumber(L, -1);
      // Out of range (and NaN) gives INT64_MIN, as Redis's plain C cast
      // does on x86-64.
      int64_t v = (d >= -9.2233720368547758e18 && d < 9.2233720368547758e18)
                      ? static_cast<int64_t>(d)
                      : INT64_MIN;
      w.integer(v);
      break;
    }
    case LUA_TTABLE:
      replyTable(c, L, lua_resp, depth);
      break;
    default:
      w.null();
  }
  lua_pop(L, 1);
}

}  // namespace

size_t pushReplyAsLua(lua_State* L, const char* p, size_t len) {
  int top = lua_gettop(L);
  size_t n = parse(L, p, len, 0);
  if (n == 0) lua_settop(L, top);
  return n;
}

void replyFromLua(Client* c, lua_State* L, int lua_resp) {
  reply(c, L, lua_resp, 0);
}

void pushErrorTable(lua_State* L, const char* msg, size_t len) {
  std::string code = "ERR";
  std::string text;
  if (len > 0 && msg[0] == '-') {
    const char* sp = static_cast<const char*>(memchr(msg, ' ', len));
    if (sp == nullptr) {
      text.assign(msg + 1, len - 1);
    } else {
      code.assign(msg + 1, static_cast<size_t>(sp - msg - 1));
      text.assign(sp + 1, static_cast<size_t>(msg + len - sp - 1));
    }
  } else {
    text.assign(msg, len);
  }
  while (!text.empty() && (text.back() == '\r' || text.back() == '\n')) text.pop_back();
  std::string full = code + " " + text;
  lua_newtable(L);
  lua_pushlstring(L, full.data(), full.size());
  lua_setfield(L, -2, "err");
}

}  // namespace server::script
