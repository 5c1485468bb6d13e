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
#include "server/persist/rdb_stream.h"
#include "server/persist/rdb_value_load.h"
#include "server/persist/redis_listpack.h"

namespace server::persist {

namespace {

// ---------------------------------------------------------------- saving

// A string element the way Redis's listpack stores it: canonical integers
// as integers.
void addAuto(RedisListpackBuilder& b, std::string_view s) {
  int64_t v;
  if (s.size() <= 20 && common::strutil::parseInt64(s, &v))
    b.addInt(v);
  else
    b.addString(s);
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
    RedisListpackBuilder b(n->bytes() + 16);
    if (n->isPacked()) {
      // Read-only expansion into a scratch buffer: the list is not touched
      // (a forked child must not dirty pages it does not need to).
      unpacked.resize(n->raw_bytes);
      unsigned got =
          lzf_decompress(n->packed.get(), n->packed_bytes, unpacked.data(), n->raw_bytes);
      db::Listpack lp = db::Listpack::fromBytes(unpacked.data(), got);
      b.addAll(lp);
    } else {
      b.addAll(n->lp);
    }
    w.length(kQuicklistPacked);
    w.string(b.finish());
  }
}

void saveSet(RdbWriter& w, const db::Set& s) {
  if (const db::Intset* is = s.intset()) {
    // Our intset's bytes are Redis's intset layout.
    w.string(std::string_view(reinterpret_cast<const char*>(is->data()), is->bytes()));
    return;
  }
  if (s.encoding() == db::Set::Encoding::kIntset) {
    std::vector<int64_t> v;
    v.reserve(s.size());
    unsigned width = 2;
    s.forEach([&](std::string_view m) {
      int64_t x = 0;
      common::strutil::parseInt64(m, &x);
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
  if (const db::Listpack* lp = h.listpack()) {
    // Our listpacks hold canonical integers as integers, as Redis's do:
    // the elements carry over as they are.
    RedisListpackBuilder b(lp->bytes() + 16);
    b.addAll(*lp);
    w.string(b.finish());
    return;
  }
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
    const db::Listpack& lp = static_cast<const db::ListpackZSet&>(z).listpack();
    RedisListpackBuilder b(lp.bytes() + 16);
    b.addAll(lp);
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
    case db::Kind::kStream:
      return kTypeStreamListpacks2;
    case db::Kind::kNone:
    case db::Kind::kStrInline:
    case db::Kind::kStrInt:
    case db::Kind::kStrHeap:
      return kTypeString;
  }
  return kTypeString;  // not reached: the switch returns for every kind
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
    case db::Kind::kStream:
      saveStream(w, *db::asStream(v));
      return;
    case db::Kind::kNone:
    case db::Kind::kStrInline:
    case db::Kind::kStrInt:
    case db::Kind::kStrHeap:
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
  if (type == kTypeStreamListpacks || type == kTypeStreamListpacks2 ||
      type == kTypeStreamListpacks3)
    return loadStream(r, type, out);
  if (type != kTypeString) return loadCollection(r, type, lim, out);
  static std::string scratch;
  std::string_view s;
  if (!r.stringView(&s, &scratch)) return false;
  *out = db::Value::fromString(s);
  if (scratch.capacity() > (1 << 20)) std::string().swap(scratch);
  return true;
}

std::string rdbTypeName(uint8_t type, bool valkey) {
  if (valkey && type == kTypeValkeyHash2) return "hash-2 (Valkey, field expiry)";
  if (valkey && type == kTypeValkeyPathHash) return "path-hash (Valkey)";
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
    case kTypeStreamListpacks3:
      return "stream";
    case kTypeHashMetadataPreGa:
      return "hash-metadata-pre-ga (field expiry)";
    case kTypeHashListpackExPreGa:
      return "hash-listpack-ex-pre-ga (field expiry)";
    case kTypeHashMetadata:
      return "hash-metadata (field expiry)";
    case kTypeHashListpackEx:
      return "hash-listpack-ex (field expiry)";
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

}  // namespace server::persist
