// "create": checks that every node is an empty cluster node, plans the
// masters' slot ranges and the replicas (keeping replicas off their
// master's host when it can), asks, then applies the plan and introduces
// the nodes to each other with CLUSTER MEET.
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>

#include "cli/cluster/manager.h"

namespace cli::cluster {

namespace {

// Violations of anti-affinity: 10000 for each replica on its master's
// host, 1 for each replica sharing a host with another replica of the same
// master. `offending` gets one replica per violating group.
int antiAffinityScore(const std::vector<std::vector<Node*>>& by_ip,
                      const std::vector<std::unique_ptr<Node>>& all,
                      std::vector<Node*>* offending) {
  int score = 0;
  for (const auto& group : by_ip) {
    if (group.empty()) continue;
    const std::string& ip = group.front()->ip;
    // master ID -> "m" then one "s" per replica, on this host.
    std::vector<std::pair<std::string, std::string>> related;
    for (Node* n : group) {
      const std::string& key = n->replicate.empty() ? n->name : n->replicate;
      auto it = std::find_if(related.begin(), related.end(),
                             [&](const auto& p) { return p.first == key; });
      if (it == related.end()) {
        related.emplace_back(key, "");
        it = related.end() - 1;
      }
      if (n->replicate.empty()) {
        it->second = "m" + it->second;
      } else {
        it->second += "s";
      }
    }
    for (const auto& [master, types] : related) {
      if (types.size() < 2) continue;
      score += types[0] == 'm' ? 10000 * static_cast<int>(types.size() - 1)
                               : static_cast<int>(types.size());
      if (offending == nullptr) continue;
      for (const auto& n : all) {
        if (n->replicate == master && n->ip == ip) {
          offending->push_back(n.get());
          break;
        }
      }
    }
  }
  return score;
}

void optimizeAntiAffinity(Manager* m, const std::vector<std::vector<Node*>>& by_ip) {
  auto& all = m->nodes();
  int score = antiAffinityScore(by_ip, all, nullptr);
  if (score == 0) return;
  m->log(Level::kInfo, ">>> Trying to optimize slaves allocation for anti-affinity\n");
  int maxiter = 500 * static_cast<int>(all.size());
  srand(static_cast<unsigned>(time(nullptr)));
  while (maxiter-- > 0) {
    std::vector<Node*> offenders;
    score = antiAffinityScore(by_ip, all, &offenders);
    if (score == 0 || offenders.empty()) break;
    // Swap the masters of an offending replica and a random other replica;
    // keep the swap unless it made things worse.
    Node* first = offenders[static_cast<size_t>(rand()) % offenders.size()];
    std::vector<Node*> others;
    for (auto& n : all) {
      if (n.get() != first && !n->replicate.empty()) others.push_back(n.get());
    }
    if (others.empty()) break;
    Node* second = others[static_cast<size_t>(rand()) % others.size()];
    std::swap(first->replicate, second->replicate);
    first->dirty = second->dirty = true;
    if (antiAffinityScore(by_ip, all, nullptr) > score) {
      std::swap(first->replicate, second->replicate);
    }
  }
  score = antiAffinityScore(by_ip, all, nullptr);
  if (score == 0) {
    m->log(Level::kOk, "%s\n", "[OK] Perfect anti-affinity obtained!");
  } else if (score >= 10000) {
    m->log(Level::kWarn, "%s\n", "[WARNING] Some slaves are in the same host as their master");
  } else {
    m->log(Level::kWarn, "%s\n", "[WARNING] Some slaves of the same master are in the same host");
  }
}

}  // namespace

bool resolveHost(const std::string& host, std::string* ip) {
  addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0 || res == nullptr) return false;
  char buf[NI_MAXHOST];
  int rc = getnameinfo(res->ai_addr, res->ai_addrlen, buf, sizeof(buf), nullptr, 0, NI_NUMERICHOST);
  freeaddrinfo(res);
  if (rc != 0) return false;
  *ip = buf;
  return true;
}

namespace {

// Assigns replicas to masters from `rest` (the nodes left after the
// masters, in interleaved order), redis-cli's way: a node on another host
// than the master first; then, once every master has its share, the
// remaining nodes one per master.
void assignReplicas(Manager* m, const std::vector<Node*>& masters, std::vector<Node*> rest,
                    int replicas) {
  if (!rest.empty()) std::rotate(rest.begin(), rest.begin() + 1, rest.end());
  size_t start = 0;
  int available = static_cast<int>(rest.size());
  bool extra = false;
  for (;;) {
    for (Node* master : masters) {
      int assigned = 0;
      while (assigned < replicas) {
        if (available == 0) break;
        Node* replica = nullptr;
        long first_same_host = -1;
        for (size_t j = start; j < rest.size(); j++) {
          Node* n = rest[j];
          if (n == nullptr) continue;
          if (n->ip != master->ip) {
            replica = n;
            rest[j] = nullptr;
            break;
          }
          if (first_same_host < 0) first_same_host = static_cast<long>(j);
        }
        if (replica == nullptr && first_same_host >= 0) {
          replica = rest[static_cast<size_t>(first_same_host)];
          start = static_cast<size_t>(first_same_host) + 1;
        }
        if (replica == nullptr) break;
        assigned++;
        available--;
        replica->replicate = master->name;
        replica->dirty = true;
        printf("Adding replica %s:%d to %s:%d\n", replica->ip.c_str(), replica->port,
               master->ip.c_str(), master->port);
        if (extra) break;
      }
    }
    if (extra || available <= 0) break;
    extra = true;
    printf("Adding extra replicas...\n");
  }
  (void)m;
}

}  // namespace

bool cmdCreate(Manager* m) {
  auto& nodes = m->nodes();
  for (const std::string& addr : m->cmd().args) {
    std::string ip;
    int port = 0;
    if (!parseAddress(addr, &ip, &port, nullptr)) {
      fprintf(stderr, "Invalid address format: %s\n", addr.c_str());
      return false;
    }
    auto node = std::make_unique<Node>(ip, port);
    if (!m->connect(node.get())) return false;
    std::string err;
    if (!m->isCluster(node.get(), &err)) {
      m->log(Level::kErr, "[ERR] Node %s:%d %s\n", ip.c_str(), port,
             err.empty() ? "is not configured as a cluster node." : err.c_str());
      return false;
    }
    err.clear();
    if (!m->loadNodeInfo(node.get(), false, &err)) {
      if (!err.empty()) m->printReplyError(*node, err);
      return false;
    }
    err.clear();
    if (!m->isEmpty(node.get(), &err)) {
      m->log(Level::kErr, "[ERR] Node %s:%d %s\n", ip.c_str(), port,
             !err.empty() ? err.c_str()
                          : "is not empty. Either the node already knows other nodes (check "
                            "with CLUSTER NODES) or contains some key in database 0.");
      return false;
    }
    nodes.push_back(std::move(node));
  }
  int node_len = static_cast<int>(nodes.size());
  int replicas = m->cmd().replicas;
  int masters_count = node_len / (replicas + 1);
  if (masters_count < 3) {
    m->log(Level::kErr,
           "*** ERROR: Invalid configuration for cluster creation.\n*** Redis Cluster requires at "
           "least 3 master nodes.\n*** This is not possible with %d nodes and %d replicas per "
           "node.",
           node_len, replicas);
    m->log(Level::kErr, "\n*** At least %d nodes are required.\n", 3 * (replicas + 1));
    return false;
  }
  m->log(Level::kInfo, ">>> Performing hash slots allocation on %d nodes...\n", node_len);
  // Nodes grouped by host, then taken one host at a time (interleaved).
  std::vector<std::vector<Node*>> by_ip;
  for (auto& n : nodes) {
    auto it = std::find_if(by_ip.begin(), by_ip.end(),
                           [&](const auto& g) { return g.front()->ip == n->ip; });
    if (it == by_ip.end()) {
      by_ip.push_back({n.get()});
    } else {
      it->push_back(n.get());
    }
  }
  std::vector<Node*> interleaved;
  for (size_t round = 0; interleaved.size() < nodes.size(); round++) {
    for (auto& g : by_ip) {
      if (round < g.size()) interleaved.push_back(g[round]);
    }
  }
  std::vector<Node*> masters(interleaved.begin(), interleaved.begin() + masters_count);
  std::vector<Node*> rest(interleaved.begin() + masters_count, interleaved.end());
  float per_master = static_cast<float>(kSlots) / static_cast<float>(masters_count);
  long first = 0;
  float cursor = 0;
  for (int i = 0; i < masters_count; i++) {
    Node* master = masters[static_cast<size_t>(i)];
    long last = lround(cursor + per_master - 1);
    if (last > kSlots || i == masters_count - 1) last = kSlots - 1;
    if (last < first) last = first;
    printf("Master[%d] -> Slots %ld - %ld\n", i, first, last);
    master->slots_count = 0;
    for (long s = first; s <= last; s++) {
      master->slots[static_cast<size_t>(s)] = 1;
      master->slots_count++;
    }
    master->dirty = true;
    first = last + 1;
    cursor += per_master;
  }
  assignReplicas(m, masters, rest, replicas);
  optimizeAntiAffinity(m, by_ip);
  m->showNodes();
  if (!m->confirm("Can I set the above configuration?", false)) return true;

  for (auto& n : nodes) {
    std::string err;
    bool flushed = m->flushNodeConfig(n.get(), &err);
    if (!flushed && n->dirty && n->replicate.empty()) {
      if (!err.empty()) m->printReplyError(*n, err);
      return false;
    }
  }
  m->log(Level::kInfo, ">>> Nodes configuration updated\n");
  m->log(Level::kInfo, ">>> Assign a different config epoch to each node\n");
  int epoch = 1;
  for (auto& n : nodes) {
    Reply r;
    m->command(n.get(), {"cluster", "set-config-epoch", std::to_string(epoch++)}, &r);
  }
  m->log(Level::kInfo, ">>> Sending CLUSTER MEET messages to join the cluster\n");
  Node* head = nodes.front().get();
  std::string head_ip;
  if (!resolveHost(head->ip, &head_ip)) {
    fprintf(stderr, "Invalid IP address or hostname specified: %s\n", head->ip.c_str());
    return false;
  }
  for (size_t i = 1; i < nodes.size(); i++) {
    Node* n = nodes[i].get();
    Argv meet = {"cluster", "meet", head_ip, std::to_string(head->port)};
    if (head->bus_port != 0 && head->bus_port != head->port + kBusPortOffset) {
      meet.push_back(std::to_string(head->bus_port));
    }
    Reply r;
    if (!m->command(n, meet, &r)) {
      fprintf(stderr, "Failed to send CLUSTER MEET command.\n");
      return false;
    }
    if (r.isError()) {
      m->printReplyError(*n, r.str);
      return false;
    }
  }
  // Give the handshakes a second to start: nodes that still know nobody
  // would agree already.
  sleep(1);
  m->waitForClusterJoin();
  for (auto& n : nodes) {
    if (!n->dirty) continue;
    std::string err;
    if (!m->flushNodeConfig(n.get(), &err) && n->replicate.empty()) {
      if (!err.empty()) m->printReplyError(*n, err);
      return false;
    }
  }
  std::unique_ptr<Node> keep = std::move(nodes.front());
  nodes.clear();
  keep->friends.clear();
  if (!m->loadFromNode(std::move(keep))) return false;
  m->checkCluster(false, false);
  return true;
}

}  // namespace cli::cluster
