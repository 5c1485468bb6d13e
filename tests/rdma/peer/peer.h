// Options of rdma-test-peer and its server mode (peer_server.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "net/rdma/dialect.h"
#include "net/rdma/wire.h"

namespace peer {

struct Options {
  std::string host;
  int port = 0;
  std::string mode = "normal";
  net::rdma::DialectId dialect = net::rdma::DialectId::kOurs;
  // --dialect legacy: ours as builds of our client before the dialects
  // behaved: no kHello, no read resources, waits for the server to speak.
  bool legacy = false;
  // RDMA-read resources asked in the connect request (responder resources
  // and initiator depth); -1: as the dialect's clients do (ours 0, seed and
  // valkey 1, as libvalkey).
  int read_resources = -1;
  int timeout_ms = 5000;
  uint32_t rx_size = net::rdma::kDefaultRxSize;
  int repeat = 1;
  bool pipeline = false;
  int connections = 1;
  bool listen = false;
  bool print_rereg = false;
  // --flow: offer flow control (ours); the server's accept says if it took it.
  bool flow = false;
  // --pause-ms (over-write): milliseconds between "result: ready" and the writes.
  int pause_ms = 0;
  std::vector<std::string> cmd;
};

// --listen: a small RESP server speaking o.dialect (seed or valkey) on
// o.host:o.port, serving any number of connections at once. Prints
// "result: listening" once bound. Returns when --connections connections
// have closed (0 never: runs until killed). Exit status as main's.
int serve(const Options& o);

}  // namespace peer
