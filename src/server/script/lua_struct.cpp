// struct: packs and unpacks binary data (the library Redis gives scripts),
// written from its documented format strings:
//
//   >  big endian       <  little endian     !n  max alignment n (a power
//   of 2; "!" alone: the native maximum, 8); alignment starts at 1
//   b/B  signed/unsigned char     h/H  short (2)     l/L  long (8)
//   T  size_t (8)     i/I[n]  int of n bytes (default 4, at most 32)
//   f  float     d  double     x  one zero byte (skipped when unpacking)
//   s  zero-terminated string     c[n]  n characters; c0 (or c) with no
//   count packs the whole string and, when unpacking, takes its length
//   from the previous value     ' '  ignored
//
// struct.pack(fmt, ...) -> string; struct.unpack(fmt, s [, pos]) -> the
// values, then the position after them; struct.size(fmt) -> bytes.
#include <cctype>
#include <climits>
#include <cstdint>
#include <cstring>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include "server/script/lua_libs.h"

namespace server::script {

namespace {

constexpr int kMaxIntSize = 32;
constexpr int kMaxAlign = 8;

struct Header {
  bool little;
  int align;
};

bool nativeLittle() {
  const uint16_t one = 1;
  return *reinterpret_cast<const unsigned char*>(&one) == 1;
}

void defaults(Header* h) {
  h->little = nativeLittle();
  h->align = 1;
}

int readNumber(lua_State* L, const char** fmt, int dflt) {
  if (!isdigit(static_cast<unsigned char>(**fmt))) return dflt;
  int a = 0;
  do {
    int digit = **fmt - '0';
    if (a > (INT_MAX / 10) || a * 10 > (INT_MAX - digit)) luaL_error(L, "integral size overflow");
    a = a * 10 + digit;
    (*fmt)++;
  } while (isdigit(static_cast<unsigned char>(**fmt)));
  return a;
}

size_t optionSize(lua_State* L, char opt, const char** fmt) {
  switch (opt) {
    case 'B':
    case 'b':
      return 1;
    case 'H':
    case 'h':
      return sizeof(short);
    case 'L':
    case 'l':
      return sizeof(long);
    case 'T':
      return sizeof(size_t);
    case 'f':
      return sizeof(float);
    case 'd':
      return sizeof(double);
    case 'x':
      return 1;
    case 'c':
      return static_cast<size_t>(readNumber(L, fmt, 1));
    case 'i':
    case 'I': {
      int sz = readNumber(L, fmt, sizeof(int));
      if (sz > kMaxIntSize)
        luaL_error(L, "integral size %d is larger than limit of %d", sz, kMaxIntSize);
      return static_cast<size_t>(sz);
    }
    default:
      return 0;
  }
}

size_t paddingFor(size_t len, const Header& h, char opt, size_t size) {
  if (size == 0 || opt == 'c') return 0;
  if (size > static_cast<size_t>(h.align)) size = static_cast<size_t>(h.align);
  return (size - (len & (size - 1))) & (size - 1);
}

void controlOption(lua_State* L, char opt, const char** fmt, Header* h) {
  switch (opt) {
    case ' ':
      return;
    case '>':
      h->little = false;
      return;
    case '<':
      h->little = true;
      return;
    case '!': {
      int a = readNumber(L, fmt, kMaxAlign);
      if (a <= 0 || (a & (a - 1)) != 0) luaL_error(L, "alignment %d is not a power of 2", a);
      h->align = a;
      return;
    }
    default: {
      const char* msg = lua_pushfstring(L, "invalid format option '%c'", opt);
      luaL_argerror(L, 1, msg);
    }
  }
}

// Bytes of a float/double in the requested order (they are native now).
void orderBytes(char* p, size_t size, bool little) {
  if (little == nativeLittle()) return;
  for (size_t i = 0, j = size - 1; i < j; i++, j--) {
    char t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
}

// A float or double argument (T), in the requested byte order.
template <typename T>
void putFloat(lua_State* L, luaL_Buffer* b, int arg, bool little) {
  T v = static_cast<T>(luaL_checknumber(L, arg));
  orderBytes(reinterpret_cast<char*>(&v), sizeof(v), little);
  luaL_addlstring(b, reinterpret_cast<char*>(&v), sizeof(v));
}

// The float or double (T) stored at p in the requested byte order.
template <typename T>
lua_Number getFloat(const char* p, bool little) {
  T v;
  memcpy(&v, p, sizeof(v));
  orderBytes(reinterpret_cast<char*>(&v), sizeof(v), little);
  return v;
}

void putInteger(lua_State* L, luaL_Buffer* b, int arg, bool little, size_t size) {
  lua_Number n = luaL_checknumber(L, arg);
  uint64_t value =
      n < 0 ? static_cast<uint64_t>(static_cast<int64_t>(n)) : static_cast<uint64_t>(n);
  char buf[kMaxIntSize];
  for (size_t i = 0; i < size; i++) {
    size_t at = little ? i : size - 1 - i;
    buf[at] = static_cast<char>(value & 0xff);
    value = i < 7 ? value >> 8 : 0;
  }
  luaL_addlstring(b, buf, size);
}

lua_Number getInteger(const char* p, bool little, bool is_signed, size_t size) {
  uint64_t v = 0;
  for (size_t i = 0; i < size; i++) {
    size_t at = little ? size - 1 - i : i;
    v = (v << 8) | static_cast<unsigned char>(p[at]);
  }
  if (!is_signed) return static_cast<lua_Number>(v);
  if (size < 8) {
    uint64_t mask = ~uint64_t{0} << (size * 8 - 1);
    if (v & mask) v |= mask;
  }
  return static_cast<lua_Number>(static_cast<int64_t>(v));
}

int structPack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  Header h;
  defaults(&h);
  int arg = 2;
  size_t total = 0;
  lua_pushnil(L);  // keeps the arguments apart from the buffer's stack use
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  while (*fmt != '\0') {
    char opt = *fmt++;
    size_t size = optionSize(L, opt, &fmt);
    size_t pad = paddingFor(total, h, opt, size);
    total += pad;
    while (pad-- > 0) luaL_addchar(&b, '\0');
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        putInteger(L, &b, arg++, h.little, size);
        break;
      case 'x':
        luaL_addchar(&b, '\0');
        break;
      case 'f':
        putFloat<float>(L, &b, arg++, h.little);
        break;
      case 'd':
        putFloat<double>(L, &b, arg++, h.little);
        break;
      case 'c':
      case 's': {
        size_t l;
        const char* s = luaL_checklstring(L, arg++, &l);
        if (size == 0) size = l;
        luaL_argcheck(L, l >= size, arg, "string too short");
        luaL_addlstring(&b, s, size);
        if (opt == 's') {
          luaL_addchar(&b, '\0');
          size++;
        }
        break;
      }
      default:
        controlOption(L, opt, &fmt, &h);
    }
    total += size;
  }
  luaL_pushresult(&b);
  return 1;
}

int structUnpack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  size_t ld;
  const char* data = luaL_checklstring(L, 2, &ld);
  lua_Integer start = luaL_optinteger(L, 3, 1);
  luaL_argcheck(L, start >= 1 && static_cast<size_t>(start - 1) <= ld, 3,
                "offset must be 1 <= offset <= len");
  size_t pos = static_cast<size_t>(start - 1);
  Header h;
  defaults(&h);
  int n = 0;
  while (*fmt) {
    char opt = *fmt++;
    size_t size = optionSize(L, opt, &fmt);
    pos += paddingFor(pos, h, opt, size);
    luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
    luaL_checkstack(L, 2, "too many results");
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        lua_pushnumber(L, getInteger(data + pos, h.little, islower(opt) != 0, size));
        n++;
        break;
      case 'x':
        break;
      case 'f':
        lua_pushnumber(L, getFloat<float>(data + pos, h.little));
        n++;
        break;
      case 'd':
        lua_pushnumber(L, getFloat<double>(data + pos, h.little));
        n++;
        break;
      case 'c':
        if (size == 0) {
          if (n == 0 || !lua_isnumber(L, -1)) luaL_error(L, "format 'c0' needs a previous size");
          lua_Number want = lua_tonumber(L, -1);
          lua_pop(L, 1);
          n--;
          size = want < 0 ? SIZE_MAX : static_cast<size_t>(want);
          luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
        }
        lua_pushlstring(L, data + pos, size);
        n++;
        break;
      case 's': {
        const char* e = static_cast<const char*>(memchr(data + pos, '\0', ld - pos));
        if (e == nullptr) luaL_error(L, "unfinished string in data");
        size = static_cast<size_t>(e - (data + pos)) + 1;
        lua_pushlstring(L, data + pos, size - 1);
        n++;
        break;
      }
      default:
        controlOption(L, opt, &fmt, &h);
    }
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos + 1));
  return n + 1;
}

int structSize(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  Header h;
  defaults(&h);
  size_t pos = 0;
  while (*fmt) {
    char opt = *fmt++;
    size_t size = optionSize(L, opt, &fmt);
    pos += paddingFor(pos, h, opt, size);
    if (opt == 's')
      luaL_argerror(L, 1, "option 's' has no fixed size");
    else if (opt == 'c' && size == 0)
      luaL_argerror(L, 1, "option 'c0' has no fixed size");
    if (!isalnum(static_cast<unsigned char>(opt))) controlOption(L, opt, &fmt, &h);
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos));
  return 1;
}

}  // namespace

int luaopenStruct(lua_State* L) {
  static const luaL_Reg kFuncs[] = {
      {"pack", structPack}, {"unpack", structUnpack}, {"size", structSize}, {nullptr, nullptr}};
  lua_newtable(L);
  for (const luaL_Reg* r = kFuncs; r->name; r++) {
    lua_pushcfunction(L, r->func);
    lua_setfield(L, -2, r->name);
  }
  return 1;
}

}  // namespace server::script
