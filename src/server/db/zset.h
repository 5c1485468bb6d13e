// Sorted sets: the value behind db::Kind::kZSet, in one of two encodings
// behind one interface.
//
// - ListpackZSet ("listpack"): member, score, member, score... in one
//   db::Listpack, in (score, member) order. Scores are stored as their
//   shortest round-trip text (%.17g), so integral scores become listpack
//   integers. Object size: vptr + the listpack's one pointer (16 bytes).
// - SkiplistZSet ("skiplist"): a ZSkiplist plus the member -> node hash
//   (common::Dict over the same nodes), behind one pointer.
//
// The encoding is the caller's choice (the commands apply the
// zset-max-listpack-* limits): convert with toSkiplist()/toListpack(). All
// ranks are 0-based here; ranges of ranks are inclusive and already clamped
// to [0, size) by the caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

#include "common/dict.h"
#include "server/db/listpack.h"
#include "server/db/value.h"
#include "server/db/zset_skiplist.h"

namespace server::db {

class ZSet : public Collection {
 public:
  // Gets each element in the order of the walk; returning false stops it.
  using Visitor = std::function<bool(std::string_view member, double score)>;

  virtual bool isListpack() const = 0;
  virtual size_t size() const = 0;
  virtual bool score(std::string_view member, double* out) const = 0;
  // Adds the member or moves it to a new score. True if it was added.
  virtual bool set(std::string_view member, double score) = 0;
  virtual bool remove(std::string_view member) = 0;
  // 0-based rank from the lowest score (or the highest when rev).
  virtual bool rank(std::string_view member, bool rev, size_t* out) const = 0;

  // Elements at ranks start..end (inclusive, valid), lowest first or, when
  // rev, counting and walking from the highest.
  virtual void rangeByRank(size_t start, size_t end, bool rev, const Visitor& fn) const = 0;
  // Elements inside the range, in order (reverse order when rev), skipping
  // the first `offset` of them.
  virtual void rangeByScore(const ScoreRange& r, bool rev, size_t offset,
                            const Visitor& fn) const = 0;
  virtual void rangeByLex(const LexRange& r, bool rev, size_t offset, const Visitor& fn) const = 0;
  virtual size_t countByScore(const ScoreRange& r) const = 0;
  virtual size_t countByLex(const LexRange& r) const = 0;
  virtual size_t removeRangeByRank(size_t start, size_t end) = 0;
  virtual size_t removeRangeByScore(const ScoreRange& r) = 0;
  virtual size_t removeRangeByLex(const LexRange& r) = 0;

  void forEach(const Visitor& fn) const {
    if (size() > 0) rangeByRank(0, size() - 1, false, fn);
  }
};

class ListpackZSet final : public ZSet {
 public:
  ListpackZSet() = default;
  explicit ListpackZSet(Listpack lp) : lp_(std::move(lp)) {}

  Collection* clone() const override { return new ListpackZSet(lp_.clone()); }
  const char* encodingName() const override { return "listpack"; }
  size_t memoryUsage() const override { return sizeof(*this) + lp_.bytes(); }

  bool isListpack() const override { return true; }
  size_t size() const override { return lp_.size() / 2; }
  bool score(std::string_view member, double* out) const override;
  bool set(std::string_view member, double score) override;
  bool remove(std::string_view member) override;
  bool rank(std::string_view member, bool rev, size_t* out) const override;
  void rangeByRank(size_t start, size_t end, bool rev, const Visitor& fn) const override;
  void rangeByScore(const ScoreRange& r, bool rev, size_t offset, const Visitor& fn) const override;
  void rangeByLex(const LexRange& r, bool rev, size_t offset, const Visitor& fn) const override;
  size_t countByScore(const ScoreRange& r) const override;
  size_t countByLex(const LexRange& r) const override;
  size_t removeRangeByRank(size_t start, size_t end) override;
  size_t removeRangeByScore(const ScoreRange& r) override;
  size_t removeRangeByLex(const LexRange& r) override;

  // Appends an element known to sort after every present one (conversion,
  // building results in order).
  void appendSorted(std::string_view member, double score);
  const Listpack& listpack() const { return lp_; }

 private:
  // Score stored at p (the score element of a pair).
  double scoreAt(Listpack::Pos p) const;
  void insertSorted(std::string_view member, double score);
  // Removes the pairs for which pred(index, member, score) holds.
  template <class Pred>
  size_t removeIf(Pred pred);

  Listpack lp_;
};

class SkiplistZSet final : public ZSet {
 public:
  SkiplistZSet();
  ~SkiplistZSet() override;

  Collection* clone() const override;
  const char* encodingName() const override { return "skiplist"; }
  size_t memoryUsage() const override;
  bool appendTableStats(std::string* out) const override {
    impl_->dict.appendStats(out);
    return true;
  }

  bool isListpack() const override { return false; }
  size_t size() const override { return impl_->sl.size(); }
  bool score(std::string_view member, double* out) const override;
  bool set(std::string_view member, double score) override;
  bool remove(std::string_view member) override;
  bool rank(std::string_view member, bool rev, size_t* out) const override;
  void rangeByRank(size_t start, size_t end, bool rev, const Visitor& fn) const override;
  void rangeByScore(const ScoreRange& r, bool rev, size_t offset, const Visitor& fn) const override;
  void rangeByLex(const LexRange& r, bool rev, size_t offset, const Visitor& fn) const override;
  size_t countByScore(const ScoreRange& r) const override;
  size_t countByLex(const LexRange& r) const override;
  size_t removeRangeByRank(size_t start, size_t end) override;
  size_t removeRangeByScore(const ScoreRange& r) override;
  size_t removeRangeByLex(const LexRange& r) override;

  // ZSCAN over the hash (see common::Dict::scan for the guarantee).
  uint64_t scan(uint64_t cursor, const Visitor& fn);
  // A random member (ZRANDMEMBER); nullptr when empty.
  ZNode* randomNode() { return impl_->dict.randomNode(); }
  // Pre-sizes the hash (conversion from a listpack of known size).
  void reserve(size_t n) { impl_->dict.expand(n); }
  // Shrinks the hash when it became sparse (after deletions).
  void maybeShrink() { impl_->dict.tryShrink(); }
  const ZSkiplist& skiplist() const { return impl_->sl; }

 private:
  struct Impl {
    common::Dict<ZNodeTraits> dict;
    ZSkiplist sl;
  };
  ZNode* find(std::string_view member) const { return impl_->dict.find(member); }
  Impl* impl_;
};

// Conversions; the source is left unchanged (the caller replaces the value).
SkiplistZSet* toSkiplist(const ZSet& z);
ListpackZSet* toListpack(const ZSet& z);

// Score text as the listpack stores it and RESP2 replies show it: %.17g,
// "inf" and "-inf". buf must hold 32 bytes; returns the length.
size_t formatScore(double score, char* buf);

}  // namespace server::db
