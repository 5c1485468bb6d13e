// Sorted-set algebra: ZUNION ZINTER ZDIFF, their STORE forms and ZINTERCARD
// (WEIGHTS, AGGREGATE SUM|MIN|MAX, WITHSCORES, LIMIT). Plain sets are
// accepted as inputs with every member scored 1.
#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/strutil.h"
#include "server/commands/types/zset_common.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/db/set.h"
#include "server/request/keyspace.h"

namespace server {

namespace {

enum class SetOp { kUnion, kInter, kDiff };
enum class Aggregate { kSum, kMin, kMax };

// One input: a sorted set, a plain set (copied, score 1), or nothing.
struct Input {
  db::ZSet* z = nullptr;
  std::unordered_map<std::string, double> set_members;
  double weight = 1;

  size_t size() const { return z ? z->size() : set_members.size(); }
  bool score(std::string_view m, double* out) const {
    if (z) return z->score(m, out);
    auto it = set_members.find(std::string(m));
    if (it == set_members.end()) return false;
    *out = it->second;
    return true;
  }
  void forEach(const db::ZSet::Visitor& fn) const {
    if (z) {
      z->forEach(fn);
      return;
    }
    for (const auto& [m, s] : set_members) {
      if (!fn(m, s)) return;
    }
  }
};

// Weighted score; inf * 0 counts as 0, as in Redis.
double weighted(double score, double weight) {
  double v = score * weight;
  return std::isnan(v) ? 0 : v;
}

void aggregate(Aggregate a, double* target, double v) {
  switch (a) {
    case Aggregate::kSum:
      *target += v;
      if (std::isnan(*target)) *target = 0;  // inf + -inf
      break;
    case Aggregate::kMin:
      *target = std::min(*target, v);
      break;
    case Aggregate::kMax:
      *target = std::max(*target, v);
      break;
  }
}

// Loads the inputs named by argv[first..first+n); false after replying
// WRONGTYPE.
bool loadInputs(Client* c, size_t first, size_t n, bool write, std::vector<Input>* inputs) {
  inputs->resize(n);
  for (size_t i = 0; i < n; i++) {
    std::string_view key = c->arg(first + i);
    db::Entry* e = write ? lookupWrite(c, key) : lookupRead(c, key);
    if (e == nullptr) continue;
    db::Kind k = e->val.kind();
    if (k == db::Kind::kZSet) {
      (*inputs)[i].z = zsetOf(e);
    } else if (k == db::Kind::kSet) {
      auto& dst = (*inputs)[i].set_members;
      db::asSet(e->val)->forEach([&](std::string_view m) { dst.emplace(std::string(m), 1.0); });
    } else {
      c->addWrongType();
      return false;
    }
  }
  return true;
}

// ZUNION/ZINTER/ZDIFF[STORE] and ZINTERCARD. dst_arg is the destination's
// index (0 when replying), numkeys_arg the index of numkeys.
void zsetOpGeneric(Client* c, size_t dst_arg, size_t numkeys_arg, SetOp op, bool card_only) {
  int64_t numkeys;
  if (!c->argInt64(numkeys_arg, &numkeys)) return;
  if (numkeys < 1) {
    c->addErrorFormat("at least 1 input key is needed for '%s' command", c->cur_cmd->name);
    return;
  }
  if (numkeys > static_cast<int64_t>(c->argc() - numkeys_arg - 1)) {
    c->addSyntaxError();
    return;
  }
  auto n = static_cast<size_t>(numkeys);
  std::vector<Input> inputs;
  if (!loadInputs(c, numkeys_arg + 1, n, dst_arg != 0, &inputs)) return;

  Aggregate agg = Aggregate::kSum;
  bool withscores = false;
  int64_t limit = 0;
  for (size_t j = numkeys_arg + 1 + n; j < c->argc(); j++) {
    std::string_view opt = c->arg(j);
    size_t remaining = c->argc() - j;
    if (op != SetOp::kDiff && !card_only && remaining >= n + 1 &&
        common::strutil::equalsIgnoreCase(opt, "weights")) {
      for (size_t i = 0; i < n; i++) {
        if (!common::strutil::parseDouble(c->arg(j + 1 + i), &inputs[i].weight)) {
          c->addError("weight value is not a float");
          return;
        }
      }
      j += n;
    } else if (op != SetOp::kDiff && !card_only && remaining >= 2 &&
               common::strutil::equalsIgnoreCase(opt, "aggregate")) {
      std::string_view a = c->arg(j + 1);
      if (common::strutil::equalsIgnoreCase(a, "sum")) {
        agg = Aggregate::kSum;
      } else if (common::strutil::equalsIgnoreCase(a, "min")) {
        agg = Aggregate::kMin;
      } else if (common::strutil::equalsIgnoreCase(a, "max")) {
        agg = Aggregate::kMax;
      } else {
        c->addSyntaxError();
        return;
      }
      j++;
    } else if (dst_arg == 0 && !card_only && common::strutil::equalsIgnoreCase(opt, "withscores")) {
      withscores = true;
    } else if (card_only && remaining >= 2 && common::strutil::equalsIgnoreCase(opt, "limit")) {
      if (!c->argInt64Msg(j + 1, &limit, "LIMIT can't be negative")) return;
      if (limit < 0) {
        c->addError("LIMIT can't be negative");
        return;
      }
      j++;
    } else {
      c->addSyntaxError();
      return;
    }
  }

  std::unordered_map<std::string, double> acc;
  int64_t card = 0;
  if (op == SetOp::kUnion) {
    for (const Input& in : inputs) {
      in.forEach([&](std::string_view m, double s) {
        double v = weighted(s, in.weight);
        auto [it, fresh] = acc.try_emplace(std::string(m), v);
        if (!fresh) aggregate(agg, &it->second, v);
        return true;
      });
    }
  } else if (op == SetOp::kInter) {
    // Walk the smallest input, probe the others.
    std::vector<const Input*> order;
    for (const Input& in : inputs) order.push_back(&in);
    std::stable_sort(order.begin(), order.end(),
                     [](const Input* a, const Input* b) { return a->size() < b->size(); });
    order[0]->forEach([&](std::string_view m, double s) {
      double total = weighted(s, order[0]->weight);
      for (size_t i = 1; i < order.size(); i++) {
        double other;
        if (!order[i]->score(m, &other)) return true;
        aggregate(agg, &total, weighted(other, order[i]->weight));
      }
      if (card_only) {
        card++;
        return limit == 0 || card < limit;
      }
      acc.emplace(std::string(m), total);
      return true;
    });
  } else {
    inputs[0].forEach([&](std::string_view m, double s) {
      double other;
      for (size_t i = 1; i < inputs.size(); i++) {
        if (inputs[i].score(m, &other)) return true;
      }
      acc.emplace(std::string(m), s);
      return true;
    });
  }
  if (card_only) {
    c->addInteger(card);
    return;
  }

  ZElements out;
  out.reserve(acc.size());
  for (auto& [m, s] : acc) out.emplace_back(m, s);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return db::zLess(a.second, a.first, b.second, b.first);
  });
  if (dst_arg != 0) {
    const char* event = op == SetOp::kUnion   ? "zunionstore"
                        : op == SetOp::kInter ? "zinterstore"
                                              : "zdiffstore";
    zsetStoreResult(c, c->arg(dst_arg), out, event);
    c->addInteger(static_cast<int64_t>(out.size()));
    return;
  }
  replyElements(c, out, withscores);
}

void zunionCommand(Client* c) {
  zsetOpGeneric(c, 0, 1, SetOp::kUnion, false);
}
void zinterCommand(Client* c) {
  zsetOpGeneric(c, 0, 1, SetOp::kInter, false);
}
void zdiffCommand(Client* c) {
  zsetOpGeneric(c, 0, 1, SetOp::kDiff, false);
}
void zunionstoreCommand(Client* c) {
  zsetOpGeneric(c, 1, 2, SetOp::kUnion, false);
}
void zinterstoreCommand(Client* c) {
  zsetOpGeneric(c, 1, 2, SetOp::kInter, false);
}
void zdiffstoreCommand(Client* c) {
  zsetOpGeneric(c, 1, 2, SetOp::kDiff, false);
}
void zintercardCommand(Client* c) {
  zsetOpGeneric(c, 0, 1, SetOp::kInter, true);
}

bool keysAtOne(const std::vector<std::string_view>& argv, std::vector<size_t>* out) {
  return keysAfterCount(argv, 1, out);
}
// STORE forms: the destination, then the numkeys inputs.
bool keysStore(const std::vector<std::string_view>& argv, std::vector<size_t>* out) {
  if (argv.size() < 2) return false;
  out->push_back(1);
  return keysAfterCount(argv, 2, out);
}

}  // namespace

void registerZsetSetOpCommands(CommandTable& t) {
  t.add({"zunion", -3, kReadOnly, zunionCommand, 0, 0, 0, "sorted_set", "Add multiple sorted sets",
         "6.2.0",
         "O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and M "
         "being the number of elements in the resulting sorted set.",
         "read sortedset slow"});
  t.add({"zinter", -3, kReadOnly, zinterCommand, 0, 0, 0, "sorted_set",
         "Intersect multiple sorted sets", "6.2.0",
         "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the "
         "number of input sorted sets and M being the number of elements in the resulting "
         "sorted set.",
         "read sortedset slow"});
  t.add({"zdiff", -3, kReadOnly, zdiffCommand, 0, 0, 0, "sorted_set",
         "Subtract multiple sorted sets", "6.2.0",
         "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the "
         "sets, N is the size of the first set, and K is the size of the result set.",
         "read sortedset slow"});
  t.add({"zunionstore", -4, kWrite | kDenyOom, zunionstoreCommand, 1, 1, 1, "sorted_set",
         "Add multiple sorted sets and store the resulting sorted set in a new key", "2.0.0",
         "O(N)+O(M log(M)) with N being the sum of the sizes of the input sorted sets, and M "
         "being the number of elements in the resulting sorted set.",
         "write sortedset slow"});
  t.add({"zinterstore", -4, kWrite | kDenyOom, zinterstoreCommand, 1, 1, 1, "sorted_set",
         "Intersect multiple sorted sets and store the resulting sorted set in a new key", "2.0.0",
         "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the "
         "number of input sorted sets and M being the number of elements in the resulting "
         "sorted set.",
         "write sortedset slow"});
  t.add({"zdiffstore", -4, kWrite | kDenyOom, zdiffstoreCommand, 1, 1, 1, "sorted_set",
         "Subtract multiple sorted sets and store the resulting sorted set in a new key", "6.2.0",
         "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the "
         "sets, N is the size of the first set, and K is the size of the result set.",
         "write sortedset slow"});
  t.add({"zintercard", -3, kReadOnly, zintercardCommand, 0, 0, 0, "sorted_set",
         "Intersect multiple sorted sets and return the cardinality of the result", "7.0.0",
         "O(N*K) worst case with N being the smallest input sorted set, K being the number of "
         "input sorted sets.",
         "read sortedset slow"});
  for (const char* name : {"zunion", "zinter", "zdiff", "zintercard"})
    t.setKeysProc(name, keysAtOne);
  for (const char* name : {"zunionstore", "zinterstore", "zdiffstore"})
    t.setKeysProc(name, keysStore);
}

}  // namespace server
