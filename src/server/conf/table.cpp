// The options table: one row per option Redis 7.0 knows (the unimplemented
// ones are conf/unimplemented.cpp), the connection types' settings, the old
// aliases; CONFIG SET/GET and the questions CONFIG and the loader ask of it.
#include "server/conf/options.h"

#include <glob.h>
#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>

#include "common/log.h"
#include "common/strutil.h"
#include "net/registry.h"
#include "server/conf/option_macros.h"
#include "server/conf/unimplemented.h"
#include "server/core/version.h"
#include "server/process/proc_title.h"
#include "server/process/startup.h"
#include "server/pubsub/notify.h"

namespace server::conf {

// A row for a setting a connection type owns: the type parses it, the
// value is kept in Config::transport_settings.
Option transportOption(const net::SettingSpec* spec) {
  Option o{spec->name,
           spec->is_mutable,
           1,
           spec->is_list ? -1 : 1,
           [spec](Config& c, const Args& a, std::string* e) {
             std::string v;
             if (!spec->parse(spec->is_list ? splitWords(a) : a, &v, e)) return false;
             c.transport_settings[spec->name] = v;
             return true;
           },
           [spec](const Config& c) {
             auto it = c.transport_settings.find(spec->name);
             return it != c.transport_settings.end() ? it->second
                                                     : std::string(spec->default_value);
           }};
  o.apply_unchanged = spec->reapply_unchanged;
  o.sensitive = spec->sensitive;
  return o;
}

namespace {
std::vector<Option> builtinOptions();
}  // namespace

const std::vector<Option>& options() {
  static const std::vector<Option> opts = [] {
    std::vector<Option> v = builtinOptions();
    for (Option& o : clusterOptions()) v.push_back(std::move(o));
    for (const net::SettingSpec& s : net::allSettings()) v.push_back(transportOption(&s));
    return v;
  }();
  return opts;
}

namespace {

// Redis's hidden configs (test aids): CONFIG GET shows them only when
// asked by their exact name, never for a pattern.
Option hiddenOption(Option o) {
  o.hidden = true;
  return o;
}

// Redis 7.0's sensitive configs: the passwords, and the replica's user.
Option sensitiveOption(Option o) {
  o.sensitive = true;
  return o;
}

std::vector<Option> builtinOptions() {
  std::vector<Option> opts = {
      Option{"bind", true, 1, -1,
             [](Config& c, const Args& a, std::string*) {
               c.bind = splitWords(a);
               return true;
             },
             [](const Config& c) { return joinArgs(c.bind); }},
      INT_OPT("port", port, 0, 65535, true),
      STR_OPT("unixsocket", unixsocket, false),
      Option{"unixsocketperm", false, 1, 1,
             [](Config& c, const Args& a, std::string* e) {
               char* end = nullptr;
               errno = 0;
               long v = strtol(a[0].c_str(), &end, 8);
               if (a[0].empty() || *end != '\0' || errno != 0 || v < 0 || v > 0777) {
                 *e = "Invalid socket file permissions";
                 return false;
               }
               c.unixsocketperm = v;
               return true;
             },
             [](const Config& c) {
               char buf[16];
               snprintf(buf, sizeof(buf), "%lo", static_cast<long>(c.unixsocketperm));
               return std::string(buf);
             }},
      INT_OPT("tcp-backlog", tcp_backlog, 0, INT_MAX, false),
      INT_OPT("tcp-keepalive", tcp_keepalive, 0, INT_MAX, true),
      BOOL_OPT("repl-diskless-sync", repl_diskless_sync, true),
      INT_OPT("repl-diskless-sync-delay", repl_diskless_sync_delay, 0, INT_MAX, true),
      INT_OPT("repl-diskless-sync-max-replicas", repl_diskless_sync_max_replicas, 0, INT_MAX,
              true),
      INT_OPT("repl-ping-replica-period", repl_ping_replica_period, 1, INT_MAX, true),
      INT_OPT("repl-timeout", repl_timeout, 1, INT_MAX, true),
      Option{"replicaof", false, 1, -1, setReplicaOf,
             [](const Config& c) { return c.replicaof; }},
      sensitiveOption(STR_OPT("masterauth", masterauth, true)),
      sensitiveOption(STR_OPT("masteruser", masteruser, true)),
      BOOL_OPT("replica-serve-stale-data", replica_serve_stale_data, true),
      BOOL_OPT("replica-read-only", replica_read_only, true),
      BOOL_OPT("replica-ignore-maxmemory", replica_ignore_maxmemory, true),
      BOOL_OPT("replica-lazy-flush", replica_lazy_flush, true),
      BOOL_OPT("replica-ignore-disk-write-errors", replica_ignore_disk_write_errors, true),
      BOOL_OPT("repl-disable-tcp-nodelay", repl_disable_tcp_nodelay, true),
      INT_OPT("replica-priority", replica_priority, 0, INT_MAX, true),
      STR_OPT("replica-announce-ip", replica_announce_ip, true),
      INT_OPT("replica-announce-port", replica_announce_port, 0, 65535, true),
      BOOL_OPT("replica-announced", replica_announced, true),
      ENUM_OPT("repl-diskless-load", repl_diskless_load, kDisklessLoad, true),
      STR_OPT("bind-source-addr", bind_source_addr, true),
      Option{"repl-backlog-size", true, 1, 1,
             [](Config& c, const Args& a, std::string* e) {
               // Raised to Redis's 16 KiB minimum, as Redis does.
               if (!parseMemoryRange(a[0], 1, INT64_MAX, &c.repl_backlog_size, e)) return false;
               c.repl_backlog_size = std::max<int64_t>(c.repl_backlog_size, 16 * 1024);
               return true;
             },
             [](const Config& c) { return std::to_string(c.repl_backlog_size); }},
      INT_OPT("repl-backlog-ttl", repl_backlog_ttl, 0, LONG_MAX, true),
      INT_OPT("min-replicas-to-write", min_replicas_to_write, 0, INT_MAX, true),
      INT_OPT("min-replicas-max-lag", min_replicas_max_lag, 0, INT_MAX, true),
      INT_OPT("timeout", timeout, 0, INT_MAX, true),
      BOOL_OPT("protected-mode", protected_mode, true),
      sensitiveOption(STR_OPT("requirepass", requirepass, true)),
      STR_OPT("aclfile", aclfile, false),
      INT_OPT("acllog-max-len", acllog_max_len, 0, LLONG_MAX, true),
      ENUM_OPT("acl-pubsub-default", acl_pubsub_default, kPubsubDefaults, true),
      INT_OPT("maxclients", maxclients, 1, UINT32_MAX, true),
      INT_OPT("databases", databases, 1, INT_MAX, false),
      Option{"hz", true, 1, 1,
             [](Config& c, const Args& a, std::string* e) {
               // Kept within 1..500 as Redis does (CONFIG GET shows it so).
               if (!parseRange(a[0], 0, INT_MAX, &c.hz, e)) return false;
               c.hz = std::clamp<int64_t>(c.hz, 1, 500);
               return true;
             },
             [](const Config& c) { return std::to_string(c.hz); }},
      INT_OPT("busy-poll-us", busy_poll_us, 0, 1000000, true),
      INT_OPT("busy-reply-threshold", busy_reply_threshold, 0, INT64_MAX, true),
      Option{"loglevel", true, 1, 1,
             [](Config& c, const Args& a, std::string* e) {
               common::logging::Level l;
               if (!common::logging::parseLevel(a[0], &l)) {
                 *e = "argument(s) must be one of the following: debug, verbose, notice, "
                      "warning";
                 return false;
               }
               c.loglevel = common::logging::levelName(l);
               return true;
             },
             [](const Config& c) { return c.loglevel; }},
      STR_OPT("logfile", logfile, false),
      Option{"dir", true, 1, 1,
             [](Config& c, const Args& a, std::string* e) {
               if (chdir(a[0].c_str()) == -1) {
                 *e = strerror(errno);
                 return false;
               }
               c.dir = a[0];
               return true;
             },
             [](const Config& c) {
               char buf[4096];
               if (getcwd(buf, sizeof(buf)) == nullptr) return c.dir;
               return std::string(buf);
             }},
      STR_OPT("pidfile", pidfile, false),
      // The process (server/process/).
      BOOL_OPT("daemonize", daemonize, false),
      ENUM_OPT("supervised", supervised, kSupervisedModes, false),
      BOOL_OPT("always-show-logo", always_show_logo, false),
      BOOL_OPT("set-proc-title", set_proc_title, false),
      Option{"proc-title-template", true, 1, 1,
             [](Config& c, const Args& a, std::string* e) {
               // Checked as Redis does: with an empty {title}, the result
               // must not be empty either.
               std::string title;
               if (!process::expandProcTitle(a[0], process::titleVars(c, "", ""), &title)) {
                 *e = "template format is invalid or contains unknown variables";
                 return false;
               }
               c.proc_title_template = a[0];
               return true;
             },
             [](const Config& c) { return c.proc_title_template; }},
      ENUM_OPT("oom-score-adj", oom_score_adj, kOomScoreAdjModes, true),
      Option{"oom-score-adj-values", true, 1, -1,
             [](Config& c, const Args& a, std::string* e) {
               std::vector<std::string> w = splitWords(a);
               if (w.size() != 3) {
                 *e = "wrong number of arguments";
                 return false;
               }
               int64_t v[3];
               for (int i = 0; i < 3; i++) {
                 if (!common::strutil::parseInt64(w[static_cast<size_t>(i)], &v[i]) || v[i] < -2000 ||
                     v[i] > 2000) {
                   *e = "Invalid oom-score-adj-values, elements must be between -2000 and 2000.";
                   return false;
                 }
               }
               std::copy(v, v + 3, c.oom_score_adj_values);
               return true;
             },
             [](const Config& c) {
               return std::to_string(c.oom_score_adj_values[0]) + " " +
                      std::to_string(c.oom_score_adj_values[1]) + " " +
                      std::to_string(c.oom_score_adj_values[2]);
             }},
      BOOL_OPT("disable-thp", disable_thp, false),
      STR_OPT("server_cpulist", server_cpulist, false),
      BOOL_OPT("syslog-enabled", syslog_enabled, false),
      STR_OPT("syslog-ident", syslog_ident, false),
      ENUM_OPT("syslog-facility", syslog_facility, kSyslogFacilities, false),
      INT_OPT("io-threads", io_threads, 1, 128, false),
      BOOL_OPT("io-threads-do-reads", io_threads_do_reads, false),
      BOOL_OPT("dynamic-hz", dynamic_hz, true),
      MEM_OPT("proto-max-bulk-len", proto_max_bulk_len, 1024 * 1024, INT64_MAX, true),
      MEM_OPT("client-query-buffer-limit", client_query_buffer_limit, 1024 * 1024, INT64_MAX, true),
      Option{"client-output-buffer-limit", true, 1, -1, setOutputBufferLimits,
             getOutputBufferLimits},
      Option{"save", true, 0, -1,
             [](Config& c, const Args& a, std::string* e) {
               if (a.empty()) {
                 // A bare `save` line (a config file's `save ""` written
                 // without quotes) sets no points: it replaces the defaults
                 // when it is the file's first, else adds nothing (Redis).
                 if (!c.save_seen_in_file) c.save.clear();
                 c.save_seen_in_file = true;
                 return true;
               }
               if (!validSave(a, e)) return false;
               // In a config file the first `save` line replaces the
               // defaults and later ones add points, as in Redis; CONFIG SET
               // replaces the whole list.
               std::string v = (a.size() == 1 && a[0].empty()) ? "" : joinArgs(a);
               if (c.loading_file && c.save_seen_in_file && !v.empty() && !c.save.empty())
                 c.save += " " + v;
               else
                 c.save = v;
               if (c.loading_file) c.save_seen_in_file = true;
               return true;
             },
             [](const Config& c) { return c.save; }},
      Option{"dbfilename", true, 1, 1,
             [](Config& c, const Args& a, std::string* e) {
               if (a[0].find('/') != std::string::npos) {
                 *e = "dbfilename can't be a path, just a filename";
                 return false;
               }
               if (a[0].empty()) {
                 *e = "dbfilename can't be empty";
                 return false;
               }
               c.dbfilename = a[0];
               return true;
             },
             [](const Config& c) { return c.dbfilename; }},
      BOOL_OPT("rdbcompression", rdbcompression, true),
      BOOL_OPT("appendonly", appendonly, true),
      Option{"appendfilename", false, 1, 1,
             [](Config& c, const Args& a, std::string* e) {
               return setAofName(&c.appendfilename, a[0], "appendfilename", e);
             },
             [](const Config& c) { return c.appendfilename; }},
      Option{"appenddirname", false, 1, 1,
             [](Config& c, const Args& a, std::string* e) {
               return setAofName(&c.appenddirname, a[0], "appenddirname", e);
             },
             [](const Config& c) { return c.appenddirname; }},
      ENUM_OPT("appendfsync", appendfsync, kAppendFsync, true),
      BOOL_OPT("no-appendfsync-on-rewrite", no_appendfsync_on_rewrite, true),
      INT_OPT("auto-aof-rewrite-percentage", auto_aof_rewrite_percentage, 0, INT32_MAX, true),
      MEM_OPT("auto-aof-rewrite-min-size", auto_aof_rewrite_min_size, 0, INT64_MAX, true),
      BOOL_OPT("aof-load-truncated", aof_load_truncated, true),
      BOOL_OPT("aof-use-rdb-preamble", aof_use_rdb_preamble, true),
      BOOL_OPT("aof-timestamp-enabled", aof_timestamp_enabled, true),
      BOOL_OPT("aof-rewrite-incremental-fsync", aof_rewrite_incremental_fsync, true),
      BOOL_OPT("aof-disable-auto-gc", aof_disable_auto_gc, true),
      BOOL_OPT("rdbchecksum", rdbchecksum, false),
      BOOL_OPT("stop-writes-on-bgsave-error", stop_writes_on_bgsave_error, true),
      Option{"sanitize-dump-payload", true, 1, 1,
             [](Config& c, const Args& a, std::string* e) {
               for (const char* v : {"no", "yes", "clients"}) {
                 if (strcasecmp(a[0].c_str(), v) == 0) {
                   c.sanitize_dump_payload = v;
                   return true;
                 }
               }
               *e = "argument(s) must be one of the following: no, yes, clients";
               return false;
             },
             [](const Config& c) { return c.sanitize_dump_payload; }},
      BOOL_OPT("rdb-del-sync-files", rdb_del_sync_files, true),
      BOOL_OPT("rdb-save-incremental-fsync", rdb_save_incremental_fsync, true),
      hiddenOption(INT_OPT("rdb-key-save-delay", rdb_key_save_delay, INT32_MIN, INT32_MAX, true)),
      hiddenOption(INT_OPT("key-load-delay", key_load_delay, INT32_MIN, INT32_MAX, true)),
      hiddenOption(INT_OPT("loading-process-events-interval-bytes",
                           loading_process_events_interval_bytes, 1024, INT32_MAX, true)),
      hiddenOption(BOOL_OPT("use-exit-on-panic", use_exit_on_panic, true)),
      hiddenOption(INT_OPT("watchdog-period", watchdog_period, 0, INT32_MAX, true)),
      INT_OPT("active-expire-effort", active_expire_effort, 1, 10, true),
      BOOL_OPT("activerehashing", activerehashing, true),
      MEM_OPT("maxmemory", maxmemory, 0, INT64_MAX, true),
      ENUM_OPT("maxmemory-policy", maxmemory_policy, kMaxmemoryPolicies, true),
      Option{"notify-keyspace-events", true, 1, 1,
             [](Config& c, const Args& a, std::string* e) {
               int flags;
               if (!notify::parseFlags(a[0], &flags)) {
                 *e = "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";
                 return false;
               }
               c.notify_keyspace_events = flags;
               return true;
             },
             [](const Config& c) {
               return notify::flagsToString(static_cast<int>(c.notify_keyspace_events));
             }},
      INT_OPT("tracking-table-max-keys", tracking_table_max_keys, 0, LONG_MAX, true),
      INT_OPT("maxmemory-samples", maxmemory_samples, 1, INT_MAX, true),
      INT_OPT("maxmemory-eviction-tenacity", maxmemory_eviction_tenacity, 0, 100, true),
      Option{"maxmemory-clients", true, 1, 1, setMaxmemoryClients,
             [](const Config& c) {
               return c.maxmemory_clients < 0 ? std::to_string(-c.maxmemory_clients) + "%"
                                              : std::to_string(c.maxmemory_clients);
             }},
      BOOL_OPT("lazyfree-lazy-eviction", lazyfree_lazy_eviction, true),
      BOOL_OPT("lazyfree-lazy-expire", lazyfree_lazy_expire, true),
      BOOL_OPT("lazyfree-lazy-server-del", lazyfree_lazy_server_del, true),
      BOOL_OPT("lazyfree-lazy-user-del", lazyfree_lazy_user_del, true),
      BOOL_OPT("lazyfree-lazy-user-flush", lazyfree_lazy_user_flush, true),
      BOOL_OPT("jemalloc-bg-thread", jemalloc_bg_thread, true),
      INT_OPT("lfu-log-factor", lfu_log_factor, 0, INT_MAX, true),
      INT_OPT("lfu-decay-time", lfu_decay_time, 0, INT_MAX, true),
      INT_OPT("slowlog-log-slower-than", slowlog_log_slower_than, -1, INT64_MAX, true),
      INT_OPT("latency-monitor-threshold", latency_monitor_threshold, 0, INT64_MAX, true),
      BOOL_OPT("latency-tracking", latency_tracking, true),
      Option{"latency-tracking-info-percentiles", true, 0, -1, setLatencyPercentiles,
             getLatencyPercentiles},
      INT_OPT("slowlog-max-len", slowlog_max_len, 0, INT64_MAX, true),
      INT_OPT("shutdown-timeout", shutdown_timeout, 0, INT_MAX, true),
      ENUM_OPT("propagation-error-behavior", propagation_error_behavior,
               kPropagationErrorBehaviors, true),
      Option{"shutdown-on-sigint", true, 0, -1,
             [](Config& c, const Args& a, std::string* e) {
               return parseShutdownFlags(a, &c.shutdown_on_sigint, e);
             },
             [](const Config& c) { return c.shutdown_on_sigint; }},
      Option{"shutdown-on-sigterm", true, 0, -1,
             [](Config& c, const Args& a, std::string* e) {
               return parseShutdownFlags(a, &c.shutdown_on_sigterm, e);
             },
             [](const Config& c) { return c.shutdown_on_sigterm; }},
      MEM_OPT("hll-sparse-max-bytes", hll_sparse_max_bytes, 0, INT64_MAX, true),
      INT_OPT("hash-max-listpack-entries", hash_max_listpack_entries, 0, INT64_MAX, true),
      MEM_OPT("hash-max-listpack-value", hash_max_listpack_value, 0, INT64_MAX, true),
      INT_OPT("set-max-intset-entries", set_max_intset_entries, 0, INT64_MAX, true),
      INT_OPT("zset-max-listpack-entries", zset_max_listpack_entries, 0, INT64_MAX, true),
      MEM_OPT("stream-node-max-bytes", stream_node_max_bytes, 0, INT64_MAX, true),
      INT_OPT("stream-node-max-entries", stream_node_max_entries, 0, INT64_MAX, true),
      MEM_OPT("zset-max-listpack-value", zset_max_listpack_value, 0, INT64_MAX, true),
      ENUM_OPT("enable-debug-command", enable_debug_command, kProtectedModes, false),
      ENUM_OPT("enable-protected-configs", enable_protected_configs, kProtectedModes, false),
      ENUM_OPT("enable-module-command", enable_module_command, kProtectedModes, false),
      INT_OPT("list-max-listpack-size", list_max_listpack_size, INT_MIN, INT_MAX, true),
      INT_OPT("list-compress-depth", list_compress_depth, 0, INT_MAX, true),
  };
  return opts;
}

}  // namespace

// Old names Redis still accepts for an option (Redis 7.0 renamed the
// *-ziplist-* options *-listpack-*): read from the file, set and listed by
// CONFIG GET under either name; CONFIG REWRITE writes the new name only.
struct Alias {
  const char* alias;
  const char* name;
};
constexpr Alias kAliases[] = {
    {"hash-max-ziplist-entries", "hash-max-listpack-entries"},
    {"hash-max-ziplist-value", "hash-max-listpack-value"},
    {"zset-max-ziplist-entries", "zset-max-listpack-entries"},
    {"zset-max-ziplist-value", "zset-max-listpack-value"},
    {"list-max-ziplist-size", "list-max-listpack-size"},
    {"lua-time-limit", "busy-reply-threshold"},
    {"repl-ping-slave-period", "repl-ping-replica-period"},
    {"slaveof", "replicaof"},
    {"cluster-slave-validity-factor", "cluster-replica-validity-factor"},
    {"cluster-slave-no-failover", "cluster-replica-no-failover"},
    {"slave-serve-stale-data", "replica-serve-stale-data"},
    {"slave-read-only", "replica-read-only"},
    {"slave-ignore-maxmemory", "replica-ignore-maxmemory"},
    {"slave-lazy-flush", "replica-lazy-flush"},
    {"slave-priority", "replica-priority"},
    {"slave-announce-ip", "replica-announce-ip"},
    {"slave-announce-port", "replica-announce-port"},
    {"min-slaves-to-write", "min-replicas-to-write"},
    {"min-slaves-max-lag", "min-replicas-max-lag"},
};

const Option* findOption(const std::string& name) {
  for (const auto& o : options()) {
    if (strcasecmp(o.name, name.c_str()) == 0) return &o;
  }
  for (const auto& a : kAliases) {
    if (strcasecmp(a.alias, name.c_str()) == 0) return findOption(a.name);
  }
  return nullptr;
}

}  // namespace server::conf

namespace server {

using namespace conf;

Config* g_config = nullptr;

bool configSet(Config* cfg, const std::string& name, const std::vector<std::string>& values,
               std::string* err, bool* unknown, bool* immutable) {
  *unknown = false;
  *immutable = false;
  const Option* o = findOption(name);
  if (o == nullptr) {
    const conf::UnimplementedOption* u = conf::findUnimplemented(name);
    if (u == nullptr || u->kind == conf::Kind::kFileOnly) {
      *unknown = true;
      return false;
    }
    if (!u->is_mutable) {
      *immutable = true;
      *err = "can't set immutable config";
      return false;
    }
    if (!conf::setUnimplemented(cfg, *u, values, err)) return false;
    conf::noteUnimplementedSet(*cfg, *u);
    return true;
  }
  if (!o->is_mutable) {
    *immutable = true;
    *err = "can't set immutable config";
    return false;
  }
  Config backup = *cfg;
  if (!o->set(*cfg, values, err)) {
    *cfg = backup;
    return false;
  }
  // Unchanged values need no applying (CONFIG SET port <same port> must
  // not rebind the listeners).
  if (g_apply_hook != nullptr && (o->apply_unchanged || o->get(backup) != o->get(*cfg)) &&
      !g_apply_hook(o->name, err)) {
    *cfg = backup;
    return false;
  }
  return true;
}

std::vector<std::pair<std::string, std::string>> configGet(const Config& cfg,
                                                           const std::string& pattern) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& o : options()) {
    bool match = o.hidden ? strcasecmp(pattern.c_str(), o.name) == 0
                          : common::strutil::globMatch(pattern, o.name, true);
    if (match) out.emplace_back(o.name, o.get(cfg));
  }
  for (const auto& a : kAliases) {
    if (common::strutil::globMatch(pattern, a.alias, true)) {
      out.emplace_back(a.alias, findOption(a.name)->get(cfg));
    }
  }
  for (const auto& u : conf::unimplementedOptions()) {
    if (u.kind == conf::Kind::kFileOnly) continue;
    if (common::strutil::globMatch(pattern, u.name, true)) {
      out.emplace_back(u.name, conf::getUnimplemented(cfg, u));
    }
    if (u.alias != nullptr && common::strutil::globMatch(pattern, u.alias, true)) {
      out.emplace_back(u.alias, conf::getUnimplemented(cfg, u));
    }
  }
  return out;
}

std::string configValue(const Config& cfg, const std::string& name) {
  if (const Option* o = findOption(name)) return o->get(cfg);
  return std::string();
}

std::vector<std::string> configOptionNames() {
  std::vector<std::string> out;
  for (const auto& o : options()) out.emplace_back(o.name);
  for (const auto& a : kAliases) out.emplace_back(a.alias);
  for (const auto& u : conf::unimplementedOptions()) {
    out.emplace_back(u.name);
    if (u.alias != nullptr) out.emplace_back(u.alias);
  }
  out.emplace_back("include");
  return out;
}

bool configIsProtected(const std::string& name) {
  return strcasecmp(name.c_str(), "dir") == 0 || strcasecmp(name.c_str(), "dbfilename") == 0;
}

bool configIsSensitive(const std::string& name) {
  const Option* o = findOption(name);
  return o != nullptr && o->sensitive;
}

bool configSetArity(const std::string& name, size_t nvalues) {
  const Option* o = findOption(name);
  if (o == nullptr) {
    const conf::UnimplementedOption* u = conf::findUnimplemented(name);
    return u != nullptr && u->kind != conf::Kind::kFileOnly &&
           conf::unimplementedArity(*u, nvalues);
  }
  int n = static_cast<int>(nvalues);
  return n >= o->min_args && (o->max_args == -1 || n <= o->max_args);
}

std::string configCanonicalName(const std::string& name) {
  const Option* o = findOption(name);
  if (o != nullptr) return o->name;
  const conf::UnimplementedOption* u = conf::findUnimplemented(name);
  return u == nullptr || u->kind == conf::Kind::kFileOnly ? std::string() : std::string(u->name);
}

}  // namespace server
