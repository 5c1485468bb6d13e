// The rdma type's server settings (rdma-port, rdma-bind, rdma-rx-size,
// rdma-completion-vector, rdma-keepalive-interval, and repl-transport, which
// puts a replica's link to its master on rdma): names, defaults and
// bounds, declared here for the server's options table; and the type's
// answers for its absence (transports.h). The one file of src/net/rdma/
// compiled with or without RDMA support (the Makefile keeps it): a
// redis.conf written for an RDMA build loads on a build without it (only a
// non-zero rdma-port is refused, when listeners open). The bounds themselves
// are net/rdma/options.h, shared with the type's configure().
#include <string>
#include <vector>

#include "common/strutil.h"
#include "net/rdma/options.h"
#include "net/transports.h"

namespace net {
namespace {

using Words = std::vector<std::string>;

// rdma-port reads as Redis reads every integer option (same error texts).
bool parsePort(const Words& w, std::string* canonical, std::string* err) {
  int64_t n = 0;
  if (!common::strutil::parseInt64(w[0], &n)) {
    *err = "argument couldn't be parsed into an integer";
    return false;
  }
  if (n < 0 || n > 65535) {
    *err = "argument must be between 0 and 65535 inclusive";
    return false;
  }
  *canonical = std::to_string(n);
  return true;
}

// Addresses are checked when the listener binds them (rdma_bind_addr).
bool parseBind(const Words& w, std::string* canonical, std::string*) {
  canonical->clear();
  for (const std::string& a : w) {
    if (!canonical->empty()) *canonical += ' ';
    *canonical += a;
  }
  return true;
}

bool parseRxSize(const Words& w, std::string* canonical, std::string* err) {
  uint32_t v = 0;
  if (!rdma::parseRxSize(w[0], &v, err)) return false;
  *canonical = std::to_string(v);
  return true;
}

bool parseCompletionVector(const Words& w, std::string* canonical, std::string* err) {
  int v = 0;
  if (!rdma::parseCompletionVector(w[0], &v, err)) return false;
  *canonical = std::to_string(v);
  return true;
}

bool parseFlowControl(const Words& w, std::string* canonical, std::string* err) {
  bool v = true;
  if (!rdma::parseFlowControl(w[0], &v, err)) return false;
  *canonical = v ? "yes" : "no";
  return true;
}

bool parseKeepalive(const Words& w, std::string* canonical, std::string* err) {
  int v = 0;
  if (!rdma::parseKeepaliveMs(w[0], &v, err)) return false;
  *canonical = std::to_string(v);
  return true;
}

// repl-transport (the type a replica reaches its master with) and
// cluster-bus-transport (the type cluster bus links use where the peer has
// it): tcp or rdma.
bool parseTransport(const Words& w, std::string* canonical, std::string* err) {
  if (common::strutil::equalsIgnoreCase(w[0], "tcp")) {
    *canonical = "tcp";
    return true;
  }
  if (!common::strutil::equalsIgnoreCase(w[0], "rdma")) {
    *err = "argument must be 'tcp' or 'rdma'";
    return false;
  }
#ifndef HAVE_RDMA
  *err = "RDMA support is not compiled in (build with BUILD_RDMA=yes)";
  return false;
#else
  *canonical = "rdma";
  return true;
#endif
}

const std::vector<SettingSpec>& table() {
  // All can change at run time. rdma-port and rdma-bind reopen the
  // listeners; rx-size, completion-vector and keepalive-interval reach the
  // type (applySettings) and apply to connections made afterwards;
  // repl-transport is read at each connection attempt of a replica;
  // cluster-bus-transport opens the cluster bus's listener of that type
  // (at start, and within 100 ms of a change, when links over the old one
  // close and come back: see src/server/cluster/bus.cpp);
  // cluster-announce-rdma-port reaches the bus's next message.
  static const std::vector<SettingSpec> kSettings = [] {
    std::vector<SettingSpec> v = {
        {"rdma-port", "0", true, false, parsePort},
        {"rdma-bind", "", true, true, parseBind},
        {"rdma-rx-size", "1048576", true, false, parseRxSize},
        {"rdma-completion-vector", "-1", true, false, parseCompletionVector},
        {"rdma-keepalive-interval", "3000", true, false, parseKeepalive},
        {"rdma-flow-control", "yes", true, false, parseFlowControl},
        {"repl-transport", "tcp", true, false, parseTransport},
        {"cluster-bus-transport", "tcp", true, false, parseTransport},
        {"cluster-announce-rdma-port", "0", true, false, parsePort},
    };
    v[0].reopens_listeners = true;
    v[1].reopens_listeners = true;
    return v;
  }();
  static_assert(rdma::kDefaultRxSize == 1048576 && rdma::kDefaultKeepaliveMs == 3000,
                "the defaults above are the transport's");
  return kSettings;
}

}  // namespace

const std::vector<SettingSpec>& rdma::settings() {
  return table();
}

// The rdma type answers for its absence from a build without RDMA
// (transports.h): its settings still load, a non-zero rdma-port is refused.
const std::vector<SettingSpec>& absentTypeSettings() {
#ifdef HAVE_RDMA
  static const std::vector<SettingSpec> kNone;
  return kNone;
#else
  return rdma::settings();
#endif
}

bool absentTypesAllowListen(const SettingLookup& get, std::string* err) {
#ifdef HAVE_RDMA
  (void)get;
  (void)err;
#else
  std::string port = get("rdma-port");
  if (!port.empty() && port != "0") {
    *err =
        "rdma-port is set but RDMA support is not compiled in (build with BUILD_RDMA=yes "
        "and the libibverbs/librdmacm development packages)";
    return false;
  }
#endif
  return true;
}

}  // namespace net
