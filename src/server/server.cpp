#include "server/server.h"
#include "server/persist/persist.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "common/hash.h"
#include "common/log.h"
#include "net/registry.h"
#include "server/acl/users.h"
#include "server/cluster/cluster.h"
#include "server/commands/families.h"
#include "server/core/client.h"
#include "server/core/version.h"
#include "server/crash/signals.h"
#include "server/dispatch.h"
#include "server/evict/allocator.h"
#include "server/evict/client_evict.h"
#include "server/evict/evict.h"
#include "server/evict/lazyfree.h"
#include "server/latency/monitor.h"
#include "server/limits/open_files.h"
#include "server/process/startup.h"
#include "server/propagate/propagate.h"
#include "server/pubsub/notify.h"
#include "server/pubsub/pubsub.h"
#include "server/pubsub/tracking.h"
#include "server/repl/repl.h"
#include "server/request/blocking.h"
#include "server/request/client_io.h"
#include "server/request/monitor.h"
#include "server/request/multi.h"
#include "server/request/obuf_limits.h"
#include "server/request/pause.h"
#include "server/request/threaded_io.h"
#include "server/script/script.h"
#include "server/shutdown.h"

namespace server {

namespace {
const char kProtectedModeError[] =
    "-DENIED Redis is running in protected mode because protected mode is enabled and no "
    "password is set for the default user. In this mode connections are only accepted from the "
    "loopback interface. If you want to connect from external computers to Redis you may adopt "
    "one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG "
    "SET protected-mode no' from the loopback interface by connecting to Redis from the same "
    "host the server is running, however MAKE SURE Redis is not publicly accessible from "
    "internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively "
    "you can just disable the protected mode by editing the Redis configuration file, and "
    "setting the protected mode option to 'no', and then restarting the server. 3) If you "
    "started the server manually just for testing, restart it with the '--protected-mode no' "
    "option. 4) Setup a an authentication password for the default user. NOTE: You only need "
    "to do one of the above things in order for the server to start accepting connections from "
    "the outside.\r\n";
}  // namespace

namespace {

// An error from a command that must not fail: the master's stream (kMaster)
// or the AOF being loaded (kMustObey). The data sets have diverged; Redis
// logs it, and panics when propagation-error-behavior asks: for the AOF
// with "panic", for the master's stream with "panic" or "panic-on-replicas"
// on a read-only replica only (a writable replica's own writes may
// legitimately clash with its master's).
[[gnu::noinline]] void propagationError(const Client* c, std::string_view msg) {
  bool master = (c->flags & kMaster) != 0;
  const char* from = master ? "replica" : "AOF-loading-client";
  const char* to = master ? "master" : "server";
  const char* cmd = c->cur_cmd != nullptr ? c->cur_cmd->name : "<unknown>";
  LOG_WARNING(
      "== CRITICAL == This %s is sending an error to its %s: '%.*s' after processing the "
      "command '%s'",
      from, to, static_cast<int>(std::min<size_t>(msg.size(), 128)), msg.data(), cmd);
  const std::string& b = g_server->config.propagation_error_behavior;
  bool panic =
      master ? g_server->config.replica_read_only && (b == "panic" || b == "panic-on-replicas")
             : b == "panic";
  if (panic) {
    LOG_WARNING("This %s panicked sending an error to its %s after processing the command '%s'",
                from, to, cmd);
    abort();  // the crash report (crash/) follows from SIGABRT
  }
}

void countErrorReply(const Client* c, std::string_view msg) {
  g_server->stats.countError(msg);
  if (c->flags & (kMaster | kMustObey)) [[unlikely]]
    propagationError(c, msg);
}

// The features that keep per-client state release it when a client goes
// away; the hooks run in this order.
void installClientHooks() {
  Client::addCloseHook(resetMultiState);
  Client::addCloseHook(resetPubSubState);
  Client::addCloseHook([](Client* c) {
    if (c->flags & kMonitor) monitor::remove(c);
  });
  Client::addCloseHook([](Client* c) {
    if (c->flags & kPostponed) pause::forget(c);
  });
  Client::addCloseHook(tracking::resetClient);
  Client::setErrorHook(countErrorReply);
}

}  // namespace

Instance::Instance() {
  installClientHooks();
}

Instance::~Instance() {
  // Clients first, then the listeners they were accepted on.
  for (Client* c : clients) delete c;
  clients.clear();
  listeners_.clear();
}

bool Instance::start() {
  // used_memory counts this thread's allocations (evict/allocator.h).
  evict::registerThread();
  common::logging::Level lvl;
  if (common::logging::parseLevel(config.loglevel, &lvl)) common::logging::setLevel(lvl);
  std::string err;
  if (!common::logging::setFile(config.logfile, &err)) {
    fprintf(stderr, "%s\n", err.c_str());
    return false;
  }
  crash::installSignalHandlers();

  for (int i = 0; i < config.databases; i++) dbs.push_back(std::make_unique<db::Db>(i));
  db::Db::onExpired = [](db::Db* d, std::string_view key) {
    g_server->stats.expired_keys++;
    touchWatchedKeyExpired(d, key);
    notify::keyspaceEvent(notify::kExpired, "expired", key, d->id());
    tracking::invalidateKey(key, nullptr);
    // Only the live dbs propagate (not one being loaded by DEBUG RELOAD).
    if (propagate::wanted() && static_cast<size_t>(d->id()) < g_server->dbs.size() &&
        g_server->dbs[d->id()].get() == d)
      propagate::keyExpired(d->id(), key, db::Db::lazy_expire);
  };
  db::Db::onAdded = [](db::Db* d, std::string_view key) {
    // Keys loaded into a db being built (RDB load, DEBUG RELOAD) are not
    // "new" events: only the live dbs publish them, as in Redis.
    if (static_cast<size_t>(d->id()) >= g_server->dbs.size() || g_server->dbs[d->id()].get() != d)
      return;
    notify::keyspaceEvent(notify::kNew, "new", key, d->id());
  };
  registerAllCommands(registerShutdownCommand);
  for (const Config::RenameCommand& r : config.rename_commands) {
    if (!commands.rename(r.from, r.to, &err)) {
      // Reported as the config loader reports its errors: the file is wrong.
      fprintf(stderr,
              "\n*** FATAL CONFIG FILE ERROR (Redis %s) ***\nReading the configuration file, at "
              "line %d\n>>> '%s'\n%s\n",
              kRedisVersion, r.line, r.text.c_str(), err.c_str());
      return false;
    }
  }
  if (!acl::init(&err)) {
    LOG_WARNING("%s", err.c_str());
    return false;
  }
  net::registerBuiltinTypes();

  LOG_NOTICE("oO0OoO0OoO0Oo Redis-compatible server is starting oO0OoO0OoO0Oo");
  LOG_NOTICE("Redis version=%s, bits=64, pid=%d, just started", kRedisVersion,
             static_cast<int>(getpid()));
  // Supervision, daemonize (forks: the pid changes), syslog, kernel settings.
  process::beforeListen(config);
  if (!limits::adjustOpenFilesLimit(&config.maxclients)) return false;
  evict::lazyfree::install();
  evict::applyConfig("");
  // maxmemory leaves out what replicas queue beyond the backlog and the AOF
  // buffer: evicting keys for them would only feed them more.
  evict::setNotCountedProvider(
      [] { return repl::memoryUse().not_counted + persist::aofBufferBytes(); });
  if (!openListeners(&err)) {
    LOG_WARNING("%s", err.c_str());
    return false;
  }
  if (listeners_.empty()) {
    LOG_WARNING("Configured to not listen anywhere, exiting.");
    return false;
  }
  // Cluster mode: nodes.conf and the bus (cluster.h); the slot index of
  // db 0 must exist before any key is loaded.
  if (!cluster::init(&err)) {
    LOG_WARNING("%s", err.c_str());
    return false;
  }
  process::afterListen(config, executable, config_file);
  if (config.io_threads > 1) {
    // The threads free reply memory (used_memory counts them as well) and
    // make connection I/O away from the loop (net::markIoThread).
    threaded_io::start(
        static_cast<int>(config.io_threads), config.io_threads_do_reads,
        [] {
          evict::registerThread();
          net::markIoThread();
        },
        evict::unregisterThread);
    LOG_NOTICE("I/O threads: %lld (the main thread included), for writes%s",
               static_cast<long long>(config.io_threads),
               config.io_threads_do_reads ? " and reads" : "");
  }
  loop.setBeforeSleep([this](event::EventLoop*) { beforeSleep(); });
  // The clock stands still while a script runs (script.h).
  loop.setAfterSleep([](event::EventLoop*) {
    if (!script::running()) db::Clock::update();
  });
  cron_timer_ = loop.addTimer(1, [this](event::EventLoop*, event::TimerId) { return cron(); });
  script::startEngines();
  LOG_NOTICE("Server initialized");
  // Clients may connect while the RDB loads: they get -LOADING, INFO shows
  // the progress (persist.h).
  if (!persist::loadAtStart()) return false;
  if (!cluster::verifyWithData(&err)) {
    LOG_WARNING("%s", err.c_str());
    return false;
  }
  repl::startReplicaFromConfig();  // replicaof: the cron connects
  LOG_NOTICE("Ready to accept connections");
  process::ready();
  return true;
}

bool Instance::openListeners(std::string* err) {
  // Each connection type reads its own settings (net::openListeners): the
  // server names none of them.
  auto get = [this](const std::string& name) { return configValue(config, name); };
  std::vector<net::OpenedListener> opened;
  if (!net::openListeners(&loop, get, onAccept, this, &opened, err)) return false;
  std::vector<BoundListener> fresh;
  for (auto& o : opened) {
    LOG_NOTICE("%s", o.announcement.c_str());
    fresh.push_back({o.type, std::move(o.listener)});
  }
  listeners_ = std::move(fresh);
  return true;
}

bool Instance::rebindListeners(std::string* err) {
  // Close first: the new port may be the same one with other addresses.
  std::vector<BoundListener> old = std::move(listeners_);
  old.clear();
  if (openListeners(err)) return true;
  return false;
}

void Instance::onAccept(net::Connection* conn, void* data) {
  auto* s = static_cast<Instance*>(data);
  s->stats.total_connections_received++;
  if (conn->accept(onAccepted) == -1) {
    LOG_WARNING("Error accepting a client connection: %s", conn->lastError().c_str());
    conn->close();
  }
}

void Instance::onAccepted(net::Connection* conn) {
  Server& s = *g_server;
  if (conn->state() != net::ConnState::kConnected) {
    // A warning, as Redis 7.0 logs it: a failed TLS handshake (a plain-text
    // client on the TLS port, an untrusted certificate) must be visible.
    LOG_WARNING("Error accepting a client connection: %s", conn->lastError().c_str());
    conn->close();
    return;
  }
  // Clients already closing (EOF seen in this same iteration) no longer
  // count: their slot is free even though they are freed in before-sleep.
  // Reads left to the I/O threads may hold such an end of stream.
  if (static_cast<int64_t>(s.clientCount()) >= s.config.maxclients) {
    threaded_io::handleDeferredReads();
  }
  if (static_cast<int64_t>(s.clientCount()) >= s.config.maxclients) {
    s.refuseClient(conn, "-ERR max number of clients reached\r\n");
    return;
  }
  if (s.config.protected_mode && acl::defaultUserIsOpen() && !conn->isLocal()) {
    s.refuseClient(conn, kProtectedModeError);
    return;
  }
  Client* c = s.newClient(conn);
  s.linkClient(c);
  startReading(c);
  LOG_VERBOSE("Accepted %s", conn->peerAddress().c_str());
}

void Instance::handlePendingWrites() {
  // Writing here rather than from a write handler saves an epoll round trip
  // per reply: most replies go out in one write right before we sleep.
  // Under load the I/O threads write those they may serve first
  // (threaded_io.h); the rest stays in the queue for this loop.
  threaded_io::writeInParallel(&pending_writes);
  for (size_t i = 0; i < pending_writes.size(); i++) {
    Client* c = pending_writes[i];
    if (c == nullptr) continue;
    c->flags &= ~kPendingWrite;
    if (c->flags & kCloseAsap) continue;
    flushClient(c);
  }
  pending_writes.clear();
}

void Instance::freeClosingClients(Client* keep) {
  bool kept = false;
  while (!clients_to_close.empty()) {
    std::vector<Client*> batch;
    batch.swap(clients_to_close);
    for (Client* c : batch) {
      if (c == keep) {
        kept = true;
        continue;
      }
      unlinkClient(c);
      delete c;
    }
  }
  if (kept) clients_to_close.push_back(keep);
}

void Instance::beforeSleep() {
  // Over maxmemory, the replies queued since the last step go out before
  // the deferred requests run (as they would have before those requests
  // were read without threads): their evictions must not count them, the
  // invalidations an eviction queued above all.
  if (threaded_io::g_reads_queued && !pending_writes.empty() && config.maxmemory > 0 &&
      evict::overMaxmemory()) {
    persist::beforeSleep();  // the AOF before the replies to its writes
    handlePendingWrites();
  }
  // Clients whose reads were left to the I/O threads: read in one step,
  // then their requests run here, first, as if read by their handlers.
  threaded_io::handleDeferredReads();
  // Data a transport holds in user space has no fd event to wake us: the
  // service shared with the client library runs its handlers.
  net::servicePendingData(&loop);
  // While a busy script services the loop (script.h) only I/O happens:
  // blocked clients are served and BCAST invalidations sent after it ends.
  bool in_script = script::running();
  if (!in_script) {
    blocking::handleReady();
    tracking::broadcastPending();
    cluster::beforeSleep();  // failover steps, state, nodes.conf (cluster mode)
  }
  // The AOF is written (and fsynced with appendfsync always) before the
  // replies that acknowledge the writes go out.
  persist::beforeSleep();
  // Clients closed during this iteration go before the replies are written
  // (their own output is dropped anyway): the peer of a killed replica hears
  // of it before the CLIENT KILL's caller hears back, as when Redis frees
  // it at once. Also while a busy script runs, as Redis frees them then (a
  // script may wait for INFO to show a replica gone); its caller stays
  // until it returns.
  Client* keep = in_script ? script::runningCaller() : nullptr;
  freeClosingClients(keep);
  handlePendingWrites();
  if (!in_script && evict::clientLimitBytes() != 0) evict::evictClients(nullptr);
  freeClosingClients(keep);  // those the writes or the client eviction closed
  if (!in_script) script::afterScripts();
  if (net::anyPendingData()) loop.setDontWait(true);
  loop.setBusyPoll(config.busy_poll_us);  // CONFIG SET may have changed it
  if (shutdown_asap) {
    prepareShutdown();
    loop.stop();
    loop.setDontWait(true);
  }
}

void Instance::clientsCron() {
  int64_t limit = config.timeout * 1000;
  for (Client* c : clients) {
    // A blocked client waits on its own timeout, not the idle one (Redis).
    if (c->flags & (kCloseAsap | kBlocked)) continue;
    // Subscribers (any protocol) and monitors only listen: Redis 7.0 never
    // closes them for being idle.
    bool listener = (c->flags & (kMonitor | kReplica | kMaster)) || isPubSubClient(c);
    if ((c->flags & kProtectedRefuse) && db::Clock::nowMs - c->ctime_ms > kRefusedLingerMs) {
      freeClientAsync(c);
      continue;
    }
    if (limit > 0 && !listener && db::Clock::nowMs - c->last_interaction_ms > limit) {
      LOG_VERBOSE("Closing idle client id=%llu", static_cast<unsigned long long>(c->id()));
      freeClientAsync(c);
      continue;
    }
    // A soft limit that has held long enough closes the client even when no
    // new reply arrives to check it (Redis 7.0).
    if (c->obuf_soft_since_ms != 0 && c->hasPendingReplies() && enforceOutputBufferLimits(c))
      continue;
    c->trimArgs();
    if (reply_buffer_resizing) {
      int r = c->resizeReplyBuffer(db::Clock::nowMs, reply_buffer_peak_reset_ms);
      if (r < 0) stats.reply_buffer_shrinks++;
      if (r > 0) stats.reply_buffer_expands++;
    }
  }
}

void Instance::databasesCron() {
  // Active expiry gets a bounded share of each cron period.
  int64_t budget_us = 1000000 / hz * (25 + 2 * (config.active_expire_effort - 1)) / 100;
  int64_t per_db = budget_us / static_cast<int64_t>(dbs.size()) + 1;
  int64_t expire_us = 0;  // the "expire-cycle" latency event covers expiry only
  db::Db::ExpireCycleCounts counts;
  for (auto& d : dbs) {
    if (d->expiresSize() > 0 && active_expire) {
      int64_t t0 = event::EventLoop::nowUs();
      d->activeExpireCycle(per_db, static_cast<int>(config.active_expire_effort), &counts);
      expire_us += event::EventLoop::nowUs() - t0;
    }
    if (config.activerehashing) d->cronRehash(1000);
  }
  latency::addSampleIfNeeded("expire-cycle", expire_us / 1000);
  if (active_expire) {
    double stale = counts.sampled
                       ? static_cast<double>(counts.expired) / static_cast<double>(counts.sampled)
                       : 0.0;
    stats.expired_stale_perc = stale * 0.05 + stats.expired_stale_perc * 0.95;
    if (counts.time_cap) stats.expired_time_cap_reached_count++;
    stats.expire_cycle_us += static_cast<uint64_t>(expire_us);
  }
}

int Instance::cron() {
  // No cron work in the middle of a script: it is atomic, time included.
  // The timer stays due, so the cron runs as soon as the script returns,
  // before the next request (Redis's serverCron, which a busy script holds
  // back, is then overdue): a child that ended meanwhile (the initial AOF
  // rewrite, a BGSAVE) is reaped before another script can start.
  if (script::running()) return 0;
  // The watchdog is fed by the outer loop only: a load serving the loop
  // from inside holds it up as much as a busy script does.
  if (nestedLoops() == 0) crash::armWatchdog(config.watchdog_period, hz);
  // DEBUG PAUSE-CRON skips the periodic work, not a SIGTERM's shutdown.
  if (cron_paused && !crash::shutdownRequested()) return static_cast<int>(1000 / hz);
  db::Clock::update();
  cron_loops++;
  // dynamic-hz: with many clients the cron runs more often, so each run
  // visits fewer of them (as Redis: doubling per 200 clients a tick).
  hz = std::clamp<int64_t>(config.hz, 1, 500);
  if (config.dynamic_hz) {
    while (static_cast<int64_t>(clients.size()) / hz > 200 && hz < 500) {
      hz = std::min<int64_t>(hz * 2, 500);
    }
  }
  // Instantaneous ops/sec over the last samples, as INFO reports it.
  int64_t dt = db::Clock::nowMs - stats.last_sample_ms;
  if (dt >= 100) {
    uint64_t ops = stats.total_commands_processed - stats.last_sample_ops;
    uint64_t in = stats.net_input_bytes - stats.last_sample_net_in;
    uint64_t out = stats.net_output_bytes - stats.last_sample_net_out;
    auto perSecond = [dt](uint64_t n) { return n * 1000 / static_cast<uint64_t>(dt); };
    stats.ops_samples[stats.ops_sample_idx] = perSecond(ops);
    stats.net_in_samples[stats.ops_sample_idx] = perSecond(in);
    stats.net_out_samples[stats.ops_sample_idx] = perSecond(out);
    stats.ops_sample_idx = (stats.ops_sample_idx + 1) % 16;
    stats.last_sample_ms = db::Clock::nowMs;
    stats.last_sample_ops = stats.total_commands_processed;
    stats.last_sample_net_in = stats.net_input_bytes;
    stats.last_sample_net_out = stats.net_output_bytes;
  }
  clientsCron();
  databasesCron();
  // An idle server still trims the tracking table after a CONFIG SET of
  // tracking-table-max-keys (commands trim it too, before they run).
  if (tracking::anyClient()) tracking::beforeCommand();
  evict::cron();
  persist::cron();         // reaps a BGSAVE child, save points
  repl::cron();            // replicas: newlines, PING, delayed diskless SYNC
  shutdownCron();          // a signal's shutdown, a wait for lagging replicas
  cluster::migrateCron();  // MIGRATE's links idle for 10 s
  return static_cast<int>(1000 / hz);
}

void Instance::prepareShutdown() {
  static bool done = false;  // once, even when a shutdown during loading asked first
  if (done) return;
  done = true;
  process::stopping();
  persist::killChild();
  cluster::shutdown();
  cluster::migrateCloseLinks();  // MIGRATE keeps links in standalone mode too
  for (Client* c : clients) {
    flushClient(c);
  }
  listeners_.clear();
  if (!config.unixsocket.empty()) {
    LOG_NOTICE("Removing the unix socket file.");
    unlink(config.unixsocket.c_str());
  }
  if (!config.pidfile.empty()) unlink(config.pidfile.c_str());
  LOG_WARNING("Redis is now ready to exit, bye bye...");
}

}  // namespace server
