#include "server/persist/rdb_value.h"

#include <liblzf/lzf.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "common/strutil.h"
#include "server/db/intset.h"
#include "server/db/list.h"
#include "server/db/zset.h"
#include "server/persist/rdb_format.h"
#include "server/persist/redis_listpack.h"

namespace persist {

namespace {

// ---------------------------------------------------------------- saving

// A string element the way Redis's listpack stores it: canonical integers
// as integers.
void addAuto(RedisListpackBuilder& b, std::string_view s) {
  int64_t v;
  if (s.size() <= 20 && strutil::parseInt64(s, &v))
    b.addInt(v);
  else
    b.addString(s);
}

void addListpack(RedisListpackBuilder& b, const db::Listpack& lp) {
  if (lp.empty()) return;
  for (db::Listpack::Pos p = lp.first(); p != db::Listpack::kNone; p = lp.next(p)) b.add(lp.get(p));
}

void saveList(RdbWriter& w, const db::List& l) {
  const db::Quicklist* q = l.quicklist();
  if (q == nullptr) {
    RedisListpackBuilder b;
    for (auto it = l.first(); it.valid(); it = l.next(it)) b.add(l.get(it));
    w.length(1);
    w.length(kQuicklistPacked);
    w.string(b.finish());
    return;
  }
  w.length(q->nodeCount());
  std::vector<uint8_t> unpacked;
  for (const db::Quicklist::Node* n = q->head(); n != nullptr; n = n->next) {
    RedisListpackBuilder b;
    if (n->isPacked()) {
      // Read-only expansion into a scratch buffer: the list is not touched
      // (a forked child must not dirty pages it does not need to).
      unpacked.resize(n->raw_bytes);
      unsigned got =
          lzf_decompress(n->packed.get(), n->packed_bytes, unpacked.data(), n->raw_bytes);
      db::Listpack lp = db::Listpack::fromBytes(unpacked.data(), got);
      addListpack(b, lp);
    } else {
      addListpack(b, n->lp);
    }
    w.length(kQuicklistPacked);
    w.string(b.finish());
  }
}

void saveSet(RdbWriter& w, const db::Set& s) {
  if (s.encoding() == db::Set::Encoding::kIntset) {
    std::vector<int64_t> v;
    v.reserve(s.size());
    unsigned width = 2;
    s.forEach([&](std::string_view m) {
      int64_t x = 0;
      strutil::parseInt64(m, &x);
      v.push_back(x);
      width = std::max(width, db::Intset::widthFor(x));
    });
    std::string blob;
    blob.resize(8 + v.size() * width);
    uint32_t enc = width, len = static_cast<uint32_t>(v.size());
    memcpy(&blob[0], &enc, 4);
    memcpy(&blob[4], &len, 4);
    for (size_t i = 0; i < v.size(); i++)
      for (unsigned k = 0; k < width; k++)
        blob[8 + i * width + k] = static_cast<char>(static_cast<uint64_t>(v[i]) >> (8 * k));
    w.string(blob);
    return;
  }
  w.length(s.size());
  s.forEach([&](std::string_view m) { w.string(m); });
}

void saveHash(RdbWriter& w, const db::Hash& h) {
  if (h.isListpack()) {
    RedisListpackBuilder b;
    h.forEach([&](std::string_view f, std::string_view v) {
      addAuto(b, f);
      addAuto(b, v);
    });
    w.string(b.finish());
    return;
  }
  w.length(h.size());
  h.forEach([&](std::string_view f, std::string_view v) {
    w.string(f);
    w.string(v);
  });
}

void saveZSet(RdbWriter& w, const db::ZSet& z) {
  if (z.isListpack()) {
    RedisListpackBuilder b;
    addListpack(b, static_cast<const db::ListpackZSet&>(z).listpack());
    w.string(b.finish());
    return;
  }
  w.length(z.size());
  // Highest first, as Redis writes it: its loader then inserts each element
  // at the head of the skiplist.
  if (z.size() == 0) return;
  z.rangeByRank(0, z.size() - 1, true, [&](std::string_view m, double score) {
    w.string(m);
    w.binaryDouble(score);
    return true;
  });
}

// ---------------------------------------------------------------- loading

using Pairs = std::vector<std::pair<std::string, std::string>>;

std::string lpString(const db::LpValue& v) {
  return v.toString();
}

bool parseScore(const db::LpValue& v, double* out) {
  if (v.is_int) {
    *out = static_cast<double>(v.ival);
    return true;
  }
  return strutil::parseDouble(v.str, out) && !std::isnan(*out);
}

bool loadList(RdbReader& r, uint8_t type, const LoadLimits& lim, db::Value* out) {
  auto list = std::make_unique<db::List>();
  uint64_t n;
  if (type == kTypeList) {
    if (!r.count(&n, r.remaining())) return false;
    std::string s;
    for (uint64_t i = 0; i < n; i++) {
      if (!r.string(&s)) return false;
      list->prepareGrowth(lim.list_fill, db::listpackEncodedSize(s), 1, lim.list_compress);
      list->push(s, false);
    }
  } else {
    if (!r.count(&n, r.remaining() / 2)) return false;
    std::string blob;
    std::vector<db::LpValue> elems;
    std::string err;
    for (uint64_t i = 0; i < n; i++) {
      uint64_t container;
      if (!r.length(&container)) return false;
      if (!r.string(&blob)) return false;
      if (container == kQuicklistPlain) {
        list->prepareGrowth(lim.list_fill, db::listpackEncodedSize(blob), 1, lim.list_compress);
        list->push(blob, false);
        continue;
      }
      if (container != kQuicklistPacked)
        return r.fail("unknown quicklist container " + std::to_string(container));
      if (!parseRedisListpack(blob, &elems, &err)) return r.fail("list node: " + err);
      size_t bytes = 0;
      for (const auto& e : elems) bytes += e.is_int ? 9 : db::listpackEncodedSize(e.str);
      list->prepareGrowth(lim.list_fill, bytes, elems.size(), lim.list_compress);
      char scratch[32];
      for (const auto& e : elems) list->push(e.view(scratch), false);
    }
  }
  if (list->empty()) return true;
  list->updateEncoding(lim.list_fill, lim.list_compress);
  *out = db::Value::fromCollection(db::Kind::kList, list.release());
  return true;
}

// Builds a set from members given one at a time; false on a duplicate.
class SetBuilder {
 public:
  SetBuilder(const db::SetLimits& lim, size_t hint) : lim_(lim), hint_(hint) {}
  bool add(std::string_view m) {
    if (v_.empty())
      v_ = db::Value::fromCollection(db::Kind::kSet, db::setCreateFor(m, hint_, lim_));
    return db::setAdd(&v_, m, lim_);
  }
  db::Value take() { return std::move(v_); }

 private:
  const db::SetLimits& lim_;
  size_t hint_;
  db::Value v_;
};

bool loadSet(RdbReader& r, uint8_t type, const LoadLimits& lim, db::Value* out) {
  std::string s, err;
  if (type == kTypeSet) {
    uint64_t n;
    if (!r.count(&n, r.remaining())) return false;
    SetBuilder b(lim.set, n);
    for (uint64_t i = 0; i < n; i++) {
      if (!r.string(&s)) return false;
      if (!b.add(s)) return r.fail("duplicate set member");
    }
    *out = b.take();
    return true;
  }
  if (!r.string(&s)) return false;
  if (type == kTypeSetListpack) {
    std::vector<db::LpValue> elems;
    if (!parseRedisListpack(s, &elems, &err)) return r.fail("set listpack: " + err);
    SetBuilder b(lim.set, elems.size());
    char scratch[32];
    for (const auto& e : elems)
      if (!b.add(e.view(scratch))) return r.fail("duplicate set member");
    *out = b.take();
    return true;
  }
  // Intset: [u32 width][u32 count] count sorted distinct integers.
  uint32_t width, count;
  if (s.size() < 8) return r.fail("intset shorter than its header");
  memcpy(&width, s.data(), 4);
  memcpy(&count, s.data() + 4, 4);
  if (width != 2 && width != 4 && width != 8) return r.fail("intset with a bad width");
  if (s.size() != 8 + uint64_t{count} * width) return r.fail("intset size does not match");
  SetBuilder b(lim.set, count);
  int64_t prev = 0;
  for (uint32_t i = 0; i < count; i++) {
    uint64_t u = 0;
    for (unsigned k = 0; k < width; k++)
      u |= uint64_t{static_cast<uint8_t>(s[8 + i * width + k])} << (8 * k);
    int shift = 64 - 8 * static_cast<int>(width);
    int64_t v = static_cast<int64_t>(u << shift) >> shift;
    if (i > 0 && v <= prev) return r.fail("intset not sorted");
    prev = v;
    char d[24];
    b.add(std::string_view(d, strutil::formatInt64(v, d)));
  }
  *out = b.take();
  return true;
}

bool buildHash(RdbReader& r, const LoadLimits& lim, Pairs& pairs, db::Value* out) {
  bool small = pairs.size() <= lim.hash.max_entries;
  for (size_t i = 0; small && i < pairs.size(); i++)
    small =
        pairs[i].first.size() <= lim.hash.max_value && pairs[i].second.size() <= lim.hash.max_value;
  std::unique_ptr<db::Hash> h(small ? db::Hash::createListpack() : db::Hash::createTable());
  for (auto& [f, v] : pairs)
    if (!h->set(f, v)) return r.fail("duplicate hash field");
  if (h->size() > 0) *out = db::Value::fromCollection(db::Kind::kHash, h.release());
  return true;
}

bool loadHash(RdbReader& r, uint8_t type, const LoadLimits& lim, db::Value* out) {
  Pairs pairs;
  if (type == kTypeHash) {
    uint64_t n;
    if (!r.count(&n, r.remaining() / 2)) return false;
    if (n > lim.hash.max_entries) {
      // Too big for a listpack anyway: straight into the table.
      std::unique_ptr<db::Hash> h(db::Hash::createTable());
      std::string f, v;
      for (uint64_t i = 0; i < n; i++) {
        if (!r.string(&f) || !r.string(&v)) return false;
        if (!h->set(f, v)) return r.fail("duplicate hash field");
      }
      *out = db::Value::fromCollection(db::Kind::kHash, h.release());
      return true;
    }
    pairs.resize(n);
    for (auto& [f, v] : pairs)
      if (!r.string(&f) || !r.string(&v)) return false;
    return buildHash(r, lim, pairs, out);
  }
  std::string blob, err;
  if (!r.string(&blob)) return false;
  std::vector<db::LpValue> elems;
  if (!parseRedisListpack(blob, &elems, &err)) return r.fail("hash listpack: " + err);
  if (elems.size() % 2 != 0) return r.fail("hash listpack with an odd number of entries");
  for (size_t i = 0; i < elems.size(); i += 2)
    pairs.emplace_back(lpString(elems[i]), lpString(elems[i + 1]));
  if (pairs.empty()) return r.fail("empty hash listpack");
  return buildHash(r, lim, pairs, out);
}

bool buildZSet(RdbReader& r, const LoadLimits& lim,
               std::vector<std::pair<std::string, double>>& elems, db::Value* out) {
  bool small = lim.zset_max_entries > 0 && elems.size() <= lim.zset_max_entries;
  for (size_t i = 0; small && i < elems.size(); i++)
    small = elems[i].first.size() <= lim.zset_max_value;
  std::unique_ptr<db::ZSet> z;
  if (small) {
    z = std::make_unique<db::ListpackZSet>();
  } else {
    auto* sk = new db::SkiplistZSet();
    sk->reserve(elems.size());
    z.reset(sk);
  }
  for (auto& [m, score] : elems)
    if (!z->set(m, score)) return r.fail("duplicate sorted set member");
  if (z->size() > 0) *out = db::Value::fromCollection(db::Kind::kZSet, z.release());
  return true;
}

bool loadZSet(RdbReader& r, uint8_t type, const LoadLimits& lim, db::Value* out) {
  std::vector<std::pair<std::string, double>> elems;
  if (type == kTypeZSet || type == kTypeZSet2) {
    uint64_t n;
    if (!r.count(&n, r.remaining() / 2)) return false;
    elems.resize(n);
    for (auto& [m, score] : elems) {
      if (!r.string(&m)) return false;
      if (!(type == kTypeZSet2 ? r.binaryDouble(&score) : r.textDouble(&score))) return false;
      if (std::isnan(score)) return r.fail("sorted set score is NaN");
    }
    return buildZSet(r, lim, elems, out);
  }
  std::string blob, err;
  if (!r.string(&blob)) return false;
  std::vector<db::LpValue> lp;
  if (!parseRedisListpack(blob, &lp, &err)) return r.fail("sorted set listpack: " + err);
  if (lp.size() % 2 != 0 || lp.empty()) return r.fail("sorted set listpack with a bad entry count");
  for (size_t i = 0; i < lp.size(); i += 2) {
    double score;
    if (!parseScore(lp[i + 1], &score)) return r.fail("sorted set listpack with a bad score");
    elems.emplace_back(lpString(lp[i]), score);
  }
  return buildZSet(r, lim, elems, out);
}

}  // namespace

uint8_t rdbTypeOf(const db::Value& v) {
  switch (v.kind()) {
    case db::Kind::kList:
      return kTypeListQuicklist2;
    case db::Kind::kSet:
      return db::asSet(v)->encoding() == db::Set::Encoding::kIntset ? kTypeSetIntset : kTypeSet;
    case db::Kind::kHash:
      return db::asHash(v)->isListpack() ? kTypeHashListpack : kTypeHash;
    case db::Kind::kZSet:
      return static_cast<db::ZSet*>(v.collection())->isListpack() ? kTypeZSetListpack : kTypeZSet2;
    default:
      return kTypeString;
  }
}

void saveValue(RdbWriter& w, const db::Value& v) {
  switch (v.kind()) {
    case db::Kind::kList:
      saveList(w, *static_cast<db::List*>(v.collection()));
      return;
    case db::Kind::kSet:
      saveSet(w, *db::asSet(v));
      return;
    case db::Kind::kHash:
      saveHash(w, *db::asHash(v));
      return;
    case db::Kind::kZSet:
      saveZSet(w, *static_cast<db::ZSet*>(v.collection()));
      return;
    default:
      break;
  }
  if (v.isInt()) {
    w.integer(v.intValue());
  } else {
    char scratch[32];
    w.string(v.str(scratch));
  }
}

bool loadValue(RdbReader& r, uint8_t type, const LoadLimits& lim, db::Value* out) {
  switch (type) {
    case kTypeString: {
      std::string s;
      if (!r.string(&s)) return false;
      *out = db::Value::fromString(s);
      return true;
    }
    case kTypeList:
    case kTypeListQuicklist2:
      return loadList(r, type, lim, out);
    case kTypeSet:
    case kTypeSetIntset:
    case kTypeSetListpack:
      return loadSet(r, type, lim, out);
    case kTypeHash:
    case kTypeHashListpack:
      return loadHash(r, type, lim, out);
    case kTypeZSet:
    case kTypeZSet2:
    case kTypeZSetListpack:
      return loadZSet(r, type, lim, out);
    default:
      return r.fail("unsupported value type " + rdbTypeName(type) + " (" + std::to_string(type) +
                    ")");
  }
}

std::string rdbTypeName(uint8_t type) {
  switch (type) {
    case kTypeString:
      return "string";
    case kTypeList:
      return "list";
    case kTypeSet:
      return "set";
    case kTypeZSet:
      return "zset";
    case kTypeHash:
      return "hash";
    case kTypeZSet2:
      return "zset-2";
    case kTypeModule:
    case kTypeModule2:
      return "module";
    case kTypeHashZipmap:
      return "hash-zipmap";
    case kTypeListZiplist:
      return "list-ziplist";
    case kTypeSetIntset:
      return "set-intset";
    case kTypeZSetZiplist:
      return "zset-ziplist";
    case kTypeHashZiplist:
      return "hash-ziplist";
    case kTypeListQuicklist:
      return "list-quicklist";
    case kTypeStreamListpacks:
    case kTypeStreamListpacks2:
      return "stream";
    case kTypeHashListpack:
      return "hash-listpack";
    case kTypeZSetListpack:
      return "zset-listpack";
    case kTypeListQuicklist2:
      return "list-quicklist-2";
    case kTypeSetListpack:
      return "set-listpack";
    default:
      return "unknown";
  }
}

}  // namespace persist
