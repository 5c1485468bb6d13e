#include "server/request/keyspace.h"

#include "server/core/client.h"
#include "server/core/state.h"
#include "server/propagate/propagate.h"
#include "server/pubsub/tracking.h"
#include "server/request/blocking.h"
#include "server/request/multi.h"

namespace server {

db::Entry* lookupRead(Client* c, std::string_view key) {
  db::Entry* e = c->db()->find(key);
  if (e != nullptr) {
    g_server->stats.keyspace_hits++;
  } else {
    g_server->stats.keyspace_misses++;
    notify::keyEvent(c, notify::kKeyMiss, "keymiss", key);
  }
  return e;
}

db::Entry* lookupWrite(Client* c, std::string_view key) {
  return c->db()->find(key, true);
}

static db::Entry* checkKind(Client* c, db::Entry* e, db::Kind k, bool* wrongtype) {
  *wrongtype = e != nullptr && e->val.kind() != k;
  if (!*wrongtype) return e;
  c->addWrongType();
  return nullptr;
}

db::Entry* lookupReadKind(Client* c, std::string_view key, db::Kind k, bool* wrongtype) {
  return checkKind(c, lookupRead(c, key), k, wrongtype);
}

db::Entry* lookupWriteKind(Client* c, std::string_view key, db::Kind k, bool* wrongtype) {
  return checkKind(c, lookupWrite(c, key), k, wrongtype);
}

bool deleteStoreTarget(Client* c, std::string_view key) {
  db::Entry* e = c->db()->peek(key);
  if (e == nullptr) return false;
  c->db()->removeEntry(e);
  keyModified(c, key);
  notify::keyEvent(c, notify::kGeneric, "del", key);
  return true;
}

void keyModified(Client* c, std::string_view key) {
  keyModifiedInDb(c->db(), key);
}

void keyModifiedInDb(db::Db* d, std::string_view key) {
  blocking::signalKey(d, key);
  touchWatchedKey(d, key);
  tracking::invalidateKey(key, g_server->current_client);
  g_server->dirty++;
}

void keyEvicted(db::Db* d, std::string_view key, bool lazy_free) {
  if (propagate::wanted()) propagate::keyEvicted(d->id(), key, lazy_free);
  touchWatchedKey(d, key);
  tracking::invalidateKey(key, nullptr);
  notify::keyspaceEvent(notify::kEvicted, "evicted", key, d->id());
}

void dbModified(db::Db* d) {
  blocking::signalDb(d);
  g_server->dirty++;
}

void dbWillChange(db::Db* d, db::Db* replaced_with) {
  touchWatchedKeysInDb(d, replaced_with);
}

}  // namespace server
