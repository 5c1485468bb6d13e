#include "server/db/zset_skiplist.h"

#include <cstdlib>
#include <new>

namespace server::db {

bool LexRange::nonEmpty() const {
  // An infinite bound on the wrong side ("+" as min, "-" as max) admits
  // nothing; two values compare as the score ranges do.
  if (min_kind == kPosInf || max_kind == kNegInf) return false;
  if (min_kind == kNegInf || max_kind == kPosInf) return true;
  int c = min.compare(max);
  return !(c > 0 || (c == 0 && (minex || maxex)));
}

ZSkiplist::ZSkiplist() {
  head_ = newNode(kMaxLevel, 0, {});
  for (int i = 0; i < kMaxLevel; i++) head_->lv[i] = {nullptr, 0};
  head_->backward = nullptr;
}

ZSkiplist::~ZSkiplist() {
  ZNode* n = head_->lv[0].forward;
  while (n) {
    ZNode* next = n->lv[0].forward;
    freeNode(n);
    n = next;
  }
  freeNode(head_);
}

int ZSkiplist::randomLevel() {
  // Two random bits per level: each further level with probability 1/4.
  uint64_t r = common::randomU64();
  int level = 1;
  while (level < kMaxLevel && (r & (kLevelP - 1)) == 0) {
    level++;
    r >>= 2;
  }
  return level;
}

ZNode* ZSkiplist::newNode(int level, double score, std::string_view member) {
  size_t size = sizeof(ZNode) + static_cast<size_t>(level) * sizeof(ZNode::Level) + member.size();
  auto* n = static_cast<ZNode*>(malloc(size));
  if (n == nullptr) throw std::bad_alloc();
  n->hnext = nullptr;
  n->backward = nullptr;
  n->score = score;
  n->len = static_cast<uint32_t>(member.size());
  n->level = static_cast<uint8_t>(level);
  if (!member.empty()) memcpy(n->lv + level, member.data(), member.size());
  bytes_ += size;
  return n;
}

void ZSkiplist::freeNode(ZNode* n) {
  bytes_ -= sizeof(ZNode) + n->level * sizeof(ZNode::Level) + n->len;
  free(n);
}

void ZSkiplist::findPredecessors(double score, std::string_view member, ZNode** update,
                                 uint64_t* rank) const {
  ZNode* x = head_;
  for (int i = level_ - 1; i >= 0; i--) {
    if (rank) rank[i] = i == level_ - 1 ? 0 : rank[i + 1];
    while (x->lv[i].forward &&
           zLess(x->lv[i].forward->score, x->lv[i].forward->member(), score, member)) {
      if (rank) rank[i] += x->lv[i].span;
      x = x->lv[i].forward;
    }
    update[i] = x;
  }
}

void ZSkiplist::linkNode(ZNode* x, ZNode** update, const uint64_t* rank) {
  int level = x->level;
  if (level > level_) {
    for (int i = level_; i < level; i++) {
      update[i] = head_;
      head_->lv[i].span = length_;
    }
    level_ = level;
  }
  // rank[] only covers the levels that existed; new ones start at the head.
  for (int i = 0; i < level; i++) {
    uint64_t ri = rank[i];
    x->lv[i].forward = update[i]->lv[i].forward;
    update[i]->lv[i].forward = x;
    x->lv[i].span = update[i]->lv[i].span - (rank[0] - ri);
    update[i]->lv[i].span = (rank[0] - ri) + 1;
  }
  for (int i = level; i < level_; i++) update[i]->lv[i].span++;
  x->backward = update[0] == head_ ? nullptr : update[0];
  if (x->lv[0].forward)
    x->lv[0].forward->backward = x;
  else
    tail_ = x;
  length_++;
}

ZNode* ZSkiplist::insert(double score, std::string_view member) {
  ZNode* update[kMaxLevel];
  uint64_t rank[kMaxLevel] = {};
  findPredecessors(score, member, update, rank);
  ZNode* x = newNode(randomLevel(), score, member);
  linkNode(x, update, rank);
  return x;
}

void ZSkiplist::unlinkNode(ZNode* x, ZNode** update) {
  for (int i = 0; i < level_; i++) {
    if (update[i]->lv[i].forward == x) {
      update[i]->lv[i].span += x->lv[i].span - 1;
      update[i]->lv[i].forward = x->lv[i].forward;
    } else {
      update[i]->lv[i].span -= 1;
    }
  }
  if (x->lv[0].forward)
    x->lv[0].forward->backward = x->backward;
  else
    tail_ = x->backward;
  while (level_ > 1 && head_->lv[level_ - 1].forward == nullptr) level_--;
  length_--;
}

void ZSkiplist::erase(ZNode* n) {
  ZNode* update[kMaxLevel];
  findPredecessors(n->score, n->member(), update, nullptr);
  unlinkNode(n, update);
  freeNode(n);
}

void ZSkiplist::updateScore(ZNode* x, double score) {
  // Still between its neighbours: the order holds with the new score.
  ZNode* prev = x->backward;
  ZNode* next = x->lv[0].forward;
  if ((prev == nullptr || zLess(prev->score, prev->member(), score, x->member())) &&
      (next == nullptr || zLess(score, x->member(), next->score, next->member()))) {
    x->score = score;
    return;
  }
  ZNode* update[kMaxLevel];
  findPredecessors(x->score, x->member(), update, nullptr);
  unlinkNode(x, update);
  x->score = score;
  uint64_t rank[kMaxLevel] = {};
  findPredecessors(score, x->member(), update, rank);
  linkNode(x, update, rank);
}

uint64_t ZSkiplist::rank(double score, std::string_view member) const {
  ZNode* x = head_;
  uint64_t r = 0;
  for (int i = level_ - 1; i >= 0; i--) {
    while (x->lv[i].forward) {
      ZNode* f = x->lv[i].forward;
      if (!(zLess(f->score, f->member(), score, member) ||
            (f->score == score && f->member() == member)))
        break;
      r += x->lv[i].span;
      x = f;
    }
    if (x != head_ && x->score == score && x->member() == member) return r;
  }
  return 0;
}

ZNode* ZSkiplist::byRank(uint64_t rank) const {
  if (rank == 0 || rank > length_) return nullptr;
  ZNode* x = head_;
  uint64_t traversed = 0;
  for (int i = level_ - 1; i >= 0; i--) {
    while (x->lv[i].forward && traversed + x->lv[i].span <= rank) {
      traversed += x->lv[i].span;
      x = x->lv[i].forward;
    }
    if (traversed == rank) return x;
  }
  return nullptr;
}

ZNode* ZSkiplist::firstInRange(const ScoreRange& r) const {
  if (!r.nonEmpty() || tail_ == nullptr || !r.gteMin(tail_->score) || !r.lteMax(first()->score))
    return nullptr;
  ZNode* x = head_;
  for (int i = level_ - 1; i >= 0; i--) {
    while (x->lv[i].forward && !r.gteMin(x->lv[i].forward->score)) x = x->lv[i].forward;
  }
  x = x->lv[0].forward;
  return x && r.lteMax(x->score) ? x : nullptr;
}

ZNode* ZSkiplist::lastInRange(const ScoreRange& r) const {
  if (!r.nonEmpty() || tail_ == nullptr || !r.gteMin(tail_->score) || !r.lteMax(first()->score))
    return nullptr;
  ZNode* x = head_;
  for (int i = level_ - 1; i >= 0; i--) {
    while (x->lv[i].forward && r.lteMax(x->lv[i].forward->score)) x = x->lv[i].forward;
  }
  return x != head_ && r.gteMin(x->score) ? x : nullptr;
}

ZNode* ZSkiplist::firstInLexRange(const LexRange& r) const {
  if (!r.nonEmpty() || tail_ == nullptr || !r.gteMin(tail_->member()) ||
      !r.lteMax(first()->member()))
    return nullptr;
  ZNode* x = head_;
  for (int i = level_ - 1; i >= 0; i--) {
    while (x->lv[i].forward && !r.gteMin(x->lv[i].forward->member())) x = x->lv[i].forward;
  }
  x = x->lv[0].forward;
  return x && r.lteMax(x->member()) ? x : nullptr;
}

ZNode* ZSkiplist::lastInLexRange(const LexRange& r) const {
  if (!r.nonEmpty() || tail_ == nullptr || !r.gteMin(tail_->member()) ||
      !r.lteMax(first()->member()))
    return nullptr;
  ZNode* x = head_;
  for (int i = level_ - 1; i >= 0; i--) {
    while (x->lv[i].forward && r.lteMax(x->lv[i].forward->member())) x = x->lv[i].forward;
  }
  return x != head_ && r.gteMin(x->member()) ? x : nullptr;
}

template <class KeepGoing>
size_t ZSkiplist::deleteWhile(ZNode** update, ZNode* x, KeepGoing keep_going,
                              const NodeFn& before_free) {
  size_t removed = 0;
  while (x && keep_going(x)) {
    ZNode* next = x->lv[0].forward;
    unlinkNode(x, update);
    if (before_free) before_free(x);
    freeNode(x);
    removed++;
    x = next;
  }
  return removed;
}

size_t ZSkiplist::deleteRangeByScore(const ScoreRange& r, const NodeFn& before_free) {
  if (!r.nonEmpty()) return 0;
  ZNode* update[kMaxLevel];
  ZNode* x = head_;
  for (int i = level_ - 1; i >= 0; i--) {
    while (x->lv[i].forward && !r.gteMin(x->lv[i].forward->score)) x = x->lv[i].forward;
    update[i] = x;
  }
  return deleteWhile(
      update, x->lv[0].forward, [&](ZNode* n) { return r.lteMax(n->score); }, before_free);
}

size_t ZSkiplist::deleteRangeByLex(const LexRange& r, const NodeFn& before_free) {
  if (!r.nonEmpty()) return 0;
  ZNode* update[kMaxLevel];
  ZNode* x = head_;
  for (int i = level_ - 1; i >= 0; i--) {
    while (x->lv[i].forward && !r.gteMin(x->lv[i].forward->member())) x = x->lv[i].forward;
    update[i] = x;
  }
  return deleteWhile(
      update, x->lv[0].forward, [&](ZNode* n) { return r.lteMax(n->member()); }, before_free);
}

size_t ZSkiplist::deleteRangeByRank(uint64_t start, uint64_t end, const NodeFn& before_free) {
  if (start == 0 || start > end) return 0;
  ZNode* update[kMaxLevel];
  ZNode* x = head_;
  uint64_t traversed = 0;
  for (int i = level_ - 1; i >= 0; i--) {
    while (x->lv[i].forward && traversed + x->lv[i].span < start) {
      traversed += x->lv[i].span;
      x = x->lv[i].forward;
    }
    update[i] = x;
  }
  uint64_t r = traversed + 1;
  return deleteWhile(
      update, x->lv[0].forward, [&](ZNode*) { return r++ <= end; }, before_free);
}

bool ZSkiplist::checkInvariants() const {
  size_t count = 0;
  ZNode* prev = nullptr;
  for (ZNode* x = first(); x; x = x->lv[0].forward) {
    if (x->backward != prev) return false;
    if (prev && !zLess(prev->score, prev->member(), x->score, x->member())) return false;
    prev = x;
    count++;
  }
  if (count != length_ || tail_ != prev) return false;
  // Every level's spans must add up to the rank of the node they reach.
  for (int i = 0; i < level_; i++) {
    uint64_t r = 0;
    for (ZNode* x = head_; x->lv[i].forward; x = x->lv[i].forward) {
      r += x->lv[i].span;
      ZNode* f = x->lv[i].forward;
      if (rank(f->score, f->member()) != r) return false;
    }
  }
  return true;
}

}  // namespace server::db
