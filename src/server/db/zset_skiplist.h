// ZSkiplist: the ordered index of a large sorted set. Nodes are ordered by
// (score, member bytes); every forward link carries a span (how many nodes
// it jumps) so rank lookups and rank ranges are O(log n).
//
// Memory: one allocation per member. The node is also the node of the
// member -> node hash index (common::Dict is intrusive: `hnext` is its
// chain link) and embeds the member bytes after its levels, so a member
// costs one malloc of 32 + 16 * level + len bytes plus 8 bytes of bucket.
//
// Ownership: the skiplist owns its nodes and frees them (erase, the range
// deletions, the destructor). A caller that indexes nodes elsewhere (the
// hash) must unlink them there first: the range deletions call a callback
// with each node just before freeing it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>

#include "common/hash.h"

namespace server::db {

// A score interval as ZRANGEBYSCORE parses it ("(1" is exclusive).
struct ScoreRange {
  double min = 0, max = 0;
  bool minex = false, maxex = false;
  bool gteMin(double v) const { return minex ? v > min : v >= min; }
  bool lteMax(double v) const { return maxex ? v < max : v <= max; }
  bool contains(double v) const { return gteMin(v) && lteMax(v); }
  // False when no score can fall inside (min > max, or equal and open).
  bool nonEmpty() const { return !(min > max || (min == max && (minex || maxex))); }
};

// A member interval as ZRANGEBYLEX parses it: "[a" inclusive, "(a"
// exclusive, "-" below everything, "+" above everything.
struct LexRange {
  enum Bound : uint8_t { kValue, kNegInf, kPosInf };
  std::string min, max;
  Bound min_kind = kValue, max_kind = kValue;
  bool minex = false, maxex = false;
  bool gteMin(std::string_view s) const {
    if (min_kind != kValue) return min_kind == kNegInf;
    int c = s.compare(min);
    return minex ? c > 0 : c >= 0;
  }
  bool lteMax(std::string_view s) const {
    if (max_kind != kValue) return max_kind == kPosInf;
    int c = s.compare(max);
    return maxex ? c < 0 : c <= 0;
  }
  bool contains(std::string_view s) const { return gteMin(s) && lteMax(s); }
  bool nonEmpty() const;
};

struct ZNode {
  struct Level {
    ZNode* forward;
    uint64_t span;  // nodes between this one and forward, forward included
  };
  ZNode* hnext;  // hash index chain (owned by the Dict)
  ZNode* backward;
  double score;
  uint32_t len;
  uint8_t level;
  Level lv[];  // `level` entries, then the member bytes

  std::string_view member() const {
    return std::string_view(reinterpret_cast<const char*>(lv + level), len);
  }
};
static_assert(sizeof(ZNode) == 32, "skiplist node header size changed");

// common::Dict traits for the member -> node index.
struct ZNodeTraits {
  using Node = ZNode;
  using Key = std::string_view;
  static ZNode*& next(ZNode* n) { return n->hnext; }
  static uint64_t hash(std::string_view k) { return common::hashBytes(k.data(), k.size()); }
  static bool equal(const ZNode* n, std::string_view k) {
    return n->len == k.size() && memcmp(n->lv + n->level, k.data(), k.size()) == 0;
  }
  static std::string_view key(const ZNode* n) { return n->member(); }
};

class ZSkiplist {
 public:
  static constexpr int kMaxLevel = 32;
  static constexpr uint32_t kLevelP = 4;  // a node gets one more level with p = 1/kLevelP

  ZSkiplist();
  ~ZSkiplist();
  ZSkiplist(const ZSkiplist&) = delete;
  ZSkiplist& operator=(const ZSkiplist&) = delete;

  size_t size() const { return length_; }
  // Bytes of nodes (headers, levels and members) including the head.
  size_t nodeBytes() const { return bytes_; }

  // Inserts a member that is not present (the caller checks the hash).
  ZNode* insert(double score, std::string_view member);
  // Moves n to a new score, keeping the node (and so the hash entry).
  void updateScore(ZNode* n, double score);
  // Unlinks n and frees it.
  void erase(ZNode* n);

  ZNode* first() const { return head_->lv[0].forward; }
  ZNode* last() const { return tail_; }
  static ZNode* next(const ZNode* n) { return n->lv[0].forward; }
  static ZNode* prev(const ZNode* n) { return n->backward; }

  // 1-based rank of the node with this score and member; 0 if absent.
  uint64_t rank(double score, std::string_view member) const;
  // Node at a 1-based rank; nullptr when out of range.
  ZNode* byRank(uint64_t rank) const;

  // First / last node inside the range; nullptr when none.
  ZNode* firstInRange(const ScoreRange& r) const;
  ZNode* lastInRange(const ScoreRange& r) const;
  ZNode* firstInLexRange(const LexRange& r) const;
  ZNode* lastInLexRange(const LexRange& r) const;

  // Range deletions: before_free(node) runs for each removed node before it
  // is freed. Return the number removed. Ranks are 1-based and inclusive.
  using NodeFn = std::function<void(ZNode*)>;
  size_t deleteRangeByScore(const ScoreRange& r, const NodeFn& before_free);
  size_t deleteRangeByLex(const LexRange& r, const NodeFn& before_free);
  size_t deleteRangeByRank(uint64_t start, uint64_t end, const NodeFn& before_free);

  // Structural check for tests: order, spans, backward links, length.
  bool checkInvariants() const;

 private:
  static int randomLevel();
  ZNode* newNode(int level, double score, std::string_view member);
  void freeNode(ZNode* n);
  // Links n (level and score set) after the predecessors in update[] whose
  // ranks are in rank[].
  void linkNode(ZNode* n, ZNode** update, const uint64_t* rank);
  void unlinkNode(ZNode* n, ZNode** update);
  // Fills update[] with the last node before (score, member) on each level.
  void findPredecessors(double score, std::string_view member, ZNode** update,
                        uint64_t* rank) const;
  template <class Before>
  size_t deleteWhile(ZNode** update, ZNode* x, Before keep_going, const NodeFn& before_free);

  ZNode* head_;
  ZNode* tail_ = nullptr;
  size_t length_ = 0;
  int level_ = 1;
  size_t bytes_ = 0;
};

// Order of (score, member) pairs: score first, then member bytes.
inline bool zLess(double s1, std::string_view m1, double s2, std::string_view m2) {
  return s1 < s2 || (s1 == s2 && m1.compare(m2) < 0);
}

}  // namespace server::db
