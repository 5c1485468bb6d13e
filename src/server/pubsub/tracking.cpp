// The tracking table, BCAST prefixes and invalidation delivery (see
// tracking.h). The command side (CLIENT TRACKING ...) is tracking_cmd.cpp.
#include "server/pubsub/tracking.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "server/core/client.h"
#include "server/request/multi.h"
#include "server/request/obuf_limits.h"
#include "server/pubsub/pubsub.h"
#include "server/script/script.h"
#include "server/conf/config.h"
#include "server/core/clients.h"
#include "server/pubsub/tracking_state.h"

namespace server::tracking {

namespace {

struct ViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

// A BCAST prefix: its clients and the keys modified under it since the
// last broadcast, each with the id of the client that modified it (0 when
// several did, or the server itself), for NOLOOP.
struct Prefix {
  std::unordered_set<Client*> clients;
  std::map<std::string, uint64_t> keys;
};

// An invalidation held until the running command's reply is out: a key,
// or nullopt for a flush.
struct Pending {
  uint64_t client_id;
  std::optional<std::string> key;
};

// Ids of the clients that read a key, sorted: most keys have one or two
// readers, where a vector beats a hash set in memory and time.
using IdList = std::vector<uint64_t>;

struct Tables {
  // Key name (any db) -> ids of the clients that read it.
  std::unordered_map<std::string, IdList, ViewHash, std::equal_to<>> keys;
  size_t items = 0;  // sum of the id sets' sizes
  // Clients with tracking on, by id.
  std::unordered_map<uint64_t, Client*> clients;
  std::map<std::string, Prefix, std::less<>> prefixes;
  std::vector<Pending> pending;
  std::vector<size_t> scratch;  // key positions of the command being recorded
  unsigned limit_rounds = 0;    // consecutive beforeCommand calls still over the limit
  std::mt19937_64 rng{0x7472616b};
};

// Inline: every command asks whether any client tracks (anyClient) and every
// write whether any key is remembered (invalidateKey).
[[gnu::always_inline]] inline Tables& tables() {
  static Tables t;
  return t;
}

// Writes one invalidation message for tracking client c (keys null: a
// flush), to c or to its redirect target, as tracking.h describes.
void send(Client* c, const std::vector<std::string_view>* keys) {
  State* st = c->tracking_state;
  Client* dst = c;
  bool redirected = false;
  if (st->redirect != 0) {
    dst = findClientById(st->redirect);
    if (dst == nullptr || (dst->flags & kCloseAsap)) {
      if (!st->broken_redir) {
        st->broken_redir = true;
        if (c->proto() == 3) {
          c->writeUnmuted([&](resp::Writer& w) {
            w.pushLen(2);
            w.bulk("tracking-redir-broken");
            w.integer(static_cast<int64_t>(st->redirect));
          });
          if (!(c->flags & kPendingWrite)) queueClientWrite(c);
        }
      }
      return;
    }
    redirected = true;
  }
  bool push = dst->proto() == 3;
  if (!push && !(redirected && isPubSubClient(dst))) return;  // nowhere to put it in RESP2
  dst->writeUnmuted([&](resp::Writer& w) {
    if (push) {
      w.pushLen(2);
    } else {
      w.arrayLen(3);
      w.bulk("message");
      w.bulk("__redis__:invalidate");
    }
    if (push) w.bulk("invalidate");
    if (keys == nullptr) {
      // Redis writes the null in the tracking client's protocol.
      w.raw(c->proto() == 3 ? "_\r\n" : "$-1\r\n");
    } else {
      w.arrayLen(static_cast<int64_t>(keys->size()));
      for (std::string_view k : *keys) w.bulk(k);
    }
  });
  if (!(dst->flags & kPendingWrite)) queueClientWrite(dst);
  enforceOutputBufferLimits(dst);
}

void sendKey(Client* c, std::string_view key) {
  std::vector<std::string_view> one{key};
  send(c, &one);
}

// True when c is running the current command: its invalidations wait for
// the reply (Redis 7.0). A script's commands run on the script client, so
// while one runs its caller is the client running.
bool isRunning(const Client* c) {
  const Client* cur = currentClient();
  if (c == cur) return true;
  if (cur == nullptr || !(cur->flags & kScriptClient)) return false;
  return script::runningCaller() == c;
}

void rememberForBroadcast(Tables& t, std::string_view key, Client* by) {
  uint64_t by_id = by != nullptr ? by->id() : 0;
  for (auto& [prefix, p] : t.prefixes) {
    if (prefix.size() > key.size() || key.compare(0, prefix.size(), prefix) != 0) continue;
    auto [it, inserted] = p.keys.try_emplace(std::string(key), by_id);
    if (!inserted && it->second != by_id) it->second = 0;
  }
}

void invalidate(std::string_view key, Client* by, bool bcast) {
  Tables& t = tables();
  if (bcast && !t.prefixes.empty()) rememberForBroadcast(t, key, by);
  auto it = t.keys.find(key);
  if (it == t.keys.end()) return;
  for (uint64_t id : it->second) {
    auto cit = t.clients.find(id);
    if (cit == t.clients.end()) continue;  // gone, or tracking turned off
    Client* target = cit->second;
    State* st = target->tracking_state;
    if (st->bcast) continue;
    if (st->noloop && target == by) continue;
    if (isRunning(target))
      t.pending.push_back({id, std::string(key)});
    else
      sendKey(target, key);
  }
  t.items -= it->second.size();
  t.keys.erase(it);
}

void flushPending() {
  Tables& t = tables();
  if (t.pending.empty()) return;
  std::vector<Pending> batch;
  batch.swap(t.pending);
  for (const Pending& p : batch) {
    auto cit = t.clients.find(p.client_id);
    if (cit == t.clients.end()) continue;
    if (p.key)
      sendKey(cit->second, *p.key);
    else
      send(cit->second, nullptr);
  }
}

bool isClientCommand(const Command* cmd) {
  return strncmp(cmd->name, "client", 6) == 0 && (cmd->name[6] == '\0' || cmd->name[6] == '|');
}

// The argv positions of cmd's keys (its KeysProc, else its key specs).
void keyPositions(const Command* cmd, const std::vector<std::string_view>& argv,
                  std::vector<size_t>* out) {
  if (cmd->keys_proc != nullptr) {
    if (!cmd->keys_proc(argv, out)) out->clear();
    return;
  }
  for (const KeySpec& k : cmd->key_specs) {
    if (std::find(k.flags.begin(), k.flags.end(), "not_key") != k.flags.end()) continue;
    keysOfSpec(k, argv, out);
  }
}

}  // namespace

void invalidateKey(std::string_view key, Client* by) {
  Tables& t = tables();
  if (t.keys.empty() && t.prefixes.empty()) return;
  // A script's write is its caller's for NOLOOP (Redis compares with the
  // client whose request runs, not the script client).
  if (by != nullptr && (by->flags & kScriptClient)) {
    if (Client* caller = script::runningCaller()) by = caller;
  }
  invalidate(key, by, true);
}

void invalidateOnFlush(bool all_dbs) {
  Tables& t = tables();
  for (auto& [id, c] : t.clients) {
    if (isRunning(c))
      t.pending.push_back({id, std::nullopt});
    else
      send(c, nullptr);
  }
  if (all_dbs) {
    t.keys.clear();
    t.items = 0;
  }
}

bool anyClient() {
  return !tables().clients.empty();
}

void beforeCommand() {
  Tables& t = tables();
  size_t max = static_cast<size_t>(g_config->tracking_table_max_keys);
  if (max == 0 || t.keys.size() <= max) {
    t.limit_rounds = 0;
    return;
  }
  // Invalidate random keys, with more effort each time we are still over.
  int effort = 100 * static_cast<int>(t.limit_rounds + 1);
  while (effort-- > 0 && !t.keys.empty()) {
    size_t nb = t.keys.bucket_count();
    size_t b = static_cast<size_t>(t.rng() % nb);
    while (t.keys.bucket_size(b) == 0) b = (b + 1) % nb;
    std::string key = t.keys.begin(b)->first;
    invalidate(key, nullptr, false);
    if (t.keys.size() <= max) {
      t.limit_rounds = 0;
      return;
    }
  }
  t.limit_rounds++;
}

namespace {

// Remembers the keys cmd names in c's argv for c (default mode), unless
// OPTIN/OPTOUT and CLIENT CACHING say otherwise for this command.
void rememberKeys(Client* c, const Command* cmd) {
  State* st = c->tracking_state;
  if (st == nullptr || st->bcast) return;
  if (st->optin && !st->caching) return;
  if (st->optout && st->caching) return;
  Tables& t = tables();
  std::vector<size_t>& pos = t.scratch;
  pos.clear();
  keyPositions(cmd, c->argv(), &pos);
  uint64_t id = c->id();
  for (size_t i : pos) {
    if (i >= c->argc()) continue;
    std::string_view key = c->arg(i);
    auto it = t.keys.find(key);
    if (it == t.keys.end()) it = t.keys.emplace(std::string(key), IdList{}).first;
    IdList& ids = it->second;
    auto at = std::lower_bound(ids.begin(), ids.end(), id);
    if (at != ids.end() && *at == id) continue;
    ids.insert(at, id);
    t.items++;
  }
}

}  // namespace

void afterCommand(Client* c, const Command* cmd) {
  if (c->tracking_state == nullptr || !(cmd->flags & kReadOnly)) return;
  // EVAL_RO, EVALSHA_RO, FCALL_RO (the commands whose keys may be zero):
  // their keys are remembered when the script reads (scriptRead), not
  // for running it.
  if (cmd->flags & kNoMandatoryKeys) return;
  rememberKeys(c, cmd);
}

void scriptRead(Client* caller) {
  if (caller == nullptr || caller->tracking_state == nullptr || caller->cur_cmd == nullptr) return;
  rememberKeys(caller, caller->cur_cmd);
}

void afterOutermostCommand(Client* c, const Command* cmd) {
  flushPending();
  State* st = c->tracking_state;
  if (st != nullptr && st->caching && !inMulti(c) && !isClientCommand(cmd)) st->caching = false;
}

void broadcastPending() {
  Tables& t = tables();
  flushPending();
  for (auto& [prefix, p] : t.prefixes) {
    if (p.keys.empty()) continue;
    for (Client* c : p.clients) {
      bool noloop = c->tracking_state->noloop;
      std::vector<std::string_view> keys;
      keys.reserve(p.keys.size());
      for (const auto& [k, by] : p.keys) {
        if (noloop && by == c->id()) continue;
        keys.push_back(k);
      }
      if (!keys.empty()) send(c, &keys);
    }
    p.keys.clear();
  }
}

void enable(Client* c, uint64_t redirect, bool bcast, bool optin, bool optout, bool noloop,
            const std::vector<std::string_view>& prefixes) {
  Tables& t = tables();
  if (c->tracking_state == nullptr) c->tracking_state = new State;
  State* st = c->tracking_state;
  if (!st->on) t.clients[c->id()] = c;
  st->on = true;
  st->broken_redir = false;
  st->redirect = redirect;
  st->bcast = bcast;
  st->optin = optin;
  st->optout = optout;
  st->noloop = noloop;
  if (bcast) {
    auto add = [&](std::string_view p) {
      st->prefixes.emplace(p);
      auto it = t.prefixes.find(p);
      if (it == t.prefixes.end()) it = t.prefixes.emplace(std::string(p), Prefix{}).first;
      it->second.clients.insert(c);
    };
    if (prefixes.empty()) add("");
    for (std::string_view p : prefixes) add(p);
  }
}

void resetClient(Client* c) {
  State* st = c->tracking_state;
  if (st == nullptr) return;
  Tables& t = tables();
  for (const std::string& p : st->prefixes) {
    auto it = t.prefixes.find(p);
    if (it == t.prefixes.end()) continue;
    it->second.clients.erase(c);
    if (it->second.clients.empty()) t.prefixes.erase(it);
  }
  t.clients.erase(c->id());
  delete st;
  c->tracking_state = nullptr;
}

std::string clientListFlags(const Client* c) {
  const State* st = c->tracking_state;
  if (st == nullptr || !st->on) return "";
  std::string f = "t";
  if (st->broken_redir) f += 'R';
  if (st->bcast) f += 'B';
  return f;
}

int64_t clientListRedir(const Client* c) {
  const State* st = c->tracking_state;
  if (st == nullptr || !st->on) return -1;
  return static_cast<int64_t>(st->redirect);
}

size_t clientCount() {
  return tables().clients.size();
}
size_t totalKeys() {
  return tables().keys.size();
}
size_t totalItems() {
  return tables().items;
}
size_t totalPrefixes() {
  return tables().prefixes.size();
}

size_t clientStateMemory(const Client* c) {
  const State* st = c->tracking_state;
  if (st == nullptr) return 0;
  // A node of a std::set: three links and a colour word, then the name.
  constexpr size_t kNode = 4 * sizeof(void*) + sizeof(std::string);
  return sizeof(State) + st->prefixes.size() * kNode;
}

}  // namespace server::tracking
