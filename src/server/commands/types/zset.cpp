// Sorted-set commands on single members: ZADD ZINCRBY ZREM ZSCORE ZMSCORE
// ZCARD ZCOUNT ZLEXCOUNT ZRANK ZREVRANK ZRANDMEMBER ZSCAN, and the family's
// registration. Ranges live in zset_range.cpp, the multi-key operations in
// zset_setops.cpp, pops in zset_pop.cpp.
#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/hash.h"
#include "common/strutil.h"
#include "server/commands/families.h"
#include "server/commands/keys/scan_args.h"
#include "server/commands/types/random_sample.h"
#include "server/commands/types/zset_common.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/request/keyspace.h"

namespace server {
namespace {

enum ZaddFlags : int {
  kZaddNx = 1,
  kZaddXx = 2,
  kZaddCh = 4,
  kZaddIncr = 8,
  kZaddGt = 16,
  kZaddLt = 32,
};

// Outcome of adding one element.
enum class AddResult { kAdded, kUpdated, kUnchanged, kSkipped, kNaN };

// One element of ZADD/ZINCRBY: *score holds the increment with INCR and the
// resulting score on return.
AddResult zaddOne(db::Entry* e, std::string_view member, double* score, int flags) {
  db::ZSet* z = zsetOf(e);
  double cur;
  if (z->score(member, &cur)) {
    if (flags & kZaddNx) return AddResult::kSkipped;
    double target = *score;
    if (flags & kZaddIncr) {
      target += cur;
      if (std::isnan(target)) return AddResult::kNaN;
    }
    if (((flags & kZaddLt) && target >= cur) || ((flags & kZaddGt) && target <= cur))
      return AddResult::kSkipped;
    *score = target;
    if (target == cur) return AddResult::kUnchanged;
    z->set(member, target);
    return AddResult::kUpdated;
  }
  if (flags & kZaddXx) return AddResult::kSkipped;
  z = zsetMakeRoom(e, 1, member.size());
  z->set(member, *score);
  return AddResult::kAdded;
}

void zaddGeneric(Client* c, int flags) {
  std::string_view key = c->arg(1);
  size_t i = 2;
  for (; i < c->argc(); i++) {
    std::string_view opt = c->arg(i);
    if (common::strutil::equalsIgnoreCase(opt, "nx"))
      flags |= kZaddNx;
    else if (common::strutil::equalsIgnoreCase(opt, "xx"))
      flags |= kZaddXx;
    else if (common::strutil::equalsIgnoreCase(opt, "ch"))
      flags |= kZaddCh;
    else if (common::strutil::equalsIgnoreCase(opt, "incr"))
      flags |= kZaddIncr;
    else if (common::strutil::equalsIgnoreCase(opt, "gt"))
      flags |= kZaddGt;
    else if (common::strutil::equalsIgnoreCase(opt, "lt"))
      flags |= kZaddLt;
    else
      break;
  }
  size_t args = c->argc() - i;
  if (args == 0 || args % 2 != 0) {
    c->addSyntaxError();
    return;
  }
  size_t elements = args / 2;
  if ((flags & kZaddNx) && (flags & kZaddXx)) {
    c->addError("XX and NX options at the same time are not compatible");
    return;
  }
  int exclusive =
      ((flags & kZaddGt) ? 1 : 0) + ((flags & kZaddLt) ? 1 : 0) + ((flags & kZaddNx) ? 1 : 0);
  if (exclusive > 1) {
    c->addError("GT, LT, and/or NX options at the same time are not compatible");
    return;
  }
  if ((flags & kZaddIncr) && elements > 1) {
    c->addError("INCR option supports a single increment-element pair");
    return;
  }
  // Every score parses before anything changes.
  std::vector<double> scores(elements);
  size_t max_len = 0;
  for (size_t j = 0; j < elements; j++) {
    if (!argScore(c, i + j * 2, &scores[j])) return;
    max_len = std::max(max_len, c->arg(i + j * 2 + 1).size());
  }

  bool wrongtype;
  db::Entry* e = lookupWriteKind(c, key, db::Kind::kZSet, &wrongtype);
  if (wrongtype) return;
  int64_t added = 0, updated = 0, processed = 0;
  double last_score = 0;
  if (e == nullptr && !(flags & kZaddXx)) {
    e = c->db()->add(key, db::Value::fromCollection(db::Kind::kZSet, newZSet(elements, max_len)));
  }
  for (size_t j = 0; e != nullptr && j < elements; j++) {
    double score = scores[j];
    AddResult r = zaddOne(e, c->arg(i + j * 2 + 1), &score, flags);
    if (r == AddResult::kNaN) {
      // Only INCR can produce NaN, and only on an existing member: the key
      // exists and nothing changed.
      c->addError("resulting score is not a number (NaN)");
      return;
    }
    if (r == AddResult::kAdded) added++;
    if (r == AddResult::kUpdated) updated++;
    if (r != AddResult::kSkipped) {
      processed++;
      last_score = score;
    }
  }
  if (added + updated > 0) {
    keyModified(c, key);
    notify::keyEvent(c, notify::kZset, (flags & kZaddIncr) ? "zincr" : "zadd", key);
  }
  if (flags & kZaddIncr) {
    if (processed > 0)
      replyScore(c, last_score);
    else
      c->addNull();
  } else {
    c->addInteger((flags & kZaddCh) ? added + updated : added);
  }
}

void zaddCommand(Client* c) {
  zaddGeneric(c, 0);
}

void zincrbyCommand(Client* c) {
  // ZINCRBY key increment member is ZADD key INCR increment member.
  double incr;
  if (!argScore(c, 2, &incr)) return;
  std::string_view key = c->arg(1);
  bool wrongtype;
  db::Entry* e = lookupWriteKind(c, key, db::Kind::kZSet, &wrongtype);
  if (wrongtype) return;
  std::string_view member = c->arg(3);
  if (e == nullptr) {
    e = c->db()->add(key, db::Value::fromCollection(db::Kind::kZSet, newZSet(1, member.size())));
  }
  double score = incr;
  AddResult r = zaddOne(e, member, &score, kZaddIncr);
  if (r == AddResult::kNaN) {
    c->addError("resulting score is not a number (NaN)");
    return;
  }
  if (r != AddResult::kUnchanged) {
    keyModified(c, key);
    notify::keyEvent(c, notify::kZset, "zincr", key);
  }
  replyScore(c, score);
}

void zremCommand(Client* c) {
  std::string_view key = c->arg(1);
  bool wrongtype;
  db::Entry* e = lookupWriteKind(c, key, db::Kind::kZSet, &wrongtype);
  if (wrongtype) return;
  if (e == nullptr) {
    c->addInteger(0);
    return;
  }
  db::ZSet* z = zsetOf(e);
  int64_t removed = 0;
  for (size_t i = 2; i < c->argc() && z->size() > 0; i++) {
    if (z->remove(c->arg(i))) removed++;
  }
  if (removed > 0) zsetAfterRemove(c, e, key, "zrem");
  c->addInteger(removed);
}

void zscoreCommand(Client* c) {
  db::ZSet* z;
  if (!readZSet(c, c->arg(1), &z)) return;
  double s;
  if (z && z->score(c->arg(2), &s))
    replyScore(c, s);
  else
    c->addNull();
}

void zmscoreCommand(Client* c) {
  db::ZSet* z;
  if (!readZSet(c, c->arg(1), &z)) return;
  c->addArrayLen(static_cast<int64_t>(c->argc() - 2));
  for (size_t i = 2; i < c->argc(); i++) {
    double s;
    if (z && z->score(c->arg(i), &s))
      replyScore(c, s);
    else
      c->addNull();
  }
}

void zcardCommand(Client* c) {
  db::ZSet* z;
  if (!readZSet(c, c->arg(1), &z)) return;
  c->addInteger(z ? static_cast<int64_t>(z->size()) : 0);
}

void zcountCommand(Client* c) {
  db::ScoreRange r;
  if (!parseScoreRange(c->arg(2), c->arg(3), &r)) {
    c->addError("min or max is not a float");
    return;
  }
  db::ZSet* z;
  if (!readZSet(c, c->arg(1), &z)) return;
  c->addInteger(z ? static_cast<int64_t>(z->countByScore(r)) : 0);
}

void zlexcountCommand(Client* c) {
  db::LexRange r;
  if (!parseLexRange(c->arg(2), c->arg(3), &r)) {
    c->addError("min or max not valid string range item");
    return;
  }
  db::ZSet* z;
  if (!readZSet(c, c->arg(1), &z)) return;
  c->addInteger(z ? static_cast<int64_t>(z->countByLex(r)) : 0);
}

void zrankGeneric(Client* c, bool rev) {
  db::ZSet* z;
  if (!readZSet(c, c->arg(1), &z)) return;
  size_t rank;
  if (z && z->rank(c->arg(2), rev, &rank))
    c->addInteger(static_cast<int64_t>(rank));
  else
    c->addNull();
}
void zrankCommand(Client* c) {
  zrankGeneric(c, false);
}
void zrevrankCommand(Client* c) {
  zrankGeneric(c, true);
}

// A uniformly random element: the hash's random node for a skiplist, a
// random rank for a listpack (at most a few hundred elements).
void randomElement(db::ZSet* z, std::string* member, double* score) {
  if (!z->isListpack()) {
    db::ZNode* n = static_cast<db::SkiplistZSet*>(z)->randomNode();
    member->assign(n->member());
    *score = n->score;
    return;
  }
  size_t r = common::randomU64() % z->size();
  z->rangeByRank(r, r, false, [&](std::string_view m, double s) {
    member->assign(m);
    *score = s;
    return false;
  });
}

void zrandmemberWithCount(Client* c, db::ZSet* z, int64_t count, bool withscores) {
  ZElements out;
  size_t size = z ? z->size() : 0;
  if (count == 0 || size == 0) {
    replyElements(c, out, withscores);
    return;
  }
  if (count < 0) {
    // Repetitions allowed: |count| independent picks.
    uint64_t n = count == INT64_MIN ? uint64_t{1} << 63 : static_cast<uint64_t>(-count);
    std::string m;
    double s;
    auto pick_bytes = [&] {
      randomElement(z, &m, &s);
      // A score is at most 24 characters, plus framing.
      return bulkReplyBytes(m.size()) + (withscores ? 32 : 0);
    };
    if (refuseOversizedRepeatReply(c, n, pick_bytes)) return;
    ZElementsReply rep(c, withscores);
    for (uint64_t i = 0; i < n; i++) {
      randomElement(z, &m, &s);
      rep.add(m, s);
      if (repeatPicksStopped(c, i)) return;
    }
    rep.end();
    return;
  }
  auto want = static_cast<uint64_t>(count);
  if (want >= size) {
    // The whole set, highest score first (Redis's order).
    z->rangeByRank(0, size - 1, true, [&](std::string_view m, double s) {
      out.emplace_back(m, s);
      return true;
    });
  } else if (want * 3 > size) {
    // Most of the set: copy it and drop random elements.
    z->forEach([&](std::string_view m, double s) {
      out.emplace_back(m, s);
      return true;
    });
    while (out.size() > want) {
      size_t k = common::randomU64() % out.size();
      out[k] = std::move(out.back());
      out.pop_back();
    }
  } else {
    // Few of many: random picks, skipping repeats.
    std::unordered_set<std::string> seen;
    std::string m;
    double s;
    while (out.size() < want) {
      randomElement(z, &m, &s);
      if (seen.insert(m).second) out.emplace_back(m, s);
    }
  }
  replyElements(c, out, withscores);
}

void zrandmemberCommand(Client* c) {
  if (c->argc() > 4 ||
      (c->argc() == 4 && !common::strutil::equalsIgnoreCase(c->arg(3), "withscores"))) {
    c->addSyntaxError();
    return;
  }
  if (c->argc() >= 3) {
    int64_t count;
    if (!c->argInt64(2, &count)) return;
    bool withscores = c->argc() == 4;
    // The reply holds two items per element with scores: bound the count
    // so that doubling it cannot overflow.
    if (count == INT64_MIN) {
      c->addError(
          "value is out of range, value must between -9223372036854775807 and "
          "9223372036854775807");
      return;
    }
    if (withscores && (count < -INT64_MAX / 2 || count > INT64_MAX / 2)) {
      c->addError("value is out of range");
      return;
    }
    db::ZSet* z;
    if (!readZSet(c, c->arg(1), &z)) return;
    zrandmemberWithCount(c, z, count, withscores);
    return;
  }
  db::ZSet* z;
  if (!readZSet(c, c->arg(1), &z)) return;
  if (z == nullptr) {
    c->addNull();
    return;
  }
  std::string m;
  double s;
  randomElement(z, &m, &s);
  c->addBulk(m);
}

void zscanCommand(Client* c) {
  uint64_t cursor;
  if (!parseCollectionScanCursor(c, &cursor)) return;
  db::ZSet* z;
  if (!readZSet(c, c->arg(1), &z)) return;
  ScanOptions o;
  if (!collectionScanOptions(c, z != nullptr, &o)) return;
  ZElements found;
  auto collect = [&](std::string_view m, double s) {
    if (scanMatches(o, m)) found.emplace_back(m, s);
    return true;
  };
  if (z->isListpack()) {
    z->forEach(collect);  // small: everything in one call
    cursor = 0;
  } else {
    auto* sl = static_cast<db::SkiplistZSet*>(z);
    cursor = boundedScan(cursor, o.count, [&](uint64_t from, size_t* seen) {
      return sl->scan(from, [&](std::string_view m, double s) {
        ++*seen;
        return collect(m, s);
      });
    });
  }
  beginScanReply(c->reply(), cursor);
  c->addArrayLen(static_cast<int64_t>(found.size() * 2));
  char buf[32];
  for (const auto& [m, s] : found) {
    c->addBulk(m);
    c->addBulk(std::string_view(buf, db::formatScore(s, buf)));
  }
}

}  // namespace

void registerSortedSetCommands(CommandTable& t) {
  t.add({"zadd", -4, kWrite | kDenyOom | kFast, zaddCommand, 1, 1, 1, "sorted_set",
         "Add one or more members to a sorted set, or update its score if it already exists",
         "1.2.0",
         "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
         "write sortedset fast"});
  t.add({"zincrby", 4, kWrite | kDenyOom | kFast, zincrbyCommand, 1, 1, 1, "sorted_set",
         "Increment the score of a member in a sorted set", "1.2.0",
         "O(log(N)) where N is the number of elements in the sorted set.", "write sortedset fast"});
  t.add({"zrem", -3, kWrite | kFast, zremCommand, 1, 1, 1, "sorted_set",
         "Remove one or more members from a sorted set", "1.2.0",
         "O(M*log(N)) with N being the number of elements in the sorted set and M the number of "
         "elements to be removed.",
         "write sortedset fast"});
  t.add({"zscore", 3, kReadOnly | kFast, zscoreCommand, 1, 1, 1, "sorted_set",
         "Get the score associated with the given member in a sorted set", "1.2.0", "O(1)",
         "read sortedset fast"});
  t.add({"zmscore", -3, kReadOnly | kFast, zmscoreCommand, 1, 1, 1, "sorted_set",
         "Get the score associated with the given members in a sorted set", "6.2.0",
         "O(N) where N is the number of members being requested.", "read sortedset fast"});
  t.add({"zcard", 2, kReadOnly | kFast, zcardCommand, 1, 1, 1, "sorted_set",
         "Get the number of members in a sorted set", "1.2.0", "O(1)", "read sortedset fast"});
  t.add({"zcount", 4, kReadOnly | kFast, zcountCommand, 1, 1, 1, "sorted_set",
         "Count the members in a sorted set with scores within the given values", "2.0.0",
         "O(log(N)) with N being the number of elements in the sorted set.",
         "read sortedset fast"});
  t.add({"zlexcount", 4, kReadOnly | kFast, zlexcountCommand, 1, 1, 1, "sorted_set",
         "Count the number of members in a sorted set between a given lexicographical range",
         "2.8.9", "O(log(N)) with N being the number of elements in the sorted set.",
         "read sortedset fast"});
  t.add({"zrank", 3, kReadOnly | kFast, zrankCommand, 1, 1, 1, "sorted_set",
         "Determine the index of a member in a sorted set", "2.0.0", "O(log(N))",
         "read sortedset fast"});
  t.add({"zrevrank", 3, kReadOnly | kFast, zrevrankCommand, 1, 1, 1, "sorted_set",
         "Determine the index of a member in a sorted set, with scores ordered from high to low",
         "2.0.0", "O(log(N))", "read sortedset fast"});
  t.add({"zrandmember", -2, kReadOnly, zrandmemberCommand, 1, 1, 1, "sorted_set",
         "Get one or multiple random elements from a sorted set", "6.2.0",
         "O(N) where N is the number of elements returned", "read sortedset slow"});
  t.add({"zscan", -3, kReadOnly, zscanCommand, 1, 1, 1, "sorted_set",
         "Incrementally iterate sorted sets elements and associated scores", "2.8.0",
         "O(1) for every call. O(N) for a complete iteration, including enough command calls "
         "for the cursor to return back to 0. N is the number of elements inside the "
         "collection..",
         "read sortedset slow"});
  registerZsetRangeCommands(t);
  registerZsetSetOpCommands(t);
  registerZsetPopCommands(t);
}

}  // namespace server
