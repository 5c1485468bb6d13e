// SORT and SORT_RO: sort the elements of a list, set or sorted set
// numerically or lexicographically (ALPHA), by the elements themselves or by
// external keys / hash fields (BY pattern), return a window (LIMIT), other
// keys' values (GET pattern) or store the result as a list (STORE).
//
// Redis 7.0's rules, kept here because users depend on them:
// - a BY pattern without '*' means "do not sort" (natural order; DESC
//   still reverses lists and sorted sets), except that a set whose result is
//   STOREd or returned to a script is sorted ALPHA so that it does not
//   depend on hash order;
// - numeric sorting breaks ties between equal scores by the elements' bytes,
//   so the result is deterministic; an element (or BY value) that is not a
//   number fails the whole command;
// - a BY lookup that finds nothing scores 0 (numeric) or sorts first (ALPHA);
// - GET '#' is the element itself; a GET that finds nothing is a null (an
//   empty string when STOREd).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "common/strutil.h"
#include "server/acl/check.h"
#include "server/commands/families.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/db/hash.h"
#include "server/db/list.h"
#include "server/db/set.h"
#include "server/db/zset.h"
#include "server/request/keyspace.h"

namespace server {
namespace {

struct SortArgs {
  std::string_view by;  // empty: sort by the elements
  bool dont_sort = false;
  bool desc = false;
  bool alpha = false;
  int64_t offset = 0;
  int64_t count = -1;
  std::vector<std::string_view> gets;
  std::string_view store;
  bool has_store = false;
};

bool parseSortArgs(Client* c, bool readonly, SortArgs* a) {
  for (size_t i = 2; i < c->argc(); i++) {
    std::string_view opt = c->arg(i);
    size_t left = c->argc() - i - 1;
    if (common::strutil::equalsIgnoreCase(opt, "ASC")) {
      a->desc = false;
    } else if (common::strutil::equalsIgnoreCase(opt, "DESC")) {
      a->desc = true;
    } else if (common::strutil::equalsIgnoreCase(opt, "ALPHA")) {
      a->alpha = true;
    } else if (common::strutil::equalsIgnoreCase(opt, "LIMIT") && left >= 2) {
      if (!c->argInt64(i + 1, &a->offset) || !c->argInt64(i + 2, &a->count)) return false;
      i += 2;
    } else if (!readonly && common::strutil::equalsIgnoreCase(opt, "STORE") && left >= 1) {
      a->store = c->arg(++i);
      a->has_store = true;
    } else if (common::strutil::equalsIgnoreCase(opt, "BY") && left >= 1) {
      a->by = c->arg(++i);
      // No '*': nothing to substitute, so nothing to sort by.
      if (a->by.find('*') == std::string_view::npos) {
        a->dont_sort = true;
      } else if (!acl::hasFullKeyAccess(c)) {
        // A pattern reads keys the ACL check never saw (Redis 7.0).
        c->addError("BY option of SORT denied due to insufficient ACL permissions.");
        return false;
      }
    } else if (common::strutil::equalsIgnoreCase(opt, "GET") && left >= 1) {
      if (!acl::hasFullKeyAccess(c)) {
        c->addError("GET option of SORT denied due to insufficient ACL permissions.");
        return false;
      }
      a->gets.push_back(c->arg(++i));
    } else {
      c->addSyntaxError();
      return false;
    }
  }
  return true;
}

// The value a BY/GET pattern names for one element: the first '*' is
// replaced by the element; "->field" after it selects a hash field. "#"
// alone is the element. nullopt when the key (or field) does not exist or
// holds the wrong type.
std::optional<std::string> lookupByPattern(Client* c, std::string_view pattern,
                                           std::string_view elem) {
  if (pattern == "#") return std::string(elem);
  size_t star = pattern.find('*');
  if (star == std::string_view::npos) return std::nullopt;
  std::string_view field;
  size_t arrow = pattern.find("->", star + 1);
  std::string_view key_tail = pattern.substr(star + 1);
  if (arrow != std::string_view::npos && arrow + 2 < pattern.size()) {
    field = pattern.substr(arrow + 2);
    key_tail = pattern.substr(star + 1, arrow - star - 1);
  }
  std::string key;
  key.reserve(pattern.size() + elem.size());
  key.append(pattern.substr(0, star)).append(elem).append(key_tail);
  db::Entry* e = c->db()->find(key);
  if (e == nullptr) return std::nullopt;
  char scratch[32];
  if (field.empty()) {
    if (!e->val.isString()) return std::nullopt;
    return std::string(e->val.str(scratch));
  }
  if (e->val.kind() != db::Kind::kHash) return std::nullopt;
  std::string_view v;
  if (!db::asHash(e->val)->get(field, scratch, &v)) return std::nullopt;
  return std::string(v);
}

// Strict double parse as Redis's SORT does it (strtod over the whole
// string, no NaN, no overflow).
bool parseSortScore(const std::string& s, double* out) {
  if (s.empty() || isspace(static_cast<unsigned char>(s[0]))) return false;
  errno = 0;
  char* end = nullptr;
  double d = strtod(s.c_str(), &end);
  if (*end != '\0' || errno == ERANGE || std::isnan(d)) return false;
  *out = d;
  return true;
}

struct Item {
  std::string elem;
  std::optional<std::string> by;  // ALPHA with BY: the compare value
  double score = 0;
};

// Collects the elements of a list (in order), set or sorted set (by
// ascending score).
void loadElements(const db::Entry* e, std::vector<Item>* out) {
  switch (e->val.kind()) {
    case db::Kind::kList: {
      auto* l = static_cast<const db::List*>(e->val.collection());
      for (auto it = l->first(); it.valid(); it = l->next(it))
        out->push_back({l->get(it).toString()});
      break;
    }
    case db::Kind::kSet:
      db::asSet(e->val)->forEach([&](std::string_view m) { out->push_back({std::string(m)}); });
      break;
    case db::Kind::kZSet: {
      auto* z = static_cast<const db::ZSet*>(e->val.collection());
      if (z->size() > 0)
        z->rangeByRank(0, z->size() - 1, false, [&](std::string_view m, double) {
          out->push_back({std::string(m)});
          return true;
        });
      break;
    }
    case db::Kind::kNone:
    case db::Kind::kStrInline:
    case db::Kind::kStrInt:
    case db::Kind::kStrHeap:
    case db::Kind::kHash:
    case db::Kind::kStream:
      break;
  }
}

void sortGeneric(Client* c, bool readonly) {
  SortArgs a;
  if (!parseSortArgs(c, readonly, &a)) return;
  db::Entry* e = lookupRead(c, c->arg(1));
  // BY/GET lookups may expire (delete) keys: e is not used after loading.
  db::Kind k = e != nullptr ? e->val.kind() : db::Kind::kNone;
  if (e != nullptr) {
    if (k != db::Kind::kList && k != db::Kind::kSet && k != db::Kind::kZSet) {
      c->addWrongType();
      return;
    }
    // A STOREd result, or one a script sees, must not depend on a set's
    // hash order (it would differ on replicas and in the AOF).
    if (a.dont_sort && k == db::Kind::kSet && (a.has_store || (c->flags & kScriptClient))) {
      a.dont_sort = false;
      a.alpha = true;
      a.by = {};
    }
  }
  std::vector<Item> items;
  if (e != nullptr) loadElements(e, &items);

  if (!a.dont_sort) {
    bool by = !a.by.empty();
    for (Item& it : items) {
      std::optional<std::string> byval;
      if (by) {
        byval = lookupByPattern(c, a.by, it.elem);
      }
      if (a.alpha) {
        if (by) it.by = std::move(byval);
      } else {
        const std::string* src = by ? (byval ? &*byval : nullptr) : &it.elem;
        if (src != nullptr && !parseSortScore(*src, &it.score)) {
          c->addError("One or more scores can't be converted into double");
          return;
        }
      }
    }
    bool desc = a.desc;
    auto cmp = [&](const Item& x, const Item& y) {
      int r;
      if (!a.alpha) {
        r = x.score < y.score ? -1 : x.score > y.score ? 1 : x.elem.compare(y.elem);
      } else if (by) {
        if (!x.by || !y.by)
          r = (x.by.has_value() == y.by.has_value()) ? 0 : (x.by ? 1 : -1);
        else
          r = x.by->compare(*y.by);
      } else {
        r = x.elem.compare(y.elem);
      }
      return desc ? r > 0 : r < 0;
    };
    std::stable_sort(items.begin(), items.end(), cmp);
  } else if (a.desc && k != db::Kind::kSet) {
    std::reverse(items.begin(), items.end());
  }

  // The LIMIT window, clamped as Redis does.
  int64_t n = static_cast<int64_t>(items.size());
  int64_t start = a.offset < 0 ? 0 : a.offset;
  int64_t end = a.count < 0 ? n - 1 : start + a.count - 1;
  if (start >= n) {
    start = n - 1;
    end = n - 2;
  }
  if (end >= n) end = n - 1;
  int64_t shown = end >= start ? end - start + 1 : 0;

  size_t per = a.gets.empty() ? 1 : a.gets.size();
  if (!a.has_store) {
    c->addArrayLen(shown * static_cast<int64_t>(per));
    for (int64_t i = start; i <= end; i++) {
      const Item& it = items[static_cast<size_t>(i)];
      if (a.gets.empty()) {
        c->addBulk(it.elem);
        continue;
      }
      for (std::string_view g : a.gets) {
        std::optional<std::string> v = lookupByPattern(c, g, it.elem);
        if (v)
          c->addBulk(*v);
        else
          c->addNull();
      }
    }
    return;
  }

  auto* l = new db::List();
  for (int64_t i = start; i <= end; i++) {
    const Item& it = items[static_cast<size_t>(i)];
    if (a.gets.empty()) {
      l->push(it.elem, false);
      continue;
    }
    for (std::string_view g : a.gets) {
      std::optional<std::string> v = lookupByPattern(c, g, it.elem);
      l->push(v ? std::string_view(*v) : std::string_view(), false);
    }
  }
  size_t stored = l->size();
  db::Db* d = c->db();
  if (stored == 0) {
    delete l;
    deleteStoreTarget(c, a.store);
  } else {
    l->updateEncoding(static_cast<int>(g_server->config.list_max_listpack_size),
                      static_cast<int>(g_server->config.list_compress_depth));
    d->set(a.store, db::Value::fromCollection(db::Kind::kList, l), false);
    keyModified(c, a.store);
    notify::keyEvent(c, notify::kList, "sortstore", a.store);
  }
  c->addInteger(static_cast<int64_t>(stored));
}

void sortCommand(Client* c) {
  sortGeneric(c, false);
}

void sortRoCommand(Client* c) {
  sortGeneric(c, true);
}

// SORT key ... [STORE dst]: the key, plus the destination when present
// (the last STORE wins, as it does when SORT runs).
bool sortKeys(const std::vector<std::string_view>& argv, std::vector<size_t>* out) {
  if (argv.size() < 2) return false;
  out->push_back(1);
  size_t store = 0;
  for (size_t i = 2; i < argv.size(); i++) {
    std::string_view a = argv[i];
    if (common::strutil::equalsIgnoreCase(a, "LIMIT")) {
      i += 2;
    } else if (common::strutil::equalsIgnoreCase(a, "BY") ||
               common::strutil::equalsIgnoreCase(a, "GET")) {
      i += 1;
    } else if (common::strutil::equalsIgnoreCase(a, "STORE") && i + 1 < argv.size()) {
      store = ++i;
    }
  }
  if (store != 0) out->push_back(store);
  return true;
}

}  // namespace

void registerSortCommands(CommandTable& t) {
  t.add({"sort", -2, kWrite | kDenyOom, sortCommand, 1, 1, 1, "generic",
         "Sort the elements in a list, set or sorted set, optionally storing the result", "1.0.0",
         "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the "
         "number of returned elements. When the elements are not sorted, complexity is O(N).",
         "write set sortedset list slow dangerous"});
  t.setKeysProc("sort", sortKeys);
  t.add({"sort_ro", -2, kReadOnly, sortRoCommand, 1, 1, 1, "generic",
         "Sort the elements in a list, set or sorted set. Read-only variant of SORT.", "7.0.0",
         "O(N+M*log(M)) where N is the number of elements in the list/set to sort, and M the "
         "number of returned elements. When the elements are not sorted, complexity is O(N).",
         "read set sortedset list slow dangerous"});
}

}  // namespace server
