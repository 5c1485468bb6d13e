// The index of a stream's nodes (Redis keeps them in a radix tree): the
// nodes sorted by master ID in one array of 24-byte slots, instead of an
// ordered map whose tree node costs 64 bytes per stream node.
//
// The common changes are cheap: XADD opens nodes at the end, trimming and
// XDEL of old entries free nodes at the front. A freed front slot is left
// empty (an empty listpack owns no memory) and skipped; the array closes
// the gap when it would otherwise grow, or when the gap is half of it.
// Lookups are binary searches. The array grows to the allocator's next size
// class (jemalloc), so it holds little slack.
//
// Iterators are pointers: valid until the next insert (erase keeps those
// before the erased slots valid, and returns the one after them).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "server/db/listpack.h"

namespace server::db {

struct StreamID {
  uint64_t ms = 0;
  uint64_t seq = 0;
  auto operator<=>(const StreamID&) const = default;
  static StreamID max() { return {UINT64_MAX, UINT64_MAX}; }
  bool isZero() const { return ms == 0 && seq == 0; }
  // The next/previous ID; false (unchanged) at the ends.
  bool incr();
  bool decr();
  std::string toString() const;  // "ms-seq"
  // 16 bytes, big-endian ms then seq (Redis's radix-tree key, RDB form).
  void encode(uint8_t* out) const;
  static StreamID decode(const uint8_t* in);
};

// A node: its entries in a listpack (layout in stream.h). Its size as
// Redis's listpack would encode it matters only for the last node (the one
// XADD fills), so the stream keeps that figure, not every node.
struct StreamNode {
  Listpack lp;
};

struct StreamNodeSlot {
  StreamID first;  // the node's master ID
  StreamNode second;
};

class StreamNodeIndex {
 public:
  using Slot = StreamNodeSlot;
  using iterator = Slot*;
  using const_iterator = const Slot*;

  iterator begin() { return v_.data() + head_; }
  iterator end() { return v_.data() + v_.size(); }
  const_iterator begin() const { return v_.data() + head_; }
  const_iterator end() const { return v_.data() + v_.size(); }
  size_t size() const { return v_.size() - head_; }
  bool empty() const { return v_.size() == head_; }
  Slot& back() { return v_.back(); }
  const Slot& back() const { return v_.back(); }

  // The first node whose master ID is greater than id.
  const_iterator upper_bound(const StreamID& id) const {
    const_iterator lo = begin();
    size_t n = size();
    while (n > 0) {
      size_t half = n / 2;
      if (id < lo[half].first) {
        n = half;
      } else {
        lo += half + 1;
        n -= half + 1;
      }
    }
    return lo;
  }
  iterator upper_bound(const StreamID& id) {
    return const_cast<iterator>(static_cast<const StreamNodeIndex*>(this)->upper_bound(id));
  }
  bool contains(const StreamID& id) const {
    const_iterator it = upper_bound(id);
    return it != begin() && !((it - 1)->first < id);
  }

  // A new empty node with master ID id (not present yet), at its place.
  StreamNode& insert(const StreamID& id) {
    size_t at = static_cast<size_t>(upper_bound(id) - begin());
    makeRoom();
    if (head_ + at == v_.size()) {
      v_.push_back(Slot{id, {}});
      return v_.back().second;
    }
    auto it = v_.insert(v_.begin() + static_cast<ptrdiff_t>(head_ + at), Slot{id, {}});
    return it->second;
  }

  // Frees the nodes in [first, last); returns the iterator after them.
  iterator erase(iterator first, iterator last) {
    if (first == last) return last;
    if (first == begin()) {
      for (iterator it = first; it != last; ++it) it->second = StreamNode{};
      head_ += static_cast<size_t>(last - first);
      if (head_ == v_.size()) {
        v_.clear();
        head_ = 0;
        return end();
      }
      return last;
    }
    auto b = v_.begin() + (first - v_.data());
    auto e = v_.begin() + (last - v_.data());
    return v_.data() + (v_.erase(b, e) - v_.begin());
  }
  iterator erase(iterator it) { return erase(it, it + 1); }

  // Bytes of the array (MEMORY USAGE).
  size_t allocatedBytes() const { return v_.capacity() * sizeof(Slot); }

 private:
  // Before an insert: closes the front gap when the array is full or the
  // gap is half of it, else grows the array to the next size class.
  void makeRoom() {
    if (head_ > 0 && (v_.size() == v_.capacity() || 2 * head_ >= v_.size())) {
      v_.erase(v_.begin(), v_.begin() + static_cast<ptrdiff_t>(head_));
      head_ = 0;
    }
    if (v_.size() == v_.capacity()) v_.reserve(nextCapacity(v_.size() + 1));
  }
  // Slots for at least need, filling the allocator's size class.
  static size_t nextCapacity(size_t need);

  std::vector<Slot> v_;
  size_t head_ = 0;  // slots before it are freed nodes
};

}  // namespace server::db
