// Quicklist: the encoding of large lists. A doubly linked list of nodes,
// each holding a db::Listpack of consecutive elements, every node kept
// within the list-max-listpack-size limit ("fill"):
//   fill < 0   a byte limit per node: -1..-5 = 4, 8, 16, 32, 64 KiB
//              (smaller values act as -5);
//   fill >= 0  an element count per node (and at most kSizeSafetyLimit
//              bytes, so a count limit cannot make huge nodes).
// A node may exceed the limit only when it holds a single element (an
// element bigger than the limit gets a node of its own).
//
// Iterators (Iter) name one element: its node and its position inside the
// node's listpack. Any modification invalidates every iterator except the
// one a call returns; so does starting a new walk (at, first, last) or
// walking two nodes away from an iterator with next/prev.
//
// Compression (list-compress-depth D > 0), as Redis does it: every node
// more than D nodes from both ends is kept LZF-compressed when that saves
// at least 8 bytes, the D nodes at each end never are. A compressed node an
// iterator reaches is expanded, and compressed again once the walk has moved
// two nodes on, a new walk starts or the list is modified.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "server/db/listpack.h"

namespace server::db {

// Bytes a node may hold with a count limit (fill >= 0).
constexpr size_t kSizeSafetyLimit = 8192;

// True when a listpack of `bytes` bytes and `count` elements is over the
// per-node limit for this fill.
bool listpackOverLimit(int fill, size_t bytes, size_t count);
// The byte and count limits a fill stands for (count SIZE_MAX when none).
size_t fillByteLimit(int fill);
size_t fillCountLimit(int fill);

class Quicklist {
 public:
  struct Node {
    Node* prev = nullptr;
    Node* next = nullptr;
    Listpack lp;  // the elements; empty while the node is packed
    // An interior node's listpack, LZF-compressed (list-compress-depth).
    std::unique_ptr<uint8_t[]> packed;
    uint32_t packed_bytes = 0;
    uint32_t raw_bytes = 0;  // lp.bytes() and lp.size() before packing
    uint32_t raw_count = 0;
    bool isPacked() const { return packed != nullptr; }
    size_t size() const { return packed ? raw_count : lp.size(); }
    size_t bytes() const { return packed ? raw_bytes : lp.bytes(); }
  };
  struct Iter {
    Node* node = nullptr;
    Listpack::Pos pos = Listpack::kNone;
    bool valid() const { return node != nullptr; }
  };

  // compress: list-compress-depth, fixed for the list's life (as Redis).
  explicit Quicklist(int fill, int compress = 0) : fill_(fill), compress_(compress) {}

  // Elements of at least this many bytes get a node of their own, shared
  // with no other element (Redis 7.0's "plain" nodes; DEBUG
  // QUICKLIST-PACKED-THRESHOLD). Default 1 GiB.
  static constexpr size_t kDefaultPackedThreshold = size_t{1} << 30;
  static size_t packed_threshold;
  ~Quicklist();
  Quicklist(const Quicklist&) = delete;
  Quicklist& operator=(const Quicklist&) = delete;
  Quicklist* clone() const;
  // Splits a listpack into nodes within the limit (listpack -> quicklist).
  static Quicklist* fromListpack(const Listpack& lp, int fill, int compress = 0);

  size_t size() const { return count_; }
  size_t nodeCount() const { return len_; }
  Node* head() const { return head_; }
  Node* tail() const { return tail_; }
  int fill() const { return fill_; }
  int compressDepth() const { return compress_; }
  size_t packedNodes() const;
  void setFill(int fill) { fill_ = fill; }
  size_t memoryUsage() const;

  void pushHead(std::string_view s);
  void pushTail(std::string_view s);
  // Appends lp as a node of its own at the tail (RDB loading, whose nodes
  // come whole). lp must not be empty and must be within the fill limit
  // (or hold one element).
  void appendNode(Listpack lp);

  // Element at index (negative from the end); invalid when out of range.
  // Walks nodes from the nearer end.
  Iter at(int64_t index) const;
  Iter first() const;
  Iter last() const;
  Iter next(Iter it) const;
  Iter prev(Iter it) const;
  LpValue get(Iter it) const { return it.node->lp.get(it.pos); }  // its node is never packed

  // Inserts s before (after = false) or after the element at it.
  void insert(Iter it, std::string_view s, bool after);
  // Replaces the element at it with s.
  void replace(Iter it, std::string_view s);
  // Removes the element at it. Returns the element that followed it
  // (invalid when it was the last).
  Iter erase(Iter it);
  // Removes n elements starting at index start (>= 0), fewer if the end
  // comes first.
  void eraseRange(size_t start, size_t n);

  // Moves every element into one listpack and empties the quicklist
  // (quicklist -> listpack).
  Listpack toListpack();

 private:
  bool fits(const Node* n, std::string_view s) const;
  Node* newNodeAfter(Node* after);  // after == nullptr: new head
  void unlinkNode(Node* n);
  // Moves the elements from pos to the end of n into a new node after n.
  Node* splitAfter(Node* n, Listpack::Pos pos);
  // insert() on expanded nodes, before compression settles.
  void insertRaw(Node* n, Listpack::Pos pos, std::string_view s, bool after);

  // ---- compression (no-ops when compress_ == 0)
  // Expands n if packed and lends it (an iterator may point into it).
  Node* reach(Node* n) const;
  void unpack(Node* n) const;
  // Compresses n when it is interior, not lent and the saving is worth it.
  void pack(Node* n) const;
  bool nearEnd(const Node* n) const;  // within compress_ nodes of an end
  bool isLent(const Node* n) const { return n != nullptr && (lent_[0] == n || lent_[1] == n); }
  // Packs the lent nodes again, all but keep.
  void returnLent(const Node* keep = nullptr) const;
  // After nodes came or went: the end nodes expanded, the first interior
  // node on each side packed.
  void settleEnds() const;
  // After a change around n: n and its neighbours packed where interior.
  void settleAround(Node* n) const;

  int fill_;
  int compress_;
  // Expanded interior nodes that live iterators may point into.
  mutable Node* lent_[2] = {nullptr, nullptr};
  Node* head_ = nullptr;
  Node* tail_ = nullptr;
  size_t count_ = 0;  // elements
  size_t len_ = 0;    // nodes
};

}  // namespace server::db
