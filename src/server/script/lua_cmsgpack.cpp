// cmsgpack: MessagePack for scripts (the library Redis gives them), from
// the MessagePack specification:
//
// pack(v1, v2, ...) -> the encodings concatenated. nil -> nil (0xc0);
// booleans -> 0xc2/0xc3; a number equal to an int64 -> the smallest
// integer form (positive/negative fixint, uint/int 8..64); other numbers
// -> float 32 (0xca) when exact, else float 64 (0xcb); strings -> fixstr,
// str8/16/32; a table whose keys are exactly 1..n -> fixarray / array16 /
// array32 of t[1..n] (an empty table is an empty array), any other table
// -> fixmap / map16 / map32; tables nested deeper than 16 levels and other
// types -> nil.
// unpack(s) -> every value in s; unpack_one(s [, offset]) -> next offset
// (-1 at the end), value; unpack_limit(s, limit [, offset]) -> next
// offset, up to `limit` values. (bin and ext types are refused, as in
// lua-cmsgpack 0.4.0.) Maps ->
// tables, arrays -> tables indexed from 1. Errors: "Missing bytes in
// input.", "Bad data format in input.".
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include "server/script/lua_libs.h"

namespace server::script {

namespace {

constexpr int kMaxNesting = 16;
// Decoding recurses per nesting level; hostile input must not exhaust the C
// stack.
constexpr int kMaxDecodeDepth = 1000;

void putBe(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; i--) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void encodeInt(std::string* out, int64_t n) {
  if (n >= 0) {
    uint64_t u = static_cast<uint64_t>(n);
    if (u <= 127) {
      out->push_back(static_cast<char>(u));
    } else if (u <= 0xff) {
      out->push_back(static_cast<char>(0xcc));
      putBe(out, u, 1);
    } else if (u <= 0xffff) {
      out->push_back(static_cast<char>(0xcd));
      putBe(out, u, 2);
    } else if (u <= 0xffffffffULL) {
      out->push_back(static_cast<char>(0xce));
      putBe(out, u, 4);
    } else {
      out->push_back(static_cast<char>(0xcf));
      putBe(out, u, 8);
    }
  } else if (n >= -32) {
    out->push_back(static_cast<char>(static_cast<uint8_t>(n)));
  } else if (n >= -128) {
    out->push_back(static_cast<char>(0xd0));
    putBe(out, static_cast<uint64_t>(n), 1);
  } else if (n >= -32768) {
    out->push_back(static_cast<char>(0xd1));
    putBe(out, static_cast<uint64_t>(n), 2);
  } else if (n >= -2147483648LL) {
    out->push_back(static_cast<char>(0xd2));
    putBe(out, static_cast<uint64_t>(n), 4);
  } else {
    out->push_back(static_cast<char>(0xd3));
    putBe(out, static_cast<uint64_t>(n), 8);
  }
}

void encodeNumber(std::string* out, double d) {
  if (!std::isinf(d) && d >= -9.2233720368547758e18 && d < 9.2233720368547758e18 &&
      static_cast<double>(static_cast<int64_t>(d)) == d) {
    encodeInt(out, static_cast<int64_t>(d));
    return;
  }
  float f = static_cast<float>(d);
  if (static_cast<double>(f) == d) {
    uint32_t bits;
    memcpy(&bits, &f, 4);
    out->push_back(static_cast<char>(0xca));
    putBe(out, bits, 4);
  } else {
    uint64_t bits;
    memcpy(&bits, &d, 8);
    out->push_back(static_cast<char>(0xcb));
    putBe(out, bits, 8);
  }
}

void encodeString(std::string* out, const char* s, size_t len) {
  if (len < 32) {
    out->push_back(static_cast<char>(0xa0 | len));
  } else if (len <= 0xff) {
    out->push_back(static_cast<char>(0xd9));
    putBe(out, len, 1);
  } else if (len <= 0xffff) {
    out->push_back(static_cast<char>(0xda));
    putBe(out, len, 2);
  } else {
    out->push_back(static_cast<char>(0xdb));
    putBe(out, len, 4);
  }
  out->append(s, len);
}

// True when the table on top has exactly the keys 1..n.
bool isArray(lua_State* L) {
  int top = lua_gettop(L);
  double count = 0, max = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TNUMBER) {
      lua_settop(L, top);
      return false;
    }
    double n = lua_tonumber(L, -1);
    if (n < 1 || n != std::floor(n)) {
      lua_settop(L, top);
      return false;
    }
    count++;
    if (n > max) max = n;
  }
  lua_settop(L, top);
  return max == count;
}

void encodeValue(lua_State* L, std::string* out, int level);

void encodeTable(lua_State* L, std::string* out, int level) {
  if (level == kMaxNesting || !lua_checkstack(L, 4)) {
    out->push_back(static_cast<char>(0xc0));
    return;
  }
  if (isArray(L)) {
    size_t len = lua_objlen(L, -1);
    if (len <= 15) {
      out->push_back(static_cast<char>(0x90 | len));
    } else if (len <= 0xffff) {
      out->push_back(static_cast<char>(0xdc));
      putBe(out, len, 2);
    } else {
      out->push_back(static_cast<char>(0xdd));
      putBe(out, len, 4);
    }
    for (size_t j = 1; j <= len; j++) {
      lua_rawgeti(L, -1, static_cast<int>(j));
      encodeValue(L, out, level + 1);
      lua_pop(L, 1);
    }
    return;
  }
  size_t len = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    len++;
  }
  if (len <= 15) {
    out->push_back(static_cast<char>(0x80 | len));
  } else if (len <= 0xffff) {
    out->push_back(static_cast<char>(0xde));
    putBe(out, len, 2);
  } else {
    out->push_back(static_cast<char>(0xdf));
    putBe(out, len, 4);
  }
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);  // a copy of the key: encoding must not change it
    encodeValue(L, out, level + 1);
    lua_pop(L, 1);
    encodeValue(L, out, level + 1);
    lua_pop(L, 1);
  }
}

// Encodes the value on top (left in place).
void encodeValue(lua_State* L, std::string* out, int level) {
  switch (lua_type(L, -1)) {
    case LUA_TBOOLEAN:
      out->push_back(static_cast<char>(lua_toboolean(L, -1) ? 0xc3 : 0xc2));
      break;
    case LUA_TNUMBER:
      encodeNumber(out, lua_tonumber(L, -1));
      break;
    case LUA_TSTRING: {
      size_t len;
      const char* s = lua_tolstring(L, -1, &len);
      encodeString(out, s, len);
      break;
    }
    case LUA_TTABLE:
      encodeTable(L, out, level);
      break;
    default:
      out->push_back(static_cast<char>(0xc0));
  }
}

int cmsgpackPack(lua_State* L) {
  int n = lua_gettop(L);
  if (n == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
  std::string out;
  for (int i = 1; i <= n; i++) {
    lua_pushvalue(L, i);
    encodeValue(L, &out, 0);
    lua_pop(L, 1);
  }
  lua_pushlstring(L, out.data(), out.size());
  return 1;
}

enum class DecodeError { kNone, kEof, kBadFormat };

struct Cursor {
  const unsigned char* p;
  size_t left;
  DecodeError err = DecodeError::kNone;
  bool need(size_t n) {
    if (left < n) {
      err = DecodeError::kEof;
      return false;
    }
    return true;
  }
  uint64_t be(size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) v = (v << 8) | p[i];
    p += n;
    left -= n;
    return v;
  }
};

void decodeValue(lua_State* L, Cursor* c, int depth);

void decodeArray(lua_State* L, Cursor* c, uint64_t n, int depth) {
  lua_newtable(L);
  for (uint64_t i = 1; i <= n && c->err == DecodeError::kNone; i++) {
    decodeValue(L, c, depth + 1);
    if (c->err != DecodeError::kNone) return;
    lua_rawseti(L, -2, static_cast<int>(i));
  }
}

void decodeMap(lua_State* L, Cursor* c, uint64_t n, int depth) {
  lua_newtable(L);
  for (uint64_t i = 0; i < n; i++) {
    decodeValue(L, c, depth + 1);
    if (c->err != DecodeError::kNone) return;
    decodeValue(L, c, depth + 1);
    if (c->err != DecodeError::kNone) return;
    if (lua_isnil(L, -2)) {
      lua_pop(L, 2);  // a nil key cannot be stored
      continue;
    }
    lua_rawset(L, -3);
  }
}

void decodeString(lua_State* L, Cursor* c, size_t len) {
  if (!c->need(len)) return;
  lua_pushlstring(L, reinterpret_cast<const char*>(c->p), len);
  c->p += len;
  c->left -= len;
}

// Pushes one decoded value, or sets c->err (then what it pushed is
// dropped by the caller's settop).
void decodeValue(lua_State* L, Cursor* c, int depth) {
  if (depth > kMaxDecodeDepth || !lua_checkstack(L, 4)) {
    c->err = DecodeError::kBadFormat;
    return;
  }
  if (!c->need(1)) return;
  unsigned char t = *c->p;
  c->p++;
  c->left--;
  if (t <= 0x7f) {
    lua_pushnumber(L, t);
  } else if (t >= 0xe0) {
    lua_pushnumber(L, static_cast<int8_t>(t));
  } else if ((t & 0xe0) == 0xa0) {
    decodeString(L, c, t & 0x1f);
  } else if ((t & 0xf0) == 0x90) {
    decodeArray(L, c, t & 0x0f, depth);
  } else if ((t & 0xf0) == 0x80) {
    decodeMap(L, c, t & 0x0f, depth);
  } else {
    switch (t) {
      case 0xc0:
        lua_pushnil(L);
        break;
      case 0xc2:
        lua_pushboolean(L, 0);
        break;
      case 0xc3:
        lua_pushboolean(L, 1);
        break;
      case 0xcc:
      case 0xcd:
      case 0xce:
      case 0xcf: {
        size_t n = size_t{1} << (t - 0xcc);
        if (!c->need(n)) return;
        lua_pushnumber(L, static_cast<lua_Number>(c->be(n)));
        break;
      }
      case 0xd0:
      case 0xd1:
      case 0xd2:
      case 0xd3: {
        size_t n = size_t{1} << (t - 0xd0);
        if (!c->need(n)) return;
        uint64_t v = c->be(n);
        int64_t s;
        if (n == 1)
          s = static_cast<int8_t>(v);
        else if (n == 2)
          s = static_cast<int16_t>(v);
        else if (n == 4)
          s = static_cast<int32_t>(v);
        else
          s = static_cast<int64_t>(v);
        lua_pushnumber(L, static_cast<lua_Number>(s));
        break;
      }
      case 0xca: {
        if (!c->need(4)) return;
        uint32_t bits = static_cast<uint32_t>(c->be(4));
        float f;
        memcpy(&f, &bits, 4);
        lua_pushnumber(L, f);
        break;
      }
      case 0xcb: {
        if (!c->need(8)) return;
        uint64_t bits = c->be(8);
        double d;
        memcpy(&d, &bits, 8);
        lua_pushnumber(L, d);
        break;
      }
      case 0xd9:
        if (!c->need(1)) return;
        decodeString(L, c, c->be(1));
        break;
      case 0xda:
        if (!c->need(2)) return;
        decodeString(L, c, c->be(2));
        break;
      case 0xdb:
        if (!c->need(4)) return;
        decodeString(L, c, c->be(4));
        break;
      case 0xdc:
        if (!c->need(2)) return;
        decodeArray(L, c, c->be(2), depth);
        break;
      case 0xdd:
        if (!c->need(4)) return;
        decodeArray(L, c, c->be(4), depth);
        break;
      case 0xde:
        if (!c->need(2)) return;
        decodeMap(L, c, c->be(2), depth);
        break;
      case 0xdf:
        if (!c->need(4)) return;
        decodeMap(L, c, c->be(4), depth);
        break;
      default:
        c->err = DecodeError::kBadFormat;
    }
  }
}

// Shared by unpack / unpack_one / unpack_limit. decode_all: plain unpack
// (no offset result).
int unpackFull(lua_State* L, lua_Integer limit, lua_Integer offset, bool decode_all) {
  size_t len;
  const char* s = luaL_checklstring(L, 1, &len);
  if (offset < 0 || limit < 0)
    // (lua-cmsgpack 0.4.0 prints the input length as the "limit")
    return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.",
                      static_cast<int>(offset), static_cast<int>(len));
  if (static_cast<size_t>(offset) > len)
    return luaL_error(L, "Start offset %d greater than input length %d.", static_cast<int>(offset),
                      static_cast<int>(len));
  if (decode_all) limit = INT32_MAX;
  Cursor c{reinterpret_cast<const unsigned char*>(s) + offset, len - static_cast<size_t>(offset)};
  int base = lua_gettop(L);
  int count = 0;
  while (c.left > 0 && count < limit) {
    int top = lua_gettop(L);
    decodeValue(L, &c, 0);
    if (c.err != DecodeError::kNone) {
      lua_settop(L, top);
      break;
    }
    count++;
  }
  if (c.err == DecodeError::kEof) return luaL_error(L, "Missing bytes in input.");
  if (c.err == DecodeError::kBadFormat) return luaL_error(L, "Bad data format in input.");
  if (!decode_all) {
    lua_Integer next = c.left == 0 ? -1 : static_cast<lua_Integer>(len - c.left);
    lua_pushinteger(L, next);
    lua_insert(L, base + 1);
    count++;
  }
  return count;
}

int cmsgpackUnpack(lua_State* L) {
  return unpackFull(L, 0, 0, true);
}

int cmsgpackUnpackOne(lua_State* L) {
  lua_Integer offset = luaL_optinteger(L, 2, 0);
  lua_settop(L, 1);
  return unpackFull(L, 1, offset, false);
}

int cmsgpackUnpackLimit(lua_State* L) {
  lua_Integer limit = luaL_checkinteger(L, 2);
  lua_Integer offset = luaL_optinteger(L, 3, 0);
  lua_settop(L, 1);
  return unpackFull(L, limit, offset, false);
}

}  // namespace

int luaopenCmsgpack(lua_State* L) {
  static const luaL_Reg kFuncs[] = {{"pack", cmsgpackPack},
                                    {"unpack", cmsgpackUnpack},
                                    {"unpack_one", cmsgpackUnpackOne},
                                    {"unpack_limit", cmsgpackUnpackLimit},
                                    {nullptr, nullptr}};
  lua_newtable(L);
  for (const luaL_Reg* r = kFuncs; r->name; r++) {
    lua_pushcfunction(L, r->func);
    lua_setfield(L, -2, r->name);
  }
  lua_pushstring(L, "cmsgpack");
  lua_setfield(L, -2, "_NAME");
  lua_pushstring(L, "lua-cmsgpack 0.4.0");
  lua_setfield(L, -2, "_VERSION");
  lua_pushstring(L, "Copyright (C) 2012, Salvatore Sanfilippo");
  lua_setfield(L, -2, "_COPYRIGHT");
  lua_pushstring(L, "MessagePack C implementation for Lua");
  lua_setfield(L, -2, "_DESCRIPTION");
  return 1;
}

}  // namespace server::script
