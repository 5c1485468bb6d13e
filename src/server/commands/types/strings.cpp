// String commands: GET SET and their variants, MGET MSET, APPEND STRLEN
// GETRANGE SETRANGE. Counters (INCR...) live in string_counters.cpp, LCS
// in lcs.cpp.
#include <climits>
#include <cstring>
#include <string>

#include "common/strutil.h"
#include "server/commands/families.h"
#include "server/commands/subfamilies.h"
#include "server/commands/types/string_algo.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/propagate/forms.h"
#include "server/propagate/propagate.h"
#include "server/request/keyspace.h"

namespace server {
namespace {

// Reply with the entry's string value, or WRONGTYPE. False on wrong type.
bool replyStringValue(Client* c, const db::Entry* e) {
  if (!e->val.isString()) {
    c->addWrongType();
    return false;
  }
  char scratch[24];
  c->addBulk(e->val.str(scratch));
  return true;
}

// Turns an expire argument of SET/SETEX/PSETEX/GETEX into an absolute time
// in ms. Zero, negative and overflowing times are refused with the command's
// "invalid expire time" error (only EXPIRE and friends accept past times).
bool expireArgToMs(Client* c, size_t argi, bool seconds, bool absolute, int64_t* when_ms) {
  int64_t v;
  if (!c->argInt64(argi, &v)) return false;
  bool ok = v > 0 && !(seconds && v > LLONG_MAX / 1000);
  if (ok && seconds) v *= 1000;
  if (ok && !absolute) {
    ok = v <= LLONG_MAX - db::Clock::nowMs;
    if (ok) v += db::Clock::nowMs;
  }
  if (!ok) {
    c->addErrorFormat("invalid expire time in '%s' command", c->cur_cmd->name);
    return false;
  }
  *when_ms = v;
  return true;
}

void getCommand(Client* c) {
  db::Entry* e = lookupRead(c, c->arg(1));
  if (e == nullptr) {
    c->addNull();
    return;
  }
  replyStringValue(c, e);
}

enum SetFlags : int {
  kSetNx = 1,
  kSetXx = 2,
  kSetGet = 4,
  kSetKeepTtl = 8,
  kSetEx = 16,
  kSetPx = 32,
  kSetExAt = 64,
  kSetPxAt = 128,
  kSetPersist = 256,  // GETEX only
};
constexpr int kSetAnyExpire = kSetEx | kSetPx | kSetExAt | kSetPxAt;

// Option parsing shared by SET (allow_set) and GETEX. The same expire unit
// may repeat (the last value wins); two different units, or an expire with
// KEEPTTL/PERSIST, are a syntax error, as in Redis. *expire_arg is the index
// of the expire value (0 when none); its number is checked by the caller
// after the whole line parsed, so a syntax error anywhere wins.
bool parseStringOptions(Client* c, size_t first, bool allow_set, int* flags, size_t* expire_arg) {
  static constexpr struct {
    const char* name;
    int flag;
  } kUnits[] = {{"EX", kSetEx}, {"PX", kSetPx}, {"EXAT", kSetExAt}, {"PXAT", kSetPxAt}};
  *expire_arg = 0;
  for (size_t i = first; i < c->argc(); i++) {
    std::string_view opt = c->arg(i);
    bool has_next = i + 1 < c->argc();
    int unit = 0;
    for (const auto& u : kUnits) {
      if (common::strutil::equalsIgnoreCase(opt, u.name)) unit = u.flag;
    }
    if (unit != 0) {
      if (!has_next || (*flags & (kSetKeepTtl | kSetPersist | (kSetAnyExpire & ~unit)))) {
        c->addSyntaxError();
        return false;
      }
      *flags |= unit;
      *expire_arg = ++i;
    } else if (allow_set && common::strutil::equalsIgnoreCase(opt, "NX") && !(*flags & kSetXx)) {
      *flags |= kSetNx;
    } else if (allow_set && common::strutil::equalsIgnoreCase(opt, "XX") && !(*flags & kSetNx)) {
      *flags |= kSetXx;
    } else if (allow_set && common::strutil::equalsIgnoreCase(opt, "GET")) {
      *flags |= kSetGet;
    } else if (allow_set && common::strutil::equalsIgnoreCase(opt, "KEEPTTL") &&
               !(*flags & kSetAnyExpire)) {
      *flags |= kSetKeepTtl;
    } else if (!allow_set && common::strutil::equalsIgnoreCase(opt, "PERSIST") &&
               !(*flags & kSetAnyExpire)) {
      *flags |= kSetPersist;
    } else {
      c->addSyntaxError();
      return false;
    }
  }
  return true;
}

bool expireFromFlags(Client* c, int flags, size_t expire_arg, int64_t* when_ms) {
  *when_ms = -1;
  if (expire_arg == 0) return true;
  return expireArgToMs(c, expire_arg, (flags & (kSetEx | kSetExAt)) != 0,
                       (flags & (kSetExAt | kSetPxAt)) != 0, when_ms);
}

// Stores value at key with an optional absolute expiry. A time already
// past leaves the key deleted (it was set and expired at once).
void storeString(Client* c, std::string_view key, std::string_view value, bool keep_ttl,
                 int64_t when_ms) {
  db::Db* d = c->db();
  db::Entry* e = d->set(key, db::Value::fromString(value), keep_ttl);
  keyModified(c, key);
  notify::keyEvent(c, notify::kString, "set", key);
  if (when_ms != -1) {
    notify::keyEvent(c, notify::kGeneric, "expire", key);
    if (when_ms <= db::Clock::nowMs && db::Db::pastTtlDeletes()) {
      d->removeEntry(e);
      notify::keyEvent(c, notify::kExpired, "expired", key);
    } else {
      d->setExpire(e, when_ms);
    }
  }
}

// SET is fed as SET key value PXAT <ms> when it set a TTL, without GET
// otherwise (Redis 7.0). A time already past deleted the key here (Redis
// keeps it, logically expired): that is fed as the deletion, as EXPIRE's
// is, so that a replica does not keep a dead key a later KEEPTTL revives.
// Out of line to keep SET's hot path short.
[[gnu::noinline]] void propagateSet(Client* c, int flags, int64_t when_ms) {
  if (when_ms != -1 && when_ms <= db::Clock::nowMs && db::Db::pastTtlDeletes())
    propagate::asDel(c->arg(1), db::Db::lazy_expire);
  else if (when_ms != -1)
    propagate::asSetPxat(c->arg(1), c->arg(2), when_ms);
  else if (flags & kSetGet)
    propagate::asWithout(c->argv(), 3, "get");
}

void setCommand(Client* c) {
  int flags = 0;
  size_t expire_arg;
  int64_t when_ms;
  if (!parseStringOptions(c, 3, true, &flags, &expire_arg)) return;
  if (!expireFromFlags(c, flags, expire_arg, &when_ms)) return;
  std::string_view key = c->arg(1);
  if (flags & (kSetNx | kSetXx | kSetGet)) {
    db::Entry* old = (flags & kSetGet) ? lookupRead(c, key) : lookupWrite(c, key);
    if (flags & kSetGet) {
      if (old == nullptr)
        c->addNull();
      else if (!replyStringValue(c, old))
        return;
    }
    if ((flags & kSetNx && old != nullptr) || (flags & kSetXx && old == nullptr)) {
      if (!(flags & kSetGet)) c->addNull();
      return;
    }
  } else if (flags & kSetKeepTtl) {
    // An expired old value must not lend its TTL to the new one.
    lookupWrite(c, key);
  }
  storeString(c, key, c->arg(2), (flags & kSetKeepTtl) != 0, when_ms);
  // A plain SET is fed as it came: only its options need a look.
  if ((flags & (kSetGet | kSetAnyExpire)) && propagate::wanted()) propagateSet(c, flags, when_ms);
  if (!(flags & kSetGet)) c->addOk();
}

void setnxCommand(Client* c) {
  if (lookupWrite(c, c->arg(1)) != nullptr) {
    c->addInteger(0);
    return;
  }
  storeString(c, c->arg(1), c->arg(2), false, -1);
  c->addInteger(1);
}

void setexGeneric(Client* c, bool seconds) {
  int64_t when_ms;
  if (!expireArgToMs(c, 2, seconds, false, &when_ms)) return;
  storeString(c, c->arg(1), c->arg(3), false, when_ms);
  if (propagate::wanted()) propagate::asSetPxat(c->arg(1), c->arg(3), when_ms);
  c->addOk();
}
void setexCommand(Client* c) {
  setexGeneric(c, true);
}
void psetexCommand(Client* c) {
  setexGeneric(c, false);
}

void getsetCommand(Client* c) {
  db::Entry* old = lookupRead(c, c->arg(1));
  if (old == nullptr)
    c->addNull();
  else if (!replyStringValue(c, old))
    return;
  storeString(c, c->arg(1), c->arg(2), false, -1);
  if (propagate::wanted()) propagate::rewrite({"SET", c->arg(1), c->arg(2)});
}

void getdelCommand(Client* c) {
  db::Entry* e = lookupRead(c, c->arg(1));
  if (e == nullptr) {
    c->addNull();
    return;
  }
  if (!replyStringValue(c, e)) return;
  c->db()->removeEntry(e);
  keyModified(c, c->arg(1));
  notify::keyEvent(c, notify::kGeneric, "del", c->arg(1));
  if (propagate::wanted()) propagate::asDel(c->arg(1), g_server->config.lazyfree_lazy_user_del);
}

void getexCommand(Client* c) {
  int flags = 0;
  size_t expire_arg;
  if (!parseStringOptions(c, 2, false, &flags, &expire_arg)) return;
  db::Entry* e = lookupRead(c, c->arg(1));
  if (e == nullptr) {
    c->addNull();
    return;
  }
  if (!e->val.isString()) {
    c->addWrongType();
    return;
  }
  int64_t when_ms;
  if (!expireFromFlags(c, flags, expire_arg, &when_ms)) return;
  replyStringValue(c, e);
  db::Db* d = c->db();
  if (when_ms != -1 && when_ms <= db::Clock::nowMs && db::Db::pastTtlDeletes()) {
    d->removeEntry(e);  // EXAT/PXAT in the past
    keyModified(c, c->arg(1));
    notify::keyEvent(c, notify::kGeneric, "del", c->arg(1));
    if (propagate::wanted()) propagate::asDel(c->arg(1), db::Db::lazy_expire);
  } else if (when_ms != -1) {
    d->setExpire(e, when_ms);
    keyModified(c, c->arg(1));
    notify::keyEvent(c, notify::kGeneric, "expire", c->arg(1));
    if (propagate::wanted()) {
      std::string_view key_only[] = {c->arg(0), c->arg(1)};
      propagate::asPexpireat(key_only, when_ms);
    }
  } else if ((flags & kSetPersist) && d->removeExpire(e)) {
    keyModified(c, c->arg(1));
    if (propagate::wanted()) propagate::rewrite({"PERSIST", c->arg(1)});
    notify::keyEvent(c, notify::kGeneric, "persist", c->arg(1));
  }
}

void mgetCommand(Client* c) {
  c->addArrayLen(static_cast<int64_t>(c->argc() - 1));
  for (size_t i = 1; i < c->argc(); i++) {
    db::Entry* e = lookupRead(c, c->arg(i));
    if (e == nullptr || !e->val.isString()) {
      c->addNull();
    } else {
      char scratch[24];
      c->addBulk(e->val.str(scratch));
    }
  }
}

void msetGeneric(Client* c, bool nx) {
  if (c->argc() % 2 == 0) {
    c->addWrongArity();
    return;
  }
  if (nx) {
    for (size_t i = 1; i < c->argc(); i += 2) {
      if (lookupWrite(c, c->arg(i)) != nullptr) {
        c->addInteger(0);
        return;
      }
    }
  }
  for (size_t i = 1; i < c->argc(); i += 2) storeString(c, c->arg(i), c->arg(i + 1), false, -1);
  if (nx)
    c->addInteger(1);
  else
    c->addOk();
}
void msetCommand(Client* c) {
  msetGeneric(c, false);
}
void msetnxCommand(Client* c) {
  msetGeneric(c, true);
}

// APPEND/SETRANGE may not build a string longer than proto-max-bulk-len.
bool checkStringLength(Client* c, uint64_t total) {
  if (total > static_cast<uint64_t>(g_server->config.proto_max_bulk_len)) {
    c->addError("string exceeds maximum allowed size (proto-max-bulk-len)");
    return false;
  }
  return true;
}

void appendCommand(Client* c) {
  std::string_view key = c->arg(1);
  std::string_view add = c->arg(2);
  db::Entry* e = lookupWrite(c, key);
  size_t len;
  if (e == nullptr) {
    // A new key is encoded like SET would (so "123" becomes an int).
    c->db()->add(key, db::Value::fromString(add));
    len = add.size();
  } else {
    if (!e->val.isString()) {
      c->addWrongType();
      return;
    }
    size_t old = e->val.strLen();
    if (!checkStringLength(c, static_cast<uint64_t>(old) + add.size())) return;
    len = old + add.size();
    char* bytes = e->val.mutableBytes(len);
    if (!add.empty()) memcpy(bytes + old, add.data(), add.size());
  }
  keyModified(c, key);
  notify::keyEvent(c, notify::kString, "append", key);
  c->addInteger(static_cast<int64_t>(len));
}

void strlenCommand(Client* c) {
  db::Entry* e = lookupRead(c, c->arg(1));
  if (e == nullptr) {
    c->addInteger(0);
  } else if (!e->val.isString()) {
    c->addWrongType();
  } else {
    c->addInteger(static_cast<int64_t>(e->val.strLen()));
  }
}

void getrangeCommand(Client* c) {
  int64_t start, end;
  if (!c->argInt64(2, &start) || !c->argInt64(3, &end)) return;
  db::Entry* e = lookupRead(c, c->arg(1));
  if (e == nullptr) {
    c->addBulk("");
    return;
  }
  if (!e->val.isString()) {
    c->addWrongType();
    return;
  }
  char scratch[24];
  std::string_view s = e->val.str(scratch);
  size_t from, count;
  if (stralgo::clampRange(start, end, s.size(), &from, &count))
    c->addBulk(s.substr(from, count));
  else
    c->addBulk("");
}

void setrangeCommand(Client* c) {
  std::string_view key = c->arg(1);
  std::string_view value = c->arg(3);
  int64_t offset;
  if (!c->argInt64(2, &offset)) return;
  if (offset < 0) {
    c->addError("offset is out of range");
    return;
  }
  db::Entry* e = lookupWrite(c, key);
  if (e != nullptr && !e->val.isString()) {
    c->addWrongType();
    return;
  }
  size_t old = e == nullptr ? 0 : e->val.strLen();
  // An empty value changes nothing, not even a missing key.
  if (value.empty()) {
    c->addInteger(static_cast<int64_t>(old));
    return;
  }
  if (!checkStringLength(c, static_cast<uint64_t>(offset) + value.size())) return;
  if (e == nullptr) e = c->db()->add(key, db::Value::fromBytes("", true));
  size_t need = static_cast<size_t>(offset) + value.size();
  size_t len = need > old ? need : old;
  char* bytes = e->val.mutableBytes(len);
  memcpy(bytes + offset, value.data(), value.size());
  keyModified(c, key);
  notify::keyEvent(c, notify::kString, "setrange", key);
  c->addInteger(static_cast<int64_t>(len));
}

// GETKEYSANDFLAGS: SET overwrites its key; with GET it also reads it.
const char* setKeyFlags(const std::vector<std::string_view>& argv) {
  for (size_t i = 3; i < argv.size(); i++)
    if (common::strutil::equalsIgnoreCase(argv[i], "get")) return "RW access update";
  return "OW update";
}

}  // namespace

void registerStringCommands(CommandTable& t) {
  const char* kRangeComplexity =
      "O(N) where N is the length of the returned string. The complexity is ultimately "
      "determined by the returned length, but because creating a substring from an existing "
      "string is very cheap, it can be considered O(1) for small strings.";
  t.add({"get", 2, kReadOnly | kFast, getCommand, 1, 1, 1, "string", "Get the value of a key",
         "1.0.0", "O(1)", "read string fast"});
  t.add({"set", -3, kWrite | kDenyOom, setCommand, 1, 1, 1, "string",
         "Set the string value of a key", "1.0.0", "O(1)", "write string slow"});
  t.setKeyFlagsProc("set", setKeyFlags);
  t.add({"setnx", 3, kWrite | kDenyOom | kFast, setnxCommand, 1, 1, 1, "string",
         "Set the value of a key, only if the key does not exist", "1.0.0", "O(1)",
         "write string fast"});
  t.add({"setex", 4, kWrite | kDenyOom, setexCommand, 1, 1, 1, "string",
         "Set the value and expiration of a key", "2.0.0", "O(1)", "write string slow"});
  t.add({"psetex", 4, kWrite | kDenyOom, psetexCommand, 1, 1, 1, "string",
         "Set the value and expiration in milliseconds of a key", "2.6.0", "O(1)",
         "write string slow"});
  t.add({"getset", 3, kWrite | kDenyOom | kFast, getsetCommand, 1, 1, 1, "string",
         "Set the string value of a key and return its old value", "1.0.0", "O(1)",
         "write string fast"});
  t.add({"getdel", 2, kWrite | kFast, getdelCommand, 1, 1, 1, "string",
         "Get the value of a key and delete the key", "6.2.0", "O(1)", "write string fast"});
  t.add({"getex", -2, kWrite | kFast, getexCommand, 1, 1, 1, "string",
         "Get the value of a key and optionally set its expiration", "6.2.0", "O(1)",
         "write string fast"});
  t.add({"mget", -2, kReadOnly | kFast, mgetCommand, 1, -1, 1, "string",
         "Get the values of all the given keys", "1.0.0",
         "O(N) where N is the number of keys to retrieve.", "read string fast"});
  t.add({"mset", -3, kWrite | kDenyOom, msetCommand, 1, -1, 2, "string",
         "Set multiple keys to multiple values", "1.0.1",
         "O(N) where N is the number of keys to set.", "write string slow"});
  t.add({"msetnx", -3, kWrite | kDenyOom, msetnxCommand, 1, -1, 2, "string",
         "Set multiple keys to multiple values, only if none of the keys exist", "1.0.1",
         "O(N) where N is the number of keys to set.", "write string slow"});
  t.add({"append", 3, kWrite | kDenyOom | kFast, appendCommand, 1, 1, 1, "string",
         "Append a value to a key", "2.0.0",
         "O(1). The amortized time complexity is O(1) assuming the appended value is small and "
         "the already present value is of any size, since the dynamic string library used by "
         "Redis will double the free space available on every reallocation.",
         "write string fast"});
  t.add({"strlen", 2, kReadOnly | kFast, strlenCommand, 1, 1, 1, "string",
         "Get the length of the value stored in a key", "2.2.0", "O(1)", "read string fast"});
  t.add({"getrange", 4, kReadOnly, getrangeCommand, 1, 1, 1, "string",
         "Get a substring of the string stored at a key", "2.4.0", kRangeComplexity,
         "read string slow"});
  t.add({"substr", 4, kReadOnly, getrangeCommand, 1, 1, 1, "string",
         "Get a substring of the string stored at a key", "1.0.0", kRangeComplexity,
         "read string slow"});
  t.add({"setrange", 4, kWrite | kDenyOom, setrangeCommand, 1, 1, 1, "string",
         "Overwrite part of a string at key starting at the specified offset", "2.2.0",
         "O(1), not counting the time taken to copy the new string in place. Usually, this "
         "string is very small so the amortized complexity is O(1). Otherwise, complexity is "
         "O(M) with M being the length of the value argument.",
         "write string slow"});
  registerCounterCommands(t);
  registerLcsCommand(t);
}

}  // namespace server
