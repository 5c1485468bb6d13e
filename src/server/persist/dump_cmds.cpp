// DUMP key / RESTORE key ttl payload [REPLACE] [ABSTTL] [IDLETIME s] [FREQ f],
// with Redis 7.0's replies and checks in its order.
#include <string>

#include "common/log.h"
#include "common/strutil.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/db/lfu.h"
#include "server/persist/dump_payload.h"
#include "server/persist/snapshot.h"
#include "server/propagate/propagate.h"
#include "server/request/keyspace.h"

namespace server::persist {

using server::Client;

namespace {

void dumpCommand(Client* c) {
  db::Entry* e = server::lookupRead(c, c->arg(1));
  if (e == nullptr) {
    c->addNull();
    return;
  }
  c->addBulk(makeDumpPayload(e->val, server::g_server->config.rdbcompression));
}

void restoreCommand(Client* c) {
  bool replace = false, absttl = false;
  int64_t idle = -1, freq = -1;
  for (size_t j = 4; j < c->argc(); j++) {
    std::string_view a = c->arg(j);
    bool more = j + 1 < c->argc();
    if (common::strutil::equalsIgnoreCase(a, "REPLACE")) {
      replace = true;
    } else if (common::strutil::equalsIgnoreCase(a, "ABSTTL")) {
      absttl = true;
    } else if (common::strutil::equalsIgnoreCase(a, "IDLETIME") && more && freq == -1) {
      if (!common::strutil::parseInt64(c->arg(j + 1), &idle)) {
        c->addNotInteger();
        return;
      }
      if (idle < 0) {
        c->addError("Invalid IDLETIME value, must be >= 0");
        return;
      }
      j++;
    } else if (common::strutil::equalsIgnoreCase(a, "FREQ") && more && idle == -1) {
      if (!common::strutil::parseInt64(c->arg(j + 1), &freq)) {
        c->addNotInteger();
        return;
      }
      if (freq < 0 || freq > 255) {
        c->addError("Invalid FREQ value, must be >= 0 and <= 255");
        return;
      }
      j++;
    } else {
      c->addSyntaxError();
      return;
    }
  }
  std::string_view key = c->arg(1);
  db::Db* d = c->db();
  if (!replace && server::lookupWrite(c, key) != nullptr) {
    c->addError("-BUSYKEY Target key name already exists.");
    return;
  }
  int64_t ttl;
  if (!common::strutil::parseInt64(c->arg(2), &ttl)) {
    c->addNotInteger();
    return;
  }
  if (ttl < 0) {
    c->addError("Invalid TTL value, must be >= 0");
    return;
  }
  std::string_view payload = c->arg(3);
  if (!verifyDumpPayload(payload)) {
    c->addError("DUMP payload version or checksum are wrong");
    return;
  }
  db::Value v;
  std::string err;
  std::string note;
  if (!decodeDumpPayload(payload, loadLimits(), &v, &err, db::Clock::nowMs, &note)) {
    LOG_VERBOSE("RESTORE of a bad payload: %s", err.c_str());
    c->addError("Bad data format");
    return;
  }
  if (!note.empty()) LOG_NOTICE("RESTORE of key '%s': %s", std::string(key).c_str(), note.c_str());
  bool deleted = replace && d->remove(key);
  if (ttl > 0 && !absttl) ttl += db::Clock::nowMs;
  if (ttl > 0 && ttl <= db::Clock::nowMs) {
    // Already expired: the key is not created (an old one was deleted).
    if (deleted) {
      server::keyModified(c, key);
      server::notify::keyEvent(c, server::notify::kGeneric, "del", key);
      if (server::propagate::wanted()) server::propagate::rewrite({"DEL", key});
    }
    c->addOk();
    return;
  }
  db::Entry* e = d->add(key, std::move(v));
  if (ttl > 0) d->setExpire(e, ttl);
  if (db::lfu::params.enabled) {
    if (freq >= 0)
      e->lru = (db::lfu::minutesOf(db::Clock::nowMs) << 8 | static_cast<uint32_t>(freq)) & 0xffffff;
  } else if (idle >= 0) {
    e->lru = (db::Clock::lruSeconds - static_cast<uint32_t>(idle)) & 0xffffff;
  }
  server::keyModified(c, key);
  server::notify::keyEvent(c, server::notify::kGeneric, "restore", key);
  // A relative TTL is fed as the absolute time with ABSTTL appended.
  if (ttl > 0 && !absttl && server::propagate::wanted()) {
    std::vector<std::string_view> argv = c->argv();
    std::string when = std::to_string(ttl);
    argv[2] = when;
    argv.push_back("ABSTTL");
    server::propagate::rewrite(argv);
  }
  c->addOk();
}

}  // namespace

void registerDumpCommands(server::CommandTable& t) {
  using namespace server;
  static constexpr const char* kRestoreComplexity =
      "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, "
      "where N is the number of Redis objects composing the value and M their average size. For "
      "small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply "
      "O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting "
      "values into sorted sets is O(log(N)).";
  t.add({"dump", 2, kReadOnly, dumpCommand, 1, 1, 1, "generic",
         "Return a serialized version of the value stored at the specified key.", "2.6.0",
         "O(1) to access the key and additional O(N*M) to serialize it, where N is the number of "
         "Redis objects composing the value and M their average size. For small string values the "
         "time complexity is thus O(1)+O(1*M) where M is small, so simply O(1).",
         "keyspace read slow"});
  t.add({"restore", -4, kWrite | kDenyOom, restoreCommand, 1, 1, 1, "generic",
         "Create a key using the provided serialized value, previously obtained using DUMP.",
         "2.6.0", kRestoreComplexity, "keyspace write slow dangerous"});
  // What MIGRATE sends in Redis's cluster mode; the same as RESTORE here.
  t.add({"restore-asking", -4, kWrite | kDenyOom | kAsking, restoreCommand, 1, 1, 1, "server",
         "An internal command for migrating keys in a cluster", "3.0.0", kRestoreComplexity,
         "keyspace write slow dangerous"});
}

}  // namespace server::persist
