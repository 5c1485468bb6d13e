// Hash commands: HSET HSETNX HMSET HGET HMGET HGETALL HKEYS HVALS HDEL
// HEXISTS HLEN HSTRLEN HINCRBY HINCRBYFLOAT HRANDFIELD HSCAN. The encodings
// and their conversion live in db/hash.h; this file reads the limits from
// the config and shapes the replies.
#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "common/strutil.h"
#include "server/commands/families.h"
#include "server/commands/keys/scan_args.h"
#include "server/commands/types/random_sample.h"
#include "server/commands/types/remove_members.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/db/hash.h"
#include "server/propagate/propagate.h"
#include "server/request/keyspace.h"

namespace server {
namespace {

db::HashLimits hashLimits() {
  const Config& cf = g_server->config;
  return {static_cast<size_t>(cf.hash_max_listpack_entries),
          static_cast<size_t>(cf.hash_max_listpack_value)};
}

// The hash at key for a read: nullptr when absent or of another type
// (*wrongtype tells which; WRONGTYPE is already replied).
db::Hash* hashForRead(Client* c, std::string_view key, bool* wrongtype) {
  db::Entry* e = lookupReadKind(c, key, db::Kind::kHash, wrongtype);
  return e ? db::asHash(e->val) : nullptr;
}

// The entry of the hash at key for a write, created empty (listpack) when
// absent; nullptr after replying WRONGTYPE. Callers must add a field before
// returning, as collections are never left empty.
db::Entry* hashForWrite(Client* c, std::string_view key) {
  bool wrongtype;
  db::Entry* e = lookupWriteKind(c, key, db::Kind::kHash, &wrongtype);
  if (wrongtype) return nullptr;
  if (e == nullptr) {
    e = c->db()->add(key, db::Value::fromCollection(db::Kind::kHash, db::Hash::createListpack()));
  }
  return e;
}

void hsetGeneric(Client* c, bool reply_count) {
  if (c->argc() % 2 != 0) {
    c->addWrongArity();
    return;
  }
  std::string_view key = c->arg(1);
  db::Entry* e = hashForWrite(c, key);
  if (e == nullptr) return;
  db::HashLimits lim = hashLimits();
  int64_t added = 0;
  for (size_t i = 2; i < c->argc(); i += 2) {
    if (db::hashSet(&e->val, c->arg(i), c->arg(i + 1), lim)) added++;
  }
  keyModified(c, key);
  notify::keyEvent(c, notify::kHash, "hset", key);
  if (reply_count)
    c->addInteger(added);
  else
    c->addOk();
}

void hsetCommand(Client* c) {
  hsetGeneric(c, true);
}
void hmsetCommand(Client* c) {
  hsetGeneric(c, false);
}

void hsetnxCommand(Client* c) {
  std::string_view key = c->arg(1);
  db::Entry* e = hashForWrite(c, key);
  if (e == nullptr) return;
  char scratch[db::Hash::kScratch];
  std::string_view old;
  if (db::asHash(e->val)->get(c->arg(2), scratch, &old)) {
    c->addInteger(0);
    return;
  }
  db::hashSet(&e->val, c->arg(2), c->arg(3), hashLimits());
  keyModified(c, key);
  notify::keyEvent(c, notify::kHash, "hset", key);
  c->addInteger(1);
}

void hgetCommand(Client* c) {
  bool wrongtype;
  db::Hash* h = hashForRead(c, c->arg(1), &wrongtype);
  if (wrongtype) return;
  char scratch[db::Hash::kScratch];
  std::string_view v;
  if (h != nullptr && h->get(c->arg(2), scratch, &v))
    c->addBulk(v);
  else
    c->addNull();
}

void hmgetCommand(Client* c) {
  bool wrongtype;
  db::Hash* h = hashForRead(c, c->arg(1), &wrongtype);
  if (wrongtype) return;
  c->addArrayLen(static_cast<int64_t>(c->argc() - 2));
  char scratch[db::Hash::kScratch];
  for (size_t i = 2; i < c->argc(); i++) {
    std::string_view v;
    if (h != nullptr && h->get(c->arg(i), scratch, &v))
      c->addBulk(v);
    else
      c->addNull();
  }
}

enum : int { kFields = 1, kValues = 2 };

void hgetallGeneric(Client* c, int what) {
  bool wrongtype;
  db::Hash* h = hashForRead(c, c->arg(1), &wrongtype);
  if (wrongtype) return;
  resp::Writer& w = c->reply();
  int64_t n = h ? static_cast<int64_t>(h->size()) : 0;
  if (what == (kFields | kValues))
    w.mapLen(n);
  else
    w.arrayLen(n);
  if (h == nullptr) return;
  h->forEach([&](std::string_view f, std::string_view v) {
    if (what & kFields) w.bulk(f);
    if (what & kValues) w.bulk(v);
  });
}

void hgetallCommand(Client* c) {
  hgetallGeneric(c, kFields | kValues);
}
void hkeysCommand(Client* c) {
  hgetallGeneric(c, kFields);
}
void hvalsCommand(Client* c) {
  hgetallGeneric(c, kValues);
}

void hdelCommand(Client* c) {
  removeMembersCommand<db::Hash>(c, db::Kind::kHash, notify::kHash, "hdel");
}

void hexistsCommand(Client* c) {
  bool wrongtype;
  db::Hash* h = hashForRead(c, c->arg(1), &wrongtype);
  if (wrongtype) return;
  char scratch[db::Hash::kScratch];
  std::string_view v;
  c->addInteger(h != nullptr && h->get(c->arg(2), scratch, &v) ? 1 : 0);
}

void hlenCommand(Client* c) {
  bool wrongtype;
  db::Hash* h = hashForRead(c, c->arg(1), &wrongtype);
  if (wrongtype) return;
  c->addInteger(h ? static_cast<int64_t>(h->size()) : 0);
}

void hstrlenCommand(Client* c) {
  bool wrongtype;
  db::Hash* h = hashForRead(c, c->arg(1), &wrongtype);
  if (wrongtype) return;
  char scratch[db::Hash::kScratch];
  std::string_view v;
  c->addInteger(h != nullptr && h->get(c->arg(2), scratch, &v) ? static_cast<int64_t>(v.size())
                                                               : 0);
}

void hincrbyCommand(Client* c) {
  int64_t by;
  if (!c->argInt64(3, &by)) return;
  std::string_view key = c->arg(1);
  db::Entry* e = hashForWrite(c, key);
  if (e == nullptr) return;
  char scratch[db::Hash::kScratch];
  std::string_view old;
  int64_t cur = 0;
  if (db::asHash(e->val)->get(c->arg(2), scratch, &old) &&
      !common::strutil::parseInt64(old, &cur)) {
    c->addError("hash value is not an integer");
    return;
  }
  if ((by < 0 && cur < 0 && by < LLONG_MIN - cur) || (by > 0 && cur > 0 && by > LLONG_MAX - cur)) {
    c->addError("increment or decrement would overflow");
    if (db::asHash(e->val)->size() == 0) c->db()->removeEntry(e);
    return;
  }
  int64_t result = cur + by;
  char buf[24];
  db::hashSet(&e->val, c->arg(2), std::string_view(buf, common::strutil::formatInt64(result, buf)),
              hashLimits());
  keyModified(c, key);
  notify::keyEvent(c, notify::kHash, "hincrby", key);
  c->addInteger(result);
}

void hincrbyfloatCommand(Client* c) {
  long double by;
  if (!common::strutil::parseFloatOperand(c->arg(3), &by)) {
    c->addNotFloat();
    return;
  }
  if (std::isnan(by) || std::isinf(by)) {
    c->addError("value is NaN or Infinity");
    return;
  }
  std::string_view key = c->arg(1);
  db::Entry* e = hashForWrite(c, key);
  if (e == nullptr) return;
  char scratch[db::Hash::kScratch];
  std::string_view old;
  long double cur = 0;
  if (db::asHash(e->val)->get(c->arg(2), scratch, &old) &&
      !common::strutil::parseFloatOperand(old, &cur)) {
    c->addError("hash value is not a float");
    return;
  }
  long double result = cur + by;
  if (std::isnan(result) || std::isinf(result)) {
    c->addError("increment would produce NaN or Infinity");
    if (db::asHash(e->val)->size() == 0) c->db()->removeEntry(e);
    return;
  }
  std::string text = common::strutil::formatLongDouble(result);
  db::hashSet(&e->val, c->arg(2), text, hashLimits());
  keyModified(c, key);
  notify::keyEvent(c, notify::kHash, "hincrbyfloat", key);
  if (propagate::wanted()) propagate::rewrite({"HSET", key, c->arg(2), text});
  c->addBulk(text);
}

// One HRANDFIELD pick: the field, or with WITHVALUES the pair (an array of
// two in RESP3, two flat elements in RESP2).
void writePair(resp::Writer& w, bool withvalues, std::string_view f, std::string_view v) {
  if (withvalues && w.proto() >= 3) w.arrayLen(2);
  w.bulk(f);
  if (withvalues) w.bulk(v);
}

// HRANDFIELD key count [WITHVALUES]: the count's range is Redis's, and
// half of it with WITHVALUES (two elements per pick).
void hrandfieldWithCount(Client* c) {
  int64_t count;
  if (!c->argInt64(2, &count)) return;
  if (count == LLONG_MIN) {
    c->addError(
        "value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807");
    return;
  }
  bool withvalues = c->argc() == 4;
  if (c->argc() > 4 ||
      (withvalues && !common::strutil::equalsIgnoreCase(c->arg(3), "withvalues"))) {
    c->addSyntaxError();
    return;
  }
  if (withvalues && (count < -LLONG_MAX / 2 || count > LLONG_MAX / 2)) {
    c->addError("value is out of range");
    return;
  }
  bool wrongtype;
  db::Hash* h = hashForRead(c, c->arg(1), &wrongtype);
  if (wrongtype) return;
  resp::Writer& w = c->reply();
  if (h == nullptr || count == 0) {
    w.arrayLen(0);
    return;
  }
  // Pairs are counted as one element in RESP3 (an array each), two in RESP2.
  int64_t per = withvalues && w.proto() < 3 ? 2 : 1;
  char fs[db::Hash::kScratch], vs[db::Hash::kScratch];
  if (count < 0) {  // with repetitions
    int64_t n = -count;
    auto pick_bytes = [&] {
      std::string_view f, v;
      h->randomPair(fs, vs, &f, &v);
      return bulkReplyBytes(f.size()) + (withvalues ? bulkReplyBytes(v.size()) + 4 : 0);
    };
    if (refuseOversizedRepeatReply(c, static_cast<uint64_t>(n), pick_bytes)) return;
    w.arrayLen(n * per);
    for (int64_t i = 0; i < n; i++) {
      std::string_view f, v;
      h->randomPair(fs, vs, &f, &v);
      writePair(w, withvalues, f, v);
      if (repeatPicksStopped(c, static_cast<uint64_t>(i))) return;
    }
    return;
  }
  size_t size = h->size();
  if (static_cast<uint64_t>(count) >= size) {
    w.arrayLen(static_cast<int64_t>(size) * per);
    h->forEach([&](std::string_view f, std::string_view v) { writePair(w, withvalues, f, v); });
    return;
  }
  using Pair = std::pair<std::string, std::string>;
  std::vector<Pair> picked = sampleDistinct<Pair>(
      size, static_cast<size_t>(count), h->isListpack(),
      [h](std::vector<Pair>* out) {
        h->forEach([out](std::string_view f, std::string_view v) { out->emplace_back(f, v); });
      },
      [&]() {
        std::string_view f, v;
        h->randomPair(fs, vs, &f, &v);
        return Pair(f, v);
      },
      [](const Pair& p) { return p.first; });
  w.arrayLen(count * per);
  for (const auto& p : picked) writePair(w, withvalues, p.first, p.second);
}

void hrandfieldCommand(Client* c) {
  if (c->argc() >= 3) {
    hrandfieldWithCount(c);
    return;
  }
  bool wrongtype;
  db::Hash* h = hashForRead(c, c->arg(1), &wrongtype);
  if (wrongtype) return;
  if (h == nullptr) {
    c->addNull();
    return;
  }
  char fs[db::Hash::kScratch], vs[db::Hash::kScratch];
  std::string_view f, v;
  h->randomPair(fs, vs, &f, &v);
  c->addBulk(f);
}

void hscanCommand(Client* c) {
  uint64_t cursor;
  if (!parseCollectionScanCursor(c, &cursor)) return;
  bool wrongtype;
  db::Hash* h = hashForRead(c, c->arg(1), &wrongtype);
  if (wrongtype) return;
  ScanOptions o;
  if (!collectionScanOptions(c, h != nullptr, &o)) return;
  resp::Writer& w = c->reply();
  std::vector<std::string> found;  // field, value, field, value ...
  auto collect = [&](std::string_view f, std::string_view v) {
    if (!scanMatches(o, f)) return;
    found.emplace_back(f);
    found.emplace_back(v);
  };
  if (h->isListpack()) {
    cursor = h->scan(cursor, collect);
  } else {
    // Elements are counted as Redis counts them (field and value each).
    cursor = boundedScan(cursor, o.count, [&](uint64_t from, size_t* seen) {
      return h->scan(from, [&](std::string_view f, std::string_view v) {
        *seen += 2;
        collect(f, v);
      });
    });
  }
  beginScanReply(w, cursor);
  w.arrayLen(static_cast<int64_t>(found.size()));
  for (const auto& s : found) w.bulk(s);
}

}  // namespace

void registerHashCommands(CommandTable& t) {
  constexpr uint32_t kW = kWrite | kDenyOom | kFast;
  constexpr uint32_t kR = kReadOnly | kFast;
  t.add({"hset", -4, kW, hsetCommand, 1, 1, 1, "hash", "Set the string value of a hash field",
         "2.0.0",
         "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the "
         "command is called with multiple field/value pairs.",
         "write hash fast"});
  t.add({"hsetnx", 4, kW, hsetnxCommand, 1, 1, 1, "hash",
         "Set the value of a hash field, only if the field does not exist", "2.0.0", "O(1)",
         "write hash fast"});
  t.add({"hmset", -4, kW, hmsetCommand, 1, 1, 1, "hash",
         "Set multiple hash fields to multiple values", "2.0.0",
         "O(N) where N is the number of fields being set.", "write hash fast"});
  t.add({"hget", 3, kR, hgetCommand, 1, 1, 1, "hash", "Get the value of a hash field", "2.0.0",
         "O(1)", "read hash fast"});
  t.add({"hmget", -3, kR, hmgetCommand, 1, 1, 1, "hash",
         "Get the values of all the given hash fields", "2.0.0",
         "O(N) where N is the number of fields being requested.", "read hash fast"});
  t.add({"hgetall", 2, kReadOnly, hgetallCommand, 1, 1, 1, "hash",
         "Get all the fields and values in a hash", "2.0.0",
         "O(N) where N is the size of the hash.", "read hash slow"});
  t.add({"hkeys", 2, kReadOnly | kSortForScript, hkeysCommand, 1, 1, 1, "hash",
         "Get all the fields in a hash", "2.0.0", "O(N) where N is the size of the hash.",
         "read hash slow"});
  t.add({"hvals", 2, kReadOnly | kSortForScript, hvalsCommand, 1, 1, 1, "hash",
         "Get all the values in a hash", "2.0.0", "O(N) where N is the size of the hash.",
         "read hash slow"});
  t.add({"hdel", -3, kWrite | kFast, hdelCommand, 1, 1, 1, "hash", "Delete one or more hash fields",
         "2.0.0", "O(N) where N is the number of fields to be removed.", "write hash fast"});
  t.add({"hexists", 3, kR, hexistsCommand, 1, 1, 1, "hash", "Determine if a hash field exists",
         "2.0.0", "O(1)", "read hash fast"});
  t.add({"hlen", 2, kR, hlenCommand, 1, 1, 1, "hash", "Get the number of fields in a hash", "2.0.0",
         "O(1)", "read hash fast"});
  t.add({"hstrlen", 3, kR, hstrlenCommand, 1, 1, 1, "hash",
         "Get the length of the value of a hash field", "3.2.0", "O(1)", "read hash fast"});
  t.add({"hincrby", 4, kW, hincrbyCommand, 1, 1, 1, "hash",
         "Increment the integer value of a hash field by the given number", "2.0.0", "O(1)",
         "write hash fast"});
  t.add({"hincrbyfloat", 4, kW, hincrbyfloatCommand, 1, 1, 1, "hash",
         "Increment the float value of a hash field by the given amount", "2.6.0", "O(1)",
         "write hash fast"});
  t.add({"hrandfield", -2, kReadOnly, hrandfieldCommand, 1, 1, 1, "hash",
         "Get one or multiple random fields from a hash", "6.2.0",
         "O(N) where N is the number of fields returned", "read hash slow"});
  t.add({"hscan", -3, kReadOnly, hscanCommand, 1, 1, 1, "hash",
         "Incrementally iterate hash fields and associated values", "2.8.0",
         "O(1) for every call. O(N) for a complete iteration, including enough command calls "
         "for the cursor to return back to 0. N is the number of elements inside the "
         "collection..",
         "read hash slow"});
}

}  // namespace server
