#include "server/request/multi.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "server/acl/check.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/request/call.h"
#include "server/script/script.h"

namespace server {

namespace {

int g_exec_depth = 0;  // EXECs running (inExec)

struct WatchedKey {
  int db;
  std::string key;
  // The key existed but had logically expired when WATCH ran: its later
  // deletion is no change (Redis 7.0).
  bool expired;
};

struct QueuedCommand {
  Command* cmd;
  std::vector<std::string> argv;
};

// Transparent hashing so a string_view finds a std::string key without a
// copy: touchWatchedKey runs on every write.
struct ViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};
using WatchIndex = std::unordered_map<std::string, std::vector<Client*>, ViewHash, std::equal_to<>>;

// Watchers per key, one index per db number (SWAPDB swaps contents, not
// numbers, so the watches stay with the number as in Redis).
std::vector<WatchIndex>& watchIndexes() {
  static std::vector<WatchIndex> idx;
  return idx;
}
size_t g_watched_total = 0;  // fast path for writes when nobody watches

WatchIndex& indexFor(int db) {
  auto& all = watchIndexes();
  if (all.size() <= static_cast<size_t>(db)) all.resize(static_cast<size_t>(db) + 1);
  return all[static_cast<size_t>(db)];
}

}  // namespace

struct MultiState {
  bool in_multi = false;
  bool dirty_exec = false;  // an error while queuing: EXEC aborts
  bool dirty_cas = false;   // a watched key changed: EXEC answers null
  std::vector<QueuedCommand> queue;
  size_t queued_bytes = 0;
  std::vector<WatchedKey> watched;
};

namespace {

MultiState* stateOf(Client* c) {
  if (c->multi_state == nullptr) c->multi_state = new MultiState();
  return c->multi_state;
}

// Frees the state once it holds nothing (most clients never use it again).
void releaseIfIdle(Client* c) {
  MultiState* m = c->multi_state;
  if (m != nullptr && !m->in_multi && m->watched.empty() && !m->dirty_cas) {
    delete m;
    c->multi_state = nullptr;
  }
}

WatchedKey* findWatched(MultiState* m, int db, std::string_view key) {
  for (WatchedKey& wk : m->watched) {
    if (wk.db == db && wk.key == key) return &wk;
  }
  return nullptr;
}

void unwatchAll(Client* c) {
  MultiState* m = c->multi_state;
  if (m == nullptr) return;
  for (const WatchedKey& wk : m->watched) {
    WatchIndex& idx = indexFor(wk.db);
    auto it = idx.find(wk.key);
    if (it == idx.end()) continue;
    std::vector<Client*>& v = it->second;
    v.erase(std::remove(v.begin(), v.end(), c), v.end());
    if (v.empty()) idx.erase(it);
    g_watched_total--;
  }
  m->watched.clear();
  m->dirty_cas = false;
}

void discardTransaction(Client* c) {
  MultiState* m = c->multi_state;
  if (m == nullptr) return;
  m->queue.clear();
  m->queued_bytes = 0;
  m->in_multi = false;
  m->dirty_exec = false;
  unwatchAll(c);
  releaseIfIdle(c);
}

// Touches the watchers of one key. gone: the key no longer exists after
// this change (deleted by expiry), so a watch taken on an already expired
// key sees no logical change.
[[gnu::noinline]] void touchKeySlow(db::Db* d, std::string_view key, bool gone);

void touchKey(db::Db* d, std::string_view key, bool gone) {
  if (g_watched_total == 0) return;
  touchKeySlow(d, key, gone);
}

void touchKeySlow(db::Db* d, std::string_view key, bool gone) {
  WatchIndex& idx = indexFor(d->id());
  auto it = idx.find(key);
  if (it == idx.end()) return;
  for (Client* c : it->second) {
    MultiState* m = c->multi_state;
    WatchedKey* wk = findWatched(m, d->id(), key);
    if (wk != nullptr && wk->expired) {
      if (gone || d->peek(key) == nullptr) {
        wk->expired = false;
        continue;
      }
    }
    m->dirty_cas = true;
  }
}

// A watched key that was live at WATCH time and has logically expired by
// now fails EXEC even if nothing deleted it yet.
bool watchedKeyExpired(Client* c) {
  for (const WatchedKey& wk : c->multi_state->watched) {
    if (wk.expired) continue;
    db::Db& d = g_server->dbAt(wk.db);
    db::Entry* e = d.peek(wk.key);
    if (e != nullptr && d.isExpired(e)) return true;
  }
  return false;
}

void multiCommand(Client* c) {
  MultiState* m = stateOf(c);
  if (m->in_multi) {
    c->addError("MULTI calls can not be nested");
    return;
  }
  m->in_multi = true;
  c->addOk();
}

void discardCommand(Client* c) {
  if (!inMulti(c)) {
    c->addError("DISCARD without MULTI");
    return;
  }
  discardTransaction(c);
  c->addOk();
}

void execCommand(Client* c) {
  MultiState* m = c->multi_state;
  if (m == nullptr || !m->in_multi) {
    c->addError("EXEC without MULTI");
    return;
  }
  if (m->dirty_exec) {
    c->addError("-EXECABORT Transaction discarded because of previous errors.");
    discardTransaction(c);
    return;
  }
  if (m->dirty_cas || watchedKeyExpired(c)) {
    c->reply().nullArray();
    discardTransaction(c);
    return;
  }
  // Unwatch first: the transaction's own writes must not mark it dirty.
  std::vector<QueuedCommand> queue = std::move(m->queue);
  discardTransaction(c);
  const Command* exec_cmd = c->cur_cmd;
  std::vector<std::string_view> saved;
  c->swapArgv(&saved);
  c->addArrayLen(static_cast<int64_t>(queue.size()));
  uint32_t deny_before = c->flags & kDenyBlocking;
  c->flags |= kDenyBlocking;
  g_exec_depth++;
  std::vector<std::string_view> views;
  for (QueuedCommand& q : queue) {
    views.assign(q.argv.begin(), q.argv.end());
    c->swapArgv(&views);
    // Rules may have changed since the command was queued (Redis 7.0
    // checks again at EXEC).
    if (acl::checkClientAtExec(c, *q.cmd)) callCommand(c, q.cmd);
    c->swapArgv(&views);
  }
  g_exec_depth--;
  c->flags = (c->flags & ~kDenyBlocking) | deny_before;
  c->swapArgv(&saved);
  c->cur_cmd = exec_cmd;
}

void watchCommand(Client* c) {
  if (inMulti(c)) {
    c->addError("WATCH inside MULTI is not allowed");
    return;
  }
  MultiState* m = stateOf(c);
  int db = c->dbIndex();
  for (size_t i = 1; i < c->argc(); i++) {
    std::string_view key = c->arg(i);
    if (findWatched(m, db, key) != nullptr) continue;
    db::Entry* e = c->db()->peek(key);
    bool expired = e != nullptr && c->db()->isExpired(e);
    m->watched.push_back({db, std::string(key), expired});
    WatchIndex& idx = indexFor(db);
    auto it = idx.find(key);
    if (it == idx.end()) it = idx.emplace(std::string(key), std::vector<Client*>()).first;
    it->second.push_back(c);
    g_watched_total++;
  }
  c->addOk();
}

void unwatchCommand(Client* c) {
  unwatchAll(c);
  releaseIfIdle(c);
  c->addOk();
}

bool runsOutsideQueue(const Command* cmd) {
  static const char* const kNames[] = {"exec", "discard", "multi", "watch", "quit", "reset"};
  for (const char* n : kNames) {
    if (strcmp(cmd->name, n) == 0) return true;
  }
  return false;
}

}  // namespace

bool inExec() {
  return g_exec_depth > 0;
}

bool inMulti(const Client* c) {
  return c->multi_state != nullptr && c->multi_state->in_multi;
}

bool multiDirtyCas(const Client* c) {
  return c->multi_state != nullptr && c->multi_state->dirty_cas;
}

long multiQueuedCount(const Client* c) {
  return inMulti(c) ? static_cast<long>(c->multi_state->queue.size()) : -1;
}

void multiForEachQueued(
    const Client* c,
    const std::function<void(const Command*, const std::vector<std::string_view>&)>& fn) {
  if (!inMulti(c)) return;
  std::vector<std::string_view> views;
  for (const QueuedCommand& q : c->multi_state->queue) {
    views.assign(q.argv.begin(), q.argv.end());
    fn(q.cmd, views);
  }
}

size_t multiQueuedBytes(const Client* c) {
  return c->multi_state != nullptr ? c->multi_state->queued_bytes : 0;
}

size_t multiMemory(const Client* c) {
  const MultiState* m = c->multi_state;
  if (m == nullptr) return 0;
  return m->queued_bytes + m->watched.capacity() * sizeof(WatchedKey);
}

void multiExecAbort(Client* c, std::string_view error) {
  c->flags &= ~kExecChecking;
  discardTransaction(c);
  if (!error.empty() && error[0] == '-') error.remove_prefix(1);
  std::string msg = "-EXECABORT Transaction discarded because of: ";
  msg.append(error);
  c->addError(msg);
}

// A queued command's flags as EXEC's checks see them: a script command's
// come from its script (script::scriptCommandFlags), as Redis records them.
static uint32_t queuedFlags(const QueuedCommand& q) {
  if (!(q.cmd->flags & kNoScript) || !(q.cmd->flags & kStale)) return q.cmd->flags;
  std::vector<std::string_view> argv(q.argv.begin(), q.argv.end());
  return script::scriptCommandFlags(argv, q.cmd->flags, nullptr);
}

uint32_t multiQueuedFlags(const Client* c) {
  uint32_t flags = 0;
  if (c->multi_state == nullptr) return 0;
  for (const QueuedCommand& q : c->multi_state->queue) flags |= queuedFlags(q);
  return flags;
}

uint32_t multiQueuedCommonFlags(const Client* c) {
  uint32_t flags = ~0u;
  if (c->multi_state == nullptr) return flags;
  for (const QueuedCommand& q : c->multi_state->queue) flags &= queuedFlags(q);
  return flags;
}

bool multiExecMayWrite(const Client* c) {
  if (c->multi_state == nullptr) return false;
  for (const QueuedCommand& q : c->multi_state->queue) {
    std::vector<std::string_view> argv(q.argv.begin(), q.argv.end());
    int script_writes = script::scriptMayWrite(argv);
    if (script_writes == 1) return true;
    if (script_writes < 0 && (q.cmd->flags & (kWrite | kMayReplicate))) return true;
  }
  return false;
}

void multiFlagError(Client* c) {
  if (inMulti(c)) c->multi_state->dirty_exec = true;
}

bool multiQueueCommand(Client* c, Command* cmd) {
  if (!inMulti(c) || runsOutsideQueue(cmd)) return false;
  MultiState* m = c->multi_state;
  if (cmd->flags & kNoMulti) {
    c->addError("Command not allowed inside a transaction");
    cmd->rejected_calls++;
    m->dirty_exec = true;
    return true;
  }
  QueuedCommand q{cmd, {}};
  q.argv.reserve(c->argc());
  for (std::string_view a : c->argv()) {
    q.argv.emplace_back(a);
    m->queued_bytes += a.size() + sizeof(std::string);
  }
  m->queue.push_back(std::move(q));
  c->last_cmd = cmd;  // CLIENT LIST cmd= shows the last queued command, as Redis
  c->addStatus("QUEUED");
  return true;
}

void resetMultiState(Client* c) {
  discardTransaction(c);
  delete c->multi_state;
  c->multi_state = nullptr;
}

void touchWatchedKey(db::Db* d, std::string_view key) {
  touchKey(d, key, false);
}

void touchWatchedKeyExpired(db::Db* d, std::string_view key) {
  touchKey(d, key, true);
}

void touchWatchedKeysInDb(db::Db* emptied, db::Db* replaced_with) {
  if (g_watched_total == 0) return;
  WatchIndex& idx = indexFor(emptied->id());
  for (auto& [key, clients] : idx) {
    db::Entry* before = emptied->peek(key);
    db::Entry* after = replaced_with != nullptr ? replaced_with->peek(key) : nullptr;
    if (before == nullptr && after == nullptr) continue;
    bool after_expired = after != nullptr && replaced_with->isExpired(after);
    for (Client* c : clients) {
      WatchedKey* wk = findWatched(c->multi_state, emptied->id(), key);
      if (wk == nullptr) continue;
      if (wk->expired) {
        // Already expired at WATCH: deleting it changes nothing, and
        // another expired key in its place neither.
        if (after == nullptr) {
          wk->expired = false;
          continue;
        }
        if (after_expired) continue;
      } else if (before == nullptr && after_expired) {
        // A missing key replaced by an expired one: still logically absent.
        wk->expired = true;
        continue;
      }
      c->multi_state->dirty_cas = true;
    }
  }
}

void registerMultiCommands(CommandTable& t) {
  Client::setExecRefusedHook(multiExecAbort);
  const uint32_t kTx = kNoScript | kLoading | kStale | kFast | kAllowBusy;
  t.add({"multi", 1, kTx, multiCommand, 0, 0, 0, "transactions",
         "Mark the start of a transaction block", "1.2.0", "O(1)", "fast transaction"});
  t.add({"exec", 1, kNoScript | kLoading | kStale | kSkipSlowlog, execCommand, 0, 0, 0,
         "transactions", "Execute all commands issued after MULTI", "1.2.0",
         "Depends on commands in the transaction", "slow transaction"});
  t.add({"discard", 1, kTx, discardCommand, 0, 0, 0, "transactions",
         "Discard all commands issued after MULTI", "2.0.0",
         "O(N), when N is the number of queued commands", "fast transaction"});
  t.add({"watch", -2, kTx, watchCommand, 1, -1, 1, "transactions",
         "Watch the given keys to determine execution of the MULTI/EXEC block", "2.2.0",
         "O(1) for every key.", "fast transaction"});
  t.add({"unwatch", 1, kTx, unwatchCommand, 0, 0, 0, "transactions",
         "Forget about all watched keys", "2.2.0", "O(1)", "fast transaction"});
}

}  // namespace server
