// The "rdma" ConnectionType: the table glue over RdmaListener and
// RdmaConnection, its options (configure) and INFO counters.
#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "net/rdma/options.h"
#include "net/rdma/rdma_connection.h"
#include "net/transports.h"

namespace net {
namespace rdma {
namespace {

// Parses one option of the type into *o: the only place its bounds live.
bool parseOption(const std::string& name, const std::string& value, Options* o, std::string* err) {
  if (name == "rx-size") return parseRxSize(value, &o->rx_size, err);
  if (name == "completion-vector") return parseCompletionVector(value, &o->completion_vector, err);
  if (name == "dialect") {
    DialectId id;
    if (!parseDialect(value, &id)) {
      *err = "rdma dialect must be auto, ours, seed or valkey";
      return false;
    }
    o->client_dialect = id;
    return true;
  }
  if (name == "keepalive-interval") return parseKeepaliveMs(value, &o->keepalive_ms, err);
  if (name == "flow-control") return parseFlowControl(value, &o->flow, err);
  *err = "unknown rdma option '" + name + "'";
  return false;
}

class RdmaType : public ConnectionType {
 public:
  const char* name() const override { return "rdma"; }
  const char* clientPortSetting() const override { return "rdma-port"; }
  // The ring copies and the posting of writes run on the server's I/O
  // threads; the pending list and the counters wait for afterForeignIo.
  // Completions, CM events and handlers stay on the loop's thread.
  bool ioFromAnyThread() const override { return true; }

  Listener* listen(event::EventLoop* loop, const ListenSpec& spec, AcceptCallback cb, void* cb_data,
                   std::string* err) override {
    return RdmaListener::create(this, mine(), loop, spec, cb, cb_data, err);
  }

  Connection* connect(event::EventLoop* loop, const ConnectAddr& addr, ConnHandler cb,
                      std::string* err) override {
    return RdmaConnection::connectTo(this, mine(), loop, addr, cb, err);
  }

  // repl-transport rdma: a replica reaches its master's rdma-port.
  bool carriesLink(const SettingLookup& get, ServerLink link) const override {
    return link == ServerLink::kReplication && get("repl-transport") == "rdma";
  }

  // Settings: rdma-port (0: no listener), rdma-bind (else bind),
  // tcp-backlog, and this type's options rdma-<option> (rx-size,
  // completion-vector, keepalive-interval), applied before listening.
  bool listenSpecFrom(const SettingLookup& get, ListenSpec* spec, bool* wanted,
                      std::string* err) override {
    long long port = 0, backlog = 511;
    if (!settingInt(get("rdma-port"), &port) || port < 0 || port > 65535) {
      *err = "rdma: bad rdma-port '" + get("rdma-port") + "'";
      return false;
    }
    *wanted = port != 0;
    if (!*wanted) return true;
    if (!applyServerOptions(get, err)) return false;
    spec->port = static_cast<int>(port);
    spec->addrs = settingWords(get("rdma-bind"));
    if (spec->addrs.empty()) spec->addrs = settingWords(get("bind"));
    if (settingInt(get("tcp-backlog"), &backlog)) spec->backlog = static_cast<int>(backlog);
    return true;
  }

  // CONFIG SET of any rdma-* setting: the values are validated already;
  // the options reach new connections (a port or bind change reopens the
  // listener, which applies them too).
  bool applySettings(const SettingLookup& get, const std::vector<std::string>& names,
                     std::string* err) override {
    (void)names;
    return applyServerOptions(get, err);
  }

  bool configure(const std::string& name, const std::string& value, std::string* err) override {
    return parseOption(name, value, &opts_, err);
  }

  const std::vector<SettingSpec>& settings() const override { return rdma::settings(); }

  // The calling thread's connections (the server's: its main thread's).
  std::string info() const override {
    static const Stats kNoStats;
    const Shared* own = find();
    const Stats& s = own != nullptr ? own->stats : kNoStats;
    const ResourceCounters r = resourceCounters();
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
    line("rdma_dead_peers", s.dead_peers);
    line("rdma_keepalives_sent", s.keepalives_sent);
    line("rdma_keepalives_received", s.keepalives_received);
    line("rdma_dialect_errors", s.dialect_errors);
    line("rdma_credits_sent", s.credits_sent);
    line("rdma_credits_received", s.credits_received);
    line("rdma_ring_grows", s.ring_grows);
    line("rdma_ring_shrinks", s.ring_shrinks);
    line("rdma_ring_grow_failures", s.ring_grow_failures);
    line("rdma_rx_size", opts_.rx_size);
    line("rdma_keepalive_interval", static_cast<uint64_t>(opts_.keepalive_ms));
    line("rdma_flow_control", opts_.flow ? 1 : 0);
    line("rdma_connections", own != nullptr ? own->live.size() : 0);
    // Connections now, by dialect (unknown: accepted, the peer has not
    // spoken yet).
    uint64_t by[kDialectCount] = {};
    uint64_t flow = 0;
    if (own != nullptr) {
      for (const RdmaConnection* c : own->live) {
        by[static_cast<int>(c->dialectId())]++;
        flow += c->flowControl() ? 1 : 0;
      }
    }
    for (DialectId d :
         {DialectId::kOurs, DialectId::kSeed, DialectId::kValkey, DialectId::kUnknown}) {
      line((std::string("rdma_dialect_") + dialectName(d)).c_str(), by[static_cast<int>(d)]);
    }
    // Of the "ours" connections, those under flow control.
    line("rdma_flow_connections", flow);
    line("rdma_pinned_bytes", static_cast<uint64_t>(r.pinned_bytes));
    line("rdma_verbs_objects", static_cast<uint64_t>(r.objects));
    out += "rdma_fork_safety:";
    out += forkSafetyMode();
    out += "\r\n";
    return out;
  }

  bool hasPendingData() const override {
    const Shared* own = find();
    return own != nullptr && !own->pending.empty();
  }

  int processPendingData() override {
    Shared* own = find();
    if (own == nullptr || own->pending.empty()) return 0;
    // Handlers may close connections or open new ones: walk a snapshot and
    // skip whoever left the set meanwhile.
    std::vector<RdmaConnection*> due(own->pending.begin(), own->pending.end());
    int n = 0;
    for (RdmaConnection* c : due) {
      if (own->pending.count(c) == 0) continue;
      n++;
      c->service();
    }
    return n;
  }

 private:
  // The server's rdma-<option> settings (rx-size, completion-vector,
  // keepalive-interval, flow-control) into the type's options; unset ones
  // stay.
  bool applyServerOptions(const SettingLookup& get, std::string* err) {
    for (const char* opt : {"rx-size", "completion-vector", "keepalive-interval", "flow-control"}) {
      std::string v = get(std::string("rdma-") + opt);
      if (!v.empty() && !configure(opt, v, err)) return false;
    }
    return true;
  }

  // The calling thread's Shared: a thread-local cache in front of the map,
  // so the per-iteration hooks take no lock. `id_` tells this type from an
  // earlier one at the same address.
  struct Cache {
    uint64_t type_id = 0;
    Shared* shared = nullptr;
  };
  static Cache& cache() {
    thread_local Cache c;
    return c;
  }

  // The calling thread's Shared, or nullptr before it listened or connected.
  // A miss is cached too: only the thread itself creates its entry (mine()),
  // so a loop that never uses RDMA pays no lock per iteration.
  Shared* find() const {
    Cache& c = cache();
    if (c.type_id == id_) return c.shared;
    std::lock_guard<std::mutex> lock(mu_);
    auto it = per_thread_.find(std::this_thread::get_id());
    c = Cache{id_, it == per_thread_.end() ? nullptr : it->second.get()};
    return c.shared;
  }

  // The calling thread's Shared, created on first use.
  Shared* mine() {
    if (Shared* s = find()) return s;
    std::lock_guard<std::mutex> lock(mu_);
    auto& slot = per_thread_[std::this_thread::get_id()];
    if (slot == nullptr) slot = std::make_unique<Shared>(opts_);
    cache() = Cache{id_, slot.get()};
    return slot.get();
  }

  static uint64_t nextId() {
    static std::atomic<uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
  }

  Options opts_;
  const uint64_t id_ = nextId();
  mutable std::mutex mu_;
  std::unordered_map<std::thread::id, std::unique_ptr<Shared>> per_thread_;
};

}  // namespace
}  // namespace rdma

ConnectionType* makeRdmaType() {
  return new rdma::RdmaType();
}

}  // namespace net
