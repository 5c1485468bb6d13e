// Server state: the configuration, the command table, the databases, the
// clients and the statistics; one Server per process (g_server), as the
// event loop is one. Start-up, listeners, the cron and before-sleep are the
// process's (server/server.h, the class Instance that extends this one).
// Part of core/: included by request/ and the floors above it (persist,
// script, repl, evict, commands, the top); modules below request/ take what
// they need through narrower headers.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "event/event_loop.h"
#include "net/connection.h"
#include "server/conf/config.h"
#include "server/core/command.h"
#include "server/db/db.h"

namespace server {

class Client;

struct Stats {
  uint64_t total_connections_received = 0;
  uint64_t total_commands_processed = 0;
  uint64_t rejected_connections = 0;
  uint64_t net_input_bytes = 0;
  uint64_t net_output_bytes = 0;
  uint64_t expired_keys = 0;
  uint64_t keyspace_hits = 0;
  uint64_t keyspace_misses = 0;
  uint64_t total_error_replies = 0;
  uint64_t unexpected_error_replies = 0;
  uint64_t client_qbuf_limit_disconnections = 0;
  uint64_t reply_buffer_shrinks = 0;
  uint64_t reply_buffer_expands = 0;
  // Replication (server/repl/): full resyncs served, PSYNCs continued and
  // PSYNCs that asked to continue but got a full resync.
  uint64_t sync_full = 0;
  uint64_t sync_partial_ok = 0;
  uint64_t sync_partial_err = 0;
  int64_t start_time_ms = 0;
  // Instantaneous ops/sec and network bytes/sec: samples taken by the cron.
  uint64_t ops_samples[16] = {};
  uint64_t net_in_samples[16] = {};
  uint64_t net_out_samples[16] = {};
  int ops_sample_idx = 0;
  int64_t last_sample_ms = 0;
  uint64_t last_sample_ops = 0;
  uint64_t last_sample_net_in = 0;
  uint64_t last_sample_net_out = 0;
  // Active expiry: a moving average of the share of sampled keys found
  // expired (0..1, 5% weight to each cycle, as Redis), cycles stopped by
  // their time budget, and the time spent in them.
  double expired_stale_perc = 0;
  uint64_t expired_time_cap_reached_count = 0;
  uint64_t expire_cycle_us = 0;
  // INFO errorstats: error replies per code ("ERR", "WRONGTYPE", ...).
  std::map<std::string, uint64_t, std::less<>> error_codes;
  // Counts one error reply: in total_error_replies and by its code, the
  // first word of a message that carries its own code ("-WRONGTYPE ..."),
  // else "ERR". New codes stop being tracked past a limit, as in Redis, so
  // clients cannot grow it.
  void countError(std::string_view msg);
};

class Server {
 public:
  Server();
  virtual ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Client registry (request/clients.cpp). newClient makes a client with the next id, on db 0,
  // authenticated unless a password is required; the caller links it.
  Client* newClient(net::Connection* conn);
  void linkClient(Client* c);
  void unlinkClient(Client* c);
  void freeClientAsync(Client* c);
  void queueWrite(Client* c);
  Client* findClientById(uint64_t id);
  // Live clients: those registered minus those already scheduled to close.
  // Connected clients as INFO and maxclients count them: not those being
  // closed, nor those refused at accept that are only waiting to receive
  // their error.
  size_t clientCount() const { return clients.size() - clients_to_close.size() - refused_clients; }
  // Refuses a connection at accept (maxclients, protected mode): `error`
  // (a full RESP error line) is sent, then the connection is closed.
  void refuseClient(net::Connection* conn, std::string_view error);
  size_t refused_clients = 0;
  static constexpr int64_t kRefusedLingerMs = 2000;

  // Applies listener-related config changes at run time (CONFIG SET port).
  // The process (server/server.h) owns the listeners; a bare state (unit
  // tests) has none and refuses.
  virtual bool rebindListeners(std::string* err);

  db::Db& dbAt(int i) { return *dbs[static_cast<size_t>(i)]; }

  // Runs one iteration of the loop from inside a long operation (a busy
  // script, a load): clients are served (-BUSY, -LOADING) while it goes
  // on. nestedLoops() > 0 meanwhile: work that must wait for the outer
  // iteration (the I/O threads' steps) checks it. With wait, the iteration
  // sleeps until an event or the next timer (a load waiting for its bytes).
  void serveEventsWhileBusy(bool wait = false) {
    nested_loops_++;
    loop.processEvents(wait);
    nested_loops_--;
  }
  int nestedLoops() const { return nested_loops_; }

  event::EventLoop loop;
  Config config;
  CommandTable commands;
  std::vector<std::unique_ptr<db::Db>> dbs;
  std::list<Client*> clients;
  std::vector<Client*> pending_writes;
  std::vector<Client*> clients_to_close;
  Stats stats;
  uint64_t next_client_id = 1;
  int64_t cron_loops = 0;
  int64_t hz = 10;  // the cron's frequency now: config hz, raised by dynamic-hz
  bool shutdown_asap = false;
  // A shutdown waiting for lagging replicas (server/shutdown.h): when it
  // gives up waiting (0: none), and how many SHUTDOWN callers it blocks.
  int64_t shutdown_deadline_ms = 0;
  size_t shutdown_callers = 0;
  int shutdown_exit_code = 0;
  Client* current_client = nullptr;
  std::string executable;
  std::string config_file;
  int64_t dirty = 0;  // writes since start (INFO persistence: rdb_changes_since_last_save)
  // DEBUG SET-ACTIVE-EXPIRE 0 stops the cron's expiry (tests of lazy expiry).
  bool active_expire = true;
  // DEBUG PAUSE-CRON 1 skips the cron's work (tests that need the server
  // idle but responsive).
  bool cron_paused = false;
  // DEBUG REPLYBUFFER: how often a client's reply buffer peak is reset
  // (-1: never) and whether the cron resizes reply buffers at all.
  static constexpr int64_t kReplyBufferPeakResetMs = 5000;  // Redis's default
  int64_t reply_buffer_peak_reset_ms = kReplyBufferPeakResetMs;
  bool reply_buffer_resizing = true;
  // DEBUG SET-DISABLE-DENY-SCRIPTS 1 lets scripts call no-script commands.
  bool script_deny_disabled = false;
  char run_id[41] = {};

  // The shared read buffer: clients read into it and keep a private buffer
  // only for a partial request left over (memory stays flat with many idle
  // clients).
  std::vector<char> shared_qbuf;

 private:
  int nested_loops_ = 0;
};

extern Server* g_server;

// Seconds since start, for INFO.
int64_t uptimeSeconds();
const char* kVersion();

}  // namespace server
