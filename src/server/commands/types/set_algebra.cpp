// Set algebra over several keys: SINTER SINTERSTORE SINTERCARD SUNION
// SUNIONSTORE SDIFF SDIFFSTORE. A missing key counts as the empty set; a
// key of another type fails the whole command (every key is checked first,
// as Redis does). STORE forms build the result from an empty intset, so it
// ends in the smallest encoding that holds it, and delete the destination
// when the result is empty.
#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "common/strutil.h"
#include "server/commands/types/set_common.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/request/keyspace.h"

namespace server {
namespace {

// The sets named by argv[first, first+n); nullptr entries for missing keys.
// False after replying WRONGTYPE.
bool collectSets(Client* c, size_t first, size_t n, std::vector<db::Set*>* out) {
  out->clear();
  for (size_t i = first; i < first + n; i++) {
    bool wrongtype;
    db::Set* s = setForRead(c, c->arg(i), &wrongtype);
    if (wrongtype) return false;
    out->push_back(s);
  }
  return true;
}

// Calls fn(member) for each member of the intersection, stopping when fn
// returns false.
template <class Fn>
void forEachInIntersection(std::vector<db::Set*> sets, Fn&& fn) {
  for (db::Set* s : sets) {
    if (s == nullptr || s->size() == 0) return;
  }
  // Walk the smallest; probe the others from small to large.
  std::sort(sets.begin(), sets.end(),
            [](const db::Set* a, const db::Set* b) { return a->size() < b->size(); });
  bool go = true;
  sets[0]->forEach([&](std::string_view m) {
    if (!go) return;
    for (size_t i = 1; i < sets.size(); i++) {
      if (!sets[i]->contains(m)) return;
    }
    go = fn(m);
  });
}

enum class Op { kInter, kUnion, kDiff };

// The result of op over sets, as a new set value (possibly empty).
db::Value compute(Op op, const std::vector<db::Set*>& sets) {
  db::SetLimits lim = setLimits();
  db::Value result = db::Value::fromCollection(db::Kind::kSet, db::Set::createIntset());
  auto add = [&](std::string_view m) {
    db::setAdd(&result, m, lim);
    return true;
  };
  switch (op) {
    case Op::kInter:
      forEachInIntersection(sets, add);
      break;
    case Op::kUnion:
      for (db::Set* s : sets) {
        if (s != nullptr) s->forEach(add);
      }
      break;
    case Op::kDiff:
      if (sets[0] != nullptr) {
        sets[0]->forEach([&](std::string_view m) {
          for (size_t i = 1; i < sets.size(); i++) {
            if (sets[i] != nullptr && sets[i]->contains(m)) return;
          }
          add(m);
        });
      }
      break;
  }
  return result;
}

void replyGeneric(Client* c, Op op) {
  std::vector<db::Set*> sets;
  if (!collectSets(c, 1, c->argc() - 1, &sets)) return;
  resp::Writer& w = c->reply();
  if (op == Op::kInter) {
    // Streamed: no copy of the result.
    void* len = w.beginDeferred();
    int64_t n = 0;
    forEachInIntersection(sets, [&](std::string_view m) {
      w.bulk(m);
      n++;
      return true;
    });
    w.endDeferredSet(len, n);
    return;
  }
  db::Value result = compute(op, sets);
  db::Set* r = db::asSet(result);
  w.setLen(static_cast<int64_t>(r->size()));
  r->forEach([&](std::string_view m) { w.bulk(m); });
}

void storeGeneric(Client* c, Op op) {
  std::vector<db::Set*> sets;
  if (!collectSets(c, 2, c->argc() - 2, &sets)) return;
  std::string_view dst = c->arg(1);
  db::Value result = compute(op, sets);
  size_t n = db::asSet(result)->size();
  if (n == 0) {
    deleteStoreTarget(c, dst);
  } else {
    c->db()->set(dst, std::move(result), false);
    keyModified(c, dst);
    const char* event = op == Op::kInter   ? "sinterstore"
                        : op == Op::kUnion ? "sunionstore"
                                           : "sdiffstore";
    notify::keyEvent(c, notify::kSet, event, dst);
  }
  c->addInteger(static_cast<int64_t>(n));
}

void sinterCommand(Client* c) {
  replyGeneric(c, Op::kInter);
}
void sunionCommand(Client* c) {
  replyGeneric(c, Op::kUnion);
}
void sdiffCommand(Client* c) {
  replyGeneric(c, Op::kDiff);
}
void sinterstoreCommand(Client* c) {
  storeGeneric(c, Op::kInter);
}
void sunionstoreCommand(Client* c) {
  storeGeneric(c, Op::kUnion);
}
void sdiffstoreCommand(Client* c) {
  storeGeneric(c, Op::kDiff);
}

// SINTERCARD numkeys key [key ...] [LIMIT limit]
void sintercardCommand(Client* c) {
  int64_t numkeys;
  if (!common::strutil::parseInt64(c->arg(1), &numkeys) || numkeys <= 0) {
    c->addError("numkeys should be greater than 0");
    return;
  }
  if (static_cast<uint64_t>(numkeys) > c->argc() - 2) {
    c->addError("Number of keys can't be greater than number of args");
    return;
  }
  int64_t limit = 0;
  for (size_t i = 2 + static_cast<size_t>(numkeys); i < c->argc(); i += 2) {
    if (common::strutil::equalsIgnoreCase(c->arg(i), "LIMIT") && i + 1 < c->argc()) {
      if (!common::strutil::parseInt64(c->arg(i + 1), &limit) || limit < 0) {
        c->addError("LIMIT can't be negative");
        return;
      }
    } else {
      c->addSyntaxError();
      return;
    }
  }
  std::vector<db::Set*> sets;
  if (!collectSets(c, 2, static_cast<size_t>(numkeys), &sets)) return;
  int64_t n = 0;
  forEachInIntersection(sets, [&](std::string_view) { return ++n != limit; });
  c->addInteger(n);
}

bool sintercardKeys(const std::vector<std::string_view>& argv, std::vector<size_t>* out) {
  return keysAfterCount(argv, 1, out);
}

}  // namespace

void registerSetAlgebraCommands(CommandTable& t) {
  t.add({"sinter", -2, kReadOnly | kSortForScript, sinterCommand, 1, -1, 1, "set",
         "Intersect multiple sets", "1.0.0",
         "O(N*M) worst case where N is the cardinality of the smallest set and M is the number "
         "of sets.",
         "read set slow"});
  t.add({"sinterstore", -3, kWrite | kDenyOom, sinterstoreCommand, 1, -1, 1, "set",
         "Intersect multiple sets and store the resulting set in a key", "1.0.0",
         "O(N*M) worst case where N is the cardinality of the smallest set and M is the number "
         "of sets.",
         "write set slow"});
  t.add({"sintercard", -3, kReadOnly, sintercardCommand, 0, 0, 0, "set",
         "Intersect multiple sets and return the cardinality of the result", "7.0.0",
         "O(N*M) worst case where N is the cardinality of the smallest set and M is the number "
         "of sets.",
         "read set slow"});
  t.setKeysProc("sintercard", sintercardKeys);
  t.add({"sunion", -2, kReadOnly | kSortForScript, sunionCommand, 1, -1, 1, "set",
         "Add multiple sets", "1.0.0",
         "O(N) where N is the total number of elements in all given sets.", "read set slow"});
  t.add({"sunionstore", -3, kWrite | kDenyOom, sunionstoreCommand, 1, -1, 1, "set",
         "Add multiple sets and store the resulting set in a key", "1.0.0",
         "O(N) where N is the total number of elements in all given sets.", "write set slow"});
  t.add({"sdiff", -2, kReadOnly | kSortForScript, sdiffCommand, 1, -1, 1, "set",
         "Subtract multiple sets", "1.0.0",
         "O(N) where N is the total number of elements in all given sets.", "read set slow"});
  t.add({"sdiffstore", -3, kWrite | kDenyOom, sdiffstoreCommand, 1, -1, 1, "set",
         "Subtract multiple sets and store the resulting set in a key", "1.0.0",
         "O(N) where N is the total number of elements in all given sets.", "write set slow"});
}

}  // namespace server
