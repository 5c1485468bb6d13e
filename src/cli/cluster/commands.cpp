// The smaller subcommands of the cluster manager: info, check, fix, call,
// set-timeout, add-node, del-node, backup.
#include <strings.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli/cluster/manager.h"
#include "cli/format.h"
#include "cli/modes/modes.h"
#include "cli/session.h"

namespace cli::cluster {

namespace {

// Loads the cluster from the node named by the first argument(s); prints
// the invalid-address message when they name none.
bool loadFromArgs(Manager* m, size_t count) {
  std::string ip;
  int port = 0;
  if (!hostFromArgs(m->cmd().args, count, &ip, &port)) {
    fputs(kInvalidHostArg, stderr);
    return false;
  }
  return m->loadFromNode(std::make_unique<Node>(ip, port));
}

}  // namespace

bool cmdInfo(Manager* m) {
  if (!loadFromArgs(m, m->cmd().args.size())) return false;
  m->showClusterInfo();
  return true;
}

bool cmdCheck(Manager* m) {
  if (!loadFromArgs(m, m->cmd().args.size())) return false;
  m->showClusterInfo();
  return m->checkCluster(false, m->cmd().name == "fix");
}

bool cmdFix(Manager* m) {
  return cmdCheck(m);
}

bool cmdCall(Manager* m) {
  if (!loadFromArgs(m, 1)) return false;
  Argv argv(m->cmd().args.begin() + 1, m->cmd().args.end());
  m->log(Level::kInfo, ">>> Calling");
  for (const auto& a : argv) printf(" %s", a.c_str());
  printf("\n");
  FormatOptions raw;
  raw.mode = OutputMode::kRaw;
  for (auto& n : m->nodes()) {
    if (m->cmd().only_masters && !n->replicate.empty()) continue;
    if (m->cmd().only_replicas && n->replicate.empty()) continue;
    if (!n->conn && !m->connect(n.get())) continue;
    Reply r;
    if (!m->command(n.get(), argv, &r)) {
      printf("%s:%d: Failed!\n", n->ip.c_str(), n->port);
      continue;
    }
    // Raw form, as redis-cli prints it here (an error keeps its newline).
    std::string text = formatRaw(r, raw);
    printf("%s:%d: %s\n", n->ip.c_str(), n->port, text.c_str());
  }
  return true;
}

bool cmdSetTimeout(Manager* m) {
  std::string ip;
  int port = 0;
  if (!hostFromArgs(m->cmd().args, 1, &ip, &port)) {
    fputs(kInvalidHostArg, stderr);
    return false;
  }
  int timeout = atoi(m->cmd().args[1].c_str());
  if (timeout < 100) {
    fprintf(stderr, "Setting a node timeout of less than 100 milliseconds is a bad idea.\n");
    return false;
  }
  if (!m->loadFromNode(std::make_unique<Node>(ip, port))) return false;
  int ok_count = 0, err_count = 0;
  m->log(Level::kInfo, ">>> Reconfiguring node timeout in every cluster node...\n");
  for (auto& n : m->nodes()) {
    std::string err;
    Reply r;
    bool ok =
        m->commandOk(n.get(), {"CONFIG", "SET", "cluster-node-timeout", std::to_string(timeout)},
                     &r, &err) &&
        m->commandOk(n.get(), {"CONFIG", "REWRITE"}, &r, &err);
    if (ok) {
      m->log(Level::kWarn, "*** New timeout set for %s:%d\n", n->ip.c_str(), n->port);
      ok_count++;
    } else {
      m->log(Level::kErr, "ERR setting node-timeout for %s:%d: %s\n", n->ip.c_str(), n->port,
             err.c_str());
      err_count++;
    }
  }
  m->log(Level::kInfo, ">>> New node timeout set. %d OK, %d ERR.\n", ok_count, err_count);
  return true;
}

bool cmdAddNode(Manager* m) {
  const auto& args = m->cmd().args;
  std::string ref_ip, ip;
  int ref_port = 0, port = 0;
  std::vector<std::string> ref_args(args.begin() + 1, args.end());
  if (!hostFromArgs(ref_args, 1, &ref_ip, &ref_port) || !hostFromArgs(args, 1, &ip, &port)) {
    fputs(kInvalidHostArg, stderr);
    return false;
  }
  m->log(Level::kInfo, ">>> Adding node %s:%d to cluster %s:%d\n", ip.c_str(), port, ref_ip.c_str(),
         ref_port);
  if (!m->loadFromNode(std::make_unique<Node>(ref_ip, ref_port))) return false;
  if (!m->checkCluster(false, false)) return false;
  Node* refnode = m->nodes().front().get();
  Node* master = nullptr;
  if (m->cmd().replica) {
    if (!m->cmd().master_id.empty()) {
      master = m->nodeByName(m->cmd().master_id);
      if (master == nullptr) {
        m->log(Level::kErr, "[ERR] No such master ID %s\n", m->cmd().master_id.c_str());
        return false;
      }
    } else {
      master = m->masterWithLeastReplicas();
      printf("Automatically selected master %s:%d\n", master->ip.c_str(), master->port);
    }
  }
  auto fresh = std::make_unique<Node>(ip, port);
  if (!m->connect(fresh.get())) {
    m->log(Level::kErr, "[ERR] Sorry, can't connect to node %s:%d\n", ip.c_str(), port);
    return false;
  }
  std::string err;
  if (!m->isCluster(fresh.get(), &err)) {
    m->log(Level::kErr, "[ERR] Node %s:%d %s\n", ip.c_str(), port,
           err.empty() ? "is not configured as a cluster node." : err.c_str());
    return false;
  }
  if (!m->loadNodeInfo(fresh.get(), false, &err)) {
    if (!err.empty()) m->printReplyError(*fresh, err);
    return false;
  }
  if (!m->isEmpty(fresh.get(), &err)) {
    m->log(Level::kErr, "[ERR] Node %s:%d %s\n", ip.c_str(), port,
           !err.empty() ? err.c_str()
                        : "is not empty. Either the node already knows other nodes (check with "
                          "CLUSTER NODES) or contains some key in database 0.");
    return false;
  }
  Node* first = m->nodes().front().get();
  Node* added = fresh.get();
  m->nodes().push_back(std::move(fresh));

  if (master == nullptr) {
    // A new master gets the cluster's functions (a replica gets them from
    // its master).
    m->log(Level::kInfo, ">>> Getting functions from cluster\n");
    Reply dump;
    std::string derr;
    if (!m->commandOk(refnode, {"FUNCTION", "DUMP"}, &dump, &derr)) {
      m->log(Level::kInfo,
             ">>> Failed retrieving Functions from the cluster, skip this step as Redis version do "
             "not support function command (error = '%s')\n",
             derr.empty() ? "NULL reply" : derr.c_str());
    } else {
      m->log(Level::kInfo,
             ">>> Send FUNCTION LIST to %s:%d to verify there is no functions in it\n", ip.c_str(),
             port);
      Reply list;
      std::string lerr;
      if (!m->commandOk(added, {"FUNCTION", "LIST"}, &list, &lerr)) {
        m->log(Level::kErr, ">>> Failed on CLUSTER LIST (error = '%s')\r\n",
               lerr.empty() ? "NULL reply" : lerr.c_str());
        return false;
      }
      if (!list.elements.empty()) {
        m->log(Level::kErr,
               ">>> New node already contains functions and can not be added to the cluster. Use "
               "FUNCTION FLUSH and try again.\r\n");
        return false;
      }
      m->log(Level::kInfo, ">>> Send FUNCTION RESTORE to %s:%d\n", ip.c_str(), port);
      Reply rr;
      std::string rerr;
      if (!m->commandOk(added, {"FUNCTION", "RESTORE", dump.str}, &rr, &rerr)) {
        m->log(Level::kErr, ">>> Failed loading functions to the new node (error = '%s')\r\n",
               rerr.empty() ? "NULL reply" : rerr.c_str());
        return false;
      }
    }
  }
  m->log(Level::kInfo, ">>> Send CLUSTER MEET to node %s:%d to make it join the cluster.\n",
         ip.c_str(), port);
  std::string first_ip;
  if (!resolveHost(first->ip, &first_ip)) {
    fprintf(stderr, "Invalid IP address or hostname specified: %s\n", first->ip.c_str());
    return false;
  }
  Argv meet = {"CLUSTER", "MEET", first_ip, std::to_string(first->port)};
  if (first->bus_port != 0 && first->bus_port != first->port + kBusPortOffset) {
    meet.push_back(std::to_string(first->bus_port));
  }
  if (!m->commandOk(added, meet)) return false;
  if (master != nullptr) {
    sleep(1);
    m->waitForClusterJoin();
    m->log(Level::kInfo, ">>> Configure node as replica of %s:%d.\n", master->ip.c_str(),
           master->port);
    if (!m->commandOk(added, {"CLUSTER", "REPLICATE", master->name})) return false;
  }
  m->log(Level::kOk, "[OK] New node added correctly.\n");
  return true;
}

bool cmdDelNode(Manager* m) {
  std::string ip;
  int port = 0;
  if (!hostFromArgs(m->cmd().args, 1, &ip, &port)) {
    fputs(kInvalidHostArg, stderr);
    return false;
  }
  const std::string& id = m->cmd().args[1];
  m->log(Level::kInfo, ">>> Removing node %s from cluster %s:%d\n", id.c_str(), ip.c_str(), port);
  if (!m->loadFromNode(std::make_unique<Node>(ip, port))) return false;
  Node* node = m->nodeByName(id);
  if (node == nullptr) {
    m->log(Level::kErr, "[ERR] No such node ID %s\n", id.c_str());
    return false;
  }
  if (node->slots_count != 0) {
    m->log(Level::kErr, "[ERR] Node %s:%d is not empty! Reshard data away and try again.\n",
           node->ip.c_str(), node->port);
    return false;
  }
  m->log(Level::kInfo, ">>> Sending CLUSTER FORGET messages to the cluster...\n");
  for (auto& n : m->nodes()) {
    if (n.get() == node) continue;
    if (!n->replicate.empty() && strcasecmp(n->replicate.c_str(), id.c_str()) == 0) {
      // Its master goes away: give the replica another one.
      Node* master = m->masterWithLeastReplicas();
      m->log(Level::kInfo, ">>> %s:%d as replica of %s:%d\n", n->ip.c_str(), n->port,
             master->ip.c_str(), master->port);
      if (!m->commandOk(n.get(), {"CLUSTER", "REPLICATE", master->name})) return false;
    }
    if (!m->commandOk(n.get(), {"CLUSTER", "FORGET", id})) return false;
  }
  m->log(Level::kInfo, ">>> Sending CLUSTER RESET SOFT to the deleted node.\n");
  return m->commandOk(node, {"CLUSTER", "RESET", "SOFT"});
}

namespace {

std::string jsonOf(const Node& n, size_t errors) {
  std::string slots = n.slotsString();
  for (char& c : slots) {
    if (c == '-') c = ',';
  }
  std::string j =
      "  {\n    \"name\": \"" + n.name + "\",\n    \"host\": \"" + n.ip +
      "\",\n    \"port\": " + std::to_string(n.port) +
      ",\n    \"replicate\": " + (n.replicate.empty() ? "null" : "\"" + n.replicate + "\"") +
      ",\n    \"slots\": [" + slots + "],\n    \"slots_count\": " + std::to_string(n.slots_count) +
      ",\n    \"flags\": \"" + n.flagsString() +
      "\",\n    \"current_epoch\": " + std::to_string(n.config_epoch);
  if (errors > 0) j += ",\n    \"cluster_errors\": " + std::to_string(errors);
  auto open = [&](const char* label, const auto& list) {
    if (list.empty()) return;
    std::string body;
    for (const auto& [slot, other] : list) {
      if (!body.empty()) body += ",";
      body += "\"" + slot + "\": \"" + other + "\"";
    }
    j += std::string(",\n    \"") + label + "\": {" + body + "}";
  };
  open("migrating", n.migrating);
  open("importing", n.importing);
  return j + "\n  }";
}

}  // namespace

bool cmdBackup(Manager* m) {
  if (!loadFromArgs(m, 1)) return false;
  bool no_issues = m->checkCluster(false, false);
  size_t errors = no_issues ? 0 : m->errorCount();
  std::string dir = m->cmd().args[1];
  std::string slash_dir = dir.empty() || dir.back() != '/' ? dir + "/" : dir;
  std::string json = "[\n";
  bool first = true;
  for (auto& n : m->nodes()) {
    if (!first) json += ",\n";
    first = false;
    json += jsonOf(*n, errors);
    if (!n->replicate.empty()) continue;
    m->log(Level::kInfo, ">>> Node %s:%d -> Saving RDB...\n", n->ip.c_str(), n->port);
    fflush(stdout);
    // The --rdb mode, pointed at this node.
    Options node_opt = m->opt();
    node_opt.endpoint = client::nodeEndpoint(m->opt().endpoint, n->ip, n->port);
    node_opt.db = 0;
    node_opt.resp_set = false;
    node_opt.functions_rdb = false;
    node_opt.rdb_filename =
        slash_dir + "redis-node-" + n->ip + "-" + std::to_string(n->port) + "-" + n->name + ".rdb";
    Session session(&node_opt);
    if (!session.connect(false, true)) exit(1);
    if (modes::saveRdb(&session, node_opt.rdb_filename) != 0) exit(1);
  }
  json += "\n]";
  std::string path = slash_dir + "nodes.json";
  fflush(stdout);
  m->log(Level::kInfo, "Saving cluster configuration to: %s\n", path.c_str());
  FILE* out = fopen(path.c_str(), "w+");
  if (out == nullptr) {
    m->log(Level::kErr, "Could not save nodes to: %s\n", path.c_str());
    m->log(Level::kOk, "[ERR] Failed to back cluster!\n");
    return false;
  }
  fputs(json.c_str(), out);
  fclose(out);
  if (!no_issues) {
    m->log(Level::kWarn,
           "*** Cluster seems to have some problems, please be aware of it if you're going to "
           "restore this backup.\n");
  }
  m->log(Level::kOk, "[OK] Backup created into: %s\n", dir.c_str());
  return true;
}

}  // namespace cli::cluster
