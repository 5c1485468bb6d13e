// Server configuration: every option with its Redis name, type, bounds and
// whether CONFIG SET may change it. Sources, in order: the config file, then
// `--name value` command-line arguments (appended as if they were lines of
// the file), then CONFIG SET at run time.
//
// Module conf/: owns the options table (table.cpp), value parsing
// (values.cpp), loading (file.cpp), CONFIG REWRITE (rewrite.cpp) and the
// options not implemented yet (unimplemented.cpp). May include db/ and the
// floors below the server; everything in the server may include this
// header (options.h is conf/'s own).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace server {

struct Config {
  // rename-command lines (config file or command line only, as Redis 7.0:
  // not an option of CONFIG GET/SET), applied in order once the command
  // table exists; line and text are kept for the error Redis prints.
  struct RenameCommand {
    std::string from, to;
    int line = 0;
    std::string text;
  };
  std::vector<RenameCommand> rename_commands;
  std::vector<std::string> bind = {"*", "-::*"};
  int64_t port = 6379;
  std::string unixsocket;
  int64_t unixsocketperm = 0;
  int64_t tcp_backlog = 511;
  int64_t tcp_keepalive = 300;
  int64_t timeout = 0;
  bool protected_mode = true;
  std::string requirepass;
  // ACL (acl/users.h): `user` lines (each its words), the aclfile, the
  // ACL LOG length and whether new users get every channel.
  std::vector<std::vector<std::string>> acl_users;
  std::string aclfile;
  int64_t acllog_max_len = 128;
  std::string acl_pubsub_default = "resetchannels";
  int64_t maxclients = 10000;
  int64_t databases = 16;
  int64_t hz = 10;
  // Microseconds the event loop polls without sleeping before it blocks;
  // 0 = off (see redis.conf).
  int64_t busy_poll_us = 0;
  int64_t busy_reply_threshold = 5000;  // ms; alias lua-time-limit (script/run_context.h)
  std::string loglevel = "notice";
  std::string logfile;
  std::string dir;
  std::string pidfile;
  int64_t proto_max_bulk_len = 512ll * 1024 * 1024;
  int64_t client_query_buffer_limit = 1024ll * 1024 * 1024;
  // RDB snapshots (src/server/persist/): save points as "<sec> <changes> ...",
  // Redis 7.0's defaults.
  std::string save = "3600 1 300 100 60 10000";
  std::string dbfilename = "dump.rdb";
  bool rdbcompression = true;
  bool rdbchecksum = true;
  bool stop_writes_on_bgsave_error = true;
  std::string sanitize_dump_payload = "no";  // no | yes | clients
  bool rdb_del_sync_files = false;
  // SYNC / PSYNC served to replicas (src/server/repl/).
  bool repl_diskless_sync = true;
  int64_t repl_diskless_sync_delay = 5;
  int64_t repl_diskless_sync_max_replicas = 0;
  int64_t repl_ping_replica_period = 10;
  int64_t repl_timeout = 60;
  // SHUTDOWN and the signals: seconds a master waits for lagging replicas
  // (0: not at all), and the flags SIGINT / SIGTERM shut down with
  // ("default", or words of save|nosave|now|force).
  int64_t shutdown_timeout = 10;
  // An error from the master's stream or the AOF being loaded: logged
  // (ignore), or the server panics (panic; panic-on-replicas: the
  // master's stream only).
  std::string propagation_error_behavior = "ignore";
  std::string shutdown_on_sigint = "default";
  std::string shutdown_on_sigterm = "default";
  int64_t repl_backlog_size = 1024 * 1024;
  int64_t repl_backlog_ttl = 3600;
  int64_t min_replicas_to_write = 0;
  int64_t min_replicas_max_lag = 10;
  // Cluster mode (src/server/cluster/): the cluster-* directives.
  bool cluster_enabled = false;
  std::string cluster_config_file = "nodes.conf";
  int64_t cluster_node_timeout = 15000;
  int64_t cluster_port = 0;  // 0: port + 10000
  std::string cluster_announce_ip;
  std::string cluster_announce_hostname;
  int64_t cluster_announce_port = 0;
  int64_t cluster_announce_bus_port = 0;
  int64_t cluster_announce_tls_port = 0;
  std::string cluster_preferred_endpoint_type = "ip";  // ip | hostname | unknown-endpoint
  int64_t cluster_replica_validity_factor = 10;
  int64_t cluster_migration_barrier = 1;
  bool cluster_allow_replica_migration = true;
  bool cluster_require_full_coverage = true;
  bool cluster_replica_no_failover = false;
  bool cluster_allow_reads_when_down = false;
  bool cluster_allow_pubsubshard_when_down = true;
  int64_t cluster_link_sendbuf_limit = 0;  // bytes; 0: no limit
  // This server as a replica (src/server/repl/replica/).
  std::string replicaof;  // "<host> <port>", empty: a master
  std::string masterauth;
  std::string masteruser;
  bool replica_serve_stale_data = true;
  bool replica_read_only = true;
  bool replica_ignore_maxmemory = true;
  bool replica_lazy_flush = false;
  // A replica that cannot persist applies its master's writes anyway
  // (logged) instead of stopping with a crash report, as Redis 7.0.
  bool replica_ignore_disk_write_errors = false;
  // A full sync turns Nagle back on for the replica's TCP link.
  bool repl_disable_tcp_nodelay = false;
  int64_t replica_priority = 100;
  std::string replica_announce_ip;
  int64_t replica_announce_port = 0;
  bool replica_announced = true;
  std::string repl_diskless_load = "disabled";  // disabled | on-empty-db | swapdb
  std::string bind_source_addr;                 // local address of the link to the master
  bool rdb_save_incremental_fsync = true;
  int64_t rdb_key_save_delay = 0;  // test aid: microseconds per key in a save
  int64_t key_load_delay = 0;      // test aid: microseconds per key while loading
  // While a file loads, clients are served every this many bytes read.
  int64_t loading_process_events_interval_bytes = 2 * 1024 * 1024;
  int64_t watchdog_period = 0;     // ms; 0: off (crash/signals.h)
  bool use_exit_on_panic = false;  // a failed assertion exits(1) after its report
  // Append-only file (server/persist/aof/).
  bool appendonly = false;
  std::string appendfilename = "appendonly.aof";
  std::string appenddirname = "appendonlydir";
  std::string appendfsync = "everysec";
  bool no_appendfsync_on_rewrite = false;
  int64_t auto_aof_rewrite_percentage = 100;
  int64_t auto_aof_rewrite_min_size = 64ll * 1024 * 1024;
  bool aof_load_truncated = true;
  bool aof_use_rdb_preamble = true;
  bool aof_timestamp_enabled = false;
  bool aof_rewrite_incremental_fsync = true;
  bool aof_disable_auto_gc = false;
  // While the config file is read: later `save` lines add to the first.
  bool loading_file = false;
  bool save_seen_in_file = false;
  int64_t active_expire_effort = 1;
  bool activerehashing = true;
  // maxmemory and eviction (server/evict/): bytes, 0 = no limit.
  int64_t maxmemory = 0;
  std::string maxmemory_policy = "noeviction";
  // Keyspace notification classes (notify::kKeyspace ...; see
  // server/pubsub/notify.h), 0 = none.
  int64_t notify_keyspace_events = 0;
  // CLIENT TRACKING: most keys remembered for clients (0 = no limit).
  int64_t tracking_table_max_keys = 1000000;
  int64_t maxmemory_samples = 5;
  int64_t maxmemory_eviction_tenacity = 10;
  // Client eviction: bytes, or -N for N% of maxmemory; 0 = off.
  int64_t maxmemory_clients = 0;
  // Freeing in the background (server/evict/lazyfree.h).
  bool lazyfree_lazy_eviction = false;
  bool lazyfree_lazy_expire = false;
  bool lazyfree_lazy_server_del = false;
  bool lazyfree_lazy_user_del = false;
  bool lazyfree_lazy_user_flush = false;
  // jemalloc's background threads return freed memory to the system.
  bool jemalloc_bg_thread = true;
  // LFU access counters (OBJECT FREQ) under the *-lfu policies.
  int64_t lfu_log_factor = 10;
  int64_t lfu_decay_time = 1;
  // SLOWLOG: -1 disables, 0 logs every command.
  int64_t slowlog_log_slower_than = 10000;
  int64_t slowlog_max_len = 128;
  // LATENCY: events of at least this many ms are recorded (0 = off);
  // per-command latency histograms and the percentiles INFO latencystats
  // reports.
  int64_t latency_monitor_threshold = 0;
  bool latency_tracking = true;
  std::vector<double> latency_tracking_info_percentiles = {50.0, 99.0, 99.9};
  // A sparse HyperLogLog string growing past this many bytes turns dense.
  int64_t hll_sparse_max_bytes = 3000;
  // Small-encoding thresholds of hashes and sets (aliases *-ziplist-*).
  // Sets have Redis 7.0's two encodings: intset, else hashtable.
  int64_t hash_max_listpack_entries = 512;
  int64_t hash_max_listpack_value = 64;
  int64_t set_max_intset_entries = 512;
  // Sorted sets stay "listpack" encoded up to this many members, each of at
  // most this many bytes (aliases: zset-max-ziplist-*).
  int64_t zset_max_listpack_entries = 128;
  // Stream nodes (db/stream.h) close at this many bytes / entries (0: no
  // limit; bytes are capped at 1 GiB as Redis does).
  int64_t stream_node_max_bytes = 4096;
  int64_t stream_node_max_entries = 100;
  int64_t zset_max_listpack_value = 64;
  // "no", "yes" or "local" (only from loopback/unix peers): DEBUG, the
  // protected options (CONFIG SET dir) and MODULE LOAD/LOADEX/UNLOAD are
  // refused by default, as in Redis.
  std::string enable_debug_command = "no";
  std::string enable_protected_configs = "no";
  std::string enable_module_command = "no";
  // Lists: per-node limit (negative: -1..-5 = 4..64 KiB; positive: element
  // count) and the compression depth (stored and reported; not applied).
  int64_t list_max_listpack_size = -2;
  int64_t list_compress_depth = 0;
  // Settings the connection types own (net::allSettings(): "rdma-port",
  // ...), by name, in canonical form; a name not here has its default.
  std::map<std::string, std::string> transport_settings;
  // client-output-buffer-limit, per client class: a client whose pending
  // output reaches `hard` bytes, or stays at or above `soft` bytes for more
  // than `soft_seconds`, is closed (0 disables a limit).
  struct OutputBufferLimit {
    int64_t hard, soft, soft_seconds;
  };
  enum ClientClass { kClassNormal = 0, kClassReplica = 1, kClassPubSub = 2, kClientClasses = 3 };
  OutputBufferLimit obuf_limits[kClientClasses] = {
      {0, 0, 0}, {256ll << 20, 64ll << 20, 60}, {32ll << 20, 8ll << 20, 60}};
  // The process (server/process/): daemon, supervisor, title, kernel
  // settings, syslog, as Redis 7.0 applies them (see redis.conf).
  bool daemonize = false;
  std::string supervised = "no";
  bool always_show_logo = false;
  bool set_proc_title = true;
  std::string proc_title_template = "{title} {listen-addr} {server-mode}";
  std::string oom_score_adj = "no";
  int64_t oom_score_adj_values[3] = {0, 200, 800};
  bool disable_thp = true;
  std::string server_cpulist;
  bool syslog_enabled = false;
  std::string syslog_ident = "redis";
  std::string syslog_facility = "local0";
  // Accepted; this server does all client I/O on the main thread.
  int64_t io_threads = 1;
  bool io_threads_do_reads = false;
  // The cron runs faster with many clients (hz doubles per 200*hz clients).
  bool dynamic_hz = true;
  // Options of features not implemented yet (server/conf/unimplemented.h):
  // name -> value, only those set to a non-default value, and the lines of
  // the file-only directives.
  std::map<std::string, std::string> unimplemented;
};

// Parses config text (a file's contents plus the command-line lines). On
// error returns false with *err holding Redis's multi-line fatal message
// (file line, the offending line and the reason).
bool loadConfigText(Config* cfg, const std::string& text, std::string* err);
// Reads a file ("-" = stdin) and appends extra lines; then loadConfigText.
bool loadConfig(Config* cfg, const std::string& path, const std::string& extra, std::string* err);

// CONFIG SET name value: validates and stores; *err is the reason for a
// failure (the caller wraps it in Redis's "CONFIG SET failed" sentence).
// *unknown is set when no such mutable option exists.
bool configSet(Config* cfg, const std::string& name, const std::vector<std::string>& values,
               std::string* err, bool* unknown, bool* immutable);
// CONFIG GET: (name, value) pairs of options matching the glob pattern.
std::vector<std::pair<std::string, std::string>> configGet(const Config& cfg,
                                                           const std::string& pattern);
// One option's value as CONFIG GET prints it, "" for an unknown name: how
// the connection types read their settings (net::SettingLookup).
std::string configValue(const Config& cfg, const std::string& name);
// True for options that CONFIG SET may change only when
// enable-protected-configs allows it (dir, dbfilename).
bool configIsProtected(const std::string& name);
// True for options whose value SLOWLOG and MONITOR show as "(redacted)"
// (requirepass, and the connection types' secrets: key pass phrases).
bool configIsSensitive(const std::string& name);
// True if `name` is an option CONFIG SET accepts with `nvalues` values.
bool configSetArity(const std::string& name, size_t nvalues);
// The canonical (table) name of an option, or "" if unknown.
std::string configCanonicalName(const std::string& name);

// CONFIG REWRITE: rewrites the file at `path` in place. Comments, blank
// lines and unknown lines are kept; the first line of each known option is
// replaced by its current value and later duplicates are dropped; options
// that differ from their default and are absent are appended after a
// "# Generated by CONFIG REWRITE" line. `force_all` (DEBUG
// CONFIG-REWRITE-FORCE-ALL) appends every option not in the file, defaults
// and hidden ones included. Returns false with *err set.
bool rewriteConfigFile(const Config& cfg, const std::string& path, std::string* err,
                       bool force_all = false);

// Quotes one value so the config parser reads it back as one unchanged
// argument (plain words stay bare). Used for CONFIG REWRITE and for turning
// command-line options into config lines (always = true quotes every value,
// as Redis shows command-line arguments in its config errors).
std::string quoteConfigValue(const std::string& v, bool always = false);

// CONFIG REWRITE's `user` lines (acl/users.h): the lines to write, one per
// user ("user alice on #... ~* +@all"), empty when an aclfile keeps them.
// Existing `user` lines are replaced in order, the rest appended. Without
// a hook, `user` lines are kept as they are.
using ConfigUserLinesHook = std::vector<std::string> (*)();
void setConfigUserLinesHook(ConfigUserLinesHook hook);
// "1gb", "512mb", "100k" (k = 1000, kb = 1024), as redis.conf writes
// memory values. False if not one.
bool parseMemoryValue(const std::string& v, int64_t* out);

// Every name the configuration accepts (options, their aliases, the
// not-implemented ones and file-only directives), for the duplicate test.
std::vector<std::string> configOptionNames();

// Called after an option changed at run time (applies it to the server).
using ConfigApplyHook = bool (*)(const std::string& name, std::string* err);
void setConfigApplyHook(ConfigApplyHook hook);

// The running server's configuration (core/state.h owns it and sets this
// while it exists): what modules below the server state read.
extern Config* g_config;

}  // namespace server
