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
// one a call returns. Compression (list-compress-depth) is not implemented.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "server/db/listpack.h"

namespace db {

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
    Listpack lp;
  };
  struct Iter {
    Node* node = nullptr;
    Listpack::Pos pos = Listpack::kNone;
    bool valid() const { return node != nullptr; }
  };

  explicit Quicklist(int fill) : fill_(fill) {}
  ~Quicklist();
  Quicklist(const Quicklist&) = delete;
  Quicklist& operator=(const Quicklist&) = delete;
  Quicklist* clone() const;
  // Splits a listpack into nodes within the limit (listpack -> quicklist).
  static Quicklist* fromListpack(const Listpack& lp, int fill);

  size_t size() const { return count_; }
  size_t nodeCount() const { return len_; }
  Node* head() const { return head_; }
  Node* tail() const { return tail_; }
  int fill() const { return fill_; }
  void setFill(int fill) { fill_ = fill; }
  size_t memoryUsage() const;

  void pushHead(std::string_view s);
  void pushTail(std::string_view s);

  // Element at index (negative from the end); invalid when out of range.
  // Walks nodes from the nearer end.
  Iter at(int64_t index) const;
  Iter first() const;
  Iter last() const;
  Iter next(Iter it) const;
  Iter prev(Iter it) const;
  LpValue get(Iter it) const { return it.node->lp.get(it.pos); }

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

  int fill_;
  Node* head_ = nullptr;
  Node* tail_ = nullptr;
  size_t count_ = 0;  // elements
  size_t len_ = 0;    // nodes
};

}  // namespace db
