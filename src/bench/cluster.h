// redis-benchmark --cluster: the masters of the cluster and the slot each
// one's clients aim at. Loaded from the node given with -h/-p (CLUSTER
// NODES: masters that own slots); read again with CLUSTER SLOTS when a
// request meets -MOVED or -ASK, as redis-benchmark 7.0 does. Every client
// stays on its master; its keys carry the {tag} of the first slot that
// master owns now, so they follow the slot map as it changes.
//
// Thread-safe: the worker threads read tags and refresh concurrently.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "bench/options.h"
#include "client/client.h"

namespace bench {

class ClusterMap {
 public:
  // Reads the masters from opt.endpoint; prints redis-benchmark's messages
  // and returns false when it cannot ("Failed to fetch cluster
  // configuration from ...", "Invalid cluster: N node(s).").
  bool load(const Options& opt);

  size_t size() const { return nodes_.size(); }
  const client::Endpoint& endpoint(size_t i) const { return nodes_[i].endpoint; }
  std::string describe(size_t i) const;  // "Master i: <id> host:port"

  // The 3 characters written after '{' in "{tag}" for master i: a tag of
  // its current first slot, padded with '}'.
  std::string tagBytes(size_t i) const;

  // Bumped by every refresh: a client notes it when it sends, so that of
  // the requests sent before one refresh, only the first to be redirected
  // triggers another.
  uint64_t version() const { return version_.load(); }

  // CLUSTER SLOTS from the first master, the slots of every master
  // replaced; nothing when the map changed since `seen` (a version()) or
  // another thread is at it already (then true at once). False (message
  // printed) when the reply names a master not known.
  bool refresh(const Options& opt, uint64_t seen);

 private:
  struct Master {
    std::string id;
    client::Endpoint endpoint;
    std::vector<int> slots;
  };
  mutable std::mutex mu_;
  std::vector<Master> nodes_;
  std::atomic<bool> fetching_{false};
  std::atomic<uint64_t> version_{0};
};

}  // namespace bench
