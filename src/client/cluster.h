// What a client of a Redis Cluster needs to know, shared by redis-cli (-c
// and --cluster) and redis-benchmark (--cluster): the hash slot of a key,
// a short hash tag for every slot, the -MOVED / -ASK redirections, and the
// lines of CLUSTER NODES, and the endpoint of a node. Pure functions: no
// I/O.
//
// Part of the client library (namespace client); included by cli/ and
// bench/.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/client.h"

namespace client {

inline constexpr int kClusterSlots = 16384;

// The slot of a key: CRC16 (XMODEM) of the key, or of its hash tag (the
// text between the first '{' and the next '}', when not empty), mod 16384.
int keyHashSlot(std::string_view key);

// A tag of 1 to 3 characters ([0-9A-Za-z]) whose hash slot is `slot`: a
// key with "{<tag>}" in it lands in that slot.
const std::string& slotTag(int slot);

// The endpoint of the cluster node at host:port, over the connection type
// of `like` (the one the user chose: tcp, tls, rdma). A unix socket names
// no cluster node, so with -s the library's default network type is used.
Endpoint nodeEndpoint(const Endpoint& like, const std::string& host, int port);

// Connects c to the cluster node at *ep (timeout as Client::connect). Over
// RDMA, a node that refuses is tried once more over TCP at the same address,
// and *ep is changed to say so: a node of this project names the other
// nodes' RDMA ports to an RDMA client, but a node without one (a Redis node
// in a mixed cluster) is named by its TCP port.
bool connectNode(Client* c, Endpoint* ep, int timeout_ms);

// A -MOVED or -ASK error: "MOVED <slot> <host>:<port>".
struct Redirect {
  bool ask = false;  // ASK (send ASKING before the retry) rather than MOVED
  int slot = 0;
  std::string host;
  int port = 0;
};
// True when err (the text of an error reply) is a redirection.
bool parseRedirect(std::string_view err, Redirect* out);

// One line of CLUSTER NODES.
struct ClusterNodeLine {
  std::string id;
  std::string host;  // as announced; may be empty (noaddr)
  int port = 0;
  int bus_port = 0;
  std::vector<std::string> flags;  // "myself", "master", "slave", "fail", ...
  std::string master_id;           // "-" for a master
  uint64_t config_epoch = 0;
  std::string link_state;                  // "connected" or "disconnected"
  std::vector<std::pair<int, int>> slots;  // ranges, inclusive
  // Open slots: (slot, the other node's ID).
  std::vector<std::pair<int, std::string>> migrating, importing;

  bool hasFlag(std::string_view f) const;
};
// Parses the whole reply; false (with *err) on a line it cannot read.
bool parseClusterNodes(std::string_view text, std::vector<ClusterNodeLine>* out, std::string* err);

}  // namespace client
