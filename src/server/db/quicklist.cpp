#include "server/db/quicklist.h"

#include <liblzf/lzf.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace server::db {

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
  auto* q = new Quicklist(fill_, compress_);
  for (Node* n = head_; n != nullptr; n = n->next) {
    Node* copy = q->newNodeAfter(q->tail_);
    if (n->isPacked()) {
      copy->packed.reset(new uint8_t[n->packed_bytes]);
      memcpy(copy->packed.get(), n->packed.get(), n->packed_bytes);
      copy->packed_bytes = n->packed_bytes;
      copy->raw_bytes = n->raw_bytes;
      copy->raw_count = n->raw_count;
    } else {
      copy->lp = n->lp.clone();
    }
  }
  q->count_ = count_;
  for (Node* n = q->head_; n != nullptr; n = n->next) q->pack(n);
  return q;
}

Quicklist* Quicklist::fromListpack(const Listpack& lp, int fill, int compress) {
  auto* q = new Quicklist(fill, compress);
  char scratch[24];
  for (Listpack::Pos p = lp.first(); p != Listpack::kNone; p = lp.next(p)) {
    q->pushTail(lp.get(p).view(scratch));
  }
  return q;
}

size_t Quicklist::memoryUsage() const {
  size_t total = sizeof(*this);
  for (Node* n = head_; n != nullptr; n = n->next)
    total += sizeof(Node) + (n->isPacked() ? n->packed_bytes : n->lp.bytes());
  return total;
}

size_t Quicklist::packedNodes() const {
  size_t k = 0;
  for (Node* n = head_; n != nullptr; n = n->next) k += n->isPacked();
  return k;
}

// ---- compression

namespace {
// Redis's thresholds: smaller nodes are not worth compressing, and a
// result must save at least this much to be kept.
constexpr size_t kMinPackBytes = 48;
constexpr size_t kMinPackGain = 8;

std::vector<uint8_t>& scratch() {
  static std::vector<uint8_t> buf;
  return buf;
}

// A node holding one huge element must not leave a buffer that size behind.
void releaseScratch() {
  std::vector<uint8_t>& buf = scratch();
  if (buf.capacity() > (size_t{1} << 20)) {
    buf.clear();
    buf.shrink_to_fit();
  }
}
}  // namespace

void Quicklist::unpack(Node* n) const {
  if (n == nullptr || !n->isPacked()) return;
  std::vector<uint8_t>& buf = scratch();
  buf.resize(n->raw_bytes);
  unsigned got = lzf_decompress(n->packed.get(), n->packed_bytes, buf.data(), n->raw_bytes);
  // Our own bytes, compressed by pack(): anything else is memory corruption.
  if (got != n->raw_bytes) abort();
  n->lp = Listpack::fromBytes(buf.data(), got);
  n->packed.reset();
  n->packed_bytes = 0;
  releaseScratch();
}

void Quicklist::pack(Node* n) const {
  if (compress_ == 0 || n == nullptr || n->isPacked() || isLent(n)) return;
  size_t raw = n->lp.bytes();
  if (raw < kMinPackBytes || nearEnd(n)) return;
  std::vector<uint8_t>& buf = scratch();
  buf.resize(raw);
  unsigned got = lzf_compress(n->lp.data(), static_cast<unsigned>(raw), buf.data(),
                              static_cast<unsigned>(raw - kMinPackGain));
  if (got != 0) {  // 0: would not save enough
    n->packed.reset(new uint8_t[got]);
    memcpy(n->packed.get(), buf.data(), got);
    n->packed_bytes = got;
    n->raw_bytes = static_cast<uint32_t>(raw);
    n->raw_count = static_cast<uint32_t>(n->lp.size());
    n->lp = Listpack();
  }
  releaseScratch();
}

bool Quicklist::nearEnd(const Node* n) const {
  const Node* f = head_;
  const Node* r = tail_;
  for (int i = 0; i < compress_ && f != nullptr; i++, f = f->next, r = r->prev) {
    if (f == n || r == n) return true;
  }
  return false;
}

Quicklist::Node* Quicklist::reach(Node* n) const {
  if (n == nullptr || !n->isPacked()) return n;
  unpack(n);
  if (!isLent(n)) {
    // Two nodes stay expanded: a walk's current one and the one before.
    Node* old = lent_[0];
    lent_[0] = lent_[1];
    lent_[1] = n;
    pack(old);
  }
  return n;
}

void Quicklist::returnLent(const Node* keep) const {
  for (Node*& l : lent_) {
    if (l == nullptr || l == keep) continue;
    Node* n = l;
    l = nullptr;
    pack(n);
  }
}

void Quicklist::settleEnds() const {
  if (compress_ == 0) return;
  Node* f = head_;
  Node* r = tail_;
  for (int i = 0; i < compress_; i++) {
    if (f == nullptr) return;
    unpack(f);
    unpack(r);
    if (f == r || f->next == r) return;  // no interior nodes
    f = f->next;
    r = r->prev;
  }
  pack(f);
  pack(r);
}

void Quicklist::settleAround(Node* n) const {
  if (compress_ == 0 || n == nullptr) return;
  Node* from = n;
  for (int i = 0; i < 2 && from->prev != nullptr; i++) from = from->prev;
  Node* to = n;
  for (int i = 0; i < 2 && to->next != nullptr; i++) to = to->next;
  for (Node* x = from;; x = x->next) {
    pack(x);
    if (x == to) break;
  }
  settleEnds();
}

size_t Quicklist::packed_threshold = Quicklist::kDefaultPackedThreshold;

bool Quicklist::fits(const Node* n, std::string_view s) const {
  // A big element neither joins a node nor lets one join its own.
  if (s.size() >= packed_threshold) return false;
  if (n->size() == 1 && n->bytes() >= packed_threshold) return false;
  size_t bytes = n->bytes();
  if (bytes == 0) bytes = Listpack::kHeader;
  return !listpackOverLimit(fill_, bytes + listpackEncodedSize(s), n->size() + 1);
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
  for (Node*& l : lent_)
    if (l == n) l = nullptr;
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
  returnLent();
  bool grew = head_ == nullptr || !fits(head_, s);
  if (grew) newNodeAfter(nullptr);
  head_->lp.prepend(s);
  count_++;
  if (grew) settleEnds();
}

void Quicklist::pushTail(std::string_view s) {
  returnLent();
  bool grew = tail_ == nullptr || !fits(tail_, s);
  if (grew) newNodeAfter(tail_);
  tail_->lp.append(s);
  count_++;
  if (grew) settleEnds();
}

void Quicklist::appendNode(Listpack lp) {
  returnLent();
  count_ += lp.size();
  newNodeAfter(tail_)->lp = std::move(lp);
  settleEnds();
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
  returnLent();
  size_t skipped = 0;
  if (forward) {
    for (Node* n = head_; n != nullptr; n = n->next) {
      size_t c = n->size();
      if (want < skipped + c) return {reach(n), n->lp.at(static_cast<int64_t>(want - skipped))};
      skipped += c;
    }
  } else {
    for (Node* n = tail_; n != nullptr; n = n->prev) {
      size_t c = n->size();
      if (want < skipped + c)
        return {reach(n), n->lp.at(-1 - static_cast<int64_t>(want - skipped))};
      skipped += c;
    }
  }
  return {};
}

Quicklist::Iter Quicklist::first() const {
  returnLent();
  return head_ != nullptr ? Iter{head_, head_->lp.first()} : Iter{};
}

Quicklist::Iter Quicklist::last() const {
  returnLent();
  return tail_ != nullptr ? Iter{tail_, tail_->lp.last()} : Iter{};
}

Quicklist::Iter Quicklist::next(Iter it) const {
  Listpack::Pos p = it.node->lp.next(it.pos);
  if (p != Listpack::kNone) return {it.node, p};
  Node* n = reach(it.node->next);
  return n != nullptr ? Iter{n, n->lp.first()} : Iter{};
}

Quicklist::Iter Quicklist::prev(Iter it) const {
  Listpack::Pos p = it.node->lp.prev(it.pos);
  if (p != Listpack::kNone) return {it.node, p};
  Node* n = reach(it.node->prev);
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
  // The neighbours may take the element: expanded for the change, packed
  // again by settleAround.
  unpack(n->prev);
  unpack(n->next);
  insertRaw(n, it.pos, s, after);
  returnLent();
  settleAround(n);
}

void Quicklist::insertRaw(Node* n, Listpack::Pos pos, std::string_view s, bool after) {
  Iter it{n, pos};
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
    returnLent();
    pack(n);
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
  if (p != Listpack::kNone) {
    // n stays expanded while the returned iterator points into it.
    returnLent(n);
    return {n, p};
  }
  Node* next = n->next;
  bool gone = n->lp.empty();
  if (gone) unlinkNode(n);
  reach(next);
  // n, reached by the caller's walk, is lent (or an end): this packs it.
  returnLent(next);
  if (gone) settleEnds();
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
      reach(next);
      it = next != nullptr ? Iter{next, next->lp.first()} : Iter{};
      continue;
    }
    it = erase(it);
    n--;
  }
  returnLent();
  settleEnds();
}

Listpack Quicklist::toListpack() {
  for (Node* n = head_; n != nullptr; n = n->next) unpack(n);
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

}  // namespace server::db
