#include "bench/cluster.h"

#include <cstdio>

#include "client/cluster.h"

namespace bench {

namespace {

constexpr int kTimeoutMs = 2000;

// A blocking connection with the options' AUTH; false (message printed as
// redis-benchmark prints it) when it cannot be had.
bool connectTo(const Options& opt, const client::Endpoint& ep, client::Client* c) {
  if (!c->connect(ep, kTimeoutMs)) {
    fprintf(stderr, "Could not connect to Redis at %s: %s\n", client::describe(ep).c_str(),
            c->lastError().c_str());
    return false;
  }
  if (opt.auth) {
    std::vector<std::string> argv = {"AUTH"};
    if (opt.user) argv.push_back(*opt.user);
    argv.push_back(*opt.auth);
    resp::Reply r;
    if (!c->call(argv, &r, kTimeoutMs)) return false;
    if (r.isError()) {
      fprintf(stderr, "Node %s replied with error:\n%s\n", client::describe(ep).c_str(),
              r.str.c_str());
      return false;
    }
  }
  return true;
}

}  // namespace

bool ClusterMap::load(const Options& opt) {
  client::Client c;
  resp::Reply r;
  std::vector<client::ClusterNodeLine> lines;
  std::string err;
  bool ok = connectTo(opt, opt.endpoint, &c) && c.call({"CLUSTER", "NODES"}, &r, kTimeoutMs);
  if (ok && r.isError()) {
    fprintf(stderr, "Cluster node %s replied with error:\n%s\n",
            client::describe(opt.endpoint).c_str(), r.str.c_str());
    ok = false;
  }
  if (ok && !client::parseClusterNodes(r.str, &lines, &err)) {
    fprintf(stderr, "%s\n", err.c_str());
    ok = false;
  }
  if (ok) {
    for (const auto& n : lines) {
      if (n.hasFlag("slave") || n.master_id != "-") continue;
      Master m;
      m.id = n.id;
      // The node we asked may announce no address of its own (then the one
      // we used stands).
      bool asked = n.hasFlag("myself") && n.host.empty();
      m.endpoint = client::nodeEndpoint(opt.endpoint, asked ? opt.endpoint.host : n.host,
                                        asked ? opt.endpoint.port : n.port);
      if (m.endpoint.type == "rdma") {
        // A node without an RDMA endpoint is named by its TCP port: the
        // probe tells, and its clients then use TCP (client::connectNode).
        client::Client probe;
        if (client::connectNode(&probe, &m.endpoint, kTimeoutMs) && m.endpoint.type != "rdma")
          fprintf(stderr, "WARNING: Master node %s has no RDMA endpoint, using TCP\n",
                  client::describe(m.endpoint).c_str());
      }
      for (auto [from, to] : n.slots) {
        for (int s = from; s <= to; s++) m.slots.push_back(s);
      }
      if (m.slots.empty()) {
        fprintf(stderr, "WARNING: Master node %s has no slots, skipping...\n",
                client::describe(m.endpoint).c_str());
        continue;
      }
      nodes_.push_back(std::move(m));
    }
  }
  if (!ok || nodes_.empty()) {
    fprintf(stderr, "Failed to fetch cluster configuration from %s\n",
            client::describe(opt.endpoint).c_str());
    return false;
  }
  if (nodes_.size() <= 1) {
    fprintf(stderr, "Invalid cluster: %zu node(s).\n", nodes_.size());
    return false;
  }
  return true;
}

std::string ClusterMap::describe(size_t i) const {
  std::lock_guard<std::mutex> lock(mu_);
  return "Master " + std::to_string(i) + ": " + nodes_[i].id + " " +
         client::describe(nodes_[i].endpoint);
}

std::string ClusterMap::tagBytes(size_t i) const {
  std::lock_guard<std::mutex> lock(mu_);
  const Master& m = nodes_[i];
  std::string tag = m.slots.empty() ? std::string() : client::slotTag(m.slots.front());
  while (tag.size() < 3) tag += '}';
  return tag;
}

bool ClusterMap::refresh(const Options& opt, uint64_t seen) {
  if (version_.load() > seen) return true;
  if (fetching_.exchange(true)) return true;
  fprintf(stderr, "WARNING: Cluster slots configuration changed, fetching new one...\n");
  const char* errmsg = "Failed to update cluster slots configuration";
  client::Endpoint first;
  {
    std::lock_guard<std::mutex> lock(mu_);
    first = nodes_.front().endpoint;
  }
  client::Client c;
  resp::Reply r;
  bool ok = connectTo(opt, first, &c) && c.call({"CLUSTER", "SLOTS"}, &r, kTimeoutMs);
  if (ok && r.isError()) {
    fprintf(stderr, "%s\nCLUSTER SLOTS ERROR: %s\n", errmsg, r.str.c_str());
    ok = false;
  }
  if (ok) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::vector<int>> updated(nodes_.size());
    std::vector<bool> seen(nodes_.size(), false);
    for (const resp::Reply& range : r.elements) {
      if (range.elements.size() < 3 || range.elements[2].elements.size() < 3) continue;
      const std::string& id = range.elements[2].elements[2].str;
      size_t k = 0;
      while (k < nodes_.size() && nodes_[k].id != id) k++;
      if (k == nodes_.size()) {
        fprintf(stderr, "%s: could not find node with ID %s in current configuration.\n", errmsg,
                id.c_str());
        ok = false;
        break;
      }
      seen[k] = true;
      for (int64_t s = range.elements[0].integer; s <= range.elements[1].integer; s++) {
        updated[k].push_back(static_cast<int>(s));
      }
    }
    if (ok) {
      for (size_t k = 0; k < nodes_.size(); k++) {
        if (seen[k]) nodes_[k].slots = std::move(updated[k]);
      }
    }
  }
  if (ok) version_.fetch_add(1);
  fetching_.store(false);
  return ok;
}

}  // namespace bench
