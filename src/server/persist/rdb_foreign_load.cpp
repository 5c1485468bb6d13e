// Hashes with field expiry from Redis 7.4 and Valkey 9, and module values
// (see rdb_foreign_load.h). Layouts, from the formats' descriptions:
//   Redis 22 (7.4 pre-release): len, then len x (ttl as a length: absolute
//     ms, 0 = none; field; value)
//   Redis 24: min expiry (8 bytes LE), len, then len x (ttl as a length:
//     0 = none, else min expiry + ttl - 1; field; value)
//   Redis 23: a listpack of (field, value, ttl) triples; ttl 0 = none
//   Redis 25: min expiry (8 bytes LE), then the listpack of type 23
//   Valkey 22: len, then len x (field; value; expiry as 8 bytes LE, -1 =
//     none)
#include "server/persist/rdb_foreign_load.h"

#include <string>
#include <vector>

#include "server/persist/rdb_format.h"
#include "server/persist/rdb_value_load.h"
#include "server/persist/redis_listpack.h"

namespace server::persist {

namespace {

constexpr int64_t kNoExpiry = -1;

// Pairs that survive: fields whose expiry has passed are left out, the
// others are kept without it. Strings of `owned` back the elements.
class Pairs {
 public:
  explicit Pairs(RdbReader& r) : r_(r) {}
  void reserve(size_t n) {
    owned_.reserve(2 * n);
    elems_.reserve(2 * n);
  }
  // A field read from a string of its own (moved in).
  void addOwned(std::string f, std::string v, int64_t expiry) {
    if (!keep(expiry)) return;
    owned_.push_back(std::move(f));
    owned_.push_back(std::move(v));
    bytes_ += owned_[owned_.size() - 2].size() + owned_.back().size() + 6;
  }
  // A field whose elements point into a buffer that outlives the pairs.
  void addView(const db::LpValue& f, const db::LpValue& v, int64_t expiry) {
    if (!keep(expiry)) return;
    elems_.push_back(f);
    elems_.push_back(v);
    bytes_ += 24;
  }
  bool build(const LoadLimits& lim, db::Value* out) {
    // The owned strings stay put from here on: elements may point at them.
    for (const std::string& s : owned_) {
      db::LpValue e;
      e.str = s;
      elems_.push_back(e);
    }
    return loadHashPairs(r_, lim, elems_, bytes_, out);
  }

 private:
  bool keep(int64_t expiry) {
    if (expiry == kNoExpiry) return true;
    RdbReader::FieldTtlNotes& notes = r_.fieldTtlNotes();
    if (r_.nowMs() > 0 && expiry < r_.nowMs()) {
      notes.dropped_expired++;
      return false;
    }
    notes.kept_without_ttl++;
    return true;
  }
  RdbReader& r_;
  std::vector<std::string> owned_;
  std::vector<db::LpValue> elems_;  // addView()'s at once, addOwned()'s in build()
  size_t bytes_ = 0;
};

bool readMinExpiry(RdbReader& r, int64_t* out) {
  if (!r.millis(out)) return false;
  // 2^48 itself means "no field has one".
  if (*out < 0 || static_cast<uint64_t>(*out) > kMaxFieldExpire + 1)
    return r.fail("hash with a bad minimum field expiry");
  return true;
}

// Redis 22 and 24: fields one by one, each after its ttl.
bool loadRedisMetadataHash(RdbReader& r, uint8_t type, const LoadLimits& lim, db::Value* out) {
  int64_t min_expiry = 0;
  if (type == kTypeHashMetadata && !readMinExpiry(r, &min_expiry)) return false;
  uint64_t n;
  if (!r.count(&n, r.remaining() / 3)) return false;
  Pairs pairs(r);
  pairs.reserve(r.reserveHint(n));
  for (uint64_t i = 0; i < n; i++) {
    uint64_t ttl;
    std::string f, v;
    if (!r.length(&ttl)) return false;
    uint64_t at = ttl;
    if (type == kTypeHashMetadata && ttl != 0) at = ttl + static_cast<uint64_t>(min_expiry) - 1;
    if (at > kMaxFieldExpire) return r.fail("hash field with a bad expiry time");
    if (!r.string(&f) || !r.string(&v)) return false;
    pairs.addOwned(std::move(f), std::move(v), at == 0 ? kNoExpiry : static_cast<int64_t>(at));
  }
  return pairs.build(lim, out);
}

// Redis 23 and 25: a listpack of (field, value, ttl).
bool loadRedisListpackExHash(RdbReader& r, uint8_t type, const LoadLimits& lim, db::Value* out) {
  int64_t min_expiry = 0;
  if (type == kTypeHashListpackEx && !readMinExpiry(r, &min_expiry)) return false;
  std::string scratch, err;
  std::string_view blob;
  if (!r.stringView(&blob, &scratch)) return false;
  std::vector<db::LpValue> elems;
  if (!parseRedisListpack(blob, &elems, &err)) return r.fail("hash listpack: " + err);
  if (elems.size() % 3 != 0) return r.fail("hash listpack with field expiry: bad entry count");
  Pairs pairs(r);
  pairs.reserve(elems.size() / 3);
  for (size_t i = 0; i < elems.size(); i += 3) {
    const db::LpValue& ttl = elems[i + 2];
    if (!ttl.is_int || ttl.ival < 0 || static_cast<uint64_t>(ttl.ival) > kMaxFieldExpire)
      return r.fail("hash listpack with a bad field expiry");
    pairs.addView(elems[i], elems[i + 1], ttl.ival == 0 ? kNoExpiry : ttl.ival);
  }
  return pairs.build(lim, out);
}

// Valkey 22: field, value, then the expiry as 8 bytes.
bool loadValkeyHash2(RdbReader& r, const LoadLimits& lim, db::Value* out) {
  uint64_t n;
  if (!r.count(&n, r.remaining() / 10)) return false;
  Pairs pairs(r);
  pairs.reserve(r.reserveHint(n));
  for (uint64_t i = 0; i < n; i++) {
    std::string f, v;
    int64_t expiry;
    if (!r.string(&f) || !r.string(&v) || !r.millis(&expiry)) return false;
    if (expiry < kNoExpiry) return r.fail("hash field with a bad expiry time");
    pairs.addOwned(std::move(f), std::move(v), expiry);
  }
  return pairs.build(lim, out);
}

}  // namespace

bool loadHashWithFieldTtls(RdbReader& r, uint8_t type, const LoadLimits& lim, db::Value* out) {
  if (r.valkey()) {
    if (type == kTypeValkeyHash2) return loadValkeyHash2(r, lim, out);
    return failUnsupportedType(r, type);
  }
  if (type == kTypeHashMetadataPreGa || type == kTypeHashMetadata)
    return loadRedisMetadataHash(r, type, lim, out);
  return loadRedisListpackExHash(r, type, lim, out);
}

std::string moduleTypeName(uint64_t module_id) {
  static const char kCharset[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string name(9, '?');
  uint64_t id = module_id >> 10;
  for (int j = 8; j >= 0; j--) {
    name[static_cast<size_t>(j)] = kCharset[id & 63];
    id >>= 6;
  }
  return name;
}

bool failModuleValue(RdbReader& r) {
  uint64_t id;
  if (!r.length(&id)) return false;
  return r.fail("The RDB file contains module data I can't load: no matching module type '" +
                moduleTypeName(id) + "' (this server loads no modules)");
}

}  // namespace server::persist
