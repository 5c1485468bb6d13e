// DEBUG DIGEST / DIGEST-VALUE: a 20-byte fingerprint of the dataset or of
// single values, built as Redis builds it: SHA-1 digests combined with xor
// where order does not matter (sets, hash fields, keys of a db) and mixed
// (xor then re-hash) where it does (list elements, the db number), so the
// result depends on the contents only, never on encodings or table order.
#pragma once

#include <string>
#include <string_view>

#include "server/db/db.h"

namespace server::persist {

// 40 hex characters; all zeros for an empty dataset.
std::string datasetDigest(const std::vector<db::Db*>& dbs);
// Digest of one key's value (with its expiry flag); zeros when absent.
std::string valueDigest(db::Db& d, std::string_view key);

}  // namespace server::persist
