// The command table's rows of CLUSTER and its subcommands, ASKING,
// READONLY and READWRITE, with Redis 7.0.15's flags (what COMMAND INFO
// shows and what scripts, loading and stale replicas allow). With
// cluster-enabled no each replies "This instance has cluster support
// disabled", as Redis does; in cluster mode the handlers of cmds.h run.
#include "server/cluster/cluster.h"
#include "server/cluster/cmds.h"
#include "server/core/client.h"
#include "server/core/command.h"

namespace server::cluster {
namespace {

void disabled(Client* c) {
  c->addError("This instance has cluster support disabled");
}

template <void (*Handler)(Client*)>
void gated(Client* c) {
  if (!g_enabled) return disabled(c);
  Handler(c);
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
      sub("cluster|addslots", -3, kAdminSub, gated<cmd::addslots>,
          "Assign new hash slots to receiving node",
          "O(N) where N is the total number of hash slot arguments", kAdminAcl),
      sub("cluster|addslotsrange", -4, kAdminSub, gated<cmd::addslotsrange>,
          "Assign new hash slots to receiving node", "7.0.0",
          "O(N) where N is the total number of the slots between the start slot and end slot "
          "arguments.",
          kAdminAcl),
      sub("cluster|bumpepoch", 2, kAdminSub, gated<cmd::bumpepoch>,
          "Advance the cluster config epoch", "O(1)", kAdminAcl),
      sub("cluster|count-failure-reports", 3, kAdmin | kStale, gated<cmd::countFailureReports>,
          "Return the number of failure reports active for a given node",
          "O(N) where N is the number of failure reports", kAdminAcl),
      sub("cluster|countkeysinslot", 3, kStale, gated<cmd::countkeysinslot>,
          "Return the number of local keys in the specified hash slot", "O(1)", "slow"),
      sub("cluster|delslots", -3, kAdminSub, gated<cmd::delslots>,
          "Set hash slots as unbound in receiving node",
          "O(N) where N is the total number of hash slot arguments", kAdminAcl),
      sub("cluster|delslotsrange", -4, kAdminSub, gated<cmd::delslotsrange>,
          "Set hash slots as unbound in receiving node", "7.0.0",
          "O(N) where N is the total number of the slots between the start slot and end slot "
          "arguments.",
          kAdminAcl),
      sub("cluster|failover", -2, kAdminSub, gated<cmd::failover>,
          "Forces a replica to perform a manual failover of its master.", "O(1)", kAdminAcl),
      sub("cluster|flushslots", 2, kAdminSub, gated<cmd::flushslots>,
          "Delete a node's own slots information", "O(1)", kAdminAcl),
      sub("cluster|forget", 3, kAdminSub, gated<cmd::forget>, "Remove a node from the nodes table",
          "O(1)", kAdminAcl),
      sub("cluster|getkeysinslot", 4, kStale, gated<cmd::getkeysinslot>,
          "Return local key names in the specified hash slot",
          "O(log(N)) where N is the number of requested keys", "slow"),
      sub("cluster|help", 2, kLoading | kStale, gated<cmd::help>,
          "Show helpful text about the different subcommands", "5.0.0", "O(1)", "slow"),
      sub("cluster|info", 2, kStale, gated<cmd::info>,
          "Provides info about Redis Cluster node state", "O(1)", "slow"),
      sub("cluster|keyslot", 3, kStale, gated<cmd::keyslot>,
          "Returns the hash slot of the specified key",
          "O(N) where N is the number of bytes in the key", "slow"),
      sub("cluster|links", 2, kStale, gated<cmd::links>,
          "Returns a list of all TCP links to and from peer nodes in cluster", "7.0.0",
          "O(N) where N is the total number of Cluster nodes", "slow"),
      sub("cluster|meet", -4, kAdminSub, gated<cmd::meet>,
          "Force a node cluster to handshake with another node", "O(1)", kAdminAcl),
      sub("cluster|myid", 2, kStale, gated<cmd::myid>, "Return the node id", "O(1)", "slow"),
      sub("cluster|nodes", 2, kStale, gated<cmd::nodes>, "Get Cluster config for the node",
          "O(N) where N is the total number of Cluster nodes", "slow"),
      sub("cluster|replicas", 3, kAdmin | kStale, gated<cmd::replicas>,
          "List replica nodes of the specified master node", "5.0.0", "O(1)", kAdminAcl),
      sub("cluster|replicate", 3, kAdminSub, gated<cmd::replicate>,
          "Reconfigure a node as a replica of the specified master node", "O(1)", kAdminAcl),
      sub("cluster|reset", -2, kAdmin | kStale | kNoScript, gated<cmd::reset>,
          "Reset a Redis Cluster node",
          "O(N) where N is the number of known nodes. The command may execute a FLUSHALL as a "
          "side effect.",
          kAdminAcl),
      sub("cluster|saveconfig", 2, kAdminSub, gated<cmd::saveconfig>,
          "Forces the node to save cluster state on disk", "O(1)", kAdminAcl),
      sub("cluster|set-config-epoch", 3, kAdminSub, gated<cmd::setConfigEpoch>,
          "Set the configuration epoch in a new node", "O(1)", kAdminAcl),
      sub("cluster|setslot", -4, kAdminSub, gated<cmd::setslot>,
          "Bind a hash slot to a specific node", "O(1)", kAdminAcl),
      sub("cluster|shards", 2, kStale, gated<cmd::shards>,
          "Get array of cluster slots to node mappings", "7.0.0",
          "O(N) where N is the total number of cluster nodes", "slow"),
      sub("cluster|slaves", 3, kAdmin | kStale, gated<cmd::replicas>,
          "List replica nodes of the specified master node", "O(1)", kAdminAcl),
      sub("cluster|slots", 2, kStale, gated<cmd::slots>,
          "Get array of Cluster slot to node mappings",
          "O(N) where N is the total number of Cluster nodes", "slow"),
  };
  t.add(std::move(cluster));
  t.add({"asking", 1, kFast, gated<cmd::asking>, 0, 0, 0, "cluster",
         "Sent by cluster clients after an -ASK redirect", "3.0.0", "O(1)", "fast connection"});
  t.add({"readonly", 1, kFast | kLoading | kStale, gated<cmd::readonly>, 0, 0, 0, "cluster",
         "Enables read queries for a connection to a cluster replica node", "3.0.0", "O(1)",
         "fast connection"});
  t.add({"readwrite", 1, kFast | kLoading | kStale, gated<cmd::readwrite>, 0, 0, 0, "cluster",
         "Disables read queries for a connection to a cluster replica node", "3.0.0", "O(1)",
         "fast connection"});
}

}  // namespace server::cluster
