// String commands: GET SET and the rest of the string family.
#include <climits>
#include <string>

#include "common/strutil.h"
#include "server/client.h"
#include "server/commands/families.h"
#include "server/keyspace.h"
#include "server/server.h"

namespace server {
namespace {

void getCommand(Client* c) {
  db::Entry* e = lookupRead(c, c->arg(1));
  if (e == nullptr) {
    c->addNull();
    return;
  }
  if (!e->val.isString()) {
    c->addWrongType();
    return;
  }
  char scratch[24];
  c->addBulk(e->val.str(scratch));
}

enum SetFlags { kSetNx = 1, kSetXx = 2, kSetGet = 4, kSetKeepTtl = 8, kSetEx = 16 };

// Parses SET's options from argv[3...]. Returns false after replying.
bool parseSetOptions(Client* c, int* flags, int64_t* when_ms) {
  *when_ms = -1;
  for (size_t i = 3; i < c->argc(); i++) {
    std::string_view opt = c->arg(i);
    bool has_next = i + 1 < c->argc();
    if (strutil::equalsIgnoreCase(opt, "NX") && !(*flags & kSetXx)) {
      *flags |= kSetNx;
    } else if (strutil::equalsIgnoreCase(opt, "XX") && !(*flags & kSetNx)) {
      *flags |= kSetXx;
    } else if (strutil::equalsIgnoreCase(opt, "GET")) {
      *flags |= kSetGet;
    } else if (strutil::equalsIgnoreCase(opt, "KEEPTTL") && !(*flags & kSetEx)) {
      *flags |= kSetKeepTtl;
    } else if (has_next && !(*flags & (kSetEx | kSetKeepTtl)) &&
               (strutil::equalsIgnoreCase(opt, "EX") || strutil::equalsIgnoreCase(opt, "PX") ||
                strutil::equalsIgnoreCase(opt, "EXAT") || strutil::equalsIgnoreCase(opt, "PXAT"))) {
      *flags |= kSetEx;
      int64_t v;
      if (!c->argInt64(i + 1, &v)) return false;
      char unit = static_cast<char>(toupper(static_cast<unsigned char>(opt[0])));
      bool absolute = opt.size() == 4;
      if (v <= 0 || (unit == 'E' && v > LLONG_MAX / 1000)) {
        c->addError("invalid expire time in 'set' command");
        return false;
      }
      if (unit == 'E') v *= 1000;
      if (!absolute) {
        if (v > LLONG_MAX - db::Clock::nowMs) {
          c->addError("invalid expire time in 'set' command");
          return false;
        }
        v += db::Clock::nowMs;
      }
      *when_ms = v;
      i++;
    } else {
      c->addSyntaxError();
      return false;
    }
  }
  return true;
}

void setCommand(Client* c) {
  int flags = 0;
  int64_t when_ms;
  if (!parseSetOptions(c, &flags, &when_ms)) return;
  db::Db* d = c->db();
  std::string_view key = c->arg(1);
  db::Entry* old = nullptr;
  if (flags & (kSetNx | kSetXx | kSetGet)) {
    old = lookupWrite(c, key);
    if ((flags & kSetGet) && old != nullptr && !old->val.isString()) {
      c->addWrongType();
      return;
    }
    if ((flags & kSetNx && old != nullptr) || (flags & kSetXx && old == nullptr)) {
      if (flags & kSetGet) {
        if (old == nullptr) {
          c->addNull();
        } else {
          char scratch[24];
          c->addBulk(old->val.str(scratch));
        }
      } else {
        c->addNull();
      }
      return;
    }
    if (flags & kSetGet) {
      if (old == nullptr) {
        c->addNull();
      } else {
        char scratch[24];
        c->addBulk(old->val.str(scratch));
      }
    }
  } else {
    // Plain SET: the key's old value is overwritten whatever it was; an
    // expired one must not lend its TTL (KEEPTTL) to the new value.
    if (flags & kSetKeepTtl) lookupWrite(c, key);
  }
  db::Entry* e = d->set(key, db::Value::fromString(c->arg(2)), (flags & kSetKeepTtl) != 0);
  if (when_ms != -1) d->setExpire(e, when_ms);
  keyModified(c, key);
  if (when_ms != -1 && when_ms <= db::Clock::nowMs) {
    // An absolute time in the past: the key is set and expires at once.
    d->removeEntry(e);
  }
  if (!(flags & kSetGet)) c->addOk();
}

}  // namespace

void registerStringCommands(CommandTable& t) {
  t.add({"get", 2, kReadOnly | kFast, getCommand, 1, 1, 1, "string", "Get the value of a key",
         "1.0.0", "O(1)", "read string fast"});
  t.add({"set", -3, kWrite | kDenyOom, setCommand, 1, 1, 1, "string",
         "Set the string value of a key", "1.0.0", "O(1)", "write string slow"});
}

}  // namespace server
