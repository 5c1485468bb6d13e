// Loading collections from their RDB form (see rdb_value.h for the types).
//
// Speed: the common shapes (listpacks of small hashes, sorted sets, lists
// and sets, intsets) become our in-memory encodings in one pass: elements
// are encoded straight into a listpack built with one buffer
// (db::ListpackBuilder), an intset is taken as it is (same layout), and
// strings are read as views into the input. Anything outside those shapes
// (limits smaller than the data, unsorted or odd input) takes the general
// path, which inserts element by element as a command would.
//
// Validation is never skipped: every listpack is parsed and checked entry by
// entry (parseRedisListpack), sorted sets must be in order, members and
// fields must be distinct, and all of it before anything is built.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "common/strutil.h"
#include "server/db/intset.h"
#include "server/db/list.h"
#include "server/db/zset.h"
#include "server/persist/legacy_encodings.h"
#include "server/persist/rdb_foreign_load.h"
#include "server/persist/rdb_format.h"
#include "server/persist/rdb_value_load.h"
#include "server/persist/redis_listpack.h"

namespace server::persist {

namespace {

// Scratch kept from key to key, so loading allocates per key only what the
// key keeps. Loading runs on the main thread only.
struct Scratch {
  std::string blob;  // an LZF-compressed or integer string
  std::vector<db::LpValue> elems;
  std::vector<std::string> strs;
  std::vector<double> scores;
  std::vector<db::LpValue> members;
  std::vector<std::string_view> texts;
};

Scratch& scratch() {
  static Scratch s;
  return s;
}

// One big value should not keep its buffer alive for the rest of the file.
constexpr size_t kKeepScratchBytes = 1 << 20;
void trimScratch(Scratch& s) {
  if (s.blob.capacity() > kKeepScratchBytes) std::string().swap(s.blob);
}

// An element as our listpacks compare it: canonical integer text is an
// integer there, so "12" and the integer 12 are the same member.
struct ElemKey {
  bool is_int;
  int64_t ival;
  std::string_view str;
  bool operator==(const ElemKey& o) const {
    return is_int == o.is_int && (is_int ? ival == o.ival : str == o.str);
  }
  bool operator<(const ElemKey& o) const {
    if (is_int != o.is_int) return is_int;
    return is_int ? ival < o.ival : str < o.str;
  }
};

ElemKey keyOf(const db::LpValue& v) {
  int64_t x;
  if (v.is_int) return {true, v.ival, {}};
  if (v.str.size() <= 20 && common::strutil::parseInt64(v.str, &x)) return {true, x, {}};
  return {false, 0, v.str};
}

bool hasDuplicate(std::vector<ElemKey>& keys) {
  size_t n = keys.size();
  if (n <= 16) {
    for (size_t i = 1; i < n; i++)
      for (size_t j = 0; j < i; j++)
        if (keys[i] == keys[j]) return true;
    return false;
  }
  std::sort(keys.begin(), keys.end());
  for (size_t i = 1; i < n; i++)
    if (keys[i] == keys[i - 1]) return true;
  return false;
}

// Bytes of the element as a string (what the *-max-*-value limits count).
size_t textLength(const db::LpValue& v) {
  if (!v.is_int) return v.str.size();
  char d[24];
  return common::strutil::formatInt64(v.ival, d);
}

// Longest score text kept as it is (%.17g never writes more than 24 bytes).
constexpr size_t kKeepScoreText = 24;

// A listpack score: an integer, or text. *exact is set when the text is
// plain decimal that parsed completely (from_chars: no '+', no spaces, no
// hex), so that the text itself may be stored.
bool parseScore(const db::LpValue& v, double* out, bool* exact) {
  *exact = false;
  if (v.is_int) {
    *out = static_cast<double>(v.ival);
    return true;
  }
  const char* b = v.str.data();
  const char* e = b + v.str.size();
  auto r = std::from_chars(b, e, *out);
  if (r.ec == std::errc() && r.ptr == e) {
    *exact = !std::isinf(*out) || v.str.size() <= 4;  // "inf", "-inf"
  } else if (!common::strutil::parseDouble(v.str, out)) {
    return false;  // strtod's rules decide what from_chars did not take
  }
  return !std::isnan(*out);
}

// Appends a score the way ListpackZSet stores one: integral values within
// 2^53 as integers, others as their %.17g text (to_chars with precision 17
// is printf's %.17g, without printf's cost). `text` is the score's text in
// the file when it had one: a short decimal text that parsed completely to
// this very value is kept as it is (Redis wrote it with %.17g; and
// ListpackZSet reads a score back by parsing it, so any exact text serves).
void appendScore(db::ListpackBuilder& b, double score, std::string_view text = {}) {
  constexpr double kExact = 9007199254740992.0;  // 2^53
  if (score == std::trunc(score) && score >= -kExact && score <= kExact) {
    b.appendInt(static_cast<int64_t>(score));
    return;
  }
  if (!text.empty() && text.size() <= kKeepScoreText) {
    b.append(text);
    return;
  }
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof(buf), score, std::chars_format::general, 17);
  b.append(std::string_view(buf, static_cast<size_t>(r.ptr - buf)));
}

// ---------------------------------------------------------------- lists

// Appends one node's elements (a listpack or a ziplist, parsed into elems)
// to the list: the node as a whole when it fits the fill limit, as Redis's
// nodes do, else element by element.
void appendNode(db::List* list, const std::vector<db::LpValue>& elems, size_t blob_bytes,
                const LoadLimits& lim) {
  if (elems.empty()) return;  // Redis skips empty nodes too
  db::ListpackBuilder b(blob_bytes + 16);
  for (const auto& e : elems) b.append(e);
  db::Listpack lp = b.finish();
  if (list->appendWhole(lp, lim.list_fill, lim.list_compress)) return;
  size_t bytes = 0;
  for (const auto& e : elems) bytes += e.is_int ? 9 : db::listpackEncodedSize(e.str);
  list->prepareGrowth(lim.list_fill, bytes, elems.size(), lim.list_compress);
  char buf[32];
  for (const auto& e : elems) list->push(e.view(buf), false);
}

bool loadList(RdbReader& r, uint8_t type, const LoadLimits& lim, db::Value* out) {
  Scratch& sc = scratch();
  auto list = std::make_unique<db::List>();
  uint64_t n;
  std::string_view s;
  std::string err;
  if (type == kTypeList) {
    if (!r.count(&n, r.remaining())) return false;
    for (uint64_t i = 0; i < n; i++) {
      if (!r.stringView(&s, &sc.blob)) return false;
      list->prepareGrowth(lim.list_fill, db::listpackEncodedSize(s), 1, lim.list_compress);
      list->push(s, false);
    }
  } else if (type == kTypeListZiplist) {
    // Redis <= 3.0: the whole list in one ziplist.
    if (!r.stringView(&s, &sc.blob)) return false;
    if (!parseZiplist(s, &sc.elems, &err)) return r.fail("list ziplist: " + err);
    appendNode(list.get(), sc.elems, s.size(), lim);
  } else {
    // Quicklist nodes: ziplists (14, Redis 3.2 to 6.2) or, in version 2
    // (18), a container number then a listpack or one plain element.
    if (!r.count(&n, r.remaining() / 2)) return false;
    for (uint64_t i = 0; i < n; i++) {
      uint64_t container = kQuicklistPacked;
      if (type == kTypeListQuicklist2 && !r.length(&container)) return false;
      if (!r.stringView(&s, &sc.blob)) return false;
      if (container == kQuicklistPlain) {
        list->prepareGrowth(lim.list_fill, db::listpackEncodedSize(s), 1, lim.list_compress);
        list->push(s, false);
        continue;
      }
      if (container != kQuicklistPacked)
        return r.fail("unknown quicklist container " + std::to_string(container));
      if (type == kTypeListQuicklist) {
        if (!parseZiplist(s, &sc.elems, &err)) return r.fail("quicklist ziplist node: " + err);
      } else if (!parseRedisListpack(s, &sc.elems, &err)) {
        return r.fail("list node: " + err);
      }
      appendNode(list.get(), sc.elems, s.size(), lim);
    }
  }
  trimScratch(sc);
  if (list->empty()) return true;
  list->updateEncoding(lim.list_fill, lim.list_compress);
  *out = db::Value::fromCollection(db::Kind::kList, list.release());
  return true;
}

// ---------------------------------------------------------------- sets

// Builds a set from members given one at a time, as SADD would (intset,
// else hashtable); false on a duplicate.
class SetBuilder {
 public:
  explicit SetBuilder(const db::SetLimits& lim) : lim_(lim) {}
  bool add(std::string_view m) {
    if (v_.empty()) v_ = db::Value::fromCollection(db::Kind::kSet, db::setCreateFor(m));
    return db::setAdd(&v_, m, lim_);
  }
  db::Value take() { return std::move(v_); }

 private:
  const db::SetLimits& lim_;
  db::Value v_;
};

bool loadSet(RdbReader& r, uint8_t type, const LoadLimits& lim, db::Value* out) {
  Scratch& sc = scratch();
  std::string err;
  std::string_view s;
  if (type == kTypeSet) {
    uint64_t n;
    if (!r.count(&n, r.remaining())) return false;
    SetBuilder b(lim.set);
    for (uint64_t i = 0; i < n; i++) {
      if (!r.stringView(&s, &sc.blob)) return false;
      if (!b.add(s)) return r.fail("duplicate set member");
    }
    trimScratch(sc);
    *out = b.take();
    return true;
  }
  if (!r.stringView(&s, &sc.blob)) return false;
  if (type == kTypeSetListpack) {
    // Redis 7.2: converted to what SADD of the members would make.
    if (!parseRedisListpack(s, &sc.elems, &err)) return r.fail("set listpack: " + err);
    SetBuilder b(lim.set);
    char buf[32];
    for (const auto& e : sc.elems)
      if (!b.add(e.view(buf))) return r.fail("duplicate set member");
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
  const auto* p = reinterpret_cast<const uint8_t*>(s.data()) + 8;
  int shift = 64 - 8 * static_cast<int>(width);
  auto at = [&](uint32_t i) {
    uint64_t u = 0;
    for (unsigned k = 0; k < width; k++) u |= uint64_t{p[i * width + k]} << (8 * k);
    return static_cast<int64_t>(u << shift) >> shift;
  };
  for (uint32_t i = 1; i < count; i++)
    if (at(i) <= at(i - 1)) return r.fail("intset not sorted");
  if (count == 0) return true;  // an empty set: the key is skipped
  if (count <= lim.set.max_intset_entries) {
    // Our intset has Redis's layout: the checked bytes are the set.
    db::Intset is = db::Intset::fromBytes(reinterpret_cast<const uint8_t*>(s.data()), s.size());
    *out = db::Value::fromCollection(db::Kind::kSet, db::Set::adoptIntset(std::move(is)));
    return true;
  }
  SetBuilder b(lim.set);
  for (uint32_t i = 0; i < count; i++) {
    char d[24];
    b.add(std::string_view(d, common::strutil::formatInt64(at(i), d)));
  }
  *out = b.take();
  return true;
}

// ---------------------------------------------------------------- hashes

// Pairs (field, value, ...) into a hash: a listpack when within the
// limits, else a table. False with r failed on a duplicate field.
bool buildHash(RdbReader& r, const LoadLimits& lim, const std::vector<db::LpValue>& elems,
               size_t blob_bytes, db::Value* out) {
  size_t pairs = elems.size() / 2;
  bool small = pairs <= lim.hash.max_entries;
  for (size_t i = 0; small && i < elems.size(); i++)
    small = textLength(elems[i]) <= lim.hash.max_value;
  if (small) {
    std::vector<ElemKey> keys;
    keys.reserve(pairs);
    for (size_t i = 0; i < elems.size(); i += 2) keys.push_back(keyOf(elems[i]));
    if (hasDuplicate(keys)) return r.fail("duplicate hash field");
    db::ListpackBuilder b(blob_bytes + 16);
    for (const auto& e : elems) b.append(e);
    *out = db::Value::fromCollection(db::Kind::kHash, db::Hash::adoptListpack(b.finish()));
    return true;
  }
  std::unique_ptr<db::Hash> h(db::Hash::createTable());
  char fb[32], vb[32];
  for (size_t i = 0; i < elems.size(); i += 2)
    if (!h->set(elems[i].view(fb), elems[i + 1].view(vb))) return r.fail("duplicate hash field");
  *out = db::Value::fromCollection(db::Kind::kHash, h.release());
  return true;
}

bool loadHash(RdbReader& r, uint8_t type, const LoadLimits& lim, db::Value* out) {
  Scratch& sc = scratch();
  std::string_view f, v;
  if (type == kTypeHash) {
    uint64_t n;
    if (!r.count(&n, r.remaining() / 2)) return false;
    if (n > lim.hash.max_entries) {
      // Too big for a listpack anyway: straight into the table.
      std::unique_ptr<db::Hash> h(db::Hash::createTable());
      std::string fs;
      for (uint64_t i = 0; i < n; i++) {
        if (!r.stringView(&f, &fs) || !r.stringView(&v, &sc.blob)) return false;
        if (!h->set(f, v)) return r.fail("duplicate hash field");
      }
      trimScratch(sc);
      *out = db::Value::fromCollection(db::Kind::kHash, h.release());
      return true;
    }
    if (sc.strs.size() < 2 * n) sc.strs.resize(2 * n);
    sc.elems.clear();
    size_t bytes = 0;
    for (uint64_t i = 0; i < 2 * n; i++) {
      if (!r.string(&sc.strs[i])) return false;
      db::LpValue e;
      e.str = sc.strs[i];
      sc.elems.push_back(e);
      bytes += sc.strs[i].size() + 3;
    }
    if (n == 0) return true;  // an empty hash: the key is skipped
    return buildHash(r, lim, sc.elems, bytes, out);
  }
  std::string err;
  std::string_view blob;
  if (!r.stringView(&blob, &sc.blob)) return false;
  if (type == kTypeHashZipmap) {
    // Redis <= 2.4; an empty zipmap is refused (as Redis 7.0 does).
    if (!parseZipmap(blob, &sc.elems, &err)) return r.fail("hash zipmap: " + err);
  } else if (type == kTypeHashZiplist) {
    if (!parseZiplist(blob, &sc.elems, &err)) return r.fail("hash ziplist: " + err);
    if (sc.elems.size() % 2 != 0) return r.fail("hash ziplist with an odd number of entries");
  } else {
    if (!parseRedisListpack(blob, &sc.elems, &err)) return r.fail("hash listpack: " + err);
    if (sc.elems.size() % 2 != 0) return r.fail("hash listpack with an odd number of entries");
  }
  if (sc.elems.empty()) return true;  // an empty hash: the key is skipped (as Redis 7.0)
  bool ok = buildHash(r, lim, sc.elems, blob.size(), out);
  trimScratch(sc);
  return ok;
}

// ---------------------------------------------------------------- sorted sets

// The general path: element by element, sorting as a ZADD would.
bool buildZSet(RdbReader& r, const LoadLimits& lim, const std::vector<db::LpValue>& members,
               const std::vector<double>& scores, db::Value* out) {
  size_t n = members.size();
  bool small = lim.zset_max_entries > 0 && n <= lim.zset_max_entries;
  for (size_t i = 0; small && i < n; i++) small = textLength(members[i]) <= lim.zset_max_value;
  std::unique_ptr<db::ZSet> z;
  if (small) {
    z = std::make_unique<db::ListpackZSet>();
  } else {
    auto* sk = new db::SkiplistZSet();
    sk->reserve(n);
    z.reset(sk);
  }
  char buf[32];
  for (size_t i = 0; i < n; i++)
    if (!z->set(members[i].view(buf), scores[i])) return r.fail("duplicate sorted set member");
  if (z->size() > 0) *out = db::Value::fromCollection(db::Kind::kZSet, z.release());
  return true;
}

// Members in ascending (score, member) order, distinct, within the
// listpack limits: the listpack is built as it comes. False when the
// general path must decide (*failed set when the input is bad).
bool listpackZSet(RdbReader& r, const LoadLimits& lim, const std::vector<db::LpValue>& members,
                  const std::vector<double>& scores, const std::vector<std::string_view>* texts,
                  size_t bytes, db::Value* out, bool* failed) {
  *failed = false;
  size_t n = members.size();
  if (n == 0 || lim.zset_max_entries == 0 || n > lim.zset_max_entries) return false;
  char a[32], b[32];
  for (size_t i = 0; i < n; i++) {
    if (textLength(members[i]) > lim.zset_max_value) return false;
    if (i > 0 && !db::zLess(scores[i - 1], members[i - 1].view(a), scores[i], members[i].view(b)))
      return false;
  }
  std::vector<ElemKey> keys;
  keys.reserve(n);
  for (const auto& m : members) keys.push_back(keyOf(m));
  if (hasDuplicate(keys)) {
    *failed = true;
    return r.fail("duplicate sorted set member");
  }
  db::ListpackBuilder lb(bytes + 16);
  for (size_t i = 0; i < n; i++) {
    lb.append(members[i]);
    appendScore(lb, scores[i], texts != nullptr ? (*texts)[i] : std::string_view());
  }
  *out = db::Value::fromCollection(db::Kind::kZSet, new db::ListpackZSet(lb.finish()));
  return true;
}

bool loadZSet(RdbReader& r, uint8_t type, const LoadLimits& lim, db::Value* out) {
  Scratch& sc = scratch();
  std::vector<db::LpValue>& members = sc.members;
  members.clear();
  sc.scores.clear();
  bool failed;
  if (type == kTypeZSet || type == kTypeZSet2) {
    uint64_t n;
    if (!r.count(&n, r.remaining() / 2)) return false;
    if (n > lim.zset_max_entries) {
      // Too big for a listpack: straight into the skiplist.
      auto z = std::make_unique<db::SkiplistZSet>();
      z->reserve(r.reserveHint(n));
      std::string_view m;
      for (uint64_t i = 0; i < n; i++) {
        double score;
        if (!r.stringView(&m, &sc.blob)) return false;
        if (!(type == kTypeZSet2 ? r.binaryDouble(&score) : r.textDouble(&score))) return false;
        if (std::isnan(score)) return r.fail("sorted set score is NaN");
        if (!z->set(m, score)) return r.fail("duplicate sorted set member");
      }
      trimScratch(sc);
      *out = db::Value::fromCollection(db::Kind::kZSet, z.release());
      return true;
    }
    if (sc.strs.size() < n) sc.strs.resize(n);
    members.resize(n);
    sc.scores.resize(n);
    size_t bytes = 0;
    for (uint64_t i = 0; i < n; i++) {
      if (!r.string(&sc.strs[i])) return false;
      double score;
      if (!(type == kTypeZSet2 ? r.binaryDouble(&score) : r.textDouble(&score))) return false;
      if (std::isnan(score)) return r.fail("sorted set score is NaN");
      members[i].str = sc.strs[i];
      sc.scores[i] = score;
      bytes += sc.strs[i].size() + 12;
    }
    // Redis writes these highest first.
    std::reverse(members.begin(), members.end());
    std::reverse(sc.scores.begin(), sc.scores.end());
    if (listpackZSet(r, lim, members, sc.scores, nullptr, bytes, out, &failed)) return true;
    if (failed) return false;
    return buildZSet(r, lim, members, sc.scores, out);
  }
  std::string err;
  std::string_view blob;
  if (!r.stringView(&blob, &sc.blob)) return false;
  if (type == kTypeZSetZiplist) {
    // Redis <= 6.2: the same pairs (member, score) in a ziplist.
    if (!parseZiplist(blob, &sc.elems, &err)) return r.fail("sorted set ziplist: " + err);
    if (sc.elems.size() % 2 != 0) return r.fail("sorted set ziplist with a bad entry count");
  } else {
    if (!parseRedisListpack(blob, &sc.elems, &err)) return r.fail("sorted set listpack: " + err);
    if (sc.elems.size() % 2 != 0) return r.fail("sorted set listpack with a bad entry count");
  }
  if (sc.elems.empty()) return true;  // an empty sorted set: the key is skipped (as Redis 7.0)
  sc.texts.clear();
  for (size_t i = 0; i < sc.elems.size(); i += 2) {
    double score;
    bool exact;
    const db::LpValue& sv = sc.elems[i + 1];
    if (!parseScore(sv, &score, &exact)) return r.fail("sorted set with a bad score");
    members.push_back(sc.elems[i]);
    sc.scores.push_back(score);
    sc.texts.push_back(exact ? sv.str : std::string_view());
  }
  bool ok = listpackZSet(r, lim, members, sc.scores, &sc.texts, blob.size(), out, &failed) ||
            (!failed && buildZSet(r, lim, members, sc.scores, out));
  trimScratch(sc);
  return ok;
}

}  // namespace

bool failUnsupportedType(RdbReader& r, uint8_t type) {
  return r.fail("unsupported value type " + rdbTypeName(type, r.valkey()) + " (" +
                std::to_string(type) + ")");
}

bool loadHashPairs(RdbReader& r, const LoadLimits& lim, const std::vector<db::LpValue>& elems,
                   size_t blob_bytes, db::Value* out) {
  if (elems.empty()) return true;
  return buildHash(r, lim, elems, blob_bytes, out);
}

bool loadCollection(RdbReader& r, uint8_t type, const LoadLimits& lim, db::Value* out) {
  switch (type) {
    case kTypeList:
    case kTypeListZiplist:
    case kTypeListQuicklist:
    case kTypeListQuicklist2:
      return loadList(r, type, lim, out);
    case kTypeSet:
    case kTypeSetIntset:
    case kTypeSetListpack:
      return loadSet(r, type, lim, out);
    case kTypeHash:
    case kTypeHashZipmap:
    case kTypeHashZiplist:
    case kTypeHashListpack:
      return loadHash(r, type, lim, out);
    case kTypeZSet:
    case kTypeZSet2:
    case kTypeZSetZiplist:
    case kTypeZSetListpack:
      return loadZSet(r, type, lim, out);
    case kTypeHashMetadataPreGa:  // Valkey's hash 2 in Valkey's files
    case kTypeHashListpackExPreGa:
    case kTypeHashMetadata:
    case kTypeHashListpackEx:
      return loadHashWithFieldTtls(r, type, lim, out);
    case kTypeModule:
    case kTypeModule2:
      return failModuleValue(r);
    default:
      return failUnsupportedType(r, type);
  }
}

}  // namespace server::persist
