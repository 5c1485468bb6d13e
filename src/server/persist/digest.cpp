#include "server/persist/digest.h"

#include <arpa/inet.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/sha1.h"
#include "server/db/hash.h"
#include "server/db/list.h"
#include "server/db/set.h"
#include "server/db/stream.h"
#include "server/db/zset.h"

namespace server::persist {

namespace {

using Dig = uint8_t[20];

void xorDigest(uint8_t* dig, const void* p, size_t n) {
  common::Sha1 s;
  s.update(p, n);
  uint8_t h[20];
  s.final(h);
  for (int i = 0; i < 20; i++) dig[i] ^= h[i];
}

void mixDigest(uint8_t* dig, const void* p, size_t n) {
  xorDigest(dig, p, n);
  common::Sha1 s;
  s.update(dig, 20);
  s.final(dig);
}

void mixStr(uint8_t* dig, std::string_view s) {
  mixDigest(dig, s.data(), s.size());
}

// Type numbers as Redis's object types (string 0 ... hash 4).
uint32_t typeNumber(db::Kind k) {
  switch (k) {
    case db::Kind::kList:
      return 1;
    case db::Kind::kSet:
      return 2;
    case db::Kind::kZSet:
      return 3;
    case db::Kind::kHash:
      return 4;
    case db::Kind::kStream:
      return 6;
    case db::Kind::kNone:
    case db::Kind::kStrInline:
    case db::Kind::kStrInt:
    case db::Kind::kStrHeap:
      return 0;
  }
  return 0;  // not reached: the switch returns for every kind
}

void valueDigestInto(uint8_t* dig, const db::Value& v, bool has_expire) {
  char scratch[64];
  uint32_t type = htonl(typeNumber(v.kind()));
  mixDigest(dig, &type, 4);
  switch (v.kind()) {
    case db::Kind::kList: {
      const auto& l = *static_cast<const db::List*>(v.collection());
      for (auto it = l.first(); it.valid(); it = l.next(it)) mixStr(dig, l.get(it).view(scratch));
      break;
    }
    case db::Kind::kSet:
      db::asSet(v)->forEach([&](std::string_view m) { xorDigest(dig, m.data(), m.size()); });
      break;
    case db::Kind::kHash:
      db::asHash(v)->forEach([&](std::string_view f, std::string_view val) {
        Dig e = {};
        mixStr(e, f);
        mixStr(e, val);
        xorDigest(dig, e, 20);
      });
      break;
    case db::Kind::kZSet:
      static_cast<const db::ZSet*>(v.collection())->forEach([&](std::string_view m, double score) {
        Dig e = {};
        mixStr(e, m);
        char buf[64];
        int n = snprintf(buf, sizeof(buf), "%.17g", score);  // Redis 7.0's score text
        mixDigest(e, buf, static_cast<size_t>(n));
        xorDigest(dig, e, 20);
        return true;
      });
      break;
    case db::Kind::kStream: {
      // Entries only, as Redis: "ms.seq", then each field and value.
      db::StreamIterator it(*db::asStream(v), db::StreamID{}, db::StreamID::max(), false);
      db::StreamID id;
      int64_t nf;
      while (it.next(&id, &nf)) {
        std::string itemid = std::to_string(id.ms) + "." + std::to_string(id.seq);
        mixStr(dig, itemid);
        for (int64_t i = 0; i < nf; i++) {
          std::string_view f, fv;
          it.field(&f, &fv);
          mixStr(dig, f);
          mixStr(dig, fv);
        }
      }
      break;
    }
    case db::Kind::kNone:
    case db::Kind::kStrInline:
    case db::Kind::kStrInt:
    case db::Kind::kStrHeap:
      mixStr(dig, v.str(scratch));
      break;
  }
  if (has_expire) xorDigest(dig, "!!expire!!", 10);
}

std::string hex(const uint8_t* d) {
  static const char* k = "0123456789abcdef";
  std::string s(40, '0');
  for (int i = 0; i < 20; i++) {
    s[2 * i] = k[d[i] >> 4];
    s[2 * i + 1] = k[d[i] & 15];
  }
  return s;
}

}  // namespace

std::string datasetDigest(const std::vector<db::Db*>& dbs) {
  Dig final = {};
  for (db::Db* d : dbs) {
    if (d->size() == 0) continue;
    uint32_t id = htonl(static_cast<uint32_t>(d->id()));
    mixDigest(final, &id, 4);
    d->forEach([&](db::Entry* e) {
      Dig k = {};
      mixStr(k, e->keyView());
      valueDigestInto(k, e->val, e->hasExpire());
      xorDigest(final, k, 20);
    });
  }
  return hex(final);
}

std::string valueDigest(db::Db& d, std::string_view key) {
  Dig dig = {};
  db::Entry* e = d.peek(key);
  if (e != nullptr) valueDigestInto(dig, e->val, e->hasExpire());
  return hex(dig);
}

}  // namespace server::persist
