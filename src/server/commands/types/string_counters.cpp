// Counters over string values: INCR DECR INCRBY DECRBY INCRBYFLOAT.
// Integer results stay int-encoded and keep the key's TTL; float results
// are stored as plain strings, as Redis stores them.
#include <climits>
#include <cmath>
#include <string>

#include "common/strutil.h"
#include "server/commands/subfamilies.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/propagate/propagate.h"
#include "server/request/keyspace.h"

namespace server {
namespace {

void incrDecr(Client* c, int64_t by) {
  std::string_view key = c->arg(1);
  db::Entry* e = lookupWrite(c, key);
  int64_t cur = 0;
  if (e != nullptr) {
    if (!e->val.isString()) {
      c->addWrongType();
      return;
    }
    if (e->val.isInt()) {
      cur = e->val.intValue();
    } else {
      char scratch[24];
      if (!common::strutil::parseInt64(e->val.str(scratch), &cur)) {
        c->addNotInteger();
        return;
      }
    }
  }
  if ((by < 0 && cur < 0 && by < LLONG_MIN - cur) || (by > 0 && cur > 0 && by > LLONG_MAX - cur)) {
    c->addError("increment or decrement would overflow");
    return;
  }
  int64_t result = cur + by;
  if (e == nullptr)
    c->db()->add(key, db::Value::fromInt(result));
  else
    e->val = db::Value::fromInt(result);  // in place: the TTL stays
  keyModified(c, key);
  notify::keyEvent(c, notify::kString, "incrby", key);
  c->addInteger(result);
}

void incrCommand(Client* c) {
  incrDecr(c, 1);
}
void decrCommand(Client* c) {
  incrDecr(c, -1);
}

void incrbyCommand(Client* c) {
  int64_t by;
  if (c->argInt64(2, &by)) incrDecr(c, by);
}

void decrbyCommand(Client* c) {
  int64_t by;
  if (!c->argInt64(2, &by)) return;
  if (by == LLONG_MIN) {
    c->addError("decrement would overflow");
    return;
  }
  incrDecr(c, -by);
}

void incrbyfloatCommand(Client* c) {
  std::string_view key = c->arg(1);
  db::Entry* e = lookupWrite(c, key);
  long double cur = 0;
  if (e != nullptr) {
    if (!e->val.isString()) {
      c->addWrongType();
      return;
    }
    char scratch[24];
    if (!common::strutil::parseFloatOperand(e->val.str(scratch), &cur)) {
      c->addNotFloat();
      return;
    }
  }
  long double by;
  if (!common::strutil::parseFloatOperand(c->arg(2), &by)) {
    c->addNotFloat();
    return;
  }
  long double result = cur + by;
  if (std::isnan(result) || std::isinf(result)) {
    c->addError("increment would produce NaN or Infinity");
    return;
  }
  std::string text = common::strutil::formatLongDouble(result);
  if (e == nullptr)
    c->db()->add(key, db::Value::fromBytes(text, false));
  else
    e->val = db::Value::fromBytes(text, false);
  keyModified(c, key);
  notify::keyEvent(c, notify::kString, "incrbyfloat", key);
  // The exact result, not the float addition (replayers may round apart).
  if (propagate::wanted()) propagate::rewrite({"SET", key, text, "KEEPTTL"});
  c->addBulk(text);
}

}  // namespace

void registerCounterCommands(CommandTable& t) {
  t.add({"incr", 2, kWrite | kDenyOom | kFast, incrCommand, 1, 1, 1, "string",
         "Increment the integer value of a key by one", "1.0.0", "O(1)", "write string fast"});
  t.add({"decr", 2, kWrite | kDenyOom | kFast, decrCommand, 1, 1, 1, "string",
         "Decrement the integer value of a key by one", "1.0.0", "O(1)", "write string fast"});
  t.add({"incrby", 3, kWrite | kDenyOom | kFast, incrbyCommand, 1, 1, 1, "string",
         "Increment the integer value of a key by the given amount", "1.0.0", "O(1)",
         "write string fast"});
  t.add({"decrby", 3, kWrite | kDenyOom | kFast, decrbyCommand, 1, 1, 1, "string",
         "Decrement the integer value of a key by the given number", "1.0.0", "O(1)",
         "write string fast"});
  t.add({"incrbyfloat", 3, kWrite | kDenyOom | kFast, incrbyfloatCommand, 1, 1, 1, "string",
         "Increment the float value of a key by the given amount", "2.6.0", "O(1)",
         "write string fast"});
}

}  // namespace server
