#include "server/persist/dump_payload.h"

#include "common/crc64.h"
#include "server/persist/rdb_format.h"
#include "server/persist/rdb_io.h"

namespace server::persist {

namespace {

// The RDB version in a payload's footer: [u16 version][u64 CRC-64], both
// little-endian (the payload is at least the footer long).
int footerVersion(std::string_view p) {
  const auto* f = reinterpret_cast<const uint8_t*>(p.data() + p.size() - 10);
  return f[0] | (f[1] << 8);
}

}  // namespace

std::string makeDumpPayload(const db::Value& v, bool compress) {
  RdbWriter w;
  w.setCompression(compress);
  w.byte(rdbTypeOf(v));
  saveValue(w, v);
  std::string& b = w.buffer();
  b.push_back(static_cast<char>(kRdbVersion & 0xff));
  b.push_back(static_cast<char>(kRdbVersion >> 8));
  uint64_t crc = common::crc64(0, b.data(), b.size());
  for (int i = 0; i < 8; i++) b.push_back(static_cast<char>(crc >> (8 * i)));
  return std::move(b);
}

bool verifyDumpPayload(std::string_view p) {
  if (p.size() < 10) return false;
  if (!rdbVersionKnown(footerVersion(p))) return false;
  const auto* f = reinterpret_cast<const uint8_t*>(p.data() + p.size() - 8);
  uint64_t stored = 0;
  for (int i = 7; i >= 0; i--) stored = (stored << 8) | f[i];
  return common::crc64(0, p.data(), p.size() - 8) == stored;
}

bool decodeDumpPayload(std::string_view p, const LoadLimits& lim, db::Value* out, std::string* err,
                       int64_t now_ms, std::string* note) {
  RdbReader r(reinterpret_cast<const uint8_t*>(p.data()), p.size() - 10);
  int version = footerVersion(p);
  r.setOrigin(version, rdbVersionIsValkey(version), now_ms);
  uint8_t type;
  if (!r.byte(&type) || !loadValue(r, type, lim, out)) {
    *err = r.error() + " (payload of RDB version " + std::to_string(version) + ")";
    return false;
  }
  if (out->empty()) {
    *err = "empty value";
    return false;
  }
  const RdbReader::FieldTtlNotes& n = r.fieldTtlNotes();
  if (note != nullptr && (n.kept_without_ttl > 0 || n.dropped_expired > 0))
    *note = std::to_string(n.kept_without_ttl) +
            " hash fields with an expiry time restored without it (no field expiry here), " +
            std::to_string(n.dropped_expired) + " already expired dropped";
  return true;
}

}  // namespace server::persist
