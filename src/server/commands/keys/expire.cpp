// Key expiry: EXPIRE PEXPIRE EXPIREAT PEXPIREAT with NX XX GT LT, TTL PTTL
// EXPIRETIME PEXPIRETIME and PERSIST. Times are absolute milliseconds
// internally (db::Db::setExpire); a time already past deletes the key.
#include <climits>
#include <string>

#include "common/strutil.h"
#include "server/commands/subfamilies.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/propagate/forms.h"
#include "server/propagate/propagate.h"
#include "server/request/keyspace.h"

namespace server {
namespace {

enum ExpireCondition : int { kExpNx = 1, kExpXx = 2, kExpGt = 4, kExpLt = 8 };

// NX XX GT LT after the time. Unknown words and incompatible pairs are
// refused with Redis's messages before the time itself is looked at.
bool parseExpireConditions(Client* c, int* flags) {
  static constexpr struct {
    const char* name;
    int flag;
  } kNames[] = {{"NX", kExpNx}, {"XX", kExpXx}, {"GT", kExpGt}, {"LT", kExpLt}};
  for (size_t i = 3; i < c->argc(); i++) {
    std::string_view opt = c->arg(i);
    int flag = 0;
    for (const auto& n : kNames) {
      if (common::strutil::equalsIgnoreCase(opt, n.name)) flag = n.flag;
    }
    if (flag == 0) {
      c->addErrorFormat("Unsupported option %.*s", static_cast<int>(opt.size()), opt.data());
      return false;
    }
    *flags |= flag;
  }
  if ((*flags & kExpNx) && (*flags & (kExpXx | kExpGt | kExpLt))) {
    c->addError("NX and XX, GT or LT options at the same time are not compatible");
    return false;
  }
  if ((*flags & kExpGt) && (*flags & kExpLt)) {
    c->addError("GT and LT options at the same time are not compatible");
    return false;
  }
  return true;
}

// Whether the condition flags allow replacing current (-1: no TTL, which
// counts as an infinite one) with when.
bool conditionHolds(int flags, int64_t current, int64_t when) {
  if ((flags & kExpNx) && current != -1) return false;
  if ((flags & kExpXx) && current == -1) return false;
  if ((flags & kExpGt) && (current == -1 || when <= current)) return false;
  if ((flags & kExpLt) && current != -1 && when >= current) return false;
  return true;
}

// basetime_ms: 0 for the *AT forms, now for the relative ones.
void expireGeneric(Client* c, bool seconds, int64_t basetime_ms) {
  int flags = 0;
  if (!parseExpireConditions(c, &flags)) return;
  int64_t when;
  if (!c->argInt64(2, &when)) return;
  // Negative times are allowed (they delete the key); only overflow of the
  // unit conversion or of the addition is refused.
  bool ok = true;
  if (seconds) {
    ok = when <= LLONG_MAX / 1000 && when >= LLONG_MIN / 1000;
    if (ok) when *= 1000;
  }
  if (ok && when > LLONG_MAX - basetime_ms) ok = false;
  if (!ok) {
    c->addErrorFormat("invalid expire time in '%s' command", c->cur_cmd->name);
    return;
  }
  when += basetime_ms;
  std::string_view key = c->arg(1);
  db::Db* d = c->db();
  db::Entry* e = lookupWrite(c, key);
  if (e == nullptr || (flags && !conditionHolds(flags, d->expireOf(e), when))) {
    c->addInteger(0);
    return;
  }
  bool past = when <= db::Clock::nowMs && db::Db::pastTtlDeletes();
  if (past)
    d->removeEntry(e);
  else
    d->setExpire(e, when);
  keyModified(c, key);
  notify::keyEvent(c, notify::kGeneric, past ? "del" : "expire", key);
  // Fed as an absolute time (PEXPIREAT itself as it came), or as the
  // deletion when the time has passed.
  if (propagate::wanted()) {
    if (past)
      propagate::asDel(key, db::Db::lazy_expire);
    else if (seconds || basetime_ms != 0)
      propagate::asPexpireat(c->argv(), when);
  }
  c->addInteger(1);
}

void expireCommand(Client* c) {
  expireGeneric(c, true, db::Clock::nowMs);
}
void pexpireCommand(Client* c) {
  expireGeneric(c, false, db::Clock::nowMs);
}
void expireatCommand(Client* c) {
  expireGeneric(c, true, 0);
}
void pexpireatCommand(Client* c) {
  expireGeneric(c, false, 0);
}

// -2 for a missing key, -1 for no TTL; otherwise the remaining time
// (relative) or the expiry time (absolute), in ms or rounded seconds.
void ttlGeneric(Client* c, bool ms, bool absolute) {
  db::Entry* e = lookupReadNoTouch(c, c->arg(1));
  if (e == nullptr) {
    c->addInteger(-2);
    return;
  }
  int64_t expire = c->db()->expireOf(e);
  if (expire == -1) {
    c->addInteger(-1);
    return;
  }
  int64_t t = absolute ? expire : expire - db::Clock::nowMs;
  if (t < 0) t = 0;
  c->addInteger(ms ? t : (t + 500) / 1000);
}

void ttlCommand(Client* c) {
  ttlGeneric(c, false, false);
}
void pttlCommand(Client* c) {
  ttlGeneric(c, true, false);
}
void expiretimeCommand(Client* c) {
  ttlGeneric(c, false, true);
}
void pexpiretimeCommand(Client* c) {
  ttlGeneric(c, true, true);
}

void persistCommand(Client* c) {
  db::Entry* e = lookupWrite(c, c->arg(1));
  if (e == nullptr || !c->db()->removeExpire(e)) {
    c->addInteger(0);
    return;
  }
  keyModified(c, c->arg(1));
  notify::keyEvent(c, notify::kGeneric, "persist", c->arg(1));
  c->addInteger(1);
}

}  // namespace

void registerExpireCommands(CommandTable& t) {
  const uint32_t kWriteFast = kWrite | kFast;
  const uint32_t kReadFast = kReadOnly | kFast;
  t.add({"expire", -3, kWriteFast, expireCommand, 1, 1, 1, "generic",
         "Set a key's time to live in seconds", "1.0.0", "O(1)", "keyspace write fast"});
  t.add({"pexpire", -3, kWriteFast, pexpireCommand, 1, 1, 1, "generic",
         "Set a key's time to live in milliseconds", "2.6.0", "O(1)", "keyspace write fast"});
  t.add({"expireat", -3, kWriteFast, expireatCommand, 1, 1, 1, "generic",
         "Set the expiration for a key as a UNIX timestamp", "1.2.0", "O(1)",
         "keyspace write fast"});
  t.add({"pexpireat", -3, kWriteFast, pexpireatCommand, 1, 1, 1, "generic",
         "Set the expiration for a key as a UNIX timestamp specified in milliseconds", "2.6.0",
         "O(1)", "keyspace write fast"});
  t.add({"ttl", 2, kReadFast, ttlCommand, 1, 1, 1, "generic",
         "Get the time to live for a key in seconds", "1.0.0", "O(1)", "keyspace read fast"});
  t.add({"pttl", 2, kReadFast, pttlCommand, 1, 1, 1, "generic",
         "Get the time to live for a key in milliseconds", "2.6.0", "O(1)", "keyspace read fast"});
  t.add({"expiretime", 2, kReadFast, expiretimeCommand, 1, 1, 1, "generic",
         "Get the expiration Unix timestamp for a key", "7.0.0", "O(1)", "keyspace read fast"});
  t.add({"pexpiretime", 2, kReadFast, pexpiretimeCommand, 1, 1, 1, "generic",
         "Get the expiration Unix timestamp for a key in milliseconds", "7.0.0", "O(1)",
         "keyspace read fast"});
  t.add({"persist", 2, kWriteFast, persistCommand, 1, 1, 1, "generic",
         "Remove the expiration from a key", "2.2.0", "O(1)", "keyspace write fast"});
}

}  // namespace server
