// Which node serves a request (Redis 7.0.15's rules), and the replies that
// send a client elsewhere:
//   -MOVED slot host:port     another node serves the slot
//   -ASK slot host:port       the slot is moving and the key is not here
//   -CROSSSLOT                keys of one request (or transaction) in
//                             different slots
//   -TRYAGAIN                 several keys of a moving slot, some missing
//   -CLUSTERDOWN ...          the cluster is down, or the slot unserved
// Keys are found as Redis 7.0 finds them for this: the command's key
// procedure, else its first/last/step positions (which include SPUBLISH's
// and SSUBSCRIBE's shard channels).
#include <strings.h>

#include <cstring>

#include "server/cluster/cluster.h"
#include "server/cluster/state.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/db/db.h"
#include "server/db/slots.h"
#include "server/request/blocking.h"
#include "server/request/multi.h"
#include "server/script/script.h"

namespace server::cluster {
namespace {

enum Redir { kNone, kCrossSlot, kUnstable, kAsk, kMoved, kDownState, kDownUnbound, kDownRoState };

void keyPositions(const Command* cmd, const std::vector<std::string_view>& argv,
                  std::vector<size_t>* out) {
  if (cmd->keys_proc != nullptr) {
    if (!cmd->keys_proc(argv, out)) out->clear();
    return;
  }
  if (cmd->first_key <= 0) return;
  int argc = static_cast<int>(argv.size());
  int last = cmd->last_key < 0 ? argc + cmd->last_key : cmd->last_key;
  int step = cmd->key_step > 0 ? cmd->key_step : 1;
  for (int j = cmd->first_key; j <= last && j < argc; j += step) out->push_back(j);
}

bool isShardPubSub(const Command* cmd) {
  const char* n = cmd->name;
  return strcmp(n, "ssubscribe") == 0 || strcmp(n, "sunsubscribe") == 0 ||
         strcmp(n, "spublish") == 0;
}

bool isExec(const Command* cmd) {
  return strcmp(cmd->name, "exec") == 0;
}

std::string redirectText(int code, const Client* c, const Node* n, int slot) {
  switch (code) {
    case kCrossSlot:
      return "-CROSSSLOT Keys in request don't hash to the same slot";
    case kUnstable:
      return "-TRYAGAIN Multiple keys request during rehashing of slot";
    case kDownState:
      return "-CLUSTERDOWN The cluster is down";
    case kDownRoState:
      return "-CLUSTERDOWN The cluster is down and only accepts read commands";
    case kDownUnbound:
      return "-CLUSTERDOWN Hash slot not served";
    default:
      break;
  }
  return std::string(code == kAsk ? "-ASK " : "-MOVED ") + std::to_string(slot) + " " +
         preferredEndpoint(n) + ":" + std::to_string(clientPort(c, n));
}

// Redis's getNodeByQuery: the node that serves the request (cmd with argv,
// or for EXEC the transaction queued by c), or nullptr with *code saying
// why none can. client_flags: the client's ASKING / READONLY state.
Node* nodeForQuery(const Client* c, const Command* cmd, const std::vector<std::string_view>& argv,
                   uint32_t client_flags, bool asking, int* slot_out, int* code) {
  State& s = st();
  Node* me = myself();
  *code = kNone;
  const bool shard = isShardPubSub(cmd);
  Node* n = nullptr;
  std::string first;
  bool have_first = false, multiple = false, migrating = false, importing = false;
  int slot = 0, missing = 0, existing = 0;
  uint32_t flags = 0;
  bool failed = false;
  auto visit = [&](const Command* mcmd, const std::vector<std::string_view>& argv) {
    if (failed) return;
    flags |= mcmd->flags;
    // EVAL/FCALL write unless their script says no-writes (Redis 7.0).
    const char* nm = mcmd->name;
    if ((strcmp(nm, "eval") == 0 || strcmp(nm, "evalsha") == 0 || strcmp(nm, "fcall") == 0) &&
        script::scriptWriteFlags(argv, false) == 1)
      flags |= kWrite;
    std::vector<size_t> pos;
    keyPositions(mcmd, argv, &pos);
    for (size_t p : pos) {
      std::string_view key = argv[p];
      int this_slot = db::keyHashSlot(key);
      if (!have_first) {
        have_first = true;
        first = std::string(key);
        slot = this_slot;
        n = s.slots[slot];
        if (n == nullptr) {
          *code = kDownUnbound;
          failed = true;
          return;
        }
        if (n == me && s.migrating_to[slot] != nullptr)
          migrating = true;
        else if (s.importing_from[slot] != nullptr)
          importing = true;
      } else if (key != first) {
        if (slot != this_slot) {
          *code = kCrossSlot;
          failed = true;
          return;
        }
        multiple = true;
      }
      if ((migrating || importing) && !shard) {
        // An expired key counts as missing (it is not deleted here).
        db::Db& d = *g_server->dbs[0];
        db::Entry* e = d.peek(key);
        if (e == nullptr || d.isExpired(e))
          missing++;
        else
          existing++;
      }
    }
  };
  if (isExec(cmd)) {
    if (!inMulti(c)) return me;
    multiForEachQueued(c, visit);
  } else {
    visit(cmd, argv);
  }
  if (failed) return nullptr;
  if (n == nullptr) return me;  // no keys at all
  const Config& cfg = g_server->config;
  if (!s.ok) {
    if (shard) {
      if (!cfg.cluster_allow_pubsubshard_when_down) {
        *code = kDownState;
        return nullptr;
      }
    } else if (!cfg.cluster_allow_reads_when_down) {
      *code = kDownState;
      return nullptr;
    } else if (flags & kWrite) {
      *code = kDownRoState;
      return nullptr;
    }
  }
  *slot_out = slot;
  if ((migrating || importing) && strcmp(cmd->name, "migrate") == 0) return me;
  if (migrating && missing) {
    if (existing) {
      *code = kUnstable;
      return nullptr;
    }
    *code = kAsk;
    return s.migrating_to[slot];
  }
  if (importing && (asking || (cmd->flags & kAsking))) {
    if (multiple && missing) {
      *code = kUnstable;
      return nullptr;
    }
    return me;
  }
  bool writes = (flags & kWrite) != 0;
  if (((client_flags & kReadOnlyClient) || shard) && !writes && me->isReplica() && me->master == n)
    return me;
  if (n != me) *code = kMoved;
  return n;
}

}  // namespace

bool routeRequest(Client* c, const Command* cmd) {
  // ASKING covers the next command (or the transaction it opens).
  bool asking = (c->flags & kClientAsking) != 0;
  if (asking && !inMulti(c) && strcmp(cmd->name, "asking") != 0) c->flags &= ~kClientAsking;
  if (cmd->first_key <= 0 && cmd->keys_proc == nullptr && !isExec(cmd)) return true;
  int slot = 0, code = kNone;
  std::vector<std::string_view> argv(c->argv().begin(), c->argv().end());
  Node* n = nodeForQuery(c, cmd, argv, c->flags, asking, &slot, &code);
  if (n == myself()) return true;
  if (isExec(cmd)) {
    // As Redis: the transaction is discarded and EXEC gets the plain
    // redirection (not an EXECABORT, which the admission flag would make).
    resetMultiState(c);
    c->flags &= ~kExecChecking;
    c->addError(redirectText(code, c, n, slot));
  } else {
    c->addError(redirectText(code, c, n, slot));
    multiFlagError(c);
  }
  return false;
}

const char* scriptCallCheck(const Client* caller, const Command* cmd,
                            const std::vector<std::string_view>& argv, bool allow_cross_slot,
                            int* script_slot) {
  if (caller != nullptr && (caller->flags & (server::kMaster | server::kMustObey))) return nullptr;
  if (cmd->first_key <= 0 && cmd->keys_proc == nullptr) return nullptr;
  uint32_t cflags = caller != nullptr ? caller->flags : 0;
  int slot = -1, code = kNone;
  Node* n = nodeForQuery(caller, cmd, argv, cflags, (cflags & kClientAsking) != 0, &slot, &code);
  if (n != myself()) {
    if (code == kDownRoState)
      return "Script attempted to execute a write command while the cluster is down and readonly";
    if (code == kDownState)
      return "Script attempted to execute a command while the cluster is down";
    return "Script attempted to access a non local key in a cluster node";
  }
  if (slot != -1 && !allow_cross_slot) {
    if (*script_slot == -1)
      *script_slot = slot;
    else if (*script_slot != slot)
      return "Script attempted to access keys that do not hash to the same slot";
  }
  return nullptr;
}

void redirectBlockedClients() {
  State& s = st();
  Node* me = myself();
  std::vector<Client*> blocked;
  for (Client* c : g_server->clients)
    if (c->flags & kBlocked) blocked.push_back(c);
  for (Client* c : blocked) {
    bool write = false;
    std::string_view key = blocking::firstBlockedKey(c, &write);
    if (key.empty()) continue;
    // A write will never come to a node that is down: tell the client.
    if (!s.ok) {
      blocking::unblockWithError(c, redirectText(kDownState, c, nullptr, 0));
      continue;
    }
    int slot = db::keyHashSlot(key);
    Node* n = s.slots[slot];
    if ((c->flags & kReadOnlyClient) && !write && me->isReplica() && me->master == n) n = me;
    if (n == me || s.importing_from[slot] != nullptr) continue;
    std::string text =
        n == nullptr ? redirectText(kDownUnbound, c, nullptr, 0) : redirectText(kMoved, c, n, slot);
    blocking::unblockWithError(c, text);
  }
}

}  // namespace server::cluster
