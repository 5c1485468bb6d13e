// Sorted-set ranges: ZRANGE (BYSCORE BYLEX REV LIMIT WITHSCORES),
// ZRANGESTORE, the older ZRANGEBYSCORE ZREVRANGEBYSCORE ZRANGEBYLEX
// ZREVRANGEBYLEX ZREVRANGE forms, and ZREMRANGEBYRANK/BYSCORE/BYLEX.
#include <algorithm>
#include <optional>
#include <string>

#include "common/strutil.h"
#include "server/commands/types/zset_common.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/request/keyspace.h"

namespace server {
namespace {

enum class RangeType { kAuto, kRank, kScore, kLex };
enum class Direction { kAuto, kForward, kReverse };

// Clamps Redis-style start/end indexes (negative from the end) to
// [0, size); false when the range is empty.
bool clampRanks(int64_t start, int64_t end, size_t size, size_t* from, size_t* to) {
  auto n = static_cast<int64_t>(size);
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (start < 0) start = 0;
  if (start > end || start >= n) return false;
  if (end >= n) end = n - 1;
  *from = static_cast<size_t>(start);
  *to = static_cast<size_t>(end);
  return true;
}

// The common body of every ZRANGE form. key_arg is the source key's index;
// min and max follow it. dst_arg is ZRANGESTORE's destination (0 = reply).
void zrangeGeneric(Client* c, size_t key_arg, size_t dst_arg, RangeType type, Direction dir) {
  bool withscores = false;
  int64_t offset = 0, limit = -1;
  for (size_t j = key_arg + 3; j < c->argc(); j++) {
    std::string_view opt = c->arg(j);
    size_t left = c->argc() - j - 1;
    if (dst_arg == 0 && common::strutil::equalsIgnoreCase(opt, "withscores")) {
      withscores = true;
    } else if (left >= 2 && common::strutil::equalsIgnoreCase(opt, "limit")) {
      if (!c->argInt64(j + 1, &offset) || !c->argInt64(j + 2, &limit)) return;
      j += 2;
    } else if (dir == Direction::kAuto && common::strutil::equalsIgnoreCase(opt, "rev")) {
      dir = Direction::kReverse;
    } else if (type == RangeType::kAuto && common::strutil::equalsIgnoreCase(opt, "bylex")) {
      type = RangeType::kLex;
    } else if (type == RangeType::kAuto && common::strutil::equalsIgnoreCase(opt, "byscore")) {
      type = RangeType::kScore;
    } else {
      c->addSyntaxError();
      return;
    }
  }
  if (dir == Direction::kAuto) dir = Direction::kForward;
  if (type == RangeType::kAuto) type = RangeType::kRank;
  // Redis only objects to a LIMIT with a count (LIMIT 5 -1 is ignored).
  if (limit != -1 && type == RangeType::kRank) {
    c->addError(
        "syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
    return;
  }
  if (withscores && type == RangeType::kLex) {
    c->addError("syntax error, WITHSCORES not supported in combination with BYLEX");
    return;
  }
  bool rev = dir == Direction::kReverse;
  // The reversed score and lex forms take max before min.
  size_t min_arg = key_arg + 1, max_arg = key_arg + 2;
  if (rev && type != RangeType::kRank) std::swap(min_arg, max_arg);

  int64_t start = 0, end = 0;
  db::ScoreRange sr;
  db::LexRange lr;
  if (type == RangeType::kRank) {
    if (!c->argInt64(min_arg, &start) || !c->argInt64(max_arg, &end)) return;
  } else if (type == RangeType::kScore) {
    if (!parseScoreRange(c->arg(min_arg), c->arg(max_arg), &sr)) {
      c->addError("min or max is not a float");
      return;
    }
  } else if (!parseLexRange(c->arg(min_arg), c->arg(max_arg), &lr)) {
    c->addError("min or max not valid string range item");
    return;
  }

  bool wrongtype;
  db::Entry* e = lookupReadKind(c, c->arg(key_arg), db::Kind::kZSet, &wrongtype);
  if (wrongtype) return;
  db::ZSet* z = e ? zsetOf(e) : nullptr;

  // Replies stream straight from the walk; the store form collects.
  ZElements out;
  std::optional<ZElementsReply> reply;
  if (dst_arg == 0) reply.emplace(c, withscores);
  auto collect = [&](std::string_view m, double s) {
    if (limit == 0) return false;
    if (limit > 0) limit--;
    if (reply)
      reply->add(m, s);
    else
      out.emplace_back(m, s);
    return true;
  };
  if (z != nullptr) {
    size_t from, to;
    if (type == RangeType::kRank) {
      if (clampRanks(start, end, z->size(), &from, &to)) z->rangeByRank(from, to, rev, collect);
    } else if (offset >= 0 && limit != 0) {
      // A negative offset selects nothing (Redis); a negative count is no limit.
      auto off = static_cast<size_t>(offset);
      if (type == RangeType::kScore)
        z->rangeByScore(sr, rev, off, collect);
      else
        z->rangeByLex(lr, rev, off, collect);
    }
  }
  if (reply) {
    reply->end();
    return;
  }
  // The store form keeps the (score, member) order whatever the direction.
  if (rev) std::reverse(out.begin(), out.end());
  zsetStoreResult(c, c->arg(dst_arg), out, "zrangestore");
  c->addInteger(static_cast<int64_t>(out.size()));
}

void zrangeCommand(Client* c) {
  zrangeGeneric(c, 1, 0, RangeType::kAuto, Direction::kAuto);
}
void zrangestoreCommand(Client* c) {
  zrangeGeneric(c, 2, 1, RangeType::kAuto, Direction::kAuto);
}
void zrevrangeCommand(Client* c) {
  zrangeGeneric(c, 1, 0, RangeType::kRank, Direction::kReverse);
}
void zrangebyscoreCommand(Client* c) {
  zrangeGeneric(c, 1, 0, RangeType::kScore, Direction::kForward);
}
void zrevrangebyscoreCommand(Client* c) {
  zrangeGeneric(c, 1, 0, RangeType::kScore, Direction::kReverse);
}
void zrangebylexCommand(Client* c) {
  zrangeGeneric(c, 1, 0, RangeType::kLex, Direction::kForward);
}
void zrevrangebylexCommand(Client* c) {
  zrangeGeneric(c, 1, 0, RangeType::kLex, Direction::kReverse);
}

void zremrangeGeneric(Client* c, RangeType type) {
  int64_t start = 0, end = 0;
  db::ScoreRange sr;
  db::LexRange lr;
  if (type == RangeType::kRank) {
    if (!c->argInt64(2, &start) || !c->argInt64(3, &end)) return;
  } else if (type == RangeType::kScore) {
    if (!parseScoreRange(c->arg(2), c->arg(3), &sr)) {
      c->addError("min or max is not a float");
      return;
    }
  } else if (!parseLexRange(c->arg(2), c->arg(3), &lr)) {
    c->addError("min or max not valid string range item");
    return;
  }
  std::string_view key = c->arg(1);
  bool wrongtype;
  db::Entry* e = lookupWriteKind(c, key, db::Kind::kZSet, &wrongtype);
  if (wrongtype) return;
  if (e == nullptr) {
    c->addInteger(0);
    return;
  }
  db::ZSet* z = zsetOf(e);
  size_t removed = 0;
  if (type == RangeType::kRank) {
    size_t from, to;
    if (clampRanks(start, end, z->size(), &from, &to)) removed = z->removeRangeByRank(from, to);
  } else if (type == RangeType::kScore) {
    removed = z->removeRangeByScore(sr);
  } else {
    removed = z->removeRangeByLex(lr);
  }
  if (removed > 0) {
    const char* event = type == RangeType::kRank    ? "zremrangebyrank"
                        : type == RangeType::kScore ? "zremrangebyscore"
                                                    : "zremrangebylex";
    zsetAfterRemove(c, e, key, event);
  }
  c->addInteger(static_cast<int64_t>(removed));
}

void zremrangebyrankCommand(Client* c) {
  zremrangeGeneric(c, RangeType::kRank);
}
void zremrangebyscoreCommand(Client* c) {
  zremrangeGeneric(c, RangeType::kScore);
}
void zremrangebylexCommand(Client* c) {
  zremrangeGeneric(c, RangeType::kLex);
}

}  // namespace

void registerZsetRangeCommands(CommandTable& t) {
  const char* kRangeCost =
      "O(log(N)+M) with N being the number of elements in the sorted set and M the number of "
      "elements returned.";
  t.add({"zrange", -4, kReadOnly, zrangeCommand, 1, 1, 1, "sorted_set",
         "Return a range of members in a sorted set", "1.2.0", kRangeCost, "read sortedset slow"});
  t.add({"zrangestore", -5, kWrite | kDenyOom, zrangestoreCommand, 1, 2, 1, "sorted_set",
         "Store a range of members from sorted set into another key", "6.2.0",
         "O(log(N)+M) with N being the number of elements in the sorted set and M the number of "
         "elements stored into the destination key.",
         "write sortedset slow"});
  t.add({"zrevrange", -4, kReadOnly, zrevrangeCommand, 1, 1, 1, "sorted_set",
         "Return a range of members in a sorted set, by index, with scores ordered from high to "
         "low",
         "1.2.0", kRangeCost, "read sortedset slow"});
  t.add({"zrangebyscore", -4, kReadOnly, zrangebyscoreCommand, 1, 1, 1, "sorted_set",
         "Return a range of members in a sorted set, by score", "1.0.5", kRangeCost,
         "read sortedset slow"});
  t.add({"zrevrangebyscore", -4, kReadOnly, zrevrangebyscoreCommand, 1, 1, 1, "sorted_set",
         "Return a range of members in a sorted set, by score, with scores ordered from high to "
         "low",
         "2.2.0", kRangeCost, "read sortedset slow"});
  t.add({"zrangebylex", -4, kReadOnly, zrangebylexCommand, 1, 1, 1, "sorted_set",
         "Return a range of members in a sorted set, by lexicographical range", "2.8.9", kRangeCost,
         "read sortedset slow"});
  t.add({"zrevrangebylex", -4, kReadOnly, zrevrangebylexCommand, 1, 1, 1, "sorted_set",
         "Return a range of members in a sorted set, by lexicographical range, ordered from "
         "higher to lower strings.",
         "2.8.9", kRangeCost, "read sortedset slow"});
  const char* kRemCost =
      "O(log(N)+M) with N being the number of elements in the sorted set and M the number of "
      "elements removed by the operation.";
  t.add({"zremrangebyrank", 4, kWrite, zremrangebyrankCommand, 1, 1, 1, "sorted_set",
         "Remove all members in a sorted set within the given indexes", "2.0.0", kRemCost,
         "write sortedset slow"});
  t.add({"zremrangebyscore", 4, kWrite, zremrangebyscoreCommand, 1, 1, 1, "sorted_set",
         "Remove all members in a sorted set within the given scores", "1.2.0", kRemCost,
         "write sortedset slow"});
  t.add({"zremrangebylex", 4, kWrite, zremrangebylexCommand, 1, 1, 1, "sorted_set",
         "Remove all members in a sorted set between the given lexicographical range", "2.8.9",
         kRemCost, "write sortedset slow"});
}

}  // namespace server
