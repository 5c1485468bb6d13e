// The body HDEL and SREM share.
#pragma once

#include <cstdint>

#include "server/core/client.h"
#include "server/request/keyspace.h"

namespace server {

// Removes argv[2..] from the collection of type T (db::Hash, db::Set: any
// with size() and remove(member)) at argv[1], which must be of kind k:
// WRONGTYPE otherwise. Deletes the key once it is empty (collections are
// never left empty), signals the change when anything was removed, and
// replies the number removed (0 for a missing key). Publishes `event`
// (class notify_class) and "del" when the key went.
template <typename T>
void removeMembersCommand(Client* c, db::Kind k, int notify_class, const char* event) {
  std::string_view key = c->arg(1);
  bool wrongtype;
  db::Entry* e = lookupWriteKind(c, key, k, &wrongtype);
  if (wrongtype) return;
  int64_t removed = 0;
  if (e != nullptr) {
    auto* coll = static_cast<T*>(e->val.collection());
    for (size_t i = 2; i < c->argc() && coll->size() > 0; i++) {
      if (coll->remove(c->arg(i))) removed++;
    }
    bool deleted = coll->size() == 0;
    if (deleted) c->db()->removeEntry(e);
    if (removed > 0) {
      keyModified(c, key);
      notify::keyEvent(c, notify_class, event, key);
      if (deleted) notify::keyEvent(c, notify::kGeneric, "del", key);
    }
  }
  c->addInteger(removed);
}

}  // namespace server
