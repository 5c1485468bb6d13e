// CLUSTER and its subcommands, ASKING, READONLY and READWRITE as Redis
// 7.0.15 answers them with cluster-enabled no, which is the only mode this
// server has: every one replies "This instance has cluster support
// disabled". They are in the command table so that COMMAND, ACL rules,
// scripts (CLUSTER RESET is not allowed from them) and clients that probe
// for cluster support see what they see on a Redis that is not a cluster
// node. Cluster mode itself is not implemented (README, "Not implemented
// yet").
#include "server/cluster/cluster.h"
#include "server/core/client.h"
#include "server/core/command.h"

namespace server::cluster {
namespace {

void disabled(Client* c) {
  c->addError("This instance has cluster support disabled");
}

}  // namespace

void registerClusterCommands(CommandTable& t) {
  constexpr SubcommandMaker sub{"cluster", "3.0.0"};
  // Redis's flags for each: what COMMAND INFO shows and what scripts,
  // loading and stale replicas allow.
  const uint32_t kAdminSub = kNoAsyncLoading | kAdmin | kStale;
  const char* kAdminAcl = "admin slow dangerous";
  Command cluster{"cluster",
                  -2,
                  0,
                  disabled,
                  0,
                  0,
                  0,
                  "cluster",
                  "A container for cluster commands",
                  "3.0.0",
                  "Depends on subcommand.",
                  "slow"};
  cluster.subcommands = {
      sub("cluster|addslots", -3, kAdminSub, disabled, "Assign new hash slots to receiving node",
          "O(N) where N is the total number of hash slot arguments", kAdminAcl),
      sub("cluster|addslotsrange", -4, kAdminSub, disabled,
          "Assign new hash slots to receiving node", "7.0.0",
          "O(N) where N is the total number of the slots between the start slot and end slot "
          "arguments.",
          kAdminAcl),
      sub("cluster|bumpepoch", 2, kAdminSub, disabled, "Advance the cluster config epoch", "O(1)",
          kAdminAcl),
      sub("cluster|count-failure-reports", 3, kAdmin | kStale, disabled,
          "Return the number of failure reports active for a given node",
          "O(N) where N is the number of failure reports", kAdminAcl),
      sub("cluster|countkeysinslot", 3, kStale, disabled,
          "Return the number of local keys in the specified hash slot", "O(1)", "slow"),
      sub("cluster|delslots", -3, kAdminSub, disabled,
          "Set hash slots as unbound in receiving node",
          "O(N) where N is the total number of hash slot arguments", kAdminAcl),
      sub("cluster|delslotsrange", -4, kAdminSub, disabled,
          "Set hash slots as unbound in receiving node", "7.0.0",
          "O(N) where N is the total number of the slots between the start slot and end slot "
          "arguments.",
          kAdminAcl),
      sub("cluster|failover", -2, kAdminSub, disabled,
          "Forces a replica to perform a manual failover of its master.", "O(1)", kAdminAcl),
      sub("cluster|flushslots", 2, kAdminSub, disabled, "Delete a node's own slots information",
          "O(1)", kAdminAcl),
      sub("cluster|forget", 3, kAdminSub, disabled, "Remove a node from the nodes table", "O(1)",
          kAdminAcl),
      sub("cluster|getkeysinslot", 4, kStale, disabled,
          "Return local key names in the specified hash slot",
          "O(log(N)) where N is the number of requested keys", "slow"),
      sub("cluster|help", 2, kLoading | kStale, disabled,
          "Show helpful text about the different subcommands", "5.0.0", "O(1)", "slow"),
      sub("cluster|info", 2, kStale, disabled, "Provides info about Redis Cluster node state",
          "O(1)", "slow"),
      sub("cluster|keyslot", 3, kStale, disabled, "Returns the hash slot of the specified key",
          "O(N) where N is the number of bytes in the key", "slow"),
      sub("cluster|links", 2, kStale, disabled,
          "Returns a list of all TCP links to and from peer nodes in cluster", "7.0.0",
          "O(N) where N is the total number of Cluster nodes", "slow"),
      sub("cluster|meet", -4, kAdminSub, disabled,
          "Force a node cluster to handshake with another node", "O(1)", kAdminAcl),
      sub("cluster|myid", 2, kStale, disabled, "Return the node id", "O(1)", "slow"),
      sub("cluster|nodes", 2, kStale, disabled, "Get Cluster config for the node",
          "O(N) where N is the total number of Cluster nodes", "slow"),
      sub("cluster|replicas", 3, kAdmin | kStale, disabled,
          "List replica nodes of the specified master node", "5.0.0", "O(1)", kAdminAcl),
      sub("cluster|replicate", 3, kAdminSub, disabled,
          "Reconfigure a node as a replica of the specified master node", "O(1)", kAdminAcl),
      sub("cluster|reset", -2, kAdmin | kStale | kNoScript, disabled, "Reset a Redis Cluster node",
          "O(N) where N is the number of known nodes. The command may execute a FLUSHALL as a "
          "side effect.",
          kAdminAcl),
      sub("cluster|saveconfig", 2, kAdminSub, disabled,
          "Forces the node to save cluster state on disk", "O(1)", kAdminAcl),
      sub("cluster|set-config-epoch", 3, kAdminSub, disabled,
          "Set the configuration epoch in a new node", "O(1)", kAdminAcl),
      sub("cluster|setslot", -4, kAdminSub, disabled, "Bind a hash slot to a specific node", "O(1)",
          kAdminAcl),
      sub("cluster|shards", 2, kStale, disabled, "Get array of cluster slots to node mappings",
          "7.0.0", "O(N) where N is the total number of cluster nodes", "slow"),
      sub("cluster|slaves", 3, kAdmin | kStale, disabled,
          "List replica nodes of the specified master node", "O(1)", kAdminAcl),
      sub("cluster|slots", 2, kStale, disabled, "Get array of Cluster slot to node mappings",
          "O(N) where N is the total number of Cluster nodes", "slow"),
  };
  t.add(std::move(cluster));
  t.add({"asking", 1, kFast, disabled, 0, 0, 0, "cluster",
         "Sent by cluster clients after an -ASK redirect", "3.0.0", "O(1)", "fast connection"});
  t.add({"readonly", 1, kFast | kLoading | kStale, disabled, 0, 0, 0, "cluster",
         "Enables read queries for a connection to a cluster replica node", "3.0.0", "O(1)",
         "fast connection"});
  t.add({"readwrite", 1, kFast | kLoading | kStale, disabled, 0, 0, 0, "cluster",
         "Disables read queries for a connection to a cluster replica node", "3.0.0", "O(1)",
         "fast connection"});
}

}  // namespace server::cluster
