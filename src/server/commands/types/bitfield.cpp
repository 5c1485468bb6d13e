// BITFIELD key [GET type offset] [SET type offset value]
//              [INCRBY type offset increment] [OVERFLOW WRAP|SAT|FAIL] ...
// and BITFIELD_RO (GET only). Every operation is parsed and checked before
// any of them runs, so an error leaves the key untouched; a write grows the
// string once, to the furthest bit any operation writes.
#include <string>
#include <vector>

#include "common/strutil.h"
#include "server/commands/types/bit_algo.h"
#include "server/commands/types/bitmap.h"
#include "server/core/client.h"
#include "server/request/keyspace.h"

namespace server {
namespace {

enum class FieldOp { kGet, kSet, kIncrBy };

struct FieldCommand {
  FieldOp op;
  bool is_signed;
  int bits;
  uint64_t offset;
  int64_t value;  // SET value or INCRBY increment
  bitalgo::Overflow overflow;
};

// "i1".."i64" or "u1".."u63".
bool parseFieldType(Client* c, std::string_view s, bool* is_signed, int* bits) {
  int64_t n = 0;
  bool ok =
      !s.empty() && (s[0] == 'i' || s[0] == 'u') && common::strutil::parseInt64(s.substr(1), &n);
  if (ok) {
    *is_signed = s[0] == 'i';
    ok = n >= 1 && n <= (*is_signed ? 64 : 63);
  }
  if (!ok) {
    c->addError(
        "Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but "
        "i64 is.");
    return false;
  }
  *bits = static_cast<int>(n);
  return true;
}

// Parses every operation; false after replying the first error.
bool parseFieldCommands(Client* c, std::vector<FieldCommand>* ops, uint64_t* max_write_bit) {
  bitalgo::Overflow overflow = bitalgo::Overflow::kWrap;
  for (size_t j = 2; j < c->argc(); j++) {
    std::string_view sub = c->arg(j);
    size_t left = c->argc() - j - 1;
    FieldCommand fc{};
    if (common::strutil::equalsIgnoreCase(sub, "get") && left >= 2) {
      fc.op = FieldOp::kGet;
    } else if (common::strutil::equalsIgnoreCase(sub, "set") && left >= 3) {
      fc.op = FieldOp::kSet;
    } else if (common::strutil::equalsIgnoreCase(sub, "incrby") && left >= 3) {
      fc.op = FieldOp::kIncrBy;
    } else if (common::strutil::equalsIgnoreCase(sub, "overflow") && left >= 1) {
      std::string_view how = c->arg(++j);
      if (common::strutil::equalsIgnoreCase(how, "wrap")) {
        overflow = bitalgo::Overflow::kWrap;
      } else if (common::strutil::equalsIgnoreCase(how, "sat")) {
        overflow = bitalgo::Overflow::kSat;
      } else if (common::strutil::equalsIgnoreCase(how, "fail")) {
        overflow = bitalgo::Overflow::kFail;
      } else {
        c->addError("Invalid OVERFLOW type specified");
        return false;
      }
      continue;
    } else {
      c->addSyntaxError();
      return false;
    }
    if (!parseFieldType(c, c->arg(j + 1), &fc.is_signed, &fc.bits)) return false;
    if (!parseBitOffset(c, j + 2, true, fc.bits, &fc.offset)) return false;
    if (fc.op != FieldOp::kGet) {
      uint64_t last = fc.offset + static_cast<uint64_t>(fc.bits) - 1;
      if (last > *max_write_bit) *max_write_bit = last;
      if (!c->argInt64(j + 3, &fc.value)) return false;
    }
    fc.overflow = overflow;
    ops->push_back(fc);
    j += fc.op == FieldOp::kGet ? 2 : 3;
  }
  return true;
}

// Runs one SET/INCRBY on the (already grown) string and replies with its
// result: the old value for SET, the new one for INCRBY, null when
// OVERFLOW FAIL refused the write. Returns whether the field changed.
bool runFieldWrite(Client* c, const FieldCommand& fc, uint8_t* p, size_t len, bool grown) {
  bool incr = fc.op == FieldOp::kIncrBy;
  uint64_t stored;
  int64_t reply;
  bool overflow;
  uint64_t old_bits = bitalgo::getField(p, len, fc.offset, fc.bits);
  if (fc.is_signed) {
    int64_t old = bitalgo::getSignedField(p, len, fc.offset, fc.bits);
    int64_t next;
    overflow =
        bitalgo::signedAdd(incr ? old : fc.value, incr ? fc.value : 0, fc.bits, fc.overflow, &next);
    stored = static_cast<uint64_t>(next);
    reply = incr ? next : old;
  } else {
    uint64_t next;
    overflow = bitalgo::unsignedAdd(incr ? old_bits : static_cast<uint64_t>(fc.value),
                                    incr ? fc.value : 0, fc.bits, fc.overflow, &next);
    stored = next;
    reply = static_cast<int64_t>(incr ? next : old_bits);
  }
  if (overflow && fc.overflow == bitalgo::Overflow::kFail) {
    c->addNull();
    return false;
  }
  c->addInteger(reply);
  bitalgo::setField(p, fc.offset, fc.bits, stored);
  uint64_t mask = fc.bits == 64 ? ~uint64_t{0} : (uint64_t{1} << fc.bits) - 1;
  return grown || (old_bits != (stored & mask));
}

void bitfieldGeneric(Client* c, bool read_only_cmd) {
  std::vector<FieldCommand> ops;
  uint64_t max_write_bit = 0;
  if (!parseFieldCommands(c, &ops, &max_write_bit)) return;
  bool writes = false;
  for (const FieldCommand& fc : ops) writes |= fc.op != FieldOp::kGet;

  std::string_view key = c->arg(1);
  const uint8_t* rp = nullptr;
  uint8_t* wp = nullptr;
  size_t len = 0;
  bool grown = false;
  char scratch[24];
  if (!writes) {
    db::Entry* e = lookupRead(c, key);
    if (e != nullptr && !e->val.isString()) {
      c->addWrongType();
      return;
    }
    if (e != nullptr) {
      std::string_view s = e->val.str(scratch);
      rp = reinterpret_cast<const uint8_t*>(s.data());
      len = s.size();
    }
  } else {
    if (read_only_cmd) {
      c->addError("BITFIELD_RO only supports the GET subcommand");
      return;
    }
    wp = stringForBitWrite(c, key, max_write_bit, &len, &grown);
    if (wp == nullptr) return;
    rp = wp;
  }

  c->addArrayLen(static_cast<int64_t>(ops.size()));
  size_t changes = 0;
  for (const FieldCommand& fc : ops) {
    if (fc.op == FieldOp::kGet) {
      if (fc.is_signed)
        c->addInteger(bitalgo::getSignedField(rp, len, fc.offset, fc.bits));
      else
        c->addInteger(static_cast<int64_t>(bitalgo::getField(rp, len, fc.offset, fc.bits)));
    } else if (runFieldWrite(c, fc, wp, len, grown)) {
      changes++;
    }
  }
  if (changes > 0) {
    keyModified(c, key);
    notify::keyEvent(c, notify::kString, "setbit", key);
  }
}

void bitfieldCommand(Client* c) {
  bitfieldGeneric(c, false);
}

void bitfieldRoCommand(Client* c) {
  bitfieldGeneric(c, true);
}

// GETKEYSANDFLAGS: only GETs read the key; a SET or INCRBY writes it.
const char* bitfieldKeyFlags(const std::vector<std::string_view>& argv) {
  for (size_t i = 2; i < argv.size(); i++) {
    std::string_view op = argv[i];
    if (common::strutil::equalsIgnoreCase(op, "get")) {
      i += 2;
    } else if (common::strutil::equalsIgnoreCase(op, "set") ||
               common::strutil::equalsIgnoreCase(op, "incrby")) {
      return "RW access update";
    } else if (common::strutil::equalsIgnoreCase(op, "overflow")) {
      i += 1;
    }
  }
  return "RO access";
}

}  // namespace

void registerBitfieldCommands(CommandTable& t) {
  t.add({"bitfield", -2, kWrite | kDenyOom, bitfieldCommand, 1, 1, 1, "bitmap",
         "Perform arbitrary bitfield integer operations on strings", "3.2.0",
         "O(1) for each subcommand specified", "write bitmap slow"});
  t.add({"bitfield_ro", -2, kReadOnly | kFast, bitfieldRoCommand, 1, 1, 1, "bitmap",
         "Perform arbitrary bitfield integer operations on strings. Read-only variant of "
         "BITFIELD",
         "6.0.0", "O(1) for each subcommand specified", "read bitmap fast"});
  t.setKeyFlagsProc("bitfield", bitfieldKeyFlags);
}

}  // namespace server
