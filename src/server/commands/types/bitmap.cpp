// Bitmap commands over string values: SETBIT GETBIT BITCOUNT BITPOS BITOP
// (BITFIELD lives in bitfield.cpp). The order of argument checks, key
// lookup and type check follows Redis 7.0, since it decides which error a
// user sees (BITCOUNT on a missing key answers 0 before looking at its
// range arguments, for example).
#include "server/commands/types/bitmap.h"

#include <string>
#include <vector>

#include "common/strutil.h"
#include "server/commands/families.h"
#include "server/commands/types/bit_algo.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/request/keyspace.h"

namespace server {

bool parseBitOffset(Client* c, size_t argi, bool allow_hash, int bits, uint64_t* offset) {
  std::string_view s = c->arg(argi);
  bool by_field = allow_hash && bits > 0 && !s.empty() && s[0] == '#';
  int64_t v;
  bool ok = common::strutil::parseInt64(by_field ? s.substr(1) : s, &v);
  if (ok && by_field) ok = !__builtin_mul_overflow(v, bits, &v);
  if (ok) ok = v >= 0 && (v >> 3) < g_server->config.proto_max_bulk_len;
  if (!ok) {
    c->addError("bit offset is not an integer or out of range");
    return false;
  }
  *offset = static_cast<uint64_t>(v);
  return true;
}

uint8_t* stringForBitWrite(Client* c, std::string_view key, uint64_t max_bit, size_t* len,
                           bool* grown) {
  db::Entry* e = lookupWrite(c, key);
  *grown = false;
  if (e == nullptr) {
    e = c->db()->add(key, db::Value::fromBytes("", true));
    *grown = true;
  } else if (!e->val.isString()) {
    c->addWrongType();
    return nullptr;
  }
  size_t old = e->val.strLen();
  size_t need = static_cast<size_t>(max_bit >> 3) + 1;
  *len = need > old ? need : old;
  if (*len != old) *grown = true;
  return reinterpret_cast<uint8_t*>(e->val.mutableBytes(*len));
}

namespace {

// The string at key for a bit read. *absent when there is no key; false
// after replying WRONGTYPE.
bool stringForBitRead(Client* c, std::string_view key, char* scratch, std::string_view* out,
                      bool* absent) {
  db::Entry* e = lookupRead(c, key);
  *absent = e == nullptr;
  if (e == nullptr) return true;
  if (!e->val.isString()) {
    c->addWrongType();
    return false;
  }
  *out = e->val.str(scratch);
  return true;
}

const uint8_t* bytesOf(std::string_view s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}

// The optional BYTE|BIT unit argument; false after a syntax error reply.
bool parseUnit(Client* c, size_t argi, bool* is_bit) {
  *is_bit = false;
  if (argi >= c->argc()) return true;
  if (common::strutil::equalsIgnoreCase(c->arg(argi), "bit")) {
    *is_bit = true;
  } else if (!common::strutil::equalsIgnoreCase(c->arg(argi), "byte")) {
    c->addSyntaxError();
    return false;
  }
  return true;
}

void setbitCommand(Client* c) {
  const char* kBitErr = "bit is not an integer or out of range";
  uint64_t offset;
  int64_t on;
  if (!parseBitOffset(c, 2, false, 0, &offset)) return;
  if (!c->argInt64Msg(3, &on, kBitErr)) return;
  if (on & ~int64_t{1}) {
    c->addError(kBitErr);
    return;
  }
  size_t len;
  bool grown;
  uint8_t* p = stringForBitWrite(c, c->arg(1), offset, &len, &grown);
  if (p == nullptr) return;
  uint8_t& byte = p[offset >> 3];
  uint8_t mask = static_cast<uint8_t>(0x80 >> (offset & 7));
  int old = (byte & mask) ? 1 : 0;
  // Only a real change (or a new/longer string) counts as a write.
  if (grown || old != on) {
    byte = static_cast<uint8_t>(on ? (byte | mask) : (byte & ~mask));
    keyModified(c, c->arg(1));
    notify::keyEvent(c, notify::kString, "setbit", c->arg(1));
  }
  c->addInteger(old);
}

void getbitCommand(Client* c) {
  uint64_t offset;
  if (!parseBitOffset(c, 2, false, 0, &offset)) return;
  char scratch[24];
  std::string_view s;
  bool absent;
  if (!stringForBitRead(c, c->arg(1), scratch, &s, &absent)) return;
  uint64_t byte = offset >> 3;
  int bit = 0;
  if (!absent && byte < s.size()) bit = (bytesOf(s)[byte] >> (7 - (offset & 7))) & 1;
  c->addInteger(bit);
}

void bitcountCommand(Client* c) {
  char scratch[24];
  std::string_view s;
  bool absent;
  if (!stringForBitRead(c, c->arg(1), scratch, &s, &absent)) return;
  if (absent) {
    c->addInteger(0);
    return;
  }
  int64_t len = static_cast<int64_t>(s.size());
  int64_t first = 0, last = len * 8 - 1;  // bit range
  if (c->argc() == 4 || c->argc() == 5) {
    int64_t start, end;
    bool is_bit;
    if (!c->argInt64(2, &start) || !c->argInt64(3, &end)) return;
    // Both from the end and inverted: empty, even where clamping both to 0
    // would select the first unit.
    if (start < 0 && end < 0 && start > end) {
      c->addInteger(0);
      return;
    }
    if (!parseUnit(c, 4, &is_bit)) return;
    if (!bitalgo::clampRange(start, end, is_bit ? len * 8 : len, &first, &last)) {
      c->addInteger(0);
      return;
    }
    if (!is_bit) {
      first *= 8;
      last = last * 8 + 7;
    }
  } else if (c->argc() != 2) {
    c->addSyntaxError();
    return;
  }
  if (len == 0) {
    c->addInteger(0);
    return;
  }
  uint64_t n =
      bitalgo::countBits(bytesOf(s), static_cast<uint64_t>(first), static_cast<uint64_t>(last));
  c->addInteger(static_cast<int64_t>(n));
}

void bitposCommand(Client* c) {
  int64_t bit;
  if (!c->argInt64(2, &bit)) return;
  if (bit != 0 && bit != 1) {
    c->addError("The bit argument must be 1 or 0.");
    return;
  }
  char scratch[24];
  std::string_view s;
  bool absent;
  if (!stringForBitRead(c, c->arg(1), scratch, &s, &absent)) return;
  // A missing key is an endless run of zero bits.
  if (absent) {
    c->addInteger(bit ? -1 : 0);
    return;
  }
  int64_t len = static_cast<int64_t>(s.size());
  bool end_given = false, is_bit = false;
  int64_t start = 0, end = -1;
  if (c->argc() >= 4 && c->argc() <= 6) {
    if (!c->argInt64(3, &start)) return;
    if (!parseUnit(c, 5, &is_bit)) return;
    if (c->argc() >= 5) {
      if (!c->argInt64(4, &end)) return;
      end_given = true;
    }
  } else if (c->argc() != 3) {
    c->addSyntaxError();
    return;
  }
  int64_t first, last;
  if (!bitalgo::clampRange(start, end, is_bit ? len * 8 : len, &first, &last)) {
    c->addInteger(-1);  // an empty range holds neither a 0 nor a 1
    return;
  }
  if (!is_bit) {
    first *= 8;
    last = last * 8 + 7;
  }
  int64_t pos = bitalgo::findBit(bytesOf(s), static_cast<uint64_t>(first),
                                 static_cast<uint64_t>(last), static_cast<int>(bit));
  // Without an explicit end the string counts as padded with zeros on the
  // right, so a clear bit is always found: the first one past the range.
  if (pos == -1 && bit == 0 && !end_given) pos = last + 1;
  c->addInteger(pos);
}

void bitopCommand(Client* c) {
  std::string_view name = c->arg(1);
  bitalgo::BitOp op;
  if (common::strutil::equalsIgnoreCase(name, "and")) {
    op = bitalgo::BitOp::kAnd;
  } else if (common::strutil::equalsIgnoreCase(name, "or")) {
    op = bitalgo::BitOp::kOr;
  } else if (common::strutil::equalsIgnoreCase(name, "xor")) {
    op = bitalgo::BitOp::kXor;
  } else if (common::strutil::equalsIgnoreCase(name, "not")) {
    op = bitalgo::BitOp::kNot;
  } else {
    c->addSyntaxError();
    return;
  }
  if (op == bitalgo::BitOp::kNot && c->argc() != 4) {
    c->addError("BITOP NOT must be called with a single source key.");
    return;
  }
  size_t nsrc = c->argc() - 3;
  std::vector<std::string_view> srcs(nsrc);
  // Int-encoded sources need their digits somewhere that outlives the loop.
  std::vector<std::string> digits;
  digits.reserve(nsrc);
  for (size_t i = 0; i < nsrc; i++) {
    db::Entry* e = lookupRead(c, c->arg(3 + i));
    if (e == nullptr) continue;  // a missing key is an empty string
    if (!e->val.isString()) {
      c->addWrongType();
      return;
    }
    if (e->val.isInt()) {
      char scratch[24];
      digits.emplace_back(e->val.str(scratch));
      srcs[i] = digits.back();
    } else {
      srcs[i] = e->val.str(nullptr);
    }
  }
  std::string result = bitalgo::bitop(op, srcs);
  std::string_view dest = c->arg(2);
  if (!result.empty()) {
    c->db()->set(dest, db::Value::fromBytes(result, true), false);
    keyModified(c, dest);
    notify::keyEvent(c, notify::kString, "set", dest);
  } else {
    deleteStoreTarget(c, dest);
  }
  c->addInteger(static_cast<int64_t>(result.size()));
}

}  // namespace

void registerBitmapCommands(CommandTable& t) {
  t.add({"setbit", 4, kWrite | kDenyOom, setbitCommand, 1, 1, 1, "bitmap",
         "Sets or clears the bit at offset in the string value stored at key", "2.2.0", "O(1)",
         "write bitmap slow"});
  t.add({"getbit", 3, kReadOnly | kFast, getbitCommand, 1, 1, 1, "bitmap",
         "Returns the bit value at offset in the string value stored at key", "2.2.0", "O(1)",
         "read bitmap fast"});
  t.add({"bitcount", -2, kReadOnly, bitcountCommand, 1, 1, 1, "bitmap",
         "Count set bits in a string", "2.6.0", "O(N)", "read bitmap slow"});
  t.add({"bitpos", -3, kReadOnly, bitposCommand, 1, 1, 1, "bitmap",
         "Find first bit set or clear in a string", "2.8.7", "O(N)", "read bitmap slow"});
  t.add({"bitop", -4, kWrite | kDenyOom, bitopCommand, 2, -1, 1, "bitmap",
         "Perform bitwise operations between strings", "2.6.0", "O(N)", "write bitmap slow"});
  registerBitfieldCommands(t);
}

}  // namespace server
