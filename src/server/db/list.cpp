#include "server/db/list.h"

namespace server::db {

List::~List() {
  delete ql_;
}

Collection* List::clone() const {
  auto* l = new List;
  if (ql_ != nullptr)
    l->ql_ = ql_->clone();
  else
    l->lp_ = lp_.clone();
  return l;
}

const char* List::encodingName() const {
  // Redis 7.0 names every list "quicklist" (a small one is a quicklist of
  // one node there); the single-listpack form is internal.
  return "quicklist";
}

size_t List::memoryUsage() const {
  return sizeof(*this) + (ql_ != nullptr ? ql_->memoryUsage() : lp_.bytes());
}

size_t List::size() const {
  return ql_ != nullptr ? ql_->size() : lp_.size();
}

static List::Iter fromQl(Quicklist::Iter it) {
  return it.valid() ? List::Iter{it.node, it.pos} : List::Iter{};
}

static Quicklist::Iter toQl(List::Iter it) {
  return Quicklist::Iter{it.node, it.pos};
}

List::Iter List::at(int64_t index) const {
  if (ql_ != nullptr) return fromQl(ql_->at(index));
  return Iter{nullptr, lp_.at(index)};
}

List::Iter List::first() const {
  if (ql_ != nullptr) return fromQl(ql_->first());
  return Iter{nullptr, lp_.empty() ? Listpack::kNone : lp_.first()};
}

List::Iter List::last() const {
  if (ql_ != nullptr) return fromQl(ql_->last());
  return Iter{nullptr, lp_.empty() ? Listpack::kNone : lp_.last()};
}

List::Iter List::next(Iter it) const {
  if (ql_ != nullptr) return fromQl(ql_->next(toQl(it)));
  return Iter{nullptr, lp_.next(it.pos)};
}

List::Iter List::prev(Iter it) const {
  if (ql_ != nullptr) return fromQl(ql_->prev(toQl(it)));
  return Iter{nullptr, lp_.prev(it.pos)};
}

LpValue List::get(Iter it) const {
  return it.node != nullptr ? it.node->lp.get(it.pos) : lp_.get(it.pos);
}

void List::push(std::string_view s, bool head) {
  if (ql_ != nullptr) {
    if (head)
      ql_->pushHead(s);
    else
      ql_->pushTail(s);
  } else if (head) {
    lp_.prepend(s);
  } else {
    lp_.append(s);
  }
}

bool List::pop(bool head, std::string* out) {
  Iter it = head ? first() : last();
  if (!it.valid()) return false;
  *out = get(it).toString();
  erase(it);
  return true;
}

void List::insert(Iter it, std::string_view s, bool after) {
  if (ql_ != nullptr) {
    ql_->insert(toQl(it), s, after);
  } else {
    lp_.insertBefore(after ? lp_.next(it.pos) : it.pos, s);
  }
}

void List::replace(Iter it, std::string_view s) {
  if (ql_ != nullptr)
    ql_->replace(toQl(it), s);
  else
    lp_.replace(it.pos, s);
}

List::Iter List::erase(Iter it) {
  if (ql_ != nullptr) return fromQl(ql_->erase(toQl(it)));
  return Iter{nullptr, lp_.erase(it.pos)};
}

void List::eraseRange(size_t start, size_t n) {
  if (ql_ != nullptr) {
    ql_->eraseRange(start, n);
  } else if (start < lp_.size() && n > 0) {
    lp_.erase(lp_.at(static_cast<int64_t>(start)), n);
  }
}

void List::prepareGrowth(int fill, size_t bytes, size_t count, int compress) {
  if (ql_ != nullptr) return;
  size_t have = lp_.bytes() != 0 ? lp_.bytes() : Listpack::kHeader;
  if (!listpackOverLimit(fill, have + bytes, lp_.size() + count)) return;
  ql_ = Quicklist::fromListpack(lp_, fill, compress);
  lp_ = Listpack();
}

bool List::appendWhole(Listpack& lp, int fill, int compress) {
  if (lp.empty() || (listpackOverLimit(fill, lp.bytes(), lp.size()) && lp.size() > 1)) return false;
  if (ql_ == nullptr && lp_.empty()) {
    lp_ = std::move(lp);
    return true;
  }
  if (ql_ == nullptr && !listpackOverLimit(fill, lp_.bytes() + lp.bytes() - Listpack::kHeader,
                                           lp_.size() + lp.size())) {
    // Still one listpack, as pushing the elements would have kept it.
    lp_.appendAll(lp);
    return true;
  }
  if (ql_ == nullptr) {
    // lp_ is within the limit (it came whole, or pushes kept it there):
    // it becomes the first node as it is.
    ql_ = new Quicklist(fill, compress);
    ql_->appendNode(std::move(lp_));
    lp_ = Listpack();
  }
  ql_->appendNode(std::move(lp));
  return true;
}

void List::updateEncoding(int fill, int compress) {
  if (ql_ == nullptr) {
    if (listpackOverLimit(fill, lp_.bytes(), lp_.size())) {
      ql_ = Quicklist::fromListpack(lp_, fill, compress);
      lp_ = Listpack();
    }
    return;
  }
  ql_->setFill(fill);
  // Only a list of one or two nodes can be small enough to go back; this
  // keeps the check O(1) for long lists.
  if (ql_->nodeCount() > 2) return;
  size_t bytes = Listpack::kHeader;
  for (Quicklist::Node* n = ql_->head(); n != nullptr; n = n->next)
    bytes += n->bytes() - Listpack::kHeader;
  size_t count_limit = fillCountLimit(fill);
  if (bytes > fillByteLimit(fill) / 2) return;
  if (count_limit != SIZE_MAX && ql_->size() > count_limit / 2) return;
  lp_ = ql_->toListpack();
  delete ql_;
  ql_ = nullptr;
}

}  // namespace server::db
