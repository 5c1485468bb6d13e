// HyperLogLog commands: PFADD PFCOUNT PFMERGE, and the internal PFDEBUG
// and PFSELFTEST. Values are plain strings in Redis's HLL format (see
// db/hyperloglog.h); anything else that is a string is refused with
// Redis's "not a valid HyperLogLog" WRONGTYPE error, and a sparse body that
// does not decode with INVALIDOBJ.
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/strutil.h"
#include "server/commands/families.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/db/hyperloglog.h"
#include "server/request/keyspace.h"

namespace server {
namespace {

constexpr const char* kCorrupt = "-INVALIDOBJ Corrupted HLL object detected";

size_t sparseMaxBytes() {
  return static_cast<size_t>(g_server->config.hll_sparse_max_bytes);
}

// The entry's string if it is a usable HLL; otherwise replies WRONGTYPE
// (Redis's generic text for other types, its HLL text for other strings)
// and returns false.
bool hllValue(Client* c, const db::Entry* e, std::string_view* out) {
  if (!e->val.isString()) {
    c->addWrongType();
    return false;
  }
  // An int-encoded value is never an HLL (and its digits would live in a
  // scratch buffer).
  std::string_view s = e->val.isInt() ? std::string_view() : e->val.str(nullptr);
  if (!db::hll::looksValid(s)) {
    c->addError("-WRONGTYPE Key is not a valid HyperLogLog string value.");
    return false;
  }
  *out = s;
  return true;
}

// Replaces the entry's value with the edited copy (the TTL stays).
void storeHll(db::Entry* e, const std::string& hll) {
  e->val = db::Value::fromBytes(hll, true);
}

void pfaddCommand(Client* c) {
  std::string_view key = c->arg(1);
  db::Entry* e = lookupWrite(c, key);
  std::string_view cur;
  bool updated = false;
  if (e == nullptr) {
    e = c->db()->add(key, db::Value::fromBytes(db::hll::createEmpty(), true));
    updated = true;
    cur = e->val.str(nullptr);
  } else if (!hllValue(c, e, &cur)) {
    return;
  }
  if (db::hll::encodingOf(cur) == db::hll::kDense) {
    // Dense never changes size: edit in place.
    auto* p = reinterpret_cast<uint8_t*>(e->val.mutableBytes(db::hll::kDenseSize));
    for (size_t i = 2; i < c->argc(); i++) updated |= db::hll::addDense(p, c->arg(i)) == 1;
    if (updated) db::hll::invalidateCache(p);
  } else {
    std::string work(cur);
    for (size_t i = 2; i < c->argc(); i++) {
      int r = db::hll::add(&work, c->arg(i), sparseMaxBytes());
      if (r < 0) {
        c->addError(kCorrupt);
        return;
      }
      updated |= r == 1;
    }
    if (updated) {
      db::hll::invalidateCache(reinterpret_cast<uint8_t*>(work.data()));
      storeHll(e, work);
    }
  }
  if (updated) {
    keyModified(c, key);
    notify::keyEvent(c, notify::kString, "pfadd", key);
  }
  c->addInteger(updated ? 1 : 0);
}

void pfcountCommand(Client* c) {
  if (c->argc() > 2) {
    // The union's registers; nothing is written back.
    uint8_t max[db::hll::kRegisters] = {};
    for (size_t i = 1; i < c->argc(); i++) {
      db::Entry* e = lookupRead(c, c->arg(i));
      if (e == nullptr) continue;  // an empty HLL
      std::string_view s;
      if (!hllValue(c, e, &s)) return;
      if (!db::hll::mergeInto(max, s)) {
        c->addError(kCorrupt);
        return;
      }
    }
    c->addInteger(static_cast<int64_t>(db::hll::estimateRaw(max)));
    return;
  }
  db::Entry* e = lookupRead(c, c->arg(1));
  if (e == nullptr) {
    c->addInteger(0);
    return;
  }
  std::string_view s;
  if (!hllValue(c, e, &s)) return;
  uint64_t card;
  if (db::hll::cacheValid(s)) {
    card = db::hll::cachedCount(s);
  } else {
    if (!db::hll::count(s, &card)) {
      c->addError(kCorrupt);
      return;
    }
    // The cache lives in the value itself, so a recount is a write.
    auto* p = reinterpret_cast<uint8_t*>(e->val.mutableBytes(s.size()));
    db::hll::setCachedCount(p, card);
    keyModified(c, c->arg(1));
  }
  c->addInteger(static_cast<int64_t>(card));
}

void pfmergeCommand(Client* c) {
  uint8_t max[db::hll::kRegisters] = {};
  bool any_dense = false;
  // The destination is also a source.
  for (size_t i = 1; i < c->argc(); i++) {
    db::Entry* e = lookupRead(c, c->arg(i));
    if (e == nullptr) continue;
    std::string_view s;
    if (!hllValue(c, e, &s)) return;
    if (db::hll::encodingOf(s) == db::hll::kDense) any_dense = true;
    if (!db::hll::mergeInto(max, s)) {
      c->addError(kCorrupt);
      return;
    }
  }
  std::string_view key = c->arg(1);
  db::Entry* e = lookupWrite(c, key);
  std::string work = e == nullptr ? db::hll::createEmpty() : std::string(e->val.str(nullptr));
  // A dense input makes the result dense at once rather than growing a
  // sparse one until it converts.
  if (any_dense && !db::hll::toDense(&work)) {
    c->addError(kCorrupt);
    return;
  }
  for (uint32_t i = 0; i < db::hll::kRegisters; i++) {
    if (max[i] != 0) db::hll::setRegister(&work, i, max[i], sparseMaxBytes());
  }
  db::hll::invalidateCache(reinterpret_cast<uint8_t*>(work.data()));
  if (e == nullptr)
    c->db()->add(key, db::Value::fromBytes(work, true));
  else
    storeHll(e, work);
  keyModified(c, key);
  notify::keyEvent(c, notify::kString, "pfadd", key);
  c->addOk();
}

void pfdebugCommand(Client* c) {
  std::string_view sub = c->arg(1);
  std::string_view key = c->arg(2);
  db::Entry* e = lookupWrite(c, key);
  if (e == nullptr) {
    c->addError("The specified key does not exist");
    return;
  }
  std::string_view s;
  if (!hllValue(c, e, &s)) return;
  bool sparse = db::hll::encodingOf(s) == db::hll::kSparse;
  // GETREG and TODENSE leave the value dense, as in Redis.
  auto densify = [&]() {
    std::string work(s);
    if (!db::hll::toDense(&work)) return false;
    storeHll(e, work);
    keyModified(c, key);
    s = e->val.str(nullptr);
    return true;
  };
  if (common::strutil::equalsIgnoreCase(sub, "getreg")) {
    if (sparse && !densify()) {
      c->addError(kCorrupt);
      return;
    }
    const auto* regs = reinterpret_cast<const uint8_t*>(s.data()) + db::hll::kHeaderSize;
    c->addArrayLen(db::hll::kRegisters);
    for (uint32_t i = 0; i < db::hll::kRegisters; i++) c->addInteger(db::hll::denseGet(regs, i));
  } else if (common::strutil::equalsIgnoreCase(sub, "decode")) {
    if (!sparse) {
      c->addError("HLL encoding is not sparse");
      return;
    }
    c->addBulk(db::hll::describeSparse(s));
  } else if (common::strutil::equalsIgnoreCase(sub, "encoding")) {
    c->addStatus(sparse ? "sparse" : "dense");
  } else if (common::strutil::equalsIgnoreCase(sub, "todense")) {
    if (sparse && !densify()) {
      c->addError(kCorrupt);
      return;
    }
    c->addInteger(sparse ? 1 : 0);
  } else {
    std::string name(sub);
    c->addErrorFormat("Unknown PFDEBUG subcommand '%s'", name.c_str());
  }
}

// Checks the encodings against each other: random registers read back from
// the dense layout, and random elements added to a sparse and a dense HLL
// give the same count, with the estimate near the truth.
void pfselftestCommand(Client* c) {
  std::mt19937_64 rng(12345);
  std::vector<uint8_t> regs(db::hll::kDenseSize - db::hll::kHeaderSize);
  std::vector<uint8_t> model(db::hll::kRegisters);
  for (int round = 0; round < 4; round++) {
    for (uint32_t i = 0; i < db::hll::kRegisters; i++) {
      model[i] = static_cast<uint8_t>(rng() & 63);
      db::hll::denseSet(regs.data(), i, model[i]);
    }
    for (uint32_t i = 0; i < db::hll::kRegisters; i++) {
      if (db::hll::denseGet(regs.data(), i) != model[i]) {
        c->addErrorFormat("-TESTFAILED Register error at %u", i);
        return;
      }
    }
  }
  std::string sparse = db::hll::createEmpty();
  std::string dense = db::hll::createEmpty();
  db::hll::toDense(&dense);
  const uint64_t kElements = 100000;
  for (uint64_t n = 1; n <= kElements; n++) {
    uint64_t ele = rng();
    std::string_view v(reinterpret_cast<const char*>(&ele), sizeof(ele));
    db::hll::add(&sparse, v, db::hll::kDenseSize);
    db::hll::add(&dense, v, db::hll::kDenseSize);
    if (n % 1000 != 0) continue;
    uint64_t a = 0, b = 0;
    if (!db::hll::count(sparse, &a) || !db::hll::count(dense, &b) || a != b) {
      c->addErrorFormat("-TESTFAILED sparse and dense counts differ at %llu elements",
                        static_cast<unsigned long long>(n));
      return;
    }
    double err = (static_cast<double>(b) - static_cast<double>(n)) / static_cast<double>(n);
    if (err < 0) err = -err;
    // Five standard errors (1.04/sqrt(16384) = 0.81%) plus slack for small n.
    if (err > 5 * 0.0081 + 5.0 / static_cast<double>(n)) {
      c->addErrorFormat("-TESTFAILED too big error. card:%llu abserr:%f",
                        static_cast<unsigned long long>(n), err);
      return;
    }
  }
  c->addOk();
}

}  // namespace

void registerHllCommands(CommandTable& t) {
  t.add({"pfadd", -2, kWrite | kDenyOom | kFast, pfaddCommand, 1, 1, 1, "hyperloglog",
         "Adds the specified elements to the specified HyperLogLog.", "2.8.9",
         "O(1) to add every element.", "write hyperloglog fast"});
  t.add({"pfcount", -2, kReadOnly | kMayReplicate, pfcountCommand, 1, -1, 1, "hyperloglog",
         "Return the approximated cardinality of the set(s) observed by the HyperLogLog at "
         "key(s).",
         "2.8.9",
         "O(1) with a very small average constant time when called with a single key. O(N) "
         "with N being the number of keys, and much bigger constant times, when called with "
         "multiple keys.",
         "read hyperloglog slow"});
  t.add({"pfmerge", -2, kWrite | kDenyOom, pfmergeCommand, 1, -1, 1, "hyperloglog",
         "Merge N different HyperLogLogs into a single one.", "2.8.9",
         "O(N) to merge N HyperLogLogs, but with high constant times.", "write hyperloglog slow"});
  t.add({"pfdebug", 3, kWrite | kDenyOom | kAdmin, pfdebugCommand, 2, 2, 1, "hyperloglog",
         "Internal commands for debugging HyperLogLog values", "2.8.9", "N/A",
         "write hyperloglog admin slow dangerous"});
  t.add({"pfselftest", 1, kAdmin, pfselftestCommand, 0, 0, 0, "hyperloglog",
         "An internal command for testing HyperLogLog values", "2.8.9", "N/A",
         "hyperloglog admin slow dangerous"});
}

}  // namespace server
