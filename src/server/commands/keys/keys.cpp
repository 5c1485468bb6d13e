// Generic key commands: DEL UNLINK EXISTS TYPE TOUCH RENAME RENAMENX MOVE
// COPY, the whole-db commands DBSIZE FLUSHDB FLUSHALL SWAPDB, and OBJECT.
// Expiry commands are in expire.cpp, KEYS/SCAN/RANDOMKEY in scan.cpp.
#include <climits>
#include <string>

#include "common/strutil.h"
#include "server/commands/families.h"
#include "server/commands/subfamilies.h"
#include "server/core/client.h"
#include "server/core/reply_helpers.h"
#include "server/core/state.h"
#include "server/db/lfu.h"
#include "server/evict/allocator.h"
#include "server/evict/evict.h"
#include "server/evict/lazyfree.h"
#include "server/persist/persist.h"
#include "server/propagate/propagate.h"
#include "server/pubsub/tracking.h"
#include "server/request/blocking.h"
#include "server/request/keyspace.h"

namespace server {

db::Entry* lookupReadNoTouch(Client* c, std::string_view key, bool notify_miss) {
  db::Db* d = c->db();
  db::Entry* e = d->peek(key);
  if (e != nullptr && e->hasExpire() && d->isExpired(e)) {
    d->find(key);  // deletes it (lazy expiry)
    e = nullptr;
  }
  if (e != nullptr) {
    g_server->stats.keyspace_hits++;
  } else {
    g_server->stats.keyspace_misses++;
    if (notify_miss) notify::keyEvent(c, notify::kKeyMiss, "keymiss", key);
  }
  return e;
}

namespace {

// DEL frees values as lazyfree-lazy-user-del says; UNLINK always hands big
// ones to the lazy-free thread.
void delCommand(Client* c) {
  bool lazy = c->cur_cmd->name[0] == 'u' || g_server->config.lazyfree_lazy_user_del;
  int64_t n = 0;
  for (size_t i = 1; i < c->argc(); i++) {
    if (c->db()->remove(c->arg(i), lazy)) {
      keyModified(c, c->arg(i));
      notify::keyEvent(c, notify::kGeneric, "del", c->arg(i));
      n++;
    }
  }
  c->addInteger(n);
}

void existsCommand(Client* c) {
  int64_t n = 0;
  for (size_t i = 1; i < c->argc(); i++) {
    if (lookupReadNoTouch(c, c->arg(i)) != nullptr) n++;
  }
  c->addInteger(n);
}

void touchCommand(Client* c) {
  int64_t n = 0;
  for (size_t i = 1; i < c->argc(); i++) {
    if (lookupRead(c, c->arg(i)) != nullptr) n++;
  }
  c->addInteger(n);
}

void typeCommand(Client* c) {
  db::Entry* e = lookupReadNoTouch(c, c->arg(1));
  c->addStatus(db::typeName(e == nullptr ? db::Kind::kNone : e->val.kind()));
}

void renameGeneric(Client* c, bool nx) {
  std::string_view from = c->arg(1), to = c->arg(2);
  db::Db* d = c->db();
  db::Entry* src = lookupWrite(c, from);
  if (src == nullptr) {
    c->addError("no such key");
    return;
  }
  if (from == to) {
    if (nx)
      c->addInteger(0);
    else
      c->addOk();
    return;
  }
  // Entries never move in memory, so src survives this lookup (which may
  // only delete `to` if it expired).
  db::Entry* dst = lookupWrite(c, to);
  if (dst != nullptr) {
    if (nx) {
      c->addInteger(0);
      return;
    }
    d->removeEntry(dst);
  }
  int64_t expire_ms;
  db::Value v = d->take(src, &expire_ms);
  db::Entry* e = d->add(to, std::move(v));
  if (expire_ms != -1) d->setExpire(e, expire_ms);
  keyModified(c, from);
  keyModified(c, to);
  notify::keyEvent(c, notify::kGeneric, "rename_from", from);
  notify::keyEvent(c, notify::kGeneric, "rename_to", to);
  if (nx)
    c->addInteger(1);
  else
    c->addOk();
}
void renameCommand(Client* c) {
  renameGeneric(c, false);
}
void renamenxCommand(Client* c) {
  renameGeneric(c, true);
}

// A db index argument: an int (else the not-integer error or `msg`), then
// in range (else "DB index is out of range"). nullptr after replying.
db::Db* dbArg(Client* c, size_t i, const char* msg) {
  int64_t id;
  if (!common::strutil::parseInt64(c->arg(i), &id) || id < INT_MIN || id > INT_MAX) {
    c->addError(msg != nullptr ? msg : "value is not an integer or out of range");
    return nullptr;
  }
  if (id < 0 || id >= static_cast<int64_t>(g_server->dbs.size())) {
    c->addError("DB index is out of range");
    return nullptr;
  }
  return &g_server->dbAt(static_cast<int>(id));
}

void moveCommand(Client* c) {
  if (g_server->config.cluster_enabled) {
    c->addError("MOVE is not allowed in cluster mode");
    return;
  }
  std::string_view key = c->arg(1);
  db::Db* src = c->db();
  db::Db* dst = dbArg(c, 2, nullptr);
  if (dst == nullptr) return;
  if (dst == src) {
    c->addError("source and destination objects are the same");
    return;
  }
  db::Entry* e = lookupWrite(c, key);
  if (e == nullptr || dst->find(key) != nullptr) {
    c->addInteger(0);
    return;
  }
  int64_t expire_ms;
  db::Value v = src->take(e, &expire_ms);
  db::Entry* moved = dst->add(key, std::move(v));
  if (expire_ms != -1) dst->setExpire(moved, expire_ms);
  keyModified(c, key);
  keyModifiedInDb(dst, key);
  notify::keyEvent(c, notify::kGeneric, "move_from", key);
  notify::keyspaceEvent(notify::kGeneric, "move_to", key, dst->id());
  c->addInteger(1);
}

void copyCommand(Client* c) {
  std::string_view from = c->arg(1), to = c->arg(2);
  db::Db* src = c->db();
  db::Db* dst = src;
  bool replace = false;
  for (size_t i = 3; i < c->argc(); i++) {
    if (common::strutil::equalsIgnoreCase(c->arg(i), "REPLACE")) {
      replace = true;
    } else if (common::strutil::equalsIgnoreCase(c->arg(i), "DB") && i + 1 < c->argc()) {
      dst = dbArg(c, ++i, nullptr);
      if (dst == nullptr) return;
    } else {
      c->addSyntaxError();
      return;
    }
  }
  if (g_server->config.cluster_enabled && (src->id() != 0 || dst->id() != 0)) {
    c->addError("Copying to another database is not allowed in cluster mode");
    return;
  }
  if (src == dst && from == to) {
    c->addError("source and destination objects are the same");
    return;
  }
  db::Entry* e = lookupRead(c, from);
  if (e == nullptr) {
    c->addInteger(0);
    return;
  }
  db::Entry* old = dst->find(to);
  if (old != nullptr) {
    if (!replace) {
      c->addInteger(0);
      return;
    }
    dst->removeEntry(old);
  }
  int64_t expire_ms = src->expireOf(e);
  db::Entry* copy = dst->add(to, e->val.clone());
  if (expire_ms != -1) dst->setExpire(copy, expire_ms);
  keyModifiedInDb(dst, to);
  notify::keyspaceEvent(notify::kGeneric, "copy_to", to, dst->id());
  c->addInteger(1);
}

void dbsizeCommand(Client* c) {
  c->addInteger(static_cast<int64_t>(c->db()->size()));
}

// FLUSHDB/FLUSHALL [ASYNC|SYNC]: ASYNC empties the db at once and frees the
// old keys on the lazy-free thread; without an argument
// lazyfree-lazy-user-flush decides. *async receives the mode.
bool parseFlushMode(Client* c, bool* async) {
  *async = g_server->config.lazyfree_lazy_user_flush;
  if (c->argc() == 1) return true;
  if (c->argc() == 2) {
    if (common::strutil::equalsIgnoreCase(c->arg(1), "ASYNC")) {
      *async = true;
      return true;
    }
    if (common::strutil::equalsIgnoreCase(c->arg(1), "SYNC")) {
      *async = false;
      return true;
    }
  }
  c->addSyntaxError();
  return false;
}

// Empties the database. The dirty counter grows by the keys it held, as
// Redis counts a flush; FLUSHDB and FLUSHALL reach replicas and the AOF by
// forced propagation, an empty database's flush included.
void flushOne(db::Db* d, bool async) {
  size_t keys = d->size();
  dbWillChange(d, nullptr);
  if (async) {
    evict::lazyfree::freeDbAsync(d->detachAll());
  } else {
    d->clear();
  }
  blocking::signalDb(d);
  g_server->dirty += static_cast<int64_t>(keys);
}

// A synchronous flush already took time in proportion to the data: the
// freed pages go back to the system now, as Redis does, rather than over
// the allocator's decay period.
void flushdbCommand(Client* c) {
  bool async;
  if (!parseFlushMode(c, &async)) return;
  flushOne(c->db(), async);
  tracking::invalidateOnFlush(false);
  if (propagate::wanted()) propagate::forceCommand(propagate::kToAll);
  c->addOk();
  if (!async) evict::purge();
}

void flushallCommand(Client* c) {
  bool async;
  if (!parseFlushMode(c, &async)) return;
  for (auto& d : g_server->dbs) flushOne(d.get(), async);
  tracking::invalidateOnFlush(true);
  persist::afterFlushAll();  // with save points, the empty data set is saved now
  // The save resets the dirty counter: FLUSHALL is fed whatever it says.
  if (propagate::wanted()) propagate::forceCommand(propagate::kToAll);
  c->addOk();
  if (!async) evict::purge();
}

void swapdbCommand(Client* c) {
  if (g_server->config.cluster_enabled) {
    c->addError("SWAPDB is not allowed in cluster mode");
    return;
  }
  // Both indexes must be integers before either is range-checked.
  int64_t ids[2];
  const char* msgs[2] = {"invalid first DB index", "invalid second DB index"};
  for (int k = 0; k < 2; k++) {
    if (!common::strutil::parseInt64(c->arg(1 + k), &ids[k]) || ids[k] < INT_MIN ||
        ids[k] > INT_MAX) {
      c->addError(msgs[k]);
      return;
    }
  }
  db::Db* a = dbArg(c, 1, msgs[0]);
  if (a == nullptr) return;
  db::Db* b = dbArg(c, 2, msgs[1]);
  if (b == nullptr) return;
  // Clients keep pointing at the same Db objects; their contents swap.
  if (a != b) {
    dbWillChange(a, b);
    dbWillChange(b, a);
    a->swapWith(*b);
    dbModified(a);
    dbModified(b);
  }
  c->addOk();
}

// ---- OBJECT

void objectEncodingCommand(Client* c) {
  db::Entry* e = lookupReadNoTouch(c, c->arg(2), false);
  if (e == nullptr)
    c->addNull();
  else
    c->addBulk(e->val.encodingName());
}

void objectIdletimeCommand(Client* c) {
  db::Entry* e = lookupReadNoTouch(c, c->arg(2), false);
  if (e == nullptr) {
    c->addNull();
    return;
  }
  // Under an LFU policy the access field holds the LFU counter instead.
  if (db::lfu::params.enabled) {
    c->addError(
        "An LFU maxmemory policy is selected, idle time not tracked. Please note that when "
        "switching between policies at runtime LRU and LFU data will take some time to adjust.");
    return;
  }
  // The access clock is seconds modulo 2^24 (about 194 days), like Redis's.
  uint32_t idle = (db::Clock::lruSeconds - e->lru) & 0xffffff;
  c->addInteger(idle);
}

void objectRefcountCommand(Client* c) {
  db::Entry* e = lookupReadNoTouch(c, c->arg(2), false);
  if (e == nullptr) {
    c->addNull();
    return;
  }
  c->addInteger(evict::reportedRefcount(e->val));
}

void objectFreqCommand(Client* c) {
  db::Entry* e = lookupReadNoTouch(c, c->arg(2), false);
  if (e == nullptr) {
    c->addNull();
    return;
  }
  if (!db::lfu::params.enabled) {
    c->addError(
        "An LFU maxmemory policy is not selected, access frequency not tracked. Please note that "
        "when switching between policies at runtime LRU and LFU data will take some time to "
        "adjust.");
    return;
  }
  // The counter as decayed to now, without counting this look as an access.
  c->addInteger(db::lfu::decayedCounter(e->lru, db::Clock::nowMs, db::lfu::params.decay_time));
}

void objectHelpCommand(Client* c) {
  static const char* const kHelp[] = {
      "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "ENCODING <key>",
      "    Return the kind of internal representation used in order to store the value",
      "    associated with a <key>.",
      "FREQ <key>",
      "    Return the access frequency index of the <key>. The returned integer is",
      "    proportional to the logarithm of the recent access frequency of the key.",
      "IDLETIME <key>",
      "    Return the idle time of the <key>, that is the approximated number of",
      "    seconds elapsed since the last access to the key.",
      "REFCOUNT <key>",
      "    Return the number of references of the value associated with the specified",
      "    <key>.",
      "HELP",
      "    Prints this help.",
  };
  replyHelp(c, kHelp);
}

Command objectCommandEntry() {
  Command object{"object",
                 -2,
                 0,
                 objectHelpCommand,
                 0,
                 0,
                 0,
                 "generic",
                 "A container for object introspection commands",
                 "2.2.3",
                 "Depends on subcommand.",
                 "slow"};
  object.subcommands = {
      {"object|encoding", 3, kReadOnly, objectEncodingCommand, 2, 2, 1, "generic",
       "Inspect the internal encoding of a Redis object", "2.2.3", "O(1)", "keyspace read slow"},
      {"object|freq", 3, kReadOnly, objectFreqCommand, 2, 2, 1, "generic",
       "Get the logarithmic access frequency counter of a Redis object", "4.0.0", "O(1)",
       "keyspace read slow"},
      {"object|help", 2, kLoading | kStale, objectHelpCommand, 0, 0, 0, "generic",
       "Show helpful text about the different subcommands", "6.2.0", "O(1)", "keyspace slow"},
      {"object|idletime", 3, kReadOnly, objectIdletimeCommand, 2, 2, 1, "generic",
       "Get the time since a Redis object was last accessed", "2.2.3", "O(1)",
       "keyspace read slow"},
      {"object|refcount", 3, kReadOnly, objectRefcountCommand, 2, 2, 1, "generic",
       "Get the number of references to the value of the key", "2.2.3", "O(1)",
       "keyspace read slow"},
  };
  return object;
}

}  // namespace

void registerKeyCommands(CommandTable& t) {
  t.add({"del", -2, kWrite, delCommand, 1, -1, 1, "generic", "Delete a key", "1.0.0",
         "O(N) where N is the number of keys that will be removed. When a key to remove holds a "
         "value other than a string, the individual complexity for this key is O(M) where M is "
         "the number of elements in the list, set, sorted set or hash. Removing a single key "
         "that holds a string value is O(1).",
         "keyspace write slow"});
  t.add({"unlink", -2, kWrite | kFast, delCommand, 1, -1, 1, "generic",
         "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non "
         "blocking.",
         "4.0.0",
         "O(1) for each key removed regardless of its size. Then the command does O(N) work in a "
         "different thread in order to reclaim memory, where N is the number of allocations the "
         "deleted objects where composed of.",
         "keyspace write fast"});
  t.add({"exists", -2, kReadOnly | kFast, existsCommand, 1, -1, 1, "generic",
         "Determine if a key exists", "1.0.0", "O(N) where N is the number of keys to check.",
         "keyspace read fast"});
  t.add({"touch", -2, kReadOnly | kFast, touchCommand, 1, -1, 1, "generic",
         "Alters the last access time of a key(s). Returns the number of existing keys "
         "specified.",
         "3.2.1", "O(N) where N is the number of keys that will be touched.",
         "keyspace read fast"});
  t.add({"type", 2, kReadOnly | kFast, typeCommand, 1, 1, 1, "generic",
         "Determine the type stored at key", "1.0.0", "O(1)", "keyspace read fast"});
  t.add({"rename", 3, kWrite, renameCommand, 1, 2, 1, "generic", "Rename a key", "1.0.0", "O(1)",
         "keyspace write slow"});
  t.add({"renamenx", 3, kWrite | kFast, renamenxCommand, 1, 2, 1, "generic",
         "Rename a key, only if the new key does not exist", "1.0.0", "O(1)",
         "keyspace write fast"});
  t.add({"move", 3, kWrite | kFast, moveCommand, 1, 1, 1, "generic",
         "Move a key to another database", "1.0.0", "O(1)", "keyspace write fast"});
  t.add({"copy", -3, kWrite | kDenyOom, copyCommand, 1, 2, 1, "generic", "Copy a key", "6.2.0",
         "O(N) worst case for collections, where N is the number of nested items. O(1) for "
         "string values.",
         "keyspace write slow"});
  t.add({"dbsize", 1, kReadOnly | kFast, dbsizeCommand, 0, 0, 0, "server",
         "Return the number of keys in the selected database", "1.0.0", "O(1)",
         "keyspace read fast"});
  t.add({"flushdb", -1, kWrite, flushdbCommand, 0, 0, 0, "server",
         "Remove all keys from the current database", "1.0.0",
         "O(N) where N is the number of keys in the selected database",
         "keyspace write slow dangerous"});
  t.add({"flushall", -1, kWrite, flushallCommand, 0, 0, 0, "server",
         "Remove all keys from all databases", "1.0.0",
         "O(N) where N is the total number of keys in all databases",
         "keyspace write slow dangerous"});
  t.add({"swapdb", 3, kWrite | kFast, swapdbCommand, 0, 0, 0, "server", "Swaps two Redis databases",
         "4.0.0",
         "O(N) where N is the count of clients watching or blocking on keys from both databases.",
         "keyspace write fast dangerous"});
  t.add(objectCommandEntry());
  registerExpireCommands(t);
  registerIterationCommands(t);
}

}  // namespace server
