// Subcommands that move keys: reshard (slots to one node, from some or all
// masters), rebalance (slots evened out by weight) and import (every key of
// a standalone server MIGRATEd to its slot's owner).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli/cluster/manager.h"

namespace cli::cluster {

namespace {

// One answer from stdin, at most max bytes, without its newline. An answer
// cut at max has the rest of its line skipped. False at end of input.
bool readAnswer(size_t max, std::string* out) {
  std::string buf(max, '\0');
  ssize_t n = read(STDIN_FILENO, buf.data(), max);
  if (n <= 0) return false;
  buf.resize(static_cast<size_t>(n));
  if (buf.back() != '\n') {
    int ch;
    while ((ch = getchar()) != '\n' && ch != EOF) {
    }
  }
  buf.pop_back();  // the newline, or the last byte when the line was cut
  *out = buf;
  return true;
}

// A master to move slots from or to; nullptr (message printed) otherwise.
// *fatal: the ID names no master at all.
Node* reshardNode(Manager* m, const std::string& id, const Node* target, bool* fatal) {
  Node* n = m->nodeByName(id);
  *fatal = false;
  if (n == nullptr || n->replica) {
    m->log(Level::kErr, "*** The specified node (%s) is not known or not a master, please retry.\n",
           id.c_str());
    *fatal = true;
    return nullptr;
  }
  if (target != nullptr && n->name == target->name) {
    m->log(Level::kErr, "*** It is not possible to use the target node as source node.\n");
    return nullptr;
  }
  return n;
}

// The host:port argument every command here starts from, loaded; false
// (with redis-cli's message) when it is not one or does not load.
bool loadFromHostArg(Manager* m) {
  std::string ip;
  int port = 0;
  if (!hostFromArgs(m->cmd().args, m->cmd().args.size(), &ip, &port)) {
    fputs(kInvalidHostArg, stderr);
    return false;
  }
  return m->loadFromNode(std::make_unique<Node>(ip, port));
}

}  // namespace

bool cmdReshard(Manager* m) {
  Command& cmd = m->cmd();
  if (!loadFromHostArg(m)) return false;
  m->checkCluster(false, false);
  if (m->errorCount() > 0) {
    fflush(stdout);
    fprintf(stderr, "*** Please fix your cluster problems before resharding\n");
    return false;
  }
  int slots = cmd.slots;
  while (slots <= 0 || slots > kSlots) {
    printf("How many slots do you want to move (from 1 to %d)? ", kSlots);
    fflush(stdout);
    std::string answer;
    if (!readAnswer(6, &answer)) exit(1);
    slots = atoi(answer.c_str());
  }
  std::string to = cmd.to;
  while (to.empty()) {
    printf("What is the receiving node ID? ");
    fflush(stdout);
    if (!readAnswer(255, &to)) exit(1);
  }
  bool fatal = false;
  Node* target = reshardNode(m, to, nullptr, &fatal);
  if (target == nullptr) return false;
  std::vector<Node*> sources;
  bool all = false;
  auto addSource = [&](const std::string& id) {
    Node* src = reshardNode(m, id, target, &fatal);
    if (src != nullptr) sources.push_back(src);
    return !(src == nullptr && fatal);
  };
  if (cmd.from.empty()) {
    printf("Please enter all the source node IDs.\n");
    printf("  Type 'all' to use all the nodes as source nodes for the hash slots.\n");
    printf("  Type 'done' once you entered all the source nodes IDs.\n");
    for (;;) {
      printf("Source node #%zu: ", sources.size() + 1);
      fflush(stdout);
      std::string id;
      if (!readAnswer(255, &id)) exit(1);
      if (id == "done") break;
      if (id == "all") {
        all = true;
        break;
      }
      if (!addSource(id)) return false;
    }
  } else {
    std::string from = cmd.from;
    size_t start = 0;
    while (start <= from.size()) {
      size_t comma = from.find(',', start);
      bool last = comma == std::string::npos;
      std::string id = from.substr(start, last ? std::string::npos : comma - start);
      start = last ? from.size() + 1 : comma + 1;
      if (last && id.empty()) break;
      if (id == "all") {
        all = true;
        break;
      }
      if (!addSource(id)) return false;
    }
  }
  if (all) {
    sources.clear();
    for (auto& n : m->nodes()) {
      if (n->replica || !n->replicate.empty() || n->name == target->name) continue;
      sources.push_back(n.get());
    }
  }
  if (sources.empty()) {
    fprintf(stderr, "*** No source nodes given, operation aborted.\n");
    return false;
  }
  printf("\nReady to move %d slots.\n", slots);
  printf("  Source nodes:\n");
  for (Node* src : sources) printf("%s\n", m->nodeInfo(*src, 4).c_str());
  printf("  Destination node:\n");
  printf("%s\n", m->nodeInfo(*target, 4).c_str());
  std::vector<Manager::Move> table = m->reshardTable(sources, slots);
  printf("  Resharding plan:\n");
  for (const auto& mv : table)
    printf("    Moving slot %d from %s\n", mv.slot, mv.source->name.c_str());
  if (!cmd.yes) {
    printf("Do you want to proceed with the proposed reshard plan (yes/no)? ");
    fflush(stdout);
    char buf[4] = {0};
    ssize_t n = read(STDIN_FILENO, buf, 4);
    buf[3] = '\0';
    if (n <= 0 || strcmp(buf, "yes") != 0) return false;
  }
  for (const auto& mv : table) {
    std::string err;
    if (!m->moveSlot(mv.source, target, mv.slot, Manager::kVerbose, &err)) {
      if (!err.empty()) m->log(Level::kErr, "clusterManagerMoveSlot failed: %s\n", err.c_str());
      return false;
    }
  }
  return true;
}

bool cmdRebalance(Manager* m) {
  Command& cmd = m->cmd();
  if (!loadFromHostArg(m)) return false;
  for (const std::string& w : cmd.weights) {
    size_t eq = w.find('=');
    if (eq == std::string::npos) {
      m->log(Level::kErr, "*** invalid input %s\n", w.c_str());
      return false;
    }
    std::string name = w.substr(0, eq);
    Node* n = m->nodeByPrefix(name);
    if (n == nullptr) {
      m->log(Level::kErr, "*** No such master node %s\n", name.c_str());
      return false;
    }
    n->weight = static_cast<float>(atof(w.c_str() + eq + 1));
  }
  float total_weight = 0;
  std::vector<Node*> involved;
  for (auto& n : m->nodes()) {
    if (n->replica || !n->replicate.empty()) continue;
    if (!cmd.use_empty_masters && n->slots_count == 0) {
      n->weight = 0;
      continue;
    }
    total_weight += n->weight;
    involved.push_back(n.get());
  }
  m->checkCluster(true, false);
  if (m->errorCount() > 0) {
    m->log(Level::kErr, "*** Please fix your cluster problems before rebalancing\n");
    return false;
  }
  // balance: slots a node should give (> 0) or get (< 0).
  bool over_threshold = false;
  int total_balance = 0;
  for (Node* n : involved) {
    int expected = static_cast<int>((static_cast<float>(kSlots) / total_weight) * n->weight);
    n->balance = n->slots_count - expected;
    total_balance += n->balance;
    if (cmd.threshold > 0) {
      if (n->slots_count > 0) {
        double err_perc = std::fabs(100 - (100.0 * expected / n->slots_count));
        if (err_perc > cmd.threshold) over_threshold = true;
      } else if (expected > 1) {
        over_threshold = true;
      }
    }
  }
  if (!over_threshold) {
    m->log(Level::kWarn, "*** No rebalancing needed! All nodes are within the %.2f%% threshold.\n",
           static_cast<double>(cmd.threshold));
    return true;
  }
  // Rounding can leave the balances summing above zero: let receivers take
  // the difference.
  while (total_balance > 0) {
    for (Node* n : involved) {
      if (n->balance <= 0 && total_balance > 0) {
        n->balance--;
        total_balance--;
      }
    }
  }
  std::vector<Node*> sorted = involved;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Node* a, const Node* b) { return a->balance < b->balance; });
  m->log(Level::kInfo, ">>> Rebalancing across %zu nodes. Total weight = %.2f\n", involved.size(),
         static_cast<double>(total_weight));
  if (m->opt().verbose) {
    for (Node* n : sorted)
      printf("%s:%d balance is %d slots\n", n->ip.c_str(), n->port, n->balance);
  }
  // Receivers sit at the front, givers at the back: pair them up.
  size_t dst_idx = 0;
  size_t src_idx = sorted.empty() ? 0 : sorted.size() - 1;
  while (dst_idx < src_idx) {
    Node* dst = sorted[dst_idx];
    Node* src = sorted[src_idx];
    int numslots = std::min(std::abs(dst->balance), std::abs(src->balance));
    if (numslots > 0) {
      printf("Moving %d slots from %s:%d to %s:%d\n", numslots, src->ip.c_str(), src->port,
             dst->ip.c_str(), dst->port);
      std::vector<Manager::Move> table = m->reshardTable({src}, numslots);
      if (static_cast<int>(table.size()) != numslots) {
        m->log(Level::kErr, "*** Assertion failed: Reshard table != number of slots");
        return false;
      }
      if (cmd.simulate) {
        printf("%s", std::string(table.size(), '#').c_str());
      } else {
        for (const auto& mv : table) {
          std::string err;
          if (!m->moveSlot(mv.source, dst, mv.slot, Manager::kQuiet | Manager::kUpdate, &err)) {
            m->log(Level::kErr, "*** clusterManagerMoveSlot: %s\n", err.c_str());
            return false;
          }
          printf("#");
          fflush(stdout);
        }
      }
      printf("\n");
    }
    dst->balance += numslots;
    src->balance -= numslots;
    if (dst->balance == 0) dst_idx++;
    if (src->balance == 0) src_idx--;
  }
  return true;
}

bool cmdImport(Manager* m) {
  std::string ip, src_ip;
  int port = 0, src_port = 0;
  Command& cmd = m->cmd();
  if (!hostFromArgs(cmd.args, cmd.args.size(), &ip, &port)) {
    fputs(kInvalidHostArg, stderr);
    return false;
  }
  if (cmd.from.empty()) {
    fprintf(stderr, "[ERR] Option '--cluster-from' is required for subcommand 'import'.\n");
    return false;
  }
  if (!hostFromArgs({cmd.from}, 1, &src_ip, &src_port)) {
    fprintf(stderr,
            "[ERR] Invalid --cluster-from host. You need to pass a valid address (ie. "
            "120.0.0.1:7000).\n");
    return false;
  }
  m->log(Level::kInfo, ">>> Importing data from %s:%d to cluster %s:%d\n", src_ip.c_str(), src_port,
         ip.c_str(), port);
  if (!m->loadFromNode(std::make_unique<Node>(ip, port))) return false;
  if (!m->checkCluster(false, false)) return false;

  // The source is a standalone server: a Node only for the connection.
  Node source(src_ip, src_port);
  source.conn = std::make_unique<client::Client>();
  client::Endpoint ep = client::nodeEndpoint(m->opt().endpoint, src_ip, src_port);
  std::string reply_err;
  auto fail = [&]() {
    if (!reply_err.empty()) {
      m->log(Level::kErr, "Source %s:%d replied with error:\n%s\n", src_ip.c_str(), src_port,
             reply_err.c_str());
    }
    return false;
  };
  if (!source.conn->connect(ep, 0)) {
    const std::string& e = source.conn->lastError();
    size_t pos = e.rfind(": ");
    fprintf(stderr, "Could not connect to Redis at %s:%d: %s.\n", src_ip.c_str(), src_port,
            (pos == std::string::npos ? e : e.substr(pos + 2)).c_str());
    return false;
  }
  const std::string& from_pass = cmd.from_pass;
  Reply r;
  if (!from_pass.empty()) {
    Argv auth = {"AUTH"};
    if (!cmd.from_user.empty()) auth.push_back(cmd.from_user);
    auth.push_back(from_pass);
    if (!m->command(&source, auth, &r)) return false;
    if (r.isError()) {
      fprintf(stderr, "AUTH failed: %s\n", r.str.c_str());
      return false;
    }
  }
  if (!m->command(&source, {"INFO"}, &r) || r.isError()) {
    reply_err = r.isError() ? r.str : "";
    return fail();
  }
  if (infoField(r.str, "cluster_enabled")) {
    m->log(Level::kErr, "[ERR] The source node should not be a cluster node.\n");
    return false;
  }
  if (!m->command(&source, {"DBSIZE"}, &r) || r.isError()) {
    reply_err = r.isError() ? r.str : "";
    return fail();
  }
  m->log(Level::kWarn, "*** Importing %d keys from DB 0\n", static_cast<int>(r.integer));
  std::vector<Node*> owner(kSlots, nullptr);
  for (int s = 0; s < kSlots; s++) {
    for (auto& n : m->nodes()) {
      if (n->replica || n->slots_count == 0) continue;
      if (n->slots[s]) {
        owner[s] = n.get();
        break;
      }
    }
  }
  std::string cursor = "0";
  do {
    if (!m->command(&source, {"SCAN", cursor, "COUNT", "1000"}, &r) || r.isError()) {
      reply_err = r.isError() ? r.str : "";
      return fail();
    }
    if (r.elements.size() < 2) return false;
    cursor = r.elements[0].type == resp::ReplyType::kInteger ? std::to_string(r.elements[0].integer)
                                                             : r.elements[0].str;
    for (const Reply& k : r.elements[1].elements) {
      Node* target = owner[client::keyHashSlot(k.str)];
      printf("Migrating %s to %s:%d: ", k.str.c_str(), target->ip.c_str(), target->port);
      Argv migrate = {"MIGRATE", target->ip, std::to_string(target->port),
                      k.str,     "0",        std::to_string(cmd.timeout_ms)};
      if (m->opt().auth) {
        if (m->opt().user) {
          migrate.insert(migrate.end(), {"AUTH2", *m->opt().user, *m->opt().auth});
        } else {
          migrate.insert(migrate.end(), {"AUTH", *m->opt().auth});
        }
      }
      if (cmd.copy) migrate.push_back("COPY");
      if (cmd.replace) migrate.push_back("REPLACE");
      Reply mr;
      if (!m->command(&source, migrate, &mr)) return fail();
      if (mr.isError()) {
        m->log(Level::kErr, "Source %s:%d replied with error:\n%s\n", src_ip.c_str(), src_port,
               mr.str.c_str());
        return fail();
      }
      m->log(Level::kOk, "OK\n");
    }
  } while (cursor != "0");
  return true;
}

}  // namespace cli::cluster
