#include "server/db/quicklist.h"

#include <cstdint>

namespace db {

size_t fillByteLimit(int fill) {
  if (fill >= 0) return kSizeSafetyLimit;
  int level = -fill - 1;
  if (level > 4) level = 4;
  return size_t{4096} << level;
}

size_t fillCountLimit(int fill) {
  // 0 is a count limit too: every element gets its own node, as in Redis.
  return fill >= 0 ? static_cast<size_t>(fill) : SIZE_MAX;
}

bool listpackOverLimit(int fill, size_t bytes, size_t count) {
  return bytes > fillByteLimit(fill) || count > fillCountLimit(fill);
}

Quicklist::~Quicklist() {
  Node* n = head_;
  while (n != nullptr) {
    Node* next = n->next;
    delete n;
    n = next;
  }
}

Quicklist* Quicklist::clone() const {
  auto* q = new Quicklist(fill_);
  for (Node* n = head_; n != nullptr; n = n->next) {
    Node* copy = q->newNodeAfter(q->tail_);
    copy->lp = n->lp.clone();
  }
  q->count_ = count_;
  return q;
}

Quicklist* Quicklist::fromListpack(const Listpack& lp, int fill) {
  auto* q = new Quicklist(fill);
  char scratch[24];
  for (Listpack::Pos p = lp.first(); p != Listpack::kNone; p = lp.next(p)) {
    q->pushTail(lp.get(p).view(scratch));
  }
  return q;
}

size_t Quicklist::memoryUsage() const {
  size_t total = sizeof(*this);
  for (Node* n = head_; n != nullptr; n = n->next) total += sizeof(Node) + n->lp.bytes();
  return total;
}

bool Quicklist::fits(const Node* n, std::string_view s) const {
  size_t bytes = n->lp.bytes();
  if (bytes == 0) bytes = Listpack::kHeader;
  return !listpackOverLimit(fill_, bytes + listpackEncodedSize(s), n->lp.size() + 1);
}

Quicklist::Node* Quicklist::newNodeAfter(Node* after) {
  Node* n = new Node;
  n->prev = after;
  n->next = after != nullptr ? after->next : head_;
  if (n->next != nullptr)
    n->next->prev = n;
  else
    tail_ = n;
  if (after != nullptr)
    after->next = n;
  else
    head_ = n;
  len_++;
  return n;
}

void Quicklist::unlinkNode(Node* n) {
  if (n->prev != nullptr)
    n->prev->next = n->next;
  else
    head_ = n->next;
  if (n->next != nullptr)
    n->next->prev = n->prev;
  else
    tail_ = n->prev;
  len_--;
  delete n;
}

void Quicklist::pushHead(std::string_view s) {
  if (head_ == nullptr || !fits(head_, s)) newNodeAfter(nullptr);
  head_->lp.prepend(s);
  count_++;
}

void Quicklist::pushTail(std::string_view s) {
  if (tail_ == nullptr || !fits(tail_, s)) newNodeAfter(tail_);
  tail_->lp.append(s);
  count_++;
}

Quicklist::Iter Quicklist::at(int64_t index) const {
  bool forward = index >= 0;
  size_t want = forward ? static_cast<size_t>(index) : static_cast<size_t>(-(index + 1));
  if (want >= count_) return {};
  // Walk from the nearer end.
  if (want > count_ / 2) {
    forward = !forward;
    want = count_ - 1 - want;
  }
  size_t skipped = 0;
  if (forward) {
    for (Node* n = head_; n != nullptr; n = n->next) {
      size_t c = n->lp.size();
      if (want < skipped + c) return {n, n->lp.at(static_cast<int64_t>(want - skipped))};
      skipped += c;
    }
  } else {
    for (Node* n = tail_; n != nullptr; n = n->prev) {
      size_t c = n->lp.size();
      if (want < skipped + c) return {n, n->lp.at(-1 - static_cast<int64_t>(want - skipped))};
      skipped += c;
    }
  }
  return {};
}

Quicklist::Iter Quicklist::first() const {
  return head_ != nullptr ? Iter{head_, head_->lp.first()} : Iter{};
}

Quicklist::Iter Quicklist::last() const {
  return tail_ != nullptr ? Iter{tail_, tail_->lp.last()} : Iter{};
}

Quicklist::Iter Quicklist::next(Iter it) const {
  Listpack::Pos p = it.node->lp.next(it.pos);
  if (p != Listpack::kNone) return {it.node, p};
  Node* n = it.node->next;
  return n != nullptr ? Iter{n, n->lp.first()} : Iter{};
}

Quicklist::Iter Quicklist::prev(Iter it) const {
  Listpack::Pos p = it.node->lp.prev(it.pos);
  if (p != Listpack::kNone) return {it.node, p};
  Node* n = it.node->prev;
  return n != nullptr ? Iter{n, n->lp.last()} : Iter{};
}

Quicklist::Node* Quicklist::splitAfter(Node* n, Listpack::Pos pos) {
  Node* right = newNodeAfter(n);
  char scratch[24];
  size_t moved = 0;
  for (Listpack::Pos p = pos; p != Listpack::kNone; p = n->lp.next(p)) {
    right->lp.append(n->lp.get(p).view(scratch));
    moved++;
  }
  n->lp.erase(pos, moved);
  return right;
}

void Quicklist::insert(Iter it, std::string_view s, bool after) {
  Node* n = it.node;
  count_++;
  if (fits(n, s)) {
    if (after) {
      Listpack::Pos nx = n->lp.next(it.pos);
      n->lp.insertBefore(nx, s);
    } else {
      n->lp.insertBefore(it.pos, s);
    }
    return;
  }
  // The node is full: try the neighbour at the edge we insert at, else
  // split the node there and put s in whichever side has room.
  bool at_head = !after && it.pos == n->lp.first();
  bool at_tail = after && it.pos == n->lp.last();
  if (at_head) {
    if (n->prev != nullptr && fits(n->prev, s)) {
      n->prev->lp.append(s);
    } else {
      newNodeAfter(n->prev)->lp.append(s);
    }
    return;
  }
  if (at_tail) {
    if (n->next != nullptr && fits(n->next, s)) {
      n->next->lp.prepend(s);
    } else {
      newNodeAfter(n)->lp.append(s);
    }
    return;
  }
  Listpack::Pos split = after ? n->lp.next(it.pos) : it.pos;
  Node* right = splitAfter(n, split);
  if (fits(n, s)) {
    n->lp.append(s);
  } else if (fits(right, s)) {
    right->lp.prepend(s);
  } else {
    newNodeAfter(n)->lp.append(s);
  }
}

void Quicklist::replace(Iter it, std::string_view s) {
  Node* n = it.node;
  size_t bytes = n->lp.bytes() - n->lp.elementBytes(it.pos) + listpackEncodedSize(s);
  if (n->lp.size() == 1 || !listpackOverLimit(fill_, bytes, n->lp.size())) {
    n->lp.replace(it.pos, s);
    return;
  }
  Iter nx = erase(it);
  if (nx.valid()) {
    insert(nx, s, false);
  } else {
    pushTail(s);
  }
}

Quicklist::Iter Quicklist::erase(Iter it) {
  Node* n = it.node;
  Listpack::Pos p = n->lp.erase(it.pos);
  count_--;
  if (p != Listpack::kNone) return {n, p};
  Node* next = n->next;
  if (n->lp.empty()) unlinkNode(n);
  return next != nullptr ? Iter{next, next->lp.first()} : Iter{};
}

void Quicklist::eraseRange(size_t start, size_t n) {
  if (n == 0 || start >= count_) return;
  Iter it = at(static_cast<int64_t>(start));
  while (n > 0 && it.valid()) {
    Node* node = it.node;
    if (it.pos == node->lp.first() && node->lp.size() <= n) {
      // The whole node goes.
      n -= node->lp.size();
      count_ -= node->lp.size();
      Node* next = node->next;
      unlinkNode(node);
      it = next != nullptr ? Iter{next, next->lp.first()} : Iter{};
      continue;
    }
    it = erase(it);
    n--;
  }
}

Listpack Quicklist::toListpack() {
  Listpack out;
  if (len_ == 1) {
    out = std::move(head_->lp);
  } else {
    char scratch[24];
    for (Node* n = head_; n != nullptr; n = n->next) {
      for (Listpack::Pos p = n->lp.first(); p != Listpack::kNone; p = n->lp.next(p))
        out.append(n->lp.get(p).view(scratch));
    }
  }
  while (head_ != nullptr) unlinkNode(head_);
  count_ = 0;
  return out;
}

}  // namespace db
