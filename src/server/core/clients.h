// The clients as the modules below request/ (acl/, pubsub/, latency/) reach
// them, without the whole server state (core/state.h): the client running
// a command, lookup by id, the write queue, closing, iteration. Part of
// core/; defined in request/clients.cpp over the state's registry.
#pragma once

#include <cstdint>
#include <functional>

namespace server {

class Client;

// The client whose command runs now (nullptr between commands); ACL LOG
// sets it around a denial so the entry shows that client.
Client* currentClient();
void setCurrentClient(Client* c);
// nullptr when no live client has that id.
Client* findClientById(uint64_t id);
// Queues c for the write pass before the loop sleeps; the caller checks
// kPendingWrite first (a client is queued once).
void queueClientWrite(Client* c);
// Closes c once the current event is done (Server::freeClientAsync).
void closeClientAsync(Client* c);
// Every registered client, in connection order; fn may close clients
// asynchronously but must not free them.
void forEachClient(const std::function<void(Client*)>& fn);

}  // namespace server
