// List commands: pushes and pops, LRANGE LINDEX LSET LINSERT LREM LTRIM
// LPOS, LMOVE RPOPLPUSH LMPOP. The blocking variants live in
// list_blocking.cpp; the encodings in db/list.h.
#include <strings.h>

#include <climits>
#include <string>

#include "common/strutil.h"
#include "server/commands/families.h"
#include "server/commands/types/list_ops.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/propagate/propagate.h"
#include "server/request/keyspace.h"

namespace server {

namespace listops {

int fill() {
  return static_cast<int>(g_server->config.list_max_listpack_size);
}

int compressDepth() {
  return static_cast<int>(g_server->config.list_compress_depth);
}

db::List* asList(db::Entry* e) {
  return static_cast<db::List*>(e->val.collection());
}

Found findList(Client* c, std::string_view key, bool quiet, db::List** out) {
  db::Entry* e = lookupWrite(c, key);
  if (e == nullptr) return Found::kMissing;
  if (e->val.kind() != db::Kind::kList) {
    if (!quiet) c->addWrongType();
    return Found::kWrongType;
  }
  *out = asList(e);
  return Found::kList;
}

// Deletes the key when the list emptied, else lets the encoding shrink.
bool afterRemoval(Client* c, std::string_view key, db::List* l) {
  if (l->empty()) {
    c->db()->remove(key);
    return true;
  }
  l->updateEncoding(fill(), compressDepth());
  return false;
}

// The "del" notification of a list that emptied (after the command's own).
void notifyIfDeleted(Client* c, std::string_view key, bool deleted) {
  if (deleted) notify::keyEvent(c, notify::kGeneric, "del", key);
}

db::List* createList(Client* c, std::string_view key) {
  auto* l = new db::List;
  c->db()->add(key, db::Value::fromCollection(db::Kind::kList, l));
  return l;
}

std::vector<std::string> pop(Client* c, std::string_view key, db::List* l, bool head, size_t n) {
  std::vector<std::string> out;
  std::string v;
  while (out.size() < n && l->pop(head, &v)) out.push_back(std::move(v));
  bool deleted = afterRemoval(c, key, l);
  keyModified(c, key);
  notify::keyEvent(c, notify::kList, head ? "lpop" : "rpop", key);
  notifyIfDeleted(c, key, deleted);
  return out;
}

void move(Client* c, std::string_view src, db::List* from, std::string_view dst, bool from_head,
          bool to_head) {
  db::List* to = nullptr;
  if (findList(c, dst, false, &to) == Found::kWrongType) return;
  std::string v;
  from->pop(from_head, &v);
  if (src == dst) {
    from->push(v, to_head);
    from->updateEncoding(fill(), compressDepth());
    keyModified(c, src);
    notify::keyEvent(c, notify::kList, to_head ? "lpush" : "rpush", dst);
    notify::keyEvent(c, notify::kList, from_head ? "lpop" : "rpop", src);
    c->addBulk(v);
    return;
  }
  bool deleted = afterRemoval(c, src, from);
  // Look the destination up again: deleting the source may move entries.
  if (findList(c, dst, true, &to) == Found::kMissing) to = createList(c, dst);
  to->push(v, to_head);
  to->updateEncoding(fill(), compressDepth());
  keyModified(c, src);
  keyModified(c, dst);
  notify::keyEvent(c, notify::kList, to_head ? "lpush" : "rpush", dst);
  notify::keyEvent(c, notify::kList, from_head ? "lpop" : "rpop", src);
  notifyIfDeleted(c, src, deleted);
  c->addBulk(v);
}

bool parseSide(std::string_view s, bool* head) {
  if (common::strutil::equalsIgnoreCase(s, "left")) {
    *head = true;
  } else if (common::strutil::equalsIgnoreCase(s, "right")) {
    *head = false;
  } else {
    return false;
  }
  return true;
}

bool parseMpop(Client* c, size_t numkeys_index, MpopArgs* out) {
  int64_t numkeys;
  if (!common::strutil::parseInt64(c->arg(numkeys_index), &numkeys) || numkeys <= 0) {
    c->addError("numkeys should be greater than 0");
    return false;
  }
  size_t first = numkeys_index + 1;
  if (static_cast<uint64_t>(numkeys) >= c->argc() - first) {
    c->addSyntaxError();
    return false;
  }
  size_t side = first + static_cast<size_t>(numkeys);
  for (size_t i = first; i < side; i++) out->keys.push_back(c->arg(i));
  if (!parseSide(c->arg(side), &out->head)) {
    c->addSyntaxError();
    return false;
  }
  bool seen_count = false;
  for (size_t i = side + 1; i < c->argc(); i++) {
    if (!seen_count && common::strutil::equalsIgnoreCase(c->arg(i), "count") && i + 1 < c->argc()) {
      int64_t n;
      if (!common::strutil::parseInt64(c->arg(i + 1), &n) || n <= 0) {
        c->addError("count should be greater than 0");
        return false;
      }
      out->count = static_cast<size_t>(n);
      seen_count = true;
      i++;
    } else {
      c->addSyntaxError();
      return false;
    }
  }
  return true;
}

bool serveMpop(Client* c, const MpopArgs& a, bool quiet) {
  for (std::string_view key : a.keys) {
    db::List* l = nullptr;
    Found f = findList(c, key, quiet, &l);
    if (f == Found::kWrongType && !quiet) return true;
    if (f != Found::kList) continue;
    std::vector<std::string> vals = pop(c, key, l, a.head, a.count);
    // LMPOP and BLMPOP are fed as the pop they did, with the count popped.
    if (propagate::wanted()) {
      std::string n = std::to_string(vals.size());
      propagate::rewrite({a.head ? "LPOP" : "RPOP", key, n});
    }
    c->addArrayLen(2);
    c->addBulk(key);
    c->addArrayLen(static_cast<int64_t>(vals.size()));
    for (const auto& v : vals) c->addBulk(v);
    return true;
  }
  return false;
}

}  // namespace listops

namespace {

using listops::Found;

void pushGeneric(Client* c, bool head, bool only_existing) {
  std::string_view key = c->arg(1);
  db::List* l = nullptr;
  Found f = listops::findList(c, key, false, &l);
  if (f == Found::kWrongType) return;
  if (f == Found::kMissing) {
    if (only_existing) {
      c->addInteger(0);
      return;
    }
    l = listops::createList(c, key);
  }
  size_t bytes = 0;
  for (size_t i = 2; i < c->argc(); i++) bytes += db::listpackEncodedSize(c->arg(i));
  l->prepareGrowth(listops::fill(), bytes, c->argc() - 2, listops::compressDepth());
  for (size_t i = 2; i < c->argc(); i++) l->push(c->arg(i), head);
  l->updateEncoding(listops::fill(), listops::compressDepth());
  c->addInteger(static_cast<int64_t>(l->size()));
  keyModified(c, key);
  notify::keyEvent(c, notify::kList, head ? "lpush" : "rpush", key);
}

void lpushCommand(Client* c) {
  pushGeneric(c, true, false);
}
void rpushCommand(Client* c) {
  pushGeneric(c, false, false);
}
void lpushxCommand(Client* c) {
  pushGeneric(c, true, true);
}
void rpushxCommand(Client* c) {
  pushGeneric(c, false, true);
}

void popGeneric(Client* c, bool head) {
  if (c->argc() > 3) {
    c->addWrongArity();
    return;
  }
  bool has_count = c->argc() == 3;
  int64_t count = 1;
  if (has_count && (!common::strutil::parseInt64(c->arg(2), &count) || count < 0)) {
    c->addError("value is out of range, must be positive");
    return;
  }
  std::string_view key = c->arg(1);
  db::List* l = nullptr;
  Found f = listops::findList(c, key, false, &l);
  if (f == Found::kWrongType) return;
  if (f == Found::kMissing) {
    if (has_count)
      c->reply().nullArray();
    else
      c->addNull();
    return;
  }
  if (has_count && count == 0) {
    c->addArrayLen(0);
    return;
  }
  std::vector<std::string> vals = listops::pop(c, key, l, head, static_cast<size_t>(count));
  if (!has_count) {
    c->addBulk(vals[0]);
    return;
  }
  c->addArrayLen(static_cast<int64_t>(vals.size()));
  for (const auto& v : vals) c->addBulk(v);
}

void lpopCommand(Client* c) {
  popGeneric(c, true);
}
void rpopCommand(Client* c) {
  popGeneric(c, false);
}

// Read lookup: nullptr when absent or (after replying WRONGTYPE) of
// another kind; *wrongtype tells the two apart.
db::List* readList(Client* c, std::string_view key, bool* wrongtype) {
  db::Entry* e = lookupReadKind(c, key, db::Kind::kList, wrongtype);
  return e != nullptr ? listops::asList(e) : nullptr;
}

void llenCommand(Client* c) {
  bool wt;
  db::List* l = readList(c, c->arg(1), &wt);
  if (wt) return;
  c->addInteger(l != nullptr ? static_cast<int64_t>(l->size()) : 0);
}

void lindexCommand(Client* c) {
  bool wt;
  db::List* l = readList(c, c->arg(1), &wt);
  if (wt) return;
  int64_t index;
  if (!c->argInt64(2, &index)) return;
  if (l == nullptr) {
    c->addNull();
    return;
  }
  db::List::Iter it = l->at(index);
  if (!it.valid()) {
    c->addNull();
    return;
  }
  char scratch[24];
  c->addBulk(l->get(it).view(scratch));
}

void lrangeCommand(Client* c) {
  int64_t start, end;
  if (!c->argInt64(2, &start) || !c->argInt64(3, &end)) return;
  bool wt;
  db::List* l = readList(c, c->arg(1), &wt);
  if (wt) return;
  if (l == nullptr) {
    c->addArrayLen(0);
    return;
  }
  int64_t len = static_cast<int64_t>(l->size());
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (start > end || start >= len) {
    c->addArrayLen(0);
    return;
  }
  if (end >= len) end = len - 1;
  int64_t n = end - start + 1;
  c->addArrayLen(n);
  char scratch[24];
  for (db::List::Iter it = l->at(start); n > 0 && it.valid(); it = l->next(it), n--)
    c->addBulk(l->get(it).view(scratch));
}

void lsetCommand(Client* c) {
  std::string_view key = c->arg(1);
  db::List* l = nullptr;
  Found f = listops::findList(c, key, false, &l);
  if (f == Found::kWrongType) return;
  if (f == Found::kMissing) {
    c->addError("no such key");
    return;
  }
  int64_t index;
  if (!c->argInt64(2, &index)) return;
  db::List::Iter it = l->at(index);
  if (!it.valid()) {
    c->addError("index out of range");
    return;
  }
  l->replace(it, c->arg(3));
  l->updateEncoding(listops::fill(), listops::compressDepth());
  c->addOk();
  keyModified(c, key);
  notify::keyEvent(c, notify::kList, "lset", key);
}

void linsertCommand(Client* c) {
  bool after;
  if (common::strutil::equalsIgnoreCase(c->arg(2), "after")) {
    after = true;
  } else if (common::strutil::equalsIgnoreCase(c->arg(2), "before")) {
    after = false;
  } else {
    c->addSyntaxError();
    return;
  }
  std::string_view key = c->arg(1);
  db::List* l = nullptr;
  Found f = listops::findList(c, key, false, &l);
  if (f == Found::kWrongType) return;
  if (f == Found::kMissing) {
    c->addInteger(0);
    return;
  }
  std::string_view pivot = c->arg(3);
  for (db::List::Iter it = l->first(); it.valid(); it = l->next(it)) {
    if (!l->get(it).equals(pivot)) continue;
    l->insert(it, c->arg(4), after);
    l->updateEncoding(listops::fill(), listops::compressDepth());
    c->addInteger(static_cast<int64_t>(l->size()));
    keyModified(c, key);
    notify::keyEvent(c, notify::kList, "linsert", key);
    return;
  }
  c->addInteger(-1);
}

void lremCommand(Client* c) {
  int64_t count;
  if (!c->argInt64(2, &count)) return;
  std::string_view key = c->arg(1);
  db::List* l = nullptr;
  Found f = listops::findList(c, key, false, &l);
  if (f == Found::kWrongType) return;
  if (f == Found::kMissing) {
    c->addInteger(0);
    return;
  }
  std::string_view elem = c->arg(3);
  uint64_t limit = count == 0  ? UINT64_MAX
                   : count > 0 ? static_cast<uint64_t>(count)
                               : 0 - static_cast<uint64_t>(count);
  int64_t removed = 0;
  if (count >= 0) {
    db::List::Iter it = l->first();
    while (it.valid() && static_cast<uint64_t>(removed) < limit) {
      if (l->get(it).equals(elem)) {
        it = l->erase(it);
        removed++;
      } else {
        it = l->next(it);
      }
    }
  } else {
    db::List::Iter it = l->last();
    while (it.valid() && static_cast<uint64_t>(removed) < limit) {
      if (!l->get(it).equals(elem)) {
        it = l->prev(it);
        continue;
      }
      // Only the iterator erase() returns survives it: step back from the
      // element after the erased one (or from the new last element).
      db::List::Iter after = l->erase(it);
      removed++;
      it = after.valid() ? l->prev(after) : l->last();
    }
  }
  if (removed > 0) {
    bool deleted = listops::afterRemoval(c, key, l);
    keyModified(c, key);
    notify::keyEvent(c, notify::kList, "lrem", key);
    listops::notifyIfDeleted(c, key, deleted);
  }
  c->addInteger(removed);
}

void ltrimCommand(Client* c) {
  int64_t start, end;
  if (!c->argInt64(2, &start) || !c->argInt64(3, &end)) return;
  std::string_view key = c->arg(1);
  db::List* l = nullptr;
  Found f = listops::findList(c, key, false, &l);
  if (f == Found::kWrongType) return;
  if (f == Found::kMissing) {
    c->addOk();
    return;
  }
  int64_t len = static_cast<int64_t>(l->size());
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  int64_t ltrim, rtrim;
  if (start > end || start >= len) {
    ltrim = len;
    rtrim = 0;
  } else {
    if (end >= len) end = len - 1;
    ltrim = start;
    rtrim = len - end - 1;
  }
  if (rtrim > 0) l->eraseRange(static_cast<size_t>(len - rtrim), static_cast<size_t>(rtrim));
  if (ltrim > 0) l->eraseRange(0, static_cast<size_t>(ltrim));
  bool deleted = listops::afterRemoval(c, key, l);
  keyModified(c, key);
  notify::keyEvent(c, notify::kList, "ltrim", key);
  listops::notifyIfDeleted(c, key, deleted);
  c->addOk();
}

void lposCommand(Client* c) {
  int64_t rank = 1, count = -1, maxlen = 0;
  for (size_t i = 3; i < c->argc(); i++) {
    std::string_view opt = c->arg(i);
    bool has_val = i + 1 < c->argc();
    if (has_val && common::strutil::equalsIgnoreCase(opt, "rank")) {
      if (!c->argInt64(++i, &rank)) return;
      if (rank == 0) {
        c->addError(
            "RANK can't be zero: use 1 to start from the first match, 2 from the second ... or "
            "use negative to start from the end of the list");
        return;
      }
    } else if (has_val && common::strutil::equalsIgnoreCase(opt, "count")) {
      if (!c->argInt64(++i, &count)) return;
      if (count < 0) {
        c->addError("COUNT can't be negative");
        return;
      }
    } else if (has_val && common::strutil::equalsIgnoreCase(opt, "maxlen")) {
      if (!c->argInt64(++i, &maxlen)) return;
      if (maxlen < 0) {
        c->addError("MAXLEN can't be negative");
        return;
      }
    } else {
      c->addSyntaxError();
      return;
    }
  }
  bool wt;
  db::List* l = readList(c, c->arg(1), &wt);
  if (wt) return;
  if (l == nullptr) {
    if (count >= 0)
      c->addArrayLen(0);
    else
      c->addNull();
    return;
  }
  bool from_head = rank > 0;
  // Redis 7.0 negates LLONG_MIN to itself, which then matches the first
  // hit from the tail.
  uint64_t skip = rank == INT64_MIN ? 1 : static_cast<uint64_t>(rank > 0 ? rank : -rank);
  std::string_view elem = c->arg(2);
  std::vector<int64_t> found;
  uint64_t matches = 0;
  int64_t len = static_cast<int64_t>(l->size());
  int64_t index = 0;
  db::List::Iter it = from_head ? l->first() : l->last();
  for (; it.valid() && (maxlen == 0 || index < maxlen); index++) {
    if (l->get(it).equals(elem) && ++matches >= skip) {
      found.push_back(from_head ? index : len - 1 - index);
      if (count < 0) break;  // no COUNT: the first one
      if (count > 0 && static_cast<int64_t>(found.size()) >= count) break;
    }
    it = from_head ? l->next(it) : l->prev(it);
  }
  if (count < 0) {
    if (found.empty())
      c->addNull();
    else
      c->addInteger(found[0]);
    return;
  }
  c->addArrayLen(static_cast<int64_t>(found.size()));
  for (int64_t i : found) c->addInteger(i);
}

void moveGeneric(Client* c, std::string_view src, std::string_view dst, bool from_head,
                 bool to_head) {
  db::List* from = nullptr;
  Found f = listops::findList(c, src, false, &from);
  if (f == Found::kWrongType) return;
  if (f == Found::kMissing) {
    c->addNull();
    return;
  }
  listops::move(c, src, from, dst, from_head, to_head);
}

void lmoveCommand(Client* c) {
  bool from_head, to_head;
  if (!listops::parseSide(c->arg(3), &from_head) || !listops::parseSide(c->arg(4), &to_head)) {
    c->addSyntaxError();
    return;
  }
  moveGeneric(c, c->arg(1), c->arg(2), from_head, to_head);
}

void rpoplpushCommand(Client* c) {
  moveGeneric(c, c->arg(1), c->arg(2), false, true);
}

void lmpopCommand(Client* c) {
  listops::MpopArgs a;
  if (!listops::parseMpop(c, 1, &a)) return;
  if (!listops::serveMpop(c, a, false)) c->reply().nullArray();
}

}  // namespace

void registerListCommands(CommandTable& t) {
  const char* kPushCx =
      "O(1) for each element added, so O(N) to add N elements when the command is called with "
      "multiple arguments.";
  t.add({"lpush", -3, kWrite | kDenyOom | kFast, lpushCommand, 1, 1, 1, "list",
         "Prepend one or multiple elements to a list", "1.0.0", kPushCx, "write list fast"});
  t.add({"rpush", -3, kWrite | kDenyOom | kFast, rpushCommand, 1, 1, 1, "list",
         "Append one or multiple elements to a list", "1.0.0", kPushCx, "write list fast"});
  t.add({"lpushx", -3, kWrite | kDenyOom | kFast, lpushxCommand, 1, 1, 1, "list",
         "Prepend an element to a list, only if the list exists", "2.2.0", kPushCx,
         "write list fast"});
  t.add({"rpushx", -3, kWrite | kDenyOom | kFast, rpushxCommand, 1, 1, 1, "list",
         "Append an element to a list, only if the list exists", "2.2.0", kPushCx,
         "write list fast"});
  t.add({"lpop", -2, kWrite | kFast, lpopCommand, 1, 1, 1, "list",
         "Remove and get the first elements in a list", "1.0.0",
         "O(N) where N is the number of elements returned", "write list fast"});
  t.add({"rpop", -2, kWrite | kFast, rpopCommand, 1, 1, 1, "list",
         "Remove and get the last elements in a list", "1.0.0",
         "O(N) where N is the number of elements returned", "write list fast"});
  t.add({"llen", 2, kReadOnly | kFast, llenCommand, 1, 1, 1, "list", "Get the length of a list",
         "1.0.0", "O(1)", "read list fast"});
  t.add({"lindex", 3, kReadOnly, lindexCommand, 1, 1, 1, "list",
         "Get an element from a list by its index", "1.0.0",
         "O(N) where N is the number of elements to traverse to get to the element at index. "
         "This makes asking for the first or the last element of the list O(1).",
         "read list slow"});
  t.add({"lrange", 4, kReadOnly, lrangeCommand, 1, 1, 1, "list",
         "Get a range of elements from a list", "1.0.0",
         "O(S+N) where S is the distance of start offset from HEAD for small lists, from nearest "
         "end (HEAD or TAIL) for large lists; and N is the number of elements in the specified "
         "range.",
         "read list slow"});
  t.add({"lset", 4, kWrite | kDenyOom, lsetCommand, 1, 1, 1, "list",
         "Set the value of an element in a list by its index", "1.0.0",
         "O(N) where N is the length of the list. Setting either the first or the last element "
         "of the list is O(1).",
         "write list slow"});
  t.add({"linsert", 5, kWrite | kDenyOom, linsertCommand, 1, 1, 1, "list",
         "Insert an element before or after another element in a list", "2.2.0",
         "O(N) where N is the number of elements to traverse before seeing the value pivot. This "
         "means that inserting somewhere on the left end on the list (head) can be considered "
         "O(1) and inserting somewhere on the right end (tail) is O(N).",
         "write list slow"});
  t.add({"lrem", 4, kWrite, lremCommand, 1, 1, 1, "list", "Remove elements from a list", "1.0.0",
         "O(N+M) where N is the length of the list and M is the number of elements removed.",
         "write list slow"});
  t.add({"ltrim", 4, kWrite, ltrimCommand, 1, 1, 1, "list", "Trim a list to the specified range",
         "1.0.0", "O(N) where N is the number of elements to be removed by the operation.",
         "write list slow"});
  t.add({"lpos", -3, kReadOnly, lposCommand, 1, 1, 1, "list",
         "Return the index of matching elements on a list", "6.0.6",
         "O(N) where N is the number of elements in the list, for the average case. When "
         "searching for elements near the head or the tail of the list, or when the MAXLEN "
         "option is provided, the command may run in constant time.",
         "read list slow"});
  t.add({"lmove", 5, kWrite | kDenyOom, lmoveCommand, 1, 2, 1, "list",
         "Pop an element from a list, push it to another list and return it", "6.2.0", "O(1)",
         "write list slow"});
  t.add({"rpoplpush", 3, kWrite | kDenyOom, rpoplpushCommand, 1, 2, 1, "list",
         "Remove the last element in a list, prepend it to another list and return it", "1.2.0",
         "O(1)", "write list slow"});
  t.add({"lmpop", -4, kWrite, lmpopCommand, 0, 0, 0, "list", "Pop elements from a list", "7.0.0",
         "O(N+M) where N is the number of provided keys and M is the number of elements "
         "returned.",
         "write list slow"});
  t.setKeysProc("lmpop", [](const std::vector<std::string_view>& argv, std::vector<size_t>* out) {
    return keysAfterCount(argv, 1, out);
  });
}

}  // namespace server
