// redis-cli --cluster <command> [args] [opts]: the cluster manager of
// redis-cli 7.0 (create, check, info, fix, reshard, rebalance, add-node,
// del-node, call, set-timeout, import, backup, help), with its messages,
// its "yes" confirmations and its exit statuses.
//
// Module cli/cluster (namespace cli::cluster): part of the cli program. It
// reaches every node through the client library (client::Client over the
// connection type the options chose, never a named transport; hash slots
// from client/cluster.h) and uses of cli/ only the option block, the raw
// reply format (call), --askpass's prompt and the --rdb mode (backup). Its
// inner header manager.h is for the files of this folder alone.
#pragma once

#include <string>
#include <vector>

namespace cli {
struct Options;
}

namespace cli::cluster {

// Everything --cluster and the --cluster-* options set.
struct Command {
  std::string name;                  // the subcommand; empty: not in cluster mode
  std::vector<std::string> args;     // its arguments (up to the next option)
  int replicas = 0;                  // --cluster-replicas
  std::string master_id;             // --cluster-master-id
  std::string from;                  // --cluster-from
  std::string to;                    // --cluster-to
  std::string from_user;             // --cluster-from-user
  std::string from_pass;             // --cluster-from-pass
  bool from_askpass = false;         // --cluster-from-askpass
  std::vector<std::string> weights;  // --cluster-weight n1=w1 n2=w2 ...
  bool weight_given = false;
  int slots = 0;                        // --cluster-slots (0: ask)
  int timeout_ms = 60000;               // --cluster-timeout (MIGRATE timeout)
  int pipeline = 10;                    // --cluster-pipeline (keys per MIGRATE)
  float threshold = 2;                  // --cluster-threshold (rebalance, percent)
  bool yes = false;                     // --cluster-yes
  bool simulate = false;                // --cluster-simulate
  bool replace = false;                 // --cluster-replace
  bool copy = false;                    // --cluster-copy
  bool replica = false;                 // --cluster-slave (or --cluster-replica)
  bool use_empty_masters = false;       // --cluster-use-empty-masters
  bool search_multiple_owners = false;  // --cluster-search-multiple-owners
  bool fix_with_unreachable = false;    // --cluster-fix-with-unreachable-masters
  bool only_masters = false;            // --cluster-only-masters
  bool only_replicas = false;           // --cluster-only-replicas
};

enum class OptionMatch {
  kNo,     // not a cluster manager option
  kTaken,  // taken (with its values; *i moved past them)
  kExit,   // taken, but the message is printed and the program must exit 1
};

// Looks at argv[*i] during option parsing: --cluster <cmd> [args], the
// --cluster-* options, and, once in cluster mode, loose words that are the
// subcommand's arguments (when none were given right after it).
OptionMatch takeOption(int argc, char** argv, int* i, Command* cmd);

// Runs the subcommand the options hold (cmd.name not empty) and returns
// the process exit status: 0 on success, 1 otherwise (help too, as
// redis-cli does).
int run(Options* opt);

}  // namespace cli::cluster
