// Inside the cluster manager (cli/cluster/ only): the view of one node, the
// manager that holds every node it loaded, and the steps the subcommands
// share (loading the cluster, checking it, moving slots, fixing it).
//
// Error convention: a step returns false when it failed and has already
// printed why, in redis-cli's words; callers only decide whether to go on.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli/cluster/cluster.h"
#include "cli/options.h"
#include "client/client.h"
#include "client/cluster.h"

namespace cli::cluster {

constexpr int kSlots = 16384;
constexpr int kBusPortOffset = 10000;

using resp::Reply;
using Argv = std::vector<std::string>;

// One node as CLUSTER NODES describes it, with the connection to it.
struct Node {
  Node(std::string ip_, int port_, int bus_port_ = 0)
      : ip(std::move(ip_)), port(port_), bus_port(bus_port_ ? bus_port_ : port_ + kBusPortOffset) {}

  std::string ip;
  int port;
  int bus_port;
  std::string name;                      // node ID (40 hex characters)
  std::unique_ptr<client::Client> conn;  // null until connected
  uint64_t config_epoch = 0;
  std::vector<std::string> flags;  // as listed by CLUSTER NODES
  bool myself = false, replica = false, noaddr = false, disconnected = false, failed = false;
  std::string replicate;  // master ID; empty for a master
  bool dirty = false;     // a planned change not yet sent
  std::vector<uint8_t> slots = std::vector<uint8_t>(kSlots, 0);
  int slots_count = 0;
  int replicas_count = 0;
  // Open slots: (slot, other node ID).
  std::vector<std::pair<std::string, std::string>> migrating, importing;
  float weight = 1;                            // rebalance
  int balance = 0;                             // rebalance: slots to give (>0) or take (<0)
  std::vector<std::unique_ptr<Node>> friends;  // the other nodes it knows

  std::string addr() const { return ip + ":" + std::to_string(port); }
  void resetSlots();
  // Slots as "[0-5460],[10923]" ranges.
  std::string slotsString() const;
  // The flags but "myself", comma-separated.
  std::string flagsString() const;
};

enum class Level { kInfo, kWarn, kErr, kOk };

class Manager {
 public:
  Manager(Options* opt, Command* cmd);

  Options& opt() { return *opt_; }
  Command& cmd() { return *cmd_; }
  std::vector<std::unique_ptr<Node>>& nodes() { return nodes_; }

  // Printing, coloured as redis-cli colours it when TERM names an xterm.
  void log(Level level, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
  // "Node <ip>:<port> replied with error:\n<err>\n" (red).
  void printReplyError(const Node& n, const std::string& err);
  // Records an error for the check's summary and prints it (red).
  void onError(const std::string& err);
  size_t errorCount() const { return errors_.size(); }
  // msg + " (type 'yes' to accept): "; true on "yes". --cluster-yes
  // answers for it unless ignore_yes_option.
  bool confirm(const char* msg, bool ignore_yes_option);

  // ---- node I/O (node.cpp)
  // Connects (and AUTHs with -a/--user) to n; prints "Could not connect to
  // Redis at ..." on failure.
  bool connect(Node* n);
  // Sends argv to n and waits for the reply; false when the connection
  // failed (nothing printed).
  bool command(Node* n, const Argv& argv, Reply* r);
  // As command(); an error reply also fails: *err gets its text when err is
  // given, otherwise it is printed with printReplyError.
  bool commandOk(Node* n, const Argv& argv, Reply* r = nullptr, std::string* err = nullptr);
  bool isCluster(Node* n, std::string* err);
  bool isEmpty(Node* n, std::string* err);
  // Reads CLUSTER NODES into n (and n->friends with get_friends).
  bool loadNodeInfo(Node* n, bool get_friends, std::string* err);
  // Connects to n, loads the whole cluster as n sees it into nodes().
  bool loadFromNode(std::unique_ptr<Node> n);
  Node* nodeByName(const std::string& name);
  Node* nodeByPrefix(const std::string& prefix);
  // "M: <id> <ip>:<port>\n   slots:... (N slots) flags\n   ..." as redis-cli.
  std::string nodeInfo(const Node& n, int indent);
  void showNodes();
  bool showClusterInfo();  // the lines of "info"; false on a DBSIZE error
  // Sends the planned change (CLUSTER REPLICATE or ADDSLOTS) of a dirty node.
  bool flushNodeConfig(Node* n, std::string* err);
  bool configConsistent();
  void waitForClusterJoin();
  int unreachableMasters() const { return unreachable_masters_; }
  Node* masterWithLeastReplicas();
  Node* randomMaster();

  // ---- slot operations (slots.cpp)
  bool setSlot(Node* n, const Node& other, int slot, const char* state, std::string* err);
  bool clearSlotStatus(Node* n, int slot);
  bool delSlot(Node* n, int slot, bool ignore_unassigned);
  int countKeysInSlot(Node* n, int slot);
  Node* slotOwner(Node* n, int slot, std::string* err);
  // MULTI; DELSLOTS; ADDSLOTS; [SETSLOT STABLE]; BUMPEPOCH; EXEC.
  bool setSlotOwner(Node* owner, int slot, bool clear);
  // kVerbose: a dot per key moved; kCold: keys only, no SETSLOT around
  // them; kUpdate: note the move in the nodes' slot tables; kQuiet: no
  // "Moving slot ..." line.
  enum MoveFlags { kVerbose = 1, kCold = 2, kUpdate = 4, kQuiet = 8 };
  bool moveSlot(Node* src, Node* dst, int slot, int flags, std::string* err);
  struct Move {
    Node* source;
    int slot;
  };
  std::vector<Move> reshardTable(std::vector<Node*> sources, int numslots);

  // ---- check and fix (check.cpp)
  bool checkCluster(bool quiet, bool fix);
  bool fixOpenSlot(int slot);
  int fixSlotsCoverage(std::vector<uint8_t>* covered);
  bool fixMultipleOwners(int slot, const std::vector<Node*>& owners);

 private:
  bool migrateKeysInSlot(Node* src, Node* dst, int slot, bool dots, bool fixing, std::string* err);
  bool migrateKeys(Node* src, Node* dst, const std::vector<std::string>& keys, bool replace,
                   Reply* r);
  bool compareKeyValues(Node* n1, Node* n2, const std::vector<std::string>& keys,
                        std::vector<std::string>* diffs);
  Node* nodeWithMostKeys(const std::vector<Node*>& nodes, int slot);

  Options* opt_;
  Command* cmd_;
  bool color_ = false;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<std::string> errors_;
  int unreachable_masters_ = 0;
};

// Parses "ip:port[@busport]" (the last ':' splits). False when no ':'.
bool parseAddress(const std::string& addr, std::string* ip, int* port, int* bus_port);
// One "host:port" argument or two ("host" "port"); false on a bad one.
bool hostFromArgs(const std::vector<std::string>& args, size_t count, std::string* ip, int* port);
// The value of "field:" in INFO-style text (0 when missing).
long infoField(const std::string& text, const char* field);
// The numeric address CLUSTER MEET needs for a host name (create.cpp).
bool resolveHost(const std::string& host, std::string* ip);

// Subcommands (commands.cpp, create.cpp, reshard.cpp): each returns true
// on success.
bool cmdCreate(Manager* m);
bool cmdAddNode(Manager* m);
bool cmdDelNode(Manager* m);
bool cmdInfo(Manager* m);
bool cmdCheck(Manager* m);
bool cmdFix(Manager* m);
bool cmdReshard(Manager* m);
bool cmdRebalance(Manager* m);
bool cmdSetTimeout(Manager* m);
bool cmdImport(Manager* m);
bool cmdCall(Manager* m);
bool cmdBackup(Manager* m);

extern const char kInvalidHostArg[];

}  // namespace cli::cluster
