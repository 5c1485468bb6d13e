#include "server/request/blocking.h"

#include <climits>
#include <cmath>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "common/strutil.h"
#include "event/event_loop.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/propagate/propagate.h"
#include "server/request/client_io.h"
#include "server/request/keyspace.h"
#include "server/request/slowlog.h"

namespace server::blocking {

namespace {

using Queue = std::list<Client*>;
// Far deadlines re-arm the timer in steps (no overflow in the event loop).
constexpr int64_t kMaxTimerDelayMs = 3600 * 1000;

int64_t timerDelay(int64_t when, int64_t now) {
  int64_t d = when - now;
  return d < 1 ? 1 : d > kMaxTimerDelayMs ? kMaxTimerDelayMs : d;
}

struct Blocked {
  std::vector<std::string> argv;  // the command, copied for re-runs
  const Command* cmd = nullptr;
  int db = 0;
  int64_t timeout_ms = 0;
  // Where the client sits in each key's queue and in the timeout index.
  std::vector<std::pair<std::string, Queue::iterator>> keys;
  std::multimap<int64_t, Client*>::iterator timeout_pos;
};

// Lets the key maps be searched with a string_view (no copy per write).
struct KeyHash {
  using is_transparent = void;
  size_t operator()(std::string_view k) const { return std::hash<std::string_view>()(k); }
};
using KeyMap = std::unordered_map<std::string, Queue, KeyHash, std::equal_to<>>;

struct ReadyKey {
  int db;
  std::string key;
};

// All state of the module: the server is single-threaded.
struct State {
  std::unordered_map<Client*, std::unique_ptr<Blocked>> blocked;
  // Per db: key -> clients waiting, oldest first.
  std::vector<KeyMap> waiting;
  std::multimap<int64_t, Client*> timeouts;
  std::vector<ReadyKey> ready;
  std::unordered_set<std::string> ready_set;  // "<db>\n<key>", dedups ready
  std::vector<Client*> to_resume;             // unblocked, input to run
  event::TimerId timer = 0;
  int64_t timer_when = 0;
  // The client whose command is running again, and what that run did.
  Client* retrying = nullptr;
  std::string_view retry_key;  // the written key that woke it (empty: timeout)
  bool reblocked = false;
  bool timing_out = false;
};

// Inline: every write asks whether anyone is blocked (signalKey).
[[gnu::always_inline]] inline State& st() {
  static State s;
  return s;
}

KeyMap& waitingIn(int db) {
  State& s = st();
  if (s.waiting.size() <= static_cast<size_t>(db)) s.waiting.resize(static_cast<size_t>(db) + 1);
  return s.waiting[static_cast<size_t>(db)];
}

int onTimer(event::EventLoop*, event::TimerId);

// Keeps one timer armed for the earliest deadline.
void armTimer() {
  State& s = st();
  if (s.timeouts.empty()) return;
  int64_t when = s.timeouts.begin()->first;
  if (s.timer != 0 && s.timer_when <= when) return;
  if (s.timer != 0) g_server->loop.deleteTimer(s.timer);
  s.timer_when = when;
  s.timer = g_server->loop.addTimer(timerDelay(when, db::Clock::nowMs), onTimer);
}

// Removes the client from every queue and index; keeps nothing.
void forget(Client* c) {
  State& s = st();
  auto it = s.blocked.find(c);
  if (it == s.blocked.end()) return;
  Blocked& b = *it->second;
  auto& w = waitingIn(b.db);
  for (auto& [key, pos] : b.keys) {
    auto q = w.find(key);
    if (q == w.end()) continue;
    q->second.erase(pos);
    if (q->second.empty()) w.erase(q);
  }
  if (b.timeout_ms != 0) s.timeouts.erase(b.timeout_pos);
  s.blocked.erase(it);
  c->flags &= ~kBlocked;
}

void afterUnblock(Client* c) {
  State& s = st();
  forget(c);
  if (c->hasPendingReplies() && !(c->flags & kPendingWrite)) g_server->queueWrite(c);
  s.to_resume.push_back(c);
}

// Runs the blocked client's command again. Returns true when it replied
// (the client is unblocked), false when it blocked again.
bool rerun(Client* c, bool timing_out, std::string_view key = {}) {
  State& s = st();
  Blocked& b = *s.blocked.at(c);
  Server& srv = *g_server;
  Client* saved_current = srv.current_client;
  const Command* saved_cmd = c->cur_cmd;
  s.retrying = c;
  s.retry_key = key;
  s.reblocked = false;
  s.timing_out = timing_out;
  c->setArgvViews(b.argv);
  c->cur_cmd = b.cmd;
  srv.current_client = c;
  db::Clock::update();
  // CLIENT REPLY OFF still applies to the late reply.
  bool muted = (c->flags & kReplyOff) != 0;
  if (muted) c->muteReplies(true);
  // A served command is an execution unit of its own for propagation.
  bool prop = propagate::wanted();
  int64_t dirty_before = srv.dirty;
  if (prop) propagate::beginCall();
  uint64_t errors_before = srv.stats.total_error_replies;
  int64_t start = event::EventLoop::nowUs();
  b.cmd->proc(c);
  int64_t took = event::EventLoop::nowUs() - start;
  // A late error (XREADGROUP's -NOGROUP) counts as a failed call.
  if (srv.stats.total_error_replies != errors_before) const_cast<Command*>(b.cmd)->failed_calls++;
  if (prop) propagate::endCall(c->dbIndex(), c->argv(), srv.dirty > dirty_before);
  // Served, the command is done: SLOWLOG gets it now, as in Redis (a
  // command that blocked was not logged when it blocked; one that times
  // out is not logged at all).
  int64_t slower_than = srv.config.slowlog_log_slower_than;
  if (!s.reblocked && !timing_out && slower_than >= 0 && took >= slower_than)
    g_slowlog.maybeLog(c, *b.cmd, took);
  if (muted) c->muteReplies(false);
  srv.current_client = saved_current;
  c->cur_cmd = saved_cmd;
  c->clearArgv();
  s.retrying = nullptr;
  s.retry_key = {};
  s.timing_out = false;
  if (s.reblocked) return false;
  afterUnblock(c);
  return true;
}

int onTimer(event::EventLoop*, event::TimerId) {
  State& s = st();
  db::Clock::update();
  int64_t now = db::Clock::nowMs;
  while (!s.timeouts.empty() && s.timeouts.begin()->first <= now) {
    rerun(s.timeouts.begin()->second, true);
  }
  if (s.timeouts.empty()) {
    s.timer = 0;
    return event::kNoMore;
  }
  s.timer_when = s.timeouts.begin()->first;
  return static_cast<int>(timerDelay(s.timer_when, now));
}

}  // namespace

bool blockForKeys(Client* c, const std::vector<std::string_view>& keys, int64_t timeout_ms) {
  State& s = st();
  if (s.retrying == c) {
    if (s.timing_out) return false;
    s.reblocked = true;  // stays where it is in every queue
    return true;
  }
  if (c->flags & kDenyBlocking) return false;
  auto b = std::make_unique<Blocked>();
  b->argv.assign(c->argv().begin(), c->argv().end());
  b->cmd = c->cur_cmd;
  b->db = c->dbIndex();
  b->timeout_ms = timeout_ms;
  auto& w = waitingIn(b->db);
  for (std::string_view k : keys) {
    bool dup = false;
    for (auto& kp : b->keys) dup = dup || kp.first == k;
    if (dup) continue;
    Queue& q = w[std::string(k)];
    q.push_back(c);
    b->keys.emplace_back(std::string(k), std::prev(q.end()));
  }
  if (timeout_ms != 0) b->timeout_pos = s.timeouts.emplace(timeout_ms, c);
  s.blocked[c] = std::move(b);
  c->flags |= kBlocked;
  armTimer();
  return true;
}

void setBlockedArg(Client* c, size_t i, std::string value) {
  State& s = st();
  auto it = s.blocked.find(c);
  if (it == s.blocked.end() || i >= it->second->argv.size()) return;
  it->second->argv[i] = std::move(value);
}

void popFirstOrBlock(Client* c, db::Kind kind,
                     const std::function<void(db::Entry*, std::string_view)>& serve) {
  int64_t timeout;
  if (!parseBlockTimeout(c, c->argc() - 1, &timeout)) return;
  bool retrying = isRetryingBlocked(c);
  std::vector<std::string_view> keys;
  for (size_t i = 1; i + 1 < c->argc(); i++) {
    std::string_view key = c->arg(i);
    db::Entry* e = lookupWrite(c, key);
    if (e != nullptr && e->val.kind() == kind) {
      serve(e, key);
      return;
    }
    if (e != nullptr && !retrying) {
      c->addWrongType();
      return;
    }
    keys.push_back(key);
  }
  if (!blockForKeys(c, keys, timeout)) c->reply().nullArray();
}

bool parseBlockTimeout(Client* c, size_t argi, int64_t* timeout_ms) {
  long double secs;
  if (!common::strutil::parseLongDouble(c->arg(argi), &secs) || secs != secs) {
    c->addError("timeout is not a float or out of range");
    return false;
  }
  // Rounded up to whole ms as Redis 7.0 does (-0.1 ms means forever); a
  // value past the int64 range reads as negative there too.
  long double ms = ceill(secs * 1000.0L);
  if (!(ms > static_cast<long double>(LLONG_MIN) && ms < static_cast<long double>(LLONG_MAX)) ||
      static_cast<int64_t>(ms) < 0) {
    c->addError("timeout is negative");
    return false;
  }
  int64_t t = static_cast<int64_t>(ms);
  if (t > 0) t = t > LLONG_MAX - db::Clock::nowMs ? LLONG_MAX : t + db::Clock::nowMs;
  *timeout_ms = t;
  return true;
}

bool isRetryingBlocked(const Client* c) {
  return st().retrying == c;
}

std::string_view retryKey(const Client* c) {
  return st().retrying == c ? st().retry_key : std::string_view{};
}

bool isBlocked(const Client* c) {
  return (c->flags & kBlocked) != 0;
}

size_t blockedClientCount() {
  return st().blocked.size();
}

bool unblockClient(Client* c, bool with_error) {
  if (!isBlocked(c) || st().retrying == c) return false;
  // Redis counts a command ended by CLIENT UNBLOCK as failed, either way.
  const_cast<Command*>(st().blocked.at(c)->cmd)->failed_calls++;
  if (with_error) {
    unblockWithError(c, "-UNBLOCKED client unblocked via CLIENT UNBLOCK");
  } else {
    rerun(c, true);
  }
  return true;
}

bool unblockWithError(Client* c, std::string_view error) {
  if (!isBlocked(c) || st().retrying == c) return false;
  bool muted = (c->flags & kReplyOff) != 0;
  if (muted) c->muteReplies(true);
  c->addError(error);
  if (muted) c->muteReplies(false);
  afterUnblock(c);
  return true;
}

std::string_view firstBlockedKey(const Client* c, bool* writes) {
  auto it = st().blocked.find(const_cast<Client*>(c));
  if (it == st().blocked.end() || it->second->keys.empty()) return {};
  *writes = (it->second->cmd->flags & kWrite) != 0;
  return it->second->keys.front().first;
}

[[gnu::noinline]] static void signalKeySlow(db::Db* d, std::string_view key);

void signalKey(db::Db* d, std::string_view key) {
  if (st().blocked.empty()) return;
  signalKeySlow(d, key);
}

static void signalKeySlow(db::Db* d, std::string_view key) {
  State& s = st();
  int db = d->id();
  auto& w = waitingIn(db);
  if (w.find(key) == w.end()) return;
  std::string tag = std::to_string(db) + "\n" + std::string(key);
  if (!s.ready_set.insert(tag).second) return;
  s.ready.push_back({db, std::string(key)});
}

void signalDb(db::Db* d) {
  State& s = st();
  if (s.blocked.empty()) return;
  std::vector<std::string> keys;
  for (auto& [key, q] : waitingIn(d->id())) keys.push_back(key);
  for (const auto& k : keys) signalKey(d, k);
}

void handleReady() {
  State& s = st();
  // Serving one client may make other keys ready (BLMOVE pushes to its
  // destination) and resumed input may run more commands: loop until calm.
  while (!s.ready.empty() || !s.to_resume.empty()) {
    while (!s.ready.empty()) {
      std::vector<ReadyKey> batch;
      batch.swap(s.ready);
      s.ready_set.clear();
      for (const ReadyKey& rk : batch) {
        auto& w = waitingIn(rk.db);
        auto q = w.find(rk.key);
        if (q == w.end()) continue;
        // In arrival order; the queue shrinks as clients are served.
        std::vector<Client*> order(q->second.begin(), q->second.end());
        for (Client* c : order) {
          if (s.blocked.count(c) == 0 || (c->flags & kCloseAsap)) continue;
          rerun(c, false, rk.key);
        }
      }
    }
    std::vector<Client*> resume;
    resume.swap(s.to_resume);
    for (Client* c : resume) {
      if (c->flags & (kCloseAsap | kBlocked)) continue;
      resumeInput(c);
    }
  }
}

void onClientFree(Client* c) {
  State& s = st();
  forget(c);
  for (Client*& r : s.to_resume) {
    if (r == c) r = nullptr;
  }
  std::erase(s.to_resume, nullptr);
}

}  // namespace server::blocking
