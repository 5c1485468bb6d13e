#include "server/db/zset.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/strutil.h"

namespace server::db {

// A small sorted set costs its listpack plus this 16-byte object (vptr and
// one pointer); so does the big one's handle.
static_assert(sizeof(ListpackZSet) == 16, "listpack zset object grew");
static_assert(sizeof(SkiplistZSet) == 16, "skiplist zset object grew");

size_t formatScore(double score, char* buf) {
  return common::strutil::formatDouble(score, buf, 32);
}

// ---------------------------------------------------------------- listpack

namespace {
// Score text as a listpack stores it. -0 is stored as "0" (Redis stores
// integral scores as integers, and -0 is the integer 0).
std::string_view storedScore(double score, char* buf) {
  if (score == 0) score = 0;
  return std::string_view(buf, formatScore(score, buf));
}
}  // namespace

double ListpackZSet::scoreAt(Listpack::Pos p) const {
  LpValue v = lp_.get(p);
  if (v.is_int) return static_cast<double>(v.ival);
  // Stored by formatScore, so always a complete, valid number.
  char buf[64];
  size_t n = v.str.size() < sizeof(buf) - 1 ? v.str.size() : sizeof(buf) - 1;
  memcpy(buf, v.str.data(), n);
  buf[n] = '\0';
  return strtod(buf, nullptr);
}

bool ListpackZSet::score(std::string_view member, double* out) const {
  Listpack::Pos p = lp_.find(member, 1);
  if (p == Listpack::kNone) return false;
  *out = scoreAt(lp_.next(p));
  return true;
}

void ListpackZSet::insertSorted(std::string_view member, double score) {
  char scratch[24];
  Listpack::Pos p = lp_.first();
  while (p != Listpack::kNone) {
    Listpack::Pos sp = lp_.next(p);
    double s = scoreAt(sp);
    if (zLess(score, member, s, lp_.get(p).view(scratch))) break;
    p = lp_.next(sp);
  }
  char buf[32];
  std::string_view text = storedScore(score, buf);
  Listpack::Pos mp = lp_.insertBefore(p, member);
  lp_.insertBefore(lp_.next(mp), text);
}

void ListpackZSet::appendSorted(std::string_view member, double score) {
  char buf[32];
  lp_.append(member);
  lp_.append(storedScore(score, buf));
}

bool ListpackZSet::set(std::string_view member, double score) {
  Listpack::Pos p = lp_.find(member, 1);
  if (p != Listpack::kNone) {
    if (scoreAt(lp_.next(p)) == score) return false;
    lp_.erase(p, 2);
    insertSorted(member, score);
    return false;
  }
  insertSorted(member, score);
  return true;
}

bool ListpackZSet::remove(std::string_view member) {
  Listpack::Pos p = lp_.find(member, 1);
  if (p == Listpack::kNone) return false;
  lp_.erase(p, 2);
  return true;
}

bool ListpackZSet::rank(std::string_view member, bool rev, size_t* out) const {
  size_t i = 0;
  for (Listpack::Pos p = lp_.first(); p != Listpack::kNone; p = lp_.next(lp_.next(p)), i++) {
    if (lp_.get(p).equals(member)) {
      *out = rev ? size() - 1 - i : i;
      return true;
    }
  }
  return false;
}

void ListpackZSet::rangeByRank(size_t start, size_t end, bool rev, const Visitor& fn) const {
  char scratch[24];
  size_t n = end - start + 1;
  if (!rev) {
    Listpack::Pos p = lp_.at(static_cast<int64_t>(start * 2));
    while (n-- > 0 && p != Listpack::kNone) {
      Listpack::Pos sp = lp_.next(p);
      if (!fn(lp_.get(p).view(scratch), scoreAt(sp))) return;
      p = lp_.next(sp);
    }
  } else {
    // Rank 0 from the top is the last pair: its score is the last element.
    Listpack::Pos sp = lp_.at(-1 - static_cast<int64_t>(start * 2));
    while (n-- > 0 && sp != Listpack::kNone) {
      Listpack::Pos p = lp_.prev(sp);
      if (!fn(lp_.get(p).view(scratch), scoreAt(sp))) return;
      sp = lp_.prev(p);
    }
  }
}

void ListpackZSet::rangeByScore(const ScoreRange& r, bool rev, size_t offset,
                                const Visitor& fn) const {
  if (!r.nonEmpty()) return;
  size_t last = size();
  if (last == 0) return;
  // At most 128 pairs by default: a linear walk is the fast path.
  rangeByRank(0, last - 1, rev, [&](std::string_view m, double s) {
    if (rev ? !r.lteMax(s) : !r.gteMin(s)) return true;   // not there yet
    if (rev ? !r.gteMin(s) : !r.lteMax(s)) return false;  // past the end
    if (offset > 0) {
      offset--;
      return true;
    }
    return fn(m, s);
  });
}

void ListpackZSet::rangeByLex(const LexRange& r, bool rev, size_t offset, const Visitor& fn) const {
  if (!r.nonEmpty() || size() == 0) return;
  rangeByRank(0, size() - 1, rev, [&](std::string_view m, double s) {
    if (rev ? !r.lteMax(m) : !r.gteMin(m)) return true;
    if (rev ? !r.gteMin(m) : !r.lteMax(m)) return false;
    if (offset > 0) {
      offset--;
      return true;
    }
    return fn(m, s);
  });
}

size_t ListpackZSet::countByScore(const ScoreRange& r) const {
  size_t n = 0;
  rangeByScore(r, false, 0, [&](std::string_view, double) {
    n++;
    return true;
  });
  return n;
}

size_t ListpackZSet::countByLex(const LexRange& r) const {
  size_t n = 0;
  rangeByLex(r, false, 0, [&](std::string_view, double) {
    n++;
    return true;
  });
  return n;
}

template <class Pred>
size_t ListpackZSet::removeIf(Pred pred) {
  char scratch[24];
  size_t removed = 0, i = 0;
  Listpack::Pos p = lp_.first();
  while (p != Listpack::kNone) {
    Listpack::Pos sp = lp_.next(p);
    if (pred(i, lp_.get(p).view(scratch), scoreAt(sp))) {
      p = lp_.erase(p, 2);
      removed++;
    } else {
      p = lp_.next(sp);
    }
    i++;
  }
  return removed;
}

size_t ListpackZSet::removeRangeByRank(size_t start, size_t end) {
  Listpack::Pos p = lp_.at(static_cast<int64_t>(start * 2));
  if (p == Listpack::kNone) return 0;
  size_t n = end - start + 1;
  lp_.erase(p, n * 2);
  return n;
}

size_t ListpackZSet::removeRangeByScore(const ScoreRange& r) {
  if (!r.nonEmpty()) return 0;
  return removeIf([&](size_t, std::string_view, double s) { return r.contains(s); });
}

size_t ListpackZSet::removeRangeByLex(const LexRange& r) {
  if (!r.nonEmpty()) return 0;
  return removeIf([&](size_t, std::string_view m, double) { return r.contains(m); });
}

// ---------------------------------------------------------------- skiplist

SkiplistZSet::SkiplistZSet() : impl_(new Impl) {}

SkiplistZSet::~SkiplistZSet() {
  // The skiplist frees the nodes; the hash only drops its buckets.
  impl_->dict.clear([](ZNode*) {});
  delete impl_;
}

Collection* SkiplistZSet::clone() const {
  auto* z = new SkiplistZSet();
  z->reserve(size());
  forEach([&](std::string_view m, double s) {
    z->impl_->dict.insert(z->impl_->sl.insert(s, m));
    return true;
  });
  return z;
}

size_t SkiplistZSet::memoryUsage() const {
  return sizeof(*this) + sizeof(Impl) + impl_->sl.nodeBytes() + impl_->dict.memoryUsage();
}

bool SkiplistZSet::score(std::string_view member, double* out) const {
  ZNode* n = find(member);
  if (n == nullptr) return false;
  *out = n->score;
  return true;
}

bool SkiplistZSet::set(std::string_view member, double score) {
  auto pos = impl_->dict.findOrPrepareInsert(member);
  if (pos.found) {
    if (pos.found->score != score) impl_->sl.updateScore(pos.found, score);
    return false;
  }
  impl_->dict.insertAt(pos, impl_->sl.insert(score, member));
  return true;
}

bool SkiplistZSet::remove(std::string_view member) {
  ZNode* n = impl_->dict.erase(member);
  if (n == nullptr) return false;
  impl_->sl.erase(n);
  return true;
}

bool SkiplistZSet::rank(std::string_view member, bool rev, size_t* out) const {
  ZNode* n = find(member);
  if (n == nullptr) return false;
  uint64_t r = impl_->sl.rank(n->score, n->member());
  *out = rev ? size() - r : r - 1;
  return true;
}

void SkiplistZSet::rangeByRank(size_t start, size_t end, bool rev, const Visitor& fn) const {
  const ZSkiplist& sl = impl_->sl;
  size_t n = end - start + 1;
  ZNode* x = rev ? sl.byRank(sl.size() - start) : sl.byRank(start + 1);
  while (n-- > 0 && x) {
    if (!fn(x->member(), x->score)) return;
    x = rev ? ZSkiplist::prev(x) : ZSkiplist::next(x);
  }
}

void SkiplistZSet::rangeByScore(const ScoreRange& r, bool rev, size_t offset,
                                const Visitor& fn) const {
  const ZSkiplist& sl = impl_->sl;
  ZNode* x = rev ? sl.lastInRange(r) : sl.firstInRange(r);
  if (x == nullptr) return;
  if (offset > 0) {
    // Jump by rank instead of walking the skipped elements.
    uint64_t rk = sl.rank(x->score, x->member());
    if (rev ? offset >= rk : rk + offset > sl.size()) return;
    x = sl.byRank(rev ? rk - offset : rk + offset);
  }
  while (x && (rev ? r.gteMin(x->score) : r.lteMax(x->score))) {
    if (!fn(x->member(), x->score)) return;
    x = rev ? ZSkiplist::prev(x) : ZSkiplist::next(x);
  }
}

void SkiplistZSet::rangeByLex(const LexRange& r, bool rev, size_t offset, const Visitor& fn) const {
  const ZSkiplist& sl = impl_->sl;
  ZNode* x = rev ? sl.lastInLexRange(r) : sl.firstInLexRange(r);
  if (x == nullptr) return;
  if (offset > 0) {
    uint64_t rk = sl.rank(x->score, x->member());
    if (rev ? offset >= rk : rk + offset > sl.size()) return;
    x = sl.byRank(rev ? rk - offset : rk + offset);
  }
  while (x && (rev ? r.gteMin(x->member()) : r.lteMax(x->member()))) {
    if (!fn(x->member(), x->score)) return;
    x = rev ? ZSkiplist::prev(x) : ZSkiplist::next(x);
  }
}

size_t SkiplistZSet::countByScore(const ScoreRange& r) const {
  const ZSkiplist& sl = impl_->sl;
  ZNode* a = sl.firstInRange(r);
  if (a == nullptr) return 0;
  ZNode* b = sl.lastInRange(r);
  return sl.rank(b->score, b->member()) - sl.rank(a->score, a->member()) + 1;
}

size_t SkiplistZSet::countByLex(const LexRange& r) const {
  const ZSkiplist& sl = impl_->sl;
  ZNode* a = sl.firstInLexRange(r);
  if (a == nullptr) return 0;
  ZNode* b = sl.lastInLexRange(r);
  return sl.rank(b->score, b->member()) - sl.rank(a->score, a->member()) + 1;
}

size_t SkiplistZSet::removeRangeByRank(size_t start, size_t end) {
  return impl_->sl.deleteRangeByRank(start + 1, end + 1,
                                     [this](ZNode* n) { impl_->dict.unlink(n); });
}

size_t SkiplistZSet::removeRangeByScore(const ScoreRange& r) {
  return impl_->sl.deleteRangeByScore(r, [this](ZNode* n) { impl_->dict.unlink(n); });
}

size_t SkiplistZSet::removeRangeByLex(const LexRange& r) {
  return impl_->sl.deleteRangeByLex(r, [this](ZNode* n) { impl_->dict.unlink(n); });
}

uint64_t SkiplistZSet::scan(uint64_t cursor, const Visitor& fn) {
  return impl_->dict.scan(cursor, [&](ZNode* n) { fn(n->member(), n->score); });
}

// ---------------------------------------------------------------- conversion

SkiplistZSet* toSkiplist(const ZSet& z) {
  auto* out = new SkiplistZSet();
  out->reserve(z.size());
  z.forEach([&](std::string_view m, double s) {
    out->set(m, s);
    return true;
  });
  return out;
}

ListpackZSet* toListpack(const ZSet& z) {
  auto* out = new ListpackZSet();
  z.forEach([&](std::string_view m, double s) {
    out->appendSorted(m, s);
    return true;
  });
  return out;
}

}  // namespace server::db
