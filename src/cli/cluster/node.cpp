// The manager's view of the nodes: connecting, CLUSTER NODES parsing,
// loading the cluster from one node, and the node listings.
#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>

#include "cli/cluster/manager.h"

namespace cli::cluster {

const char kInvalidHostArg[] =
    "[ERR] Invalid arguments: you need to pass either a valid address (ie. 120.0.0.1:7000) or "
    "space separated IP and port (ie. 120.0.0.1 7000)\n";

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t pos = s.find(sep, start);
    if (pos == std::string::npos) pos = s.size();
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
  return out;
}

// The OS reason at the end of a client error ("connect: Connection refused").
std::string reasonOf(const std::string& e) {
  size_t pos = e.rfind(": ");
  return pos == std::string::npos ? e : e.substr(pos + 2);
}

// How long waitForClusterJoin waits before it names unreachable nodes.
constexpr int kJoinCheckAfter = 20;

}  // namespace

// ---- helpers

bool parseAddress(const std::string& addr, std::string* ip, int* port, int* bus_port) {
  std::string a = addr;
  size_t at = a.rfind('@');
  if (at != std::string::npos) {
    if (bus_port != nullptr) *bus_port = atoi(a.c_str() + at + 1);
    a.resize(at);
  }
  size_t colon = a.rfind(':');
  if (colon == std::string::npos) return false;
  *ip = a.substr(0, colon);
  *port = atoi(a.c_str() + colon + 1);
  return true;
}

bool hostFromArgs(const std::vector<std::string>& args, size_t count, std::string* ip, int* port) {
  std::string h;
  int p = 0;
  if (count == 1) {
    if (args.empty() || !parseAddress(args[0], &h, &p, nullptr)) return false;
  } else {
    if (args.size() < 2) return false;
    h = args[0];
    p = atoi(args[1].c_str());
  }
  if (p == 0) return false;
  *ip = h;
  *port = p;
  return true;
}

long infoField(const std::string& text, const char* field) {
  std::string key = std::string(field) + ":";
  size_t pos = text.find(key);
  if (pos == std::string::npos) return 0;
  return strtol(text.c_str() + pos + key.size(), nullptr, 10);
}

// ---- Node

void Node::resetSlots() {
  std::fill(slots.begin(), slots.end(), 0);
  slots_count = 0;
}

std::string Node::slotsString() const {
  std::string out;
  int i = 0;
  while (i < kSlots) {
    if (!slots[i]) {
      i++;
      continue;
    }
    int j = i;
    while (j + 1 < kSlots && slots[j + 1]) j++;
    if (!out.empty()) out += ",";
    out += "[" + std::to_string(i);
    if (j != i) out += "-" + std::to_string(j);
    out += "]";
    i = j + 1;
  }
  return out;
}

std::string Node::flagsString() const {
  std::string out;
  for (const auto& f : flags) {
    if (f == "myself") continue;
    if (!out.empty()) out += ",";
    out += f;
  }
  return out;
}

// ---- Manager: printing and prompts

Manager::Manager(Options* opt, Command* cmd) : opt_(opt), cmd_(cmd) {
  const char* term = getenv("TERM");
  color_ = term != nullptr && strstr(term, "xterm") != nullptr;
}

void Manager::log(Level level, const char* fmt, ...) {
  if (color_) {
    const char* code = level == Level::kInfo   ? "29;1"
                       : level == Level::kWarn ? "33;1"
                       : level == Level::kErr  ? "31;1"
                                               : "32;1";
    printf("\033[%sm", code);
  }
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  if (color_) printf("\033[0m");
}

void Manager::printReplyError(const Node& n, const std::string& err) {
  log(Level::kErr, "Node %s:%d replied with error:\n%s\n", n.ip.c_str(), n.port, err.c_str());
}

void Manager::onError(const std::string& err) {
  errors_.push_back(err);
  log(Level::kErr, "%s\n", err.c_str());
}

bool Manager::confirm(const char* msg, bool ignore_yes_option) {
  if (!ignore_yes_option && cmd_->yes) return true;
  printf("%s (type 'yes' to accept): ", msg);
  fflush(stdout);
  char buf[4] = {0};
  ssize_t n = read(STDIN_FILENO, buf, 4);
  buf[3] = '\0';
  return n > 0 && strcmp(buf, "yes") == 0;
}

// ---- Manager: node I/O

bool Manager::connect(Node* n) {
  n->conn = std::make_unique<client::Client>();
  // Over the connection type the options chose (-s aside: see nodeEndpoint).
  client::Endpoint ep = client::nodeEndpoint(opt_->endpoint, n->ip, n->port);
  if (!client::connectNode(n->conn.get(), &ep, 0)) {
    fprintf(stderr, "Could not connect to Redis at %s:%d: %s\n", n->ip.c_str(), n->port,
            reasonOf(n->conn->lastError()).c_str());
    n->conn.reset();
    return false;
  }
  if (opt_->auth) {
    Argv argv = {"AUTH"};
    if (opt_->user) argv.push_back(*opt_->user);
    argv.push_back(*opt_->auth);
    if (!commandOk(n, argv)) return false;
  }
  return true;
}

bool Manager::command(Node* n, const Argv& argv, Reply* r) {
  if (!n->conn || !n->conn->connected()) return false;
  return n->conn->call(argv, r);
}

bool Manager::commandOk(Node* n, const Argv& argv, Reply* r, std::string* err) {
  Reply local;
  if (r == nullptr) r = &local;
  if (!command(n, argv, r)) return false;
  if (!r->isError()) return true;
  if (err != nullptr) {
    *err = r->str;
  } else {
    printReplyError(*n, r->str);
  }
  return false;
}

bool Manager::isCluster(Node* n, std::string* err) {
  Reply r;
  if (!command(n, {"INFO"}, &r)) return false;
  if (r.isError()) {
    *err = r.str;
    return false;
  }
  return infoField(r.str, "cluster_enabled") != 0;
}

bool Manager::isEmpty(Node* n, std::string* err) {
  Reply r;
  if (!command(n, {"INFO"}, &r)) return false;
  if (r.isError()) {
    *err = r.str;
    return false;
  }
  if (r.str.find("db0:") != std::string::npos) return false;
  if (!commandOk(n, {"CLUSTER", "INFO"}, &r, err)) return false;
  return infoField(r.str, "cluster_known_nodes") == 1;
}

bool Manager::loadNodeInfo(Node* n, bool get_friends, std::string* err) {
  Reply r;
  if (!commandOk(n, {"CLUSTER", "NODES"}, &r, err)) return false;
  std::vector<client::ClusterNodeLine> lines;
  std::string parse_err;
  if (!client::parseClusterNodes(r.str, &lines, &parse_err)) {
    fprintf(stderr, "Error: invalid CLUSTER NODES reply\n");
    return false;
  }
  for (const client::ClusterNodeLine& line : lines) {
    bool myself = line.hasFlag("myself");
    Node* cur = nullptr;
    if (myself) {
      n->bus_port = line.bus_port;
      n->myself = true;
      cur = n;
      n->resetSlots();
      n->migrating.clear();
      n->importing.clear();
      for (auto [from, to] : line.slots) {
        for (int s = from; s <= to && s < kSlots; s++) {
          if (!n->slots[s]) n->slots_count++;
          n->slots[s] = 1;
        }
      }
      for (const auto& [slot, id] : line.migrating)
        n->migrating.emplace_back(std::to_string(slot), id);
      for (const auto& [slot, id] : line.importing)
        n->importing.emplace_back(std::to_string(slot), id);
      n->dirty = false;
    } else if (!get_friends) {
      continue;
    } else {
      n->friends.push_back(std::make_unique<Node>(line.host, line.port, line.bus_port));
      cur = n->friends.back().get();
    }
    cur->name = line.id;
    cur->flags = line.flags;
    cur->noaddr = line.hasFlag("noaddr");
    cur->disconnected = line.hasFlag("disconnected");
    cur->failed = line.hasFlag("fail");
    cur->replica = line.hasFlag("slave");
    if (cur->replica) cur->replicate = line.master_id;
    cur->config_epoch = line.config_epoch;
    if (!get_friends && myself) break;
  }
  return true;
}

bool Manager::loadFromNode(std::unique_ptr<Node> node) {
  if (!node->conn && !connect(node.get())) return false;
  std::string e;
  if (!isCluster(node.get(), &e)) {
    log(Level::kErr, "[ERR] Node %s:%d %s\n", node->ip.c_str(), node->port,
        e.empty() ? "is not configured as a cluster node." : e.c_str());
    return false;
  }
  e.clear();
  if (!loadNodeInfo(node.get(), true, &e)) {
    if (!e.empty()) printReplyError(*node, e);
    return false;
  }
  nodes_.clear();
  std::vector<std::unique_ptr<Node>> friends = std::move(node->friends);
  node->friends.clear();
  nodes_.push_back(std::move(node));
  for (auto& fr : friends) {
    bool ok = !fr->ip.empty() && fr->port != 0 && connect(fr.get());
    if (ok) {
      std::string ferr;
      if (loadNodeInfo(fr.get(), false, &ferr)) {
        ok = !(fr->noaddr || fr->disconnected || fr->failed);
      } else {
        log(Level::kErr, "[ERR] Unable to load info for node %s:%d\n", fr->ip.c_str(), fr->port);
        ok = false;
      }
    }
    if (ok) {
      nodes_.push_back(std::move(fr));
    } else if (!fr->replica) {
      unreachable_masters_++;
    }
  }
  for (auto& n : nodes_) {
    if (n->replicate.empty()) continue;
    Node* master = nodeByName(n->replicate);
    if (master == nullptr) {
      log(Level::kWarn, "*** WARNING: %s:%d claims to be slave of unknown node ID %s.\n",
          n->ip.c_str(), n->port, n->replicate.c_str());
    } else {
      master->replicas_count++;
    }
  }
  return true;
}

Node* Manager::nodeByName(const std::string& name) {
  std::string lc = name;
  for (char& c : lc) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
  for (auto& n : nodes_) {
    if (!n->name.empty() && n->name == lc) return n.get();
  }
  return nullptr;
}

Node* Manager::nodeByPrefix(const std::string& prefix) {
  std::string lc = prefix;
  for (char& c : lc) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
  for (auto& n : nodes_) {
    if (!n->name.empty() && n->name.compare(0, lc.size(), lc) == 0) return n.get();
  }
  return nullptr;
}

std::string Manager::nodeInfo(const Node& n, int indent) {
  std::string sp(static_cast<size_t>(indent), ' ');
  std::string out = sp;
  if (n.dirty && !n.replicate.empty()) {
    out += "S: " + n.name + " " + n.addr();
  } else {
    out += std::string(n.replica ? "S" : "M") + ": " + n.name + " " + n.addr() + "\n" + sp +
           "   slots:" + n.slotsString() + " (" + std::to_string(n.slots_count) + " slots) " +
           n.flagsString();
  }
  if (!n.replicate.empty()) {
    out += "\n" + sp + "   replicates " + n.replicate;
  } else if (n.replicas_count > 0) {
    out += "\n" + sp + "   " + std::to_string(n.replicas_count) + " additional replica(s)";
  }
  return out;
}

void Manager::showNodes() {
  for (auto& n : nodes_) printf("%s\n", nodeInfo(*n, 0).c_str());
}

bool Manager::showClusterInfo() {
  int masters = 0;
  long long keys = 0;
  for (auto& node : nodes_) {
    if (node->replica || node->name.empty()) continue;
    int replicas = 0;
    for (auto& other : nodes_) {
      if (other.get() != node.get() && other->replica && other->replicate == node->name) {
        replicas++;
      }
    }
    Reply r;
    bool ok = command(node.get(), {"DBSIZE"}, &r);
    if (!ok || r.type != resp::ReplyType::kInteger) {
      printReplyError(*node, ok && r.isError() ? r.str : "");
      return false;
    }
    printf("%s:%d (%s...) -> %lld keys | %d slots | %d slaves.\n", node->ip.c_str(), node->port,
           node->name.substr(0, 8).c_str(), static_cast<long long>(r.integer), node->slots_count,
           replicas);
    masters++;
    keys += r.integer;
  }
  log(Level::kOk, "[OK] %lld keys in %d masters.\n", keys, masters);
  printf("%.2f keys per slot on average.\n", static_cast<float>(keys) / static_cast<float>(kSlots));
  return true;
}

bool Manager::flushNodeConfig(Node* n, std::string* err) {
  if (!n->dirty) return false;
  err->clear();
  if (!n->replicate.empty()) {
    Reply r;
    if (!command(n, {"CLUSTER", "REPLICATE", n->replicate}, &r)) return false;
    if (r.isError()) {
      // The replica may not know its master yet: stay dirty, retry later.
      *err = r.str;
      return false;
    }
  } else {
    Argv argv = {"CLUSTER", "ADDSLOTS"};
    for (int s = 0; s < kSlots; s++) {
      if (n->slots[s]) argv.push_back(std::to_string(s));
    }
    if (argv.size() == 2) return false;
    Reply r;
    if (!commandOk(n, argv, &r, err)) {
      n->dirty = false;
      return false;
    }
  }
  n->dirty = false;
  return true;
}

namespace {

// What a node believes about slot ownership: "id:slots,..|id:slots" with
// the nodes and their slot ranges sorted, open-slot markers left out.
std::string configSignature(const std::string& cluster_nodes) {
  std::vector<std::string> configs;
  for (const std::string& line : split(cluster_nodes, '\n')) {
    std::vector<std::string> f = split(line, ' ');
    if (f.size() < 9) continue;
    std::vector<std::string> ranges;
    for (size_t i = 8; i < f.size(); i++) {
      if (!f[i].empty() && f[i][0] != '[') ranges.push_back(f[i]);
    }
    if (ranges.empty()) continue;
    std::sort(ranges.begin(), ranges.end());
    std::string cfg = f[0] + ":";
    for (size_t i = 0; i < ranges.size(); i++) cfg += (i ? "," : "") + ranges[i];
    configs.push_back(cfg);
  }
  std::sort(configs.begin(), configs.end());
  std::string sig;
  for (size_t i = 0; i < configs.size(); i++) sig += (i ? "|" : "") + configs[i];
  return sig;
}

}  // namespace

bool Manager::configConsistent() {
  if (nodes_.size() <= 1) return true;
  std::string first;
  bool have_first = false;
  for (auto& n : nodes_) {
    Reply r;
    if (!command(n.get(), {"CLUSTER", "NODES"}, &r) || r.isError()) return false;
    std::string sig = configSignature(r.str);
    if (sig.empty()) return false;
    if (!have_first) {
      first = sig;
      have_first = true;
    } else if (sig != first) {
      return false;
    }
  }
  return true;
}

void Manager::waitForClusterJoin() {
  printf("Waiting for the cluster to join\n");
  int counter = 0;
  int check_after = kJoinCheckAfter + static_cast<int>(static_cast<float>(nodes_.size()) * 0.15f);
  while (!configConsistent()) {
    printf(".");
    fflush(stdout);
    sleep(1);
    if (++counter <= check_after) continue;
    counter = 0;
    // Which links are down, as seen from each node.
    std::map<std::string, std::vector<std::string>> down;
    for (auto& n : nodes_) {
      Reply r;
      if (!commandOk(n.get(), {"CLUSTER", "NODES"}, &r)) continue;
      for (const std::string& line : split(r.str, '\n')) {
        std::vector<std::string> f = split(line, ' ');
        if (f.size() < 8 || f[2].find("myself") != std::string::npos) continue;
        bool bad = f[2].find("disconnected") != std::string::npos ||
                   f[7].find("disconnected") != std::string::npos ||
                   f[2].find("handshake") != std::string::npos;
        if (bad) down[f[1]].push_back(n->addr());
      }
    }
    if (down.empty()) continue;
    printf("\n");
    log(Level::kErr, "Warning: %zu node(s) may be unreachable\n", down.size());
    for (auto& [addr, from] : down) {
      std::string ip;
      int port = 0, bus_port = 0;
      if (parseAddress(addr, &ip, &port, &bus_port) && bus_port) {
        log(Level::kErr, " - The port %d of node %s may be unreachable from:\n", bus_port,
            ip.c_str());
      } else {
        log(Level::kErr, " - Node %s may be unreachable from:\n", addr.c_str());
      }
      for (auto& a : from) log(Level::kErr, "   %s\n", a.c_str());
      log(Level::kErr,
          "Cluster bus ports must be reachable by every node.\nRemember that cluster bus ports "
          "are different from standard instance ports.\n");
    }
  }
  printf("\n");
}

Node* Manager::masterWithLeastReplicas() {
  Node* best = nullptr;
  for (auto& n : nodes_) {
    if (n->replica) continue;
    if (best == nullptr || n->replicas_count < best->replicas_count) best = n.get();
  }
  return best;
}

Node* Manager::randomMaster() {
  std::vector<Node*> masters;
  for (auto& n : nodes_) {
    if (!n->replica) masters.push_back(n.get());
  }
  if (masters.empty()) return nullptr;
  srand(static_cast<unsigned>(time(nullptr)));
  return masters[static_cast<size_t>(rand()) % masters.size()];
}

}  // namespace cli::cluster
