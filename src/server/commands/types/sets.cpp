// Set commands on one key: SADD SREM SMEMBERS SISMEMBER SMISMEMBER SCARD
// SPOP SRANDMEMBER SMOVE SSCAN. Multi-key algebra (SINTER ...) lives in
// set_algebra.cpp; encodings and conversions in db/set.h.
#include <climits>
#include <string>
#include <vector>

#include "common/strutil.h"
#include "server/commands/families.h"
#include "server/commands/keys/scan_args.h"
#include "server/commands/types/random_sample.h"
#include "server/commands/types/remove_members.h"
#include "server/commands/types/set_common.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/propagate/propagate.h"
#include "server/request/keyspace.h"

namespace server {

db::SetLimits setLimits() {
  return {static_cast<size_t>(g_server->config.set_max_intset_entries)};
}

db::Set* setForRead(Client* c, std::string_view key, bool* wrongtype) {
  db::Entry* e = lookupReadKind(c, key, db::Kind::kSet, wrongtype);
  return e ? db::asSet(e->val) : nullptr;
}

namespace {

// SPOP with a count that leaves fewer than 1/kSpopRebuildRatio of it
// behind builds a new set of the survivors instead of popping one by one.
constexpr size_t kSpopRebuildRatio = 5;

void saddCommand(Client* c) {
  std::string_view key = c->arg(1);
  bool wrongtype;
  db::Entry* e = lookupWriteKind(c, key, db::Kind::kSet, &wrongtype);
  if (wrongtype) return;
  db::SetLimits lim = setLimits();
  if (e == nullptr) {
    e = c->db()->add(key, db::Value::fromCollection(db::Kind::kSet, db::setCreateFor(c->arg(2))));
  }
  int64_t added = 0;
  for (size_t i = 2; i < c->argc(); i++) {
    if (db::setAdd(&e->val, c->arg(i), lim)) added++;
  }
  if (added > 0) {
    keyModified(c, key);
    notify::keyEvent(c, notify::kSet, "sadd", key);
  }
  c->addInteger(added);
}

void sremCommand(Client* c) {
  removeMembersCommand<db::Set>(c, db::Kind::kSet, notify::kSet, "srem");
}

void smembersCommand(Client* c) {
  bool wrongtype;
  db::Set* s = setForRead(c, c->arg(1), &wrongtype);
  if (wrongtype) return;
  resp::Writer& w = c->reply();
  w.setLen(s ? static_cast<int64_t>(s->size()) : 0);
  if (s != nullptr) s->forEach([&](std::string_view m) { w.bulk(m); });
}

void sismemberCommand(Client* c) {
  bool wrongtype;
  db::Set* s = setForRead(c, c->arg(1), &wrongtype);
  if (wrongtype) return;
  c->addInteger(s != nullptr && s->contains(c->arg(2)) ? 1 : 0);
}

void smismemberCommand(Client* c) {
  bool wrongtype;
  db::Set* s = setForRead(c, c->arg(1), &wrongtype);
  if (wrongtype) return;
  c->addArrayLen(static_cast<int64_t>(c->argc() - 2));
  for (size_t i = 2; i < c->argc(); i++) {
    c->addInteger(s != nullptr && s->contains(c->arg(i)) ? 1 : 0);
  }
}

void scardCommand(Client* c) {
  bool wrongtype;
  db::Set* s = setForRead(c, c->arg(1), &wrongtype);
  if (wrongtype) return;
  c->addInteger(s ? static_cast<int64_t>(s->size()) : 0);
}

// count distinct random members (count < size).
std::vector<std::string> sampleMembers(db::Set* s, size_t count) {
  char scratch[db::Set::kScratch];
  return sampleDistinct<std::string>(
      s->size(), count, s->encoding() != db::Set::Encoding::kTable,
      [s](std::vector<std::string>* out) {
        s->forEach([out](std::string_view m) { out->emplace_back(m); });
      },
      [&]() { return std::string(s->random(scratch)); }, [](const std::string& m) { return m; });
}

void spopCommand(Client* c) {
  std::string_view key = c->arg(1);
  if (c->argc() > 3) {
    c->addSyntaxError();
    return;
  }
  int64_t count = 1;
  bool with_count = c->argc() == 3;
  if (with_count && !c->argInt64Msg(2, &count, "value is out of range, must be positive")) return;
  if (count < 0) {
    c->addError("value is out of range, must be positive");
    return;
  }
  bool wrongtype;
  db::Entry* e = lookupWriteKind(c, key, db::Kind::kSet, &wrongtype);
  if (wrongtype) return;
  resp::Writer& w = c->reply();
  if (e == nullptr) {
    if (with_count)
      w.setLen(0);
    else
      w.null();
    return;
  }
  db::Set* s = db::asSet(e->val);
  if (!with_count) {
    std::string m = s->popRandom();
    bool deleted = s->size() == 0;
    if (deleted) c->db()->removeEntry(e);
    keyModified(c, key);
    notify::keyEvent(c, notify::kSet, "spop", key);
    if (deleted) notify::keyEvent(c, notify::kGeneric, "del", key);
    if (propagate::wanted()) propagate::rewrite({"SREM", key, m});
    w.bulk(m);
    return;
  }
  if (count == 0) {
    w.setLen(0);
    return;
  }
  if (static_cast<uint64_t>(count) >= s->size()) {  // everything: the key goes
    w.setLen(static_cast<int64_t>(s->size()));
    s->forEach([&](std::string_view m) { w.bulk(m); });
    c->db()->removeEntry(e);
    keyModified(c, key);
    notify::keyEvent(c, notify::kSet, "spop", key);
    notify::keyEvent(c, notify::kGeneric, "del", key);
    if (propagate::wanted()) propagate::rewrite({"DEL", key});
    return;
  }
  // Fed as one SREM per member popped, as Redis 7.0 does.
  bool prop = propagate::wanted();
  int dbi = c->dbIndex();
  if (prop) propagate::preventCommand();
  size_t remaining = s->size() - static_cast<size_t>(count);
  w.setLen(count);
  if (remaining * kSpopRebuildRatio > static_cast<size_t>(count)) {
    for (int64_t i = 0; i < count; i++) {
      std::string m = s->popRandom();
      if (prop) propagate::also(dbi, {"SREM", key, m});
      w.bulk(m);
    }
  } else {
    // Most of the set goes: keep a random few in a fresh set, which takes
    // the smallest encoding that holds them (Redis 7.2), and reply with the
    // others.
    db::SetLimits lim = setLimits();
    db::Value fresh = db::Value::fromCollection(db::Kind::kSet, db::Set::createIntset());
    for (const std::string& m : sampleMembers(s, remaining)) db::setAdd(&fresh, m, lim);
    db::Set* kept = db::asSet(fresh);
    s->forEach([&](std::string_view m) {
      if (kept->contains(m)) return;
      if (prop) propagate::also(dbi, {"SREM", key, m});
      w.bulk(m);
    });
    e->val = std::move(fresh);
  }
  keyModified(c, key);
  notify::keyEvent(c, notify::kSet, "spop", key);
}

void srandmemberCommand(Client* c) {
  if (c->argc() > 3) {
    c->addSyntaxError();
    return;
  }
  resp::Writer& w = c->reply();
  char scratch[db::Set::kScratch];
  if (c->argc() == 2) {
    bool wrongtype;
    db::Set* s = setForRead(c, c->arg(1), &wrongtype);
    if (wrongtype) return;
    if (s == nullptr)
      w.null();
    else
      w.bulk(s->random(scratch));
    return;
  }
  int64_t count;
  if (!c->argInt64(2, &count)) return;
  if (count == LLONG_MIN) {
    c->addError(
        "value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807");
    return;
  }
  bool wrongtype;
  db::Set* s = setForRead(c, c->arg(1), &wrongtype);
  if (wrongtype) return;
  if (s == nullptr || count == 0) {
    w.arrayLen(0);
    return;
  }
  if (count < 0) {  // with repetitions
    if (refuseOversizedRepeatReply(c, static_cast<uint64_t>(-count),
                                   [&] { return bulkReplyBytes(s->random(scratch).size()); }))
      return;
    w.arrayLen(-count);
    for (int64_t i = 0; i < -count; i++) {
      w.bulk(s->random(scratch));
      if (repeatPicksStopped(c, static_cast<uint64_t>(i))) return;
    }
    return;
  }
  size_t size = s->size();
  if (static_cast<uint64_t>(count) >= size) {
    w.arrayLen(static_cast<int64_t>(size));
    s->forEach([&](std::string_view m) { w.bulk(m); });
    return;
  }
  std::vector<std::string> picked = sampleMembers(s, static_cast<size_t>(count));
  w.arrayLen(count);
  for (const auto& m : picked) w.bulk(m);
}

void smoveCommand(Client* c) {
  std::string_view src = c->arg(1), dst = c->arg(2), member = c->arg(3);
  db::Entry* se = lookupWrite(c, src);
  if (se == nullptr) {  // Redis answers 0 before checking either type
    c->addInteger(0);
    return;
  }
  db::Entry* de = lookupWrite(c, dst);
  if (se->val.kind() != db::Kind::kSet || (de != nullptr && de->val.kind() != db::Kind::kSet)) {
    c->addWrongType();
    return;
  }
  db::Set* s = db::asSet(se->val);
  if (se == de) {
    c->addInteger(s->contains(member) ? 1 : 0);
    return;
  }
  if (!s->remove(member)) {
    c->addInteger(0);
    return;
  }
  // Events in Redis's order: srem (and del) on the source, then new and
  // sadd on the destination. Entries never move in memory, so de stays
  // valid when the emptied source goes.
  std::string moved(member);
  notify::keyEvent(c, notify::kSet, "srem", src);
  if (s->size() == 0) {
    c->db()->removeEntry(se);
    notify::keyEvent(c, notify::kGeneric, "del", src);
  }
  keyModified(c, src);
  db::SetLimits lim = setLimits();
  if (de == nullptr) {
    de = c->db()->add(dst, db::Value::fromCollection(db::Kind::kSet, db::setCreateFor(moved)));
  }
  if (db::setAdd(&de->val, moved, lim)) {
    keyModified(c, dst);
    notify::keyEvent(c, notify::kSet, "sadd", dst);
  }
  c->addInteger(1);
}

void sscanCommand(Client* c) {
  uint64_t cursor;
  if (!parseCollectionScanCursor(c, &cursor)) return;
  bool wrongtype;
  db::Set* s = setForRead(c, c->arg(1), &wrongtype);
  if (wrongtype) return;
  ScanOptions o;
  if (!collectionScanOptions(c, s != nullptr, &o)) return;
  resp::Writer& w = c->reply();
  std::vector<std::string> found;
  auto collect = [&](std::string_view m) {
    if (scanMatches(o, m)) found.emplace_back(m);
  };
  if (s->encoding() != db::Set::Encoding::kTable) {
    cursor = s->scan(cursor, collect);
  } else {
    cursor = boundedScan(cursor, o.count, [&](uint64_t from, size_t* seen) {
      return s->scan(from, [&](std::string_view m) {
        ++*seen;
        collect(m);
      });
    });
  }
  beginScanReply(w, cursor);
  w.arrayLen(static_cast<int64_t>(found.size()));
  for (const auto& m : found) w.bulk(m);
}

}  // namespace

void registerSetAlgebraCommands(CommandTable& t);

void registerSetCommands(CommandTable& t) {
  t.add({"sadd", -3, kWrite | kDenyOom | kFast, saddCommand, 1, 1, 1, "set",
         "Add one or more members to a set", "1.0.0",
         "O(1) for each element added, so O(N) to add N elements when the command is called "
         "with multiple arguments.",
         "write set fast"});
  t.add({"srem", -3, kWrite | kFast, sremCommand, 1, 1, 1, "set",
         "Remove one or more members from a set", "1.0.0",
         "O(N) where N is the number of members to be removed.", "write set fast"});
  t.add({"smembers", 2, kReadOnly | kSortForScript, smembersCommand, 1, 1, 1, "set",
         "Get all the members in a set", "1.0.0", "O(N) where N is the set cardinality.",
         "read set slow"});
  t.add({"sismember", 3, kReadOnly | kFast, sismemberCommand, 1, 1, 1, "set",
         "Determine if a given value is a member of a set", "1.0.0", "O(1)", "read set fast"});
  t.add({"smismember", -3, kReadOnly | kFast, smismemberCommand, 1, 1, 1, "set",
         "Returns the membership associated with the given elements for a set", "6.2.0",
         "O(N) where N is the number of elements being checked for membership", "read set fast"});
  t.add({"scard", 2, kReadOnly | kFast, scardCommand, 1, 1, 1, "set",
         "Get the number of members in a set", "1.0.0", "O(1)", "read set fast"});
  t.add({"spop", -2, kWrite | kFast, spopCommand, 1, 1, 1, "set",
         "Remove and return one or multiple random members from a set", "1.0.0",
         "Without the count argument O(1), otherwise O(N) where N is the value of the passed "
         "count.",
         "write set fast"});
  t.add({"srandmember", -2, kReadOnly, srandmemberCommand, 1, 1, 1, "set",
         "Get one or multiple random members from a set", "1.0.0",
         "Without the count argument O(1), otherwise O(N) where N is the absolute value of the "
         "passed count.",
         "read set slow"});
  t.add({"smove", 4, kWrite | kFast, smoveCommand, 1, 2, 1, "set",
         "Move a member from one set to another", "1.0.0", "O(1)", "write set fast"});
  t.add({"sscan", -3, kReadOnly, sscanCommand, 1, 1, 1, "set", "Incrementally iterate Set elements",
         "2.8.0",
         "O(1) for every call. O(N) for a complete iteration, including enough command calls "
         "for the cursor to return back to 0. N is the number of elements inside the "
         "collection..",
         "read set slow"});
  registerSetAlgebraCommands(t);
}

}  // namespace server
