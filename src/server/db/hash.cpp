#include "server/db/hash.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "common/dict.h"
#include "common/hash.h"
#include "server/db/listpack.h"

namespace server::db {
namespace {

// ---- listpack encoding: field, value, field, value ...

class HashListpack final : public Hash {
 public:
  HashListpack() = default;
  explicit HashListpack(Listpack lp) : lp_(std::move(lp)) {}

  Collection* clone() const override { return new HashListpack(lp_.clone()); }
  const char* encodingName() const override { return "listpack"; }
  size_t memoryUsage() const override { return sizeof(*this) + lp_.bytes(); }

  bool isListpack() const override { return true; }
  const Listpack* listpack() const override { return &lp_; }
  size_t size() const override { return lp_.size() / 2; }

  bool get(std::string_view field, char* scratch, std::string_view* value) const override {
    Listpack::Pos p = lp_.find(field, 1);
    if (p == Listpack::kNone) return false;
    *value = lp_.get(lp_.next(p)).view(scratch);
    return true;
  }

  bool set(std::string_view field, std::string_view value) override {
    Listpack::Pos p = lp_.find(field, 1);
    if (p != Listpack::kNone) {
      lp_.replace(lp_.next(p), value);
      return false;
    }
    lp_.append(field);
    lp_.append(value);
    return true;
  }

  bool remove(std::string_view field) override {
    Listpack::Pos p = lp_.find(field, 1);
    if (p == Listpack::kNone) return false;
    lp_.erase(p, 2);
    return true;
  }

  void forEach(const PairFn& fn) const override {
    char fs[kScratch], vs[kScratch];
    for (Listpack::Pos p = lp_.first(); p != Listpack::kNone;) {
      Listpack::Pos v = lp_.next(p);
      fn(lp_.get(p).view(fs), lp_.get(v).view(vs));
      p = lp_.next(v);
    }
  }

  void randomPair(char* fscratch, char* vscratch, std::string_view* field,
                  std::string_view* value) override {
    int64_t i = static_cast<int64_t>(common::randomU64() % size());
    Listpack::Pos p = lp_.at(2 * i);
    *field = lp_.get(p).view(fscratch);
    *value = lp_.get(lp_.next(p)).view(vscratch);
  }

  uint64_t scan(uint64_t, const PairFn& fn) override {
    forEach(fn);
    return 0;
  }

 private:
  Listpack lp_;
};

// ---- hashtable encoding: one allocation per pair, field then value.

struct PairNode {
  PairNode* next;
  uint32_t flen;
  uint32_t vlen;
  char data[];

  std::string_view field() const { return {data, flen}; }
  std::string_view value() const { return {data + flen, vlen}; }

  static PairNode* make(std::string_view f, std::string_view v) {
    void* mem = malloc(sizeof(PairNode) + f.size() + v.size());
    if (mem == nullptr) throw std::bad_alloc();
    PairNode* n = static_cast<PairNode*>(mem);
    n->next = nullptr;
    n->flen = static_cast<uint32_t>(f.size());
    n->vlen = static_cast<uint32_t>(v.size());
    memcpy(n->data, f.data(), f.size());
    memcpy(n->data + f.size(), v.data(), v.size());
    return n;
  }
};

struct PairTraits {
  using Node = PairNode;
  using Key = std::string_view;
  static PairNode*& next(PairNode* n) { return n->next; }
  static uint64_t hash(std::string_view k) { return common::hashBytes(k.data(), k.size()); }
  static bool equal(const PairNode* n, std::string_view k) { return n->field() == k; }
  static std::string_view key(const PairNode* n) { return n->field(); }
};

class HashTable final : public Hash {
 public:
  HashTable() : d_(new common::Dict<PairTraits>()) {}
  ~HashTable() override {
    d_->clear([](PairNode* n) { free(n); });
    delete d_;
  }

  Collection* clone() const override {
    HashTable* out = new HashTable();
    d_->forEach([&](PairNode* n) { out->d_->insert(PairNode::make(n->field(), n->value())); });
    return out;
  }
  const char* encodingName() const override { return "hashtable"; }
  size_t memoryUsage() const override {
    size_t total = sizeof(*this) + sizeof(*d_) + d_->memoryUsage();
    d_->forEach([&](PairNode* n) { total += sizeof(PairNode) + n->flen + n->vlen; });
    return total;
  }

  bool appendTableStats(std::string* out) const override {
    d_->appendStats(out);
    return true;
  }

  bool isListpack() const override { return false; }
  size_t size() const override { return d_->size(); }

  bool get(std::string_view field, char*, std::string_view* value) const override {
    PairNode* n = d_->find(field);
    if (n == nullptr) return false;
    *value = n->value();
    return true;
  }

  bool set(std::string_view field, std::string_view value) override {
    auto pos = d_->findOrPrepareInsert(field);
    if (pos.found == nullptr) {
      d_->insertAt(pos, PairNode::make(field, value));
      return true;
    }
    PairNode* old = pos.found;
    if (old->vlen == value.size()) {
      memcpy(old->data + old->flen, value.data(), value.size());
      return false;
    }
    // The value lives in the node: a new size means a new node.
    d_->unlink(old);
    d_->insert(PairNode::make(field, value));
    free(old);
    return false;
  }

  bool remove(std::string_view field) override {
    PairNode* n = d_->erase(field);
    if (n == nullptr) return false;
    free(n);
    // A hash that emptied out gives its buckets back, as Redis 7.0 checks
    // after each removal (not during a fork: common::g_dict_avoid_resize).
    d_->tryShrink();
    return true;
  }

  void forEach(const PairFn& fn) const override {
    d_->forEach([&](PairNode* n) { fn(n->field(), n->value()); });
  }

  void randomPair(char*, char*, std::string_view* field, std::string_view* value) override {
    PairNode* n = d_->randomNode();
    *field = n->field();
    *value = n->value();
  }

  uint64_t scan(uint64_t cursor, const PairFn& fn) override {
    return d_->scan(cursor, [&](PairNode* n) { fn(n->field(), n->value()); });
  }

  void insertNew(std::string_view field, std::string_view value) {
    d_->insert(PairNode::make(field, value));
  }

 private:
  // Behind a pointer so the object stays at 16 bytes like the listpack one.
  common::Dict<PairTraits>* d_;
};

}  // namespace

Hash* Hash::createListpack() {
  return new HashListpack();
}

Hash* Hash::adoptListpack(Listpack lp) {
  return new HashListpack(std::move(lp));
}

Hash* Hash::createTable() {
  return new HashTable();
}

Hash* Hash::toTable() const {
  HashTable* t = new HashTable();
  forEach([t](std::string_view f, std::string_view v) { t->insertNew(f, v); });
  return t;
}

bool hashSet(Value* v, std::string_view field, std::string_view value, const HashLimits& lim) {
  Hash* h = asHash(*v);
  if (h->isListpack() && (field.size() > lim.max_value || value.size() > lim.max_value)) {
    *v = Value::fromCollection(Kind::kHash, h->toTable());
    h = asHash(*v);
  }
  bool added = h->set(field, value);
  if (added && h->isListpack() && h->size() > lim.max_entries) {
    *v = Value::fromCollection(Kind::kHash, h->toTable());
  }
  return added;
}

}  // namespace server::db
