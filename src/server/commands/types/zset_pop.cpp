// ZPOPMIN ZPOPMAX ZMPOP and the pop core (zset_pop.h) the blocking forms
// share.
#include "server/commands/types/zset_pop.h"

#include <algorithm>

#include "common/strutil.h"
#include "server/commands/types/zset_common.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/propagate/propagate.h"
#include "server/request/keyspace.h"

namespace server {

size_t zsetPop(Client* c, db::Entry* e, std::string_view key, bool max, int64_t count,
               ZPopShape shape) {
  db::ZSet* z = zsetOf(e);
  size_t n = std::min(static_cast<size_t>(count), z->size());
  ZElements out;
  out.reserve(n);
  if (n > 0) {
    z->rangeByRank(0, n - 1, max, [&](std::string_view m, double s) {
      out.emplace_back(m, s);
      return true;
    });
    // The popped elements are the n lowest (or highest) ranks.
    if (max)
      z->removeRangeByRank(z->size() - n, z->size() - 1);
    else
      z->removeRangeByRank(0, n - 1);
    zsetAfterRemove(c, e, key, max ? "zpopmax" : "zpopmin");
    // BZPOPMIN/BZPOPMAX are fed as ZPOPMIN/ZPOPMAX key, ZMPOP and BZMPOP
    // as ZPOPMIN/ZPOPMAX key <count popped>.
    if (propagate::wanted() && (shape == ZPopShape::kKeyed || shape == ZPopShape::kMulti)) {
      std::string_view name = max ? "ZPOPMAX" : "ZPOPMIN";
      if (shape == ZPopShape::kKeyed) {
        propagate::rewrite({name, key});
      } else {
        std::string popped = std::to_string(n);
        propagate::rewrite({name, key, popped});
      }
    }
  }
  switch (shape) {
    case ZPopShape::kSingle:
      c->addArrayLen(out.empty() ? 0 : 2);
      if (!out.empty()) {
        c->addBulk(out[0].first);
        replyScore(c, out[0].second);
      }
      break;
    case ZPopShape::kCount:
      replyElements(c, out, true);
      break;
    case ZPopShape::kKeyed:
      c->addArrayLen(3);
      c->addBulk(key);
      c->addBulk(out[0].first);
      replyScore(c, out[0].second);
      break;
    case ZPopShape::kMulti:
      c->addArrayLen(2);
      c->addBulk(key);
      // Pairs are nested in both protocols here.
      c->addArrayLen(static_cast<int64_t>(out.size()));
      for (const auto& [m, s] : out) {
        c->addArrayLen(2);
        c->addBulk(m);
        replyScore(c, s);
      }
      break;
  }
  return out.size();
}

bool parseZMpop(Client* c, size_t numkeys_index, ZMpopArgs* a) {
  int64_t numkeys;
  if (!c->argInt64Msg(numkeys_index, &numkeys, "numkeys should be greater than 0")) return false;
  if (numkeys <= 0) {
    c->addError("numkeys should be greater than 0");
    return false;
  }
  size_t where = numkeys_index + 1 + static_cast<size_t>(numkeys);
  if (numkeys > static_cast<int64_t>(c->argc() - numkeys_index) - 2 || where >= c->argc()) {
    c->addSyntaxError();
    return false;
  }
  if (common::strutil::equalsIgnoreCase(c->arg(where), "min")) {
    a->max = false;
  } else if (common::strutil::equalsIgnoreCase(c->arg(where), "max")) {
    a->max = true;
  } else {
    c->addSyntaxError();
    return false;
  }
  int64_t count = -1;
  for (size_t j = where + 1; j < c->argc(); j++) {
    if (count == -1 && j + 1 < c->argc() && common::strutil::equalsIgnoreCase(c->arg(j), "count")) {
      if (!c->argInt64Msg(j + 1, &count, "count should be greater than 0")) return false;
      if (count <= 0) {
        c->addError("count should be greater than 0");
        return false;
      }
      j++;
    } else {
      c->addSyntaxError();
      return false;
    }
  }
  a->count = count == -1 ? 1 : count;
  a->keys.clear();
  for (size_t k = numkeys_index + 1; k < where; k++) a->keys.push_back(c->arg(k));
  return true;
}

bool serveZMpop(Client* c, const ZMpopArgs& a, bool quiet) {
  for (std::string_view key : a.keys) {
    db::Entry* e = lookupWrite(c, key);
    if (e == nullptr) continue;
    if (e->val.kind() != db::Kind::kZSet) {
      if (quiet) continue;
      c->addWrongType();
      return true;
    }
    zsetPop(c, e, key, a.max, a.count, ZPopShape::kMulti);
    return true;
  }
  return false;
}

namespace {

void zpopGeneric(Client* c, bool max) {
  if (c->argc() > 3) {
    c->addSyntaxError();
    return;
  }
  int64_t count = 1;
  bool has_count = c->argc() == 3;
  if (has_count && !c->argInt64Msg(2, &count, "value is out of range, must be positive")) return;
  if (count < 0) {
    c->addError("value is out of range, must be positive");
    return;
  }
  std::string_view key = c->arg(1);
  bool wrongtype;
  db::Entry* e = lookupWriteKind(c, key, db::Kind::kZSet, &wrongtype);
  if (wrongtype) return;
  if (e == nullptr || count == 0) {
    c->addArrayLen(0);
    return;
  }
  zsetPop(c, e, key, max, count, has_count ? ZPopShape::kCount : ZPopShape::kSingle);
}

void zpopminCommand(Client* c) {
  zpopGeneric(c, false);
}
void zpopmaxCommand(Client* c) {
  zpopGeneric(c, true);
}

// ZMPOP numkeys key... MIN|MAX [COUNT count]
void zmpopCommand(Client* c) {
  ZMpopArgs a;
  if (!parseZMpop(c, 1, &a)) return;
  if (!serveZMpop(c, a, false)) c->reply().nullArray();
}

bool zmpopKeys(const std::vector<std::string_view>& argv, std::vector<size_t>* out) {
  return keysAfterCount(argv, 1, out);
}

}  // namespace

void registerZsetPopCommands(CommandTable& t) {
  t.add({"zpopmin", -2, kWrite | kFast, zpopminCommand, 1, 1, 1, "sorted_set",
         "Remove and return members with the lowest scores in a sorted set", "5.0.0",
         "O(log(N)*M) with N being the number of elements in the sorted set, and M being the "
         "number of elements popped.",
         "write sortedset fast"});
  t.add({"zpopmax", -2, kWrite | kFast, zpopmaxCommand, 1, 1, 1, "sorted_set",
         "Remove and return members with the highest scores in a sorted set", "5.0.0",
         "O(log(N)*M) with N being the number of elements in the sorted set, and M being the "
         "number of elements popped.",
         "write sortedset fast"});
  t.add({"zmpop", -4, kWrite, zmpopCommand, 0, 0, 0, "sorted_set",
         "Remove and return members with scores in a sorted set", "7.0.0",
         "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of "
         "elements in the sorted set, and M being the number of elements popped.",
         "write sortedset slow"});
  t.setKeysProc("zmpop", zmpopKeys);
}

}  // namespace server
