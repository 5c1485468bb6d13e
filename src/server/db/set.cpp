#include "server/db/set.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "common/dict.h"
#include "common/hash.h"
#include "common/strutil.h"
#include "server/db/intset.h"

namespace server::db {
namespace {

class SetIntset final : public Set {
 public:
  SetIntset() = default;
  explicit SetIntset(Intset is) : is_(std::move(is)) {}

  Collection* clone() const override { return new SetIntset(is_.clone()); }
  const char* encodingName() const override { return "intset"; }
  size_t memoryUsage() const override { return sizeof(*this) + is_.bytes(); }

  Encoding encoding() const override { return Encoding::kIntset; }
  const Intset* intset() const override { return &is_; }
  size_t size() const override { return is_.size(); }
  bool contains(std::string_view m) const override {
    int64_t v;
    return common::strutil::parseInt64(m, &v) && is_.contains(v);
  }
  bool add(std::string_view m) override {
    int64_t v;
    if (!common::strutil::parseInt64(m, &v)) return false;
    return is_.add(v);
  }
  bool remove(std::string_view m) override {
    int64_t v;
    return common::strutil::parseInt64(m, &v) && is_.remove(v);
  }
  void forEach(const MemberFn& fn) const override {
    char buf[kScratch];
    for (size_t i = 0; i < is_.size(); i++) {
      fn(std::string_view(buf, common::strutil::formatInt64(is_.at(i), buf)));
    }
  }
  std::string_view random(char* scratch) override {
    int64_t v = is_.at(common::randomU64() % is_.size());
    return std::string_view(scratch, common::strutil::formatInt64(v, scratch));
  }
  std::string popRandom() override {
    size_t i = common::randomU64() % is_.size();
    int64_t v = is_.at(i);
    is_.removeAt(i);
    return common::strutil::int64ToString(v);
  }
  uint64_t scan(uint64_t, const MemberFn& fn) override {
    forEach(fn);
    return 0;
  }

 private:
  Intset is_;
};

struct MemberNode {
  MemberNode* next;
  uint32_t len;
  char data[];

  std::string_view member() const { return {data, len}; }
  static MemberNode* make(std::string_view m) {
    void* mem = malloc(sizeof(MemberNode) + m.size());
    if (mem == nullptr) throw std::bad_alloc();
    MemberNode* n = static_cast<MemberNode*>(mem);
    n->next = nullptr;
    n->len = static_cast<uint32_t>(m.size());
    memcpy(n->data, m.data(), m.size());
    return n;
  }
};

struct MemberTraits {
  using Node = MemberNode;
  using Key = std::string_view;
  static MemberNode*& next(MemberNode* n) { return n->next; }
  static uint64_t hash(std::string_view k) { return common::hashBytes(k.data(), k.size()); }
  static bool equal(const MemberNode* n, std::string_view k) { return n->member() == k; }
  static std::string_view key(const MemberNode* n) { return n->member(); }
};

class SetTable final : public Set {
 public:
  SetTable() : d_(new common::Dict<MemberTraits>()) {}
  ~SetTable() override {
    d_->clear([](MemberNode* n) { free(n); });
    delete d_;
  }

  Collection* clone() const override {
    SetTable* out = new SetTable();
    d_->forEach([&](MemberNode* n) { out->d_->insert(MemberNode::make(n->member())); });
    return out;
  }
  const char* encodingName() const override { return "hashtable"; }
  size_t memoryUsage() const override {
    size_t total = sizeof(*this) + sizeof(*d_) + d_->memoryUsage();
    d_->forEach([&](MemberNode* n) { total += sizeof(MemberNode) + n->len; });
    return total;
  }

  bool appendTableStats(std::string* out) const override {
    d_->appendStats(out);
    return true;
  }

  Encoding encoding() const override { return Encoding::kTable; }
  size_t size() const override { return d_->size(); }
  bool contains(std::string_view m) const override { return d_->find(m) != nullptr; }
  bool add(std::string_view m) override {
    auto pos = d_->findOrPrepareInsert(m);
    if (pos.found != nullptr) return false;
    d_->insertAt(pos, MemberNode::make(m));
    return true;
  }
  bool remove(std::string_view m) override {
    MemberNode* n = d_->erase(m);
    if (n == nullptr) return false;
    free(n);
    // A set that emptied out gives its buckets back, as Redis 7.0 checks
    // after each removal (not during a fork: common::g_dict_avoid_resize).
    d_->tryShrink();
    return true;
  }
  void forEach(const MemberFn& fn) const override {
    d_->forEach([&](MemberNode* n) { fn(n->member()); });
  }
  std::string_view random(char*) override { return d_->randomNode()->member(); }
  std::string popRandom() override {
    MemberNode* n = d_->randomNode();
    std::string out(n->member());
    d_->unlink(n, MemberTraits::hash(n->member()));
    free(n);
    d_->tryShrink();
    return out;
  }
  uint64_t scan(uint64_t cursor, const MemberFn& fn) override {
    return d_->scan(cursor, [&](MemberNode* n) { fn(n->member()); });
  }

 private:
  common::Dict<MemberTraits>* d_;
};

}  // namespace

Set* Set::createIntset() {
  return new SetIntset();
}
Set* Set::createTable() {
  return new SetTable();
}
Set* Set::adoptIntset(Intset is) {
  return new SetIntset(std::move(is));
}

Set* Set::convertTo(Encoding enc) const {
  Set* out = enc == Encoding::kTable ? createTable() : createIntset();
  forEach([out](std::string_view m) { out->add(m); });
  return out;
}

Set* setCreateFor(std::string_view first) {
  int64_t v;
  if (common::strutil::parseInt64(first, &v)) return new SetIntset();
  return new SetTable();
}

bool setAdd(Value* v, std::string_view m, const SetLimits& lim) {
  Set* s = asSet(*v);
  if (s->encoding() == Set::Encoding::kIntset) {
    int64_t iv;
    if (common::strutil::parseInt64(m, &iv)) {
      if (!s->add(m)) return false;
      if (s->size() > lim.max_intset_entries) {
        *v = Value::fromCollection(Kind::kSet, s->convertTo(Set::Encoding::kTable));
      }
      return true;
    }
    // A non-integer member: the set becomes a table.
    *v = Value::fromCollection(Kind::kSet, s->convertTo(Set::Encoding::kTable));
    s = asSet(*v);
  }
  return s->add(m);
}

}  // namespace server::db
