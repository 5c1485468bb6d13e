// The client registry of the server state (core/state.h): making, linking
// and freeing clients, the pending-write queue. Here rather than in core/
// because a new client gets the default ACL user and a freed one leaves the
// blocking lists.
#include <algorithm>

#include "server/acl/users.h"
#include "server/core/client.h"
#include "server/core/clients.h"
#include "server/core/state.h"
#include "server/request/blocking.h"
#include "server/request/threaded_io.h"

namespace server {

void Server::refuseClient(net::Connection* conn, std::string_view error) {
  stats.rejected_connections++;
  // The error goes through the normal reply path rather than one write
  // before close: a transport may not be able to take it yet (RDMA: until
  // the peer registered its receive buffer). The client is never read from
  // and is closed once the error is sent, or by the cron after
  // kRefusedLingerMs if the peer never lets it be sent.
  Client* c = newClient(conn);
  c->flags |= kProtectedRefuse | kCloseAfterReply;
  refused_clients++;
  linkClient(c);
  c->reply().raw(error);
  queueWrite(c);
}

Client* Server::newClient(net::Connection* conn) {
  auto* c = new Client(conn, next_client_id++, &dbAt(0));
  acl::attachDefaultUser(c);
  return c;
}

void Server::linkClient(Client* c) {
  clients.push_back(c);
  c->registry_pos = std::prev(clients.end());
}

void Server::unlinkClient(Client* c) {
  clients.erase(c->registry_pos);
  if (c->flags & kPendingRead) threaded_io::forget(c);
  if (c->flags & kPendingWrite) {
    auto it = std::find(pending_writes.begin(), pending_writes.end(), c);
    if (it != pending_writes.end()) *it = nullptr;
  }
}

void Server::freeClientAsync(Client* c) {
  if (c->flags & kCloseAsap) return;
  c->flags |= kCloseAsap;
  c->close_asap_ms = db::Clock::nowMs;
  if (c->flags & kProtectedRefuse) refused_clients--;
  blocking::onClientFree(c);
  // Stop reading right away: nothing more from this client is processed.
  if (c->conn() != nullptr) c->conn()->setReadHandler(nullptr);
  clients_to_close.push_back(c);
}

void Server::queueWrite(Client* c) {
  c->flags |= kPendingWrite;
  pending_writes.push_back(c);
}

Client* Server::findClientById(uint64_t id) {
  for (Client* c : clients) {
    if (c->id() == id) return c;
  }
  return nullptr;
}

Client* currentClient() {
  return g_server->current_client;
}

void setCurrentClient(Client* c) {
  g_server->current_client = c;
}

Client* findClientById(uint64_t id) {
  return g_server->findClientById(id);
}

void queueClientWrite(Client* c) {
  g_server->queueWrite(c);
}

void closeClientAsync(Client* c) {
  g_server->freeClientAsync(c);
}

void forEachClient(const std::function<void(Client*)>& fn) {
  for (Client* c : g_server->clients) fn(c);
}

}  // namespace server
