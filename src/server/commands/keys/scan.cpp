// Keyspace iteration: KEYS, SCAN (cursor, MATCH, COUNT, TYPE) and
// RANDOMKEY. SCAN's guarantee (every key present for the whole iteration is
// returned at least once) comes from common::Dict::scan.
#include <string>
#include <vector>

#include "common/strutil.h"
#include "server/commands/keys/scan_args.h"
#include "server/commands/subfamilies.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/propagate/propagate.h"
#include "server/request/keyspace.h"

namespace server {
namespace {

void keysCommand(Client* c) {
  std::string_view pattern = c->arg(1);
  bool all = patternMatchesAll(pattern);
  db::Db* d = c->db();
  resp::Writer& w = c->reply();
  void* len = w.beginDeferred();
  int64_t n = 0;
  // Expired keys are skipped, not deleted: the walk may not modify the db.
  d->forEach([&](db::Entry* e) {
    std::string_view key = e->keyView();
    if (!all && !common::strutil::globMatch(pattern, key)) return;
    if (e->hasExpire() && d->isExpired(e)) return;
    w.bulk(key);
    n++;
  });
  w.endDeferredArray(len, n);
}

void scanCommand(Client* c) {
  uint64_t cursor;
  if (!parseScanCursor(c->arg(1), &cursor)) {
    c->addError("invalid cursor");
    return;
  }
  ScanOptions o;
  if (!parseScanOptions(c, 2, true, &o)) return;

  // Entries collected by the dict walk; filtered afterwards, because
  // filtering may delete expired keys, which the walk itself may not do.
  static std::vector<db::Entry*> found;
  found.clear();
  db::Db* d = c->db();
  // Empty buckets cost a step too: the walk is bounded.
  cursor = boundedScan(cursor, o.count, [d](uint64_t from, size_t* seen) {
    uint64_t next = d->scan(from, [](db::Entry* e) { found.push_back(e); });
    *seen = found.size();
    return next;
  });

  resp::Writer& w = c->reply();
  beginScanReply(w, cursor);
  void* len = w.beginDeferred();
  int64_t shown = 0;
  for (db::Entry* e : found) {
    std::string_view key = e->keyView();
    if (!scanMatches(o, key)) continue;
    if (o.use_type && !common::strutil::equalsIgnoreCase(o.type, db::typeName(e->val.kind())))
      continue;
    if (e->hasExpire() && d->isExpired(e)) {
      if (propagate::wanted()) propagate::feedUnitBare();
      d->find(key);  // lazy expiry deletes it; other collected entries stay valid
      continue;
    }
    w.bulk(key);
    shown++;
  }
  w.endDeferredArray(len, shown);
  found.clear();
}

void randomkeyCommand(Client* c) {
  // The draw lazily expires the keys it meets: their DELs go out bare.
  if (propagate::wanted()) propagate::feedUnitBare();
  db::Entry* e = c->db()->randomEntry();
  if (e == nullptr)
    c->addNull();
  else
    c->addBulk(e->keyView());
}

}  // namespace

void registerIterationCommands(CommandTable& t) {
  t.add({"keys", 2, kReadOnly, keysCommand, 0, 0, 0, "generic",
         "Find all keys matching the given pattern", "1.0.0",
         "O(N) with N being the number of keys in the database, under the assumption that the "
         "key names in the database and the given pattern have limited length.",
         "keyspace read slow dangerous"});
  t.add({"scan", -2, kReadOnly, scanCommand, 0, 0, 0, "generic",
         "Incrementally iterate the keys space", "2.8.0",
         "O(1) for every call. O(N) for a complete iteration, including enough command calls "
         "for the cursor to return back to 0. N is the number of elements inside the "
         "collection.",
         "keyspace read slow"});
  t.add({"randomkey", 1, kReadOnly, randomkeyCommand, 0, 0, 0, "generic",
         "Return a random key from the keyspace", "1.0.0", "O(1)", "keyspace read slow"});
}

}  // namespace server
