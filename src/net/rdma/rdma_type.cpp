// The "rdma" ConnectionType: the table glue over RdmaListener and
// RdmaConnection, its options (configure) and INFO counters.
#include <strings.h>

#include <cerrno>
#include <cstdlib>
#include <memory>

#include "net/rdma/rdma_connection.h"
#include "net/transports.h"

namespace net {
namespace rdma {
namespace {

// Parses "1048576", "64k", "64kb", "1m", "1mb" (case-insensitive).
bool parseBytes(const std::string& s, uint64_t* out) {
  if (s.empty() || s[0] == '-') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = strtoull(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str()) return false;
  uint64_t mul = 1;
  if (strcasecmp(end, "k") == 0 || strcasecmp(end, "kb") == 0) {
    mul = 1024;
  } else if (strcasecmp(end, "m") == 0 || strcasecmp(end, "mb") == 0) {
    mul = 1024 * 1024;
  } else if (*end != '\0') {
    return false;
  }
  if (v > UINT64_MAX / mul) return false;
  *out = v * mul;
  return true;
}

class RdmaType : public ConnectionType {
 public:
  const char* name() const override { return "rdma"; }

  Listener* listen(event::EventLoop* loop, const ListenSpec& spec, AcceptCallback cb, void* cb_data,
                   std::string* err) override {
    return RdmaListener::create(this, &shared_, loop, spec, cb, cb_data, err);
  }

  Connection* connect(event::EventLoop* loop, const ConnectAddr& addr, ConnHandler cb,
                      std::string* err) override {
    return RdmaConnection::connectTo(this, &shared_, loop, addr, cb, err);
  }

  bool configure(const std::string& name, const std::string& value, std::string* err) override {
    if (name == "rx-size") {
      uint64_t v = 0;
      if (!parseBytes(value, &v) || v < kMinRxSize || v > kMaxRxSize) {
        *err = "rdma rx-size must be between " + std::to_string(kMinRxSize) + " and " +
               std::to_string(kMaxRxSize) + " bytes";
        return false;
      }
      shared_.opts.rx_size = static_cast<uint32_t>(v);
      return true;
    }
    if (name == "completion-vector") {
      char* end = nullptr;
      errno = 0;
      long v = strtol(value.c_str(), &end, 10);
      if (errno != 0 || end == value.c_str() || *end != '\0' || v < -1 || v > 1023) {
        *err = "rdma completion-vector must be -1 (spread) or 0..1023";
        return false;
      }
      shared_.opts.completion_vector = static_cast<int>(v);
      return true;
    }
    return ConnectionType::configure(name, value, err);
  }

  std::string info() const override {
    const Stats& s = shared_.stats;
    const ResourceCounters& r = resourceCounters();
    std::string out;
    auto line = [&out](const char* k, uint64_t v) {
      out += k;
      out += ':';
      out += std::to_string(v);
      out += "\r\n";
    };
    line("rdma_listeners", s.listeners);
    line("rdma_connected_clients", s.connected_clients);
    line("rdma_bytes_received", s.bytes_received);
    line("rdma_bytes_sent", s.bytes_sent);
    line("rdma_writes_posted", s.writes_posted);
    line("rdma_reregistrations", s.reregistrations);
    line("rdma_tx_full_waits", s.tx_full_waits);
    line("rdma_errors", s.errors);
    line("rdma_completion_events", s.completion_events);
    line("rdma_polled_completions", s.polled_completions);
    line("rdma_rx_size", shared_.opts.rx_size);
    line("rdma_connections", shared_.live.size());
    line("rdma_pinned_bytes", static_cast<uint64_t>(r.pinned_bytes));
    line("rdma_verbs_objects", static_cast<uint64_t>(r.objects));
    out += "rdma_fork_safety:";
    out += forkSafetyMode();
    out += "\r\n";
    return out;
  }

  bool hasPendingData() const override { return !shared_.pending.empty(); }

  int processPendingData() override {
    if (shared_.pending.empty()) return 0;
    // Handlers may close connections or open new ones: walk a snapshot and
    // skip whoever left the set meanwhile.
    std::vector<RdmaConnection*> due(shared_.pending.begin(), shared_.pending.end());
    int n = 0;
    for (RdmaConnection* c : due) {
      if (shared_.pending.count(c) == 0) continue;
      n++;
      c->service();
    }
    return n;
  }

 private:
  Shared shared_;
};

}  // namespace
}  // namespace rdma

ConnectionType* makeRdmaType() {
  return new rdma::RdmaType();
}

}  // namespace net
