// What CLIENT LIST / CLIENT INFO show of a client, for the commands and for
// the server's own logs (slowlog peers, output-buffer-limit warnings).
// Sits above Client: it reads the state the features keep per client.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace server {

class Client;

// The fields of one CLIENT LIST / CLIENT INFO line. Kept apart from Client
// so the line format can be tested alone.
struct ClientLine {
  uint64_t id = 0;
  std::string addr, laddr;
  int fd = -1;
  std::string name;
  int64_t age = 0, idle = 0;
  std::string flags = "N";
  int db = 0;
  size_t sub = 0, psub = 0, ssub = 0;
  long multi = -1;  // queued commands, -1 outside MULTI
  size_t multi_mem = 0;
  size_t qbuf = 0, qbuf_free = 0, argv_mem = 0;
  size_t rbs = 0, rbp = 0, obl = 0, oll = 0, omem = 0, tot_mem = 0;
  std::string events;
  std::string cmd = "NULL";
  std::string user = "default";
  int64_t redir = -1;  // CLIENT TRACKING redirect (0 none), -1 when not tracking
  int resp = 2;
  std::string transport;
};

// Appends the line, Redis 7.0's fields in its order plus a last
// " transport=<type>[/<variant>]" field (Connection::transport()), and a terminating "\n".
void formatClientLine(const ClientLine& f, std::string* out);
// The fields of a live client.
ClientLine describeClient(Client* c);
// A replica's (kReplica) share of the replication stream it has not been
// sent yet, kept outside its connection's buffer: added to its omem and
// tot-mem, as Redis counts a replica's part of the shared replication
// buffer. Installed by server/repl; none by default.
void setReplicaPendingHook(size_t (*hook)(const Client* c));

}  // namespace server
