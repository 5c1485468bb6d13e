// The configuration's names and the options of features not implemented
// yet: no name is registered twice (options of one table, their aliases,
// the not-implemented table and file-only directives together), every
// parameter of Redis 7.0.15's CONFIG GET * is known, and the
// not-implemented ones validate, normalize and rewrite as Redis does.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "server/conf/unimplemented.h"
#include "server/conf/config.h"

namespace server {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return tolower(ch); });
  return s;
}

TEST(ConfigOptions, NoNameIsRegisteredTwice) {
  std::map<std::string, int> seen;
  for (const std::string& name : configOptionNames()) seen[lower(name)]++;
  for (const auto& [name, count] : seen) {
    EXPECT_EQ(count, 1) << "option name registered " << count << " times: " << name;
  }
  EXPECT_GT(seen.size(), 190u);
}

// CONFIG GET * of Debian's redis-server 7.0.15.
const char* const kRedis70Parameters[] = {
    "acl-pubsub-default",
    "aclfile",
    "acllog-max-len",
    "active-defrag-cycle-max",
    "active-defrag-cycle-min",
    "active-defrag-ignore-bytes",
    "active-defrag-max-scan-fields",
    "active-defrag-threshold-lower",
    "active-defrag-threshold-upper",
    "active-expire-effort",
    "activedefrag",
    "activerehashing",
    "always-show-logo",
    "aof-disable-auto-gc",
    "aof-load-truncated",
    "aof-rewrite-incremental-fsync",
    "aof-timestamp-enabled",
    "aof-use-rdb-preamble",
    "aof_rewrite_cpulist",
    "appenddirname",
    "appendfilename",
    "appendfsync",
    "appendonly",
    "auto-aof-rewrite-min-size",
    "auto-aof-rewrite-percentage",
    "bgsave_cpulist",
    "bind",
    "bind-source-addr",
    "bio_cpulist",
    "busy-reply-threshold",
    "client-output-buffer-limit",
    "client-query-buffer-limit",
    "cluster-allow-pubsubshard-when-down",
    "cluster-allow-reads-when-down",
    "cluster-allow-replica-migration",
    "cluster-announce-bus-port",
    "cluster-announce-hostname",
    "cluster-announce-ip",
    "cluster-announce-port",
    "cluster-announce-tls-port",
    "cluster-config-file",
    "cluster-enabled",
    "cluster-link-sendbuf-limit",
    "cluster-migration-barrier",
    "cluster-node-timeout",
    "cluster-port",
    "cluster-preferred-endpoint-type",
    "cluster-replica-no-failover",
    "cluster-replica-validity-factor",
    "cluster-require-full-coverage",
    "cluster-slave-no-failover",
    "cluster-slave-validity-factor",
    "crash-log-enabled",
    "crash-memcheck-enabled",
    "daemonize",
    "databases",
    "dbfilename",
    "dir",
    "disable-thp",
    "dynamic-hz",
    "enable-debug-command",
    "enable-module-command",
    "enable-protected-configs",
    "hash-max-listpack-entries",
    "hash-max-listpack-value",
    "hash-max-ziplist-entries",
    "hash-max-ziplist-value",
    "hll-sparse-max-bytes",
    "hz",
    "ignore-warnings",
    "io-threads",
    "io-threads-do-reads",
    "jemalloc-bg-thread",
    "latency-monitor-threshold",
    "latency-tracking",
    "latency-tracking-info-percentiles",
    "lazyfree-lazy-eviction",
    "lazyfree-lazy-expire",
    "lazyfree-lazy-server-del",
    "lazyfree-lazy-user-del",
    "lazyfree-lazy-user-flush",
    "lfu-decay-time",
    "lfu-log-factor",
    "list-compress-depth",
    "list-max-listpack-size",
    "list-max-ziplist-size",
    "logfile",
    "loglevel",
    "lua-time-limit",
    "masterauth",
    "masteruser",
    "maxclients",
    "maxmemory",
    "maxmemory-clients",
    "maxmemory-eviction-tenacity",
    "maxmemory-policy",
    "maxmemory-samples",
    "min-replicas-max-lag",
    "min-replicas-to-write",
    "min-slaves-max-lag",
    "min-slaves-to-write",
    "no-appendfsync-on-rewrite",
    "notify-keyspace-events",
    "oom-score-adj",
    "oom-score-adj-values",
    "pidfile",
    "port",
    "proc-title-template",
    "propagation-error-behavior",
    "protected-mode",
    "proto-max-bulk-len",
    "rdb-del-sync-files",
    "rdb-save-incremental-fsync",
    "rdbchecksum",
    "rdbcompression",
    "repl-backlog-size",
    "repl-backlog-ttl",
    "repl-disable-tcp-nodelay",
    "repl-diskless-load",
    "repl-diskless-sync",
    "repl-diskless-sync-delay",
    "repl-diskless-sync-max-replicas",
    "repl-ping-replica-period",
    "repl-ping-slave-period",
    "repl-timeout",
    "replica-announce-ip",
    "replica-announce-port",
    "replica-announced",
    "replica-ignore-disk-write-errors",
    "replica-ignore-maxmemory",
    "replica-lazy-flush",
    "replica-priority",
    "replica-read-only",
    "replica-serve-stale-data",
    "replicaof",
    "requirepass",
    "sanitize-dump-payload",
    "save",
    "server_cpulist",
    "set-max-intset-entries",
    "set-proc-title",
    "shutdown-on-sigint",
    "shutdown-on-sigterm",
    "shutdown-timeout",
    "slave-announce-ip",
    "slave-announce-port",
    "slave-ignore-maxmemory",
    "slave-lazy-flush",
    "slave-priority",
    "slave-read-only",
    "slave-serve-stale-data",
    "slaveof",
    "slowlog-log-slower-than",
    "slowlog-max-len",
    "socket-mark-id",
    "stop-writes-on-bgsave-error",
    "stream-node-max-bytes",
    "stream-node-max-entries",
    "supervised",
    "syslog-enabled",
    "syslog-facility",
    "syslog-ident",
    "tcp-backlog",
    "tcp-keepalive",
    "timeout",
    "tls-auth-clients",
    "tls-ca-cert-dir",
    "tls-ca-cert-file",
    "tls-cert-file",
    "tls-ciphers",
    "tls-ciphersuites",
    "tls-client-cert-file",
    "tls-client-key-file",
    "tls-client-key-file-pass",
    "tls-cluster",
    "tls-dh-params-file",
    "tls-key-file",
    "tls-key-file-pass",
    "tls-port",
    "tls-prefer-server-ciphers",
    "tls-protocols",
    "tls-replication",
    "tls-session-cache-size",
    "tls-session-cache-timeout",
    "tls-session-caching",
    "tracking-table-max-keys",
    "unixsocket",
    "unixsocketperm",
    "zset-max-listpack-entries",
    "zset-max-listpack-value",
    "zset-max-ziplist-entries",
    "zset-max-ziplist-value",
};

TEST(ConfigOptions, EveryRedis70ParameterIsListed) {
  Config c;
  std::set<std::string> ours;
  for (const auto& kv : configGet(c, "*")) ours.insert(kv.first);
  size_t n = 0;
  for (const char* name : kRedis70Parameters) {
    EXPECT_TRUE(ours.count(name)) << name << " missing from CONFIG GET *";
    n++;
  }
  EXPECT_EQ(n, 192u);
}

std::string get(const Config& c, const std::string& name) {
  auto got = configGet(c, name);
  return got.size() == 1 ? got[0].second : "<" + std::to_string(got.size()) + " matches>";
}

TEST(ConfigOptions, NotImplementedOptionsShowRedisDefaults) {
  Config c;
  EXPECT_EQ(get(c, "repl-backlog-ttl"), "3600");
  EXPECT_EQ(get(c, "appendfsync"), "everysec");
  EXPECT_EQ(get(c, "auto-aof-rewrite-min-size"), "67108864");
  EXPECT_EQ(get(c, "replicaof"), "");
  EXPECT_EQ(get(c, "slave-priority"), "100");
  EXPECT_EQ(get(c, "latency-tracking-info-percentiles"), "50 99 99.9");
  EXPECT_EQ(get(c, "shutdown-on-sigterm"), "default");
  EXPECT_EQ(get(c, "tls-port"), "0");
  // File-only directives are not parameters.
  EXPECT_EQ(configGet(c, "rename-command").size(), 0u);
  EXPECT_EQ(configGet(c, "user").size(), 0u);
}

TEST(ConfigOptions, NotImplementedOptionsValidateAndNormalize) {
  Config c;
  std::string err;
  bool unknown, immutable;
  EXPECT_TRUE(configSet(&c, "appendonly", {"YES"}, &err, &unknown, &immutable));
  EXPECT_EQ(get(c, "appendonly"), "yes");
  EXPECT_FALSE(configSet(&c, "appendonly", {"maybe"}, &err, &unknown, &immutable));
  EXPECT_EQ(err, "argument must be 'yes' or 'no'");
  EXPECT_FALSE(configSet(&c, "appendfsync", {"sometimes"}, &err, &unknown, &immutable));
  EXPECT_EQ(err, "argument(s) must be one of the following: everysec, always, no");
  EXPECT_TRUE(configSet(&c, "repl-backlog-size", {"2mb"}, &err, &unknown, &immutable));
  EXPECT_EQ(get(c, "repl-backlog-size"), "2097152");
  EXPECT_FALSE(configSet(&c, "repl-backlog-size", {"0"}, &err, &unknown, &immutable));
  EXPECT_EQ(err, "argument must be between 1 and 9223372036854775807 inclusive");
  EXPECT_FALSE(configSet(&c, "repl-timeout", {"x"}, &err, &unknown, &immutable));
  EXPECT_EQ(err, "argument couldn't be parsed into an integer");
  // An alias and its option share one value.
  EXPECT_TRUE(configSet(&c, "slave-read-only", {"no"}, &err, &unknown, &immutable));
  EXPECT_EQ(get(c, "replica-read-only"), "no");
  EXPECT_TRUE(configSet(&c, "shutdown-on-sigint", {"now save"}, &err, &unknown, &immutable));
  EXPECT_EQ(get(c, "shutdown-on-sigint"), "save now");
  EXPECT_FALSE(configSet(&c, "shutdown-on-sigint", {"save nosave"}, &err, &unknown, &immutable));
  EXPECT_EQ(err, "shutdown options SAVE and NOSAVE can't be used simultaneously");
  EXPECT_TRUE(configSet(&c, "latency-tracking-info-percentiles", {"50.0 99.90"}, &err, &unknown,
                        &immutable));
  EXPECT_EQ(get(c, "latency-tracking-info-percentiles"), "50 99.9");
  EXPECT_FALSE(
      configSet(&c, "latency-tracking-info-percentiles", {"101"}, &err, &unknown, &immutable));
  EXPECT_FALSE(configSet(&c, "notify-keyspace-events", {"Q"}, &err, &unknown, &immutable));
  EXPECT_EQ(err, "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
  // Shown as Redis 7.0.15 shows them.
  for (auto [in, shown] : std::vector<std::pair<std::string, std::string>>{
           {"AnKm", "AKm"}, {"Kx", "xK"}, {"dg$lshzxetKE", "AKE"}, {"nm", "nm"}, {"KEAx", "AKE"}}) {
    EXPECT_TRUE(configSet(&c, "notify-keyspace-events", {in}, &err, &unknown, &immutable));
    EXPECT_EQ(get(c, "notify-keyspace-events"), shown) << in;
  }
  // Immutable ones are refused at run time, taken from the file.
  EXPECT_FALSE(configSet(&c, "cluster-enabled", {"yes"}, &err, &unknown, &immutable));
  EXPECT_TRUE(immutable);
  EXPECT_TRUE(loadConfigText(&c, "cluster-enabled yes\nreplicaof 10.0.0.1 6380\n", &err)) << err;
  EXPECT_EQ(get(c, "cluster-enabled"), "yes");
  EXPECT_EQ(get(c, "slaveof"), "10.0.0.1 6380");
  EXPECT_TRUE(loadConfigText(&c, "replicaof no one\n", &err)) << err;
  EXPECT_EQ(get(c, "replicaof"), "");
  // Details Debian's redis-server 7.0.15 shows.
  EXPECT_TRUE(configSet(&c, "repl-backlog-size", {"100"}, &err, &unknown, &immutable));
  EXPECT_EQ(get(c, "repl-backlog-size"), "16384");
  EXPECT_FALSE(configSet(&c, "activedefrag", {"yes"}, &err, &unknown, &immutable));
  EXPECT_NE(err.find("Active defragmentation cannot be enabled"), std::string::npos);
  EXPECT_FALSE(configSet(&c, "shutdown-on-sigterm", {""}, &err, &unknown, &immutable));
  EXPECT_FALSE(configSet(&c, "cluster-announce-hostname", {"a b"}, &err, &unknown, &immutable));
  EXPECT_EQ(err, "Hostnames may only contain alphanumeric characters, hyphens or dots");
  EXPECT_TRUE(configSet(&c, "stream-node-max-bytes", {""}, &err, &unknown, &immutable));
  EXPECT_EQ(get(c, "stream-node-max-bytes"), "0");
  EXPECT_TRUE(configSet(&c, "hz", {"65536"}, &err, &unknown, &immutable));
  EXPECT_EQ(get(c, "hz"), "500");
  EXPECT_TRUE(configSet(&c, "hz", {"0"}, &err, &unknown, &immutable));
  EXPECT_EQ(get(c, "hz"), "1");
  // Back at the default, the option no longer counts as set.
  EXPECT_TRUE(configSet(&c, "appendonly", {"no"}, &err, &unknown, &immutable));
  EXPECT_EQ(c.unimplemented.count("appendonly"), 0u);
}

TEST(ConfigOptions, FileOnlyDirectives) {
  Config c;
  std::string err;
  bool unknown, immutable;
  EXPECT_TRUE(loadConfigText(&c, "rename-command CONFIG \"\"\nloadmodule /x.so a b\n", &err))
      << err;
  // Deprecated ones Redis 7.0 reads and ignores.
  EXPECT_TRUE(loadConfigText(&c, "list-max-ziplist-entries 5\nlua-replicate-commands yes\n", &err))
      << err;
  EXPECT_EQ(configGet(c, "list-max-ziplist-entries").size(), 0u);
  EXPECT_FALSE(loadConfigText(&c, "rename-command CONFIG\n", &err));
  EXPECT_NE(err.find("wrong number of arguments"), std::string::npos);
  EXPECT_FALSE(configSet(&c, "rename-command", {"a"}, &err, &unknown, &immutable));
  EXPECT_TRUE(unknown);
}

std::string tempDir() {
  char tmpl[] = "/tmp/config-options-XXXXXX";
  return mkdtemp(tmpl);
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::string readFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(ConfigOptions, IncludeReadsFilesInPlaceAndGlobsInOrder) {
  std::string dir = tempDir();
  writeFile(dir + "/a.conf", "hz 20\n");
  writeFile(dir + "/b.conf", "hz 30\nmaxclients 77\n");
  Config c;
  std::string err;
  ASSERT_TRUE(loadConfigText(&c, "maxclients 5\ninclude " + dir + "/*.conf\n", &err)) << err;
  EXPECT_EQ(c.hz, 30);  // b.conf after a.conf
  EXPECT_EQ(c.maxclients, 77);
  // Lines after the include override it.
  ASSERT_TRUE(loadConfigText(&c, "include " + dir + "/a.conf\nhz 40\n", &err)) << err;
  EXPECT_EQ(c.hz, 40);
  // A glob matching nothing is fine; a missing plain file is not.
  EXPECT_TRUE(loadConfigText(&c, "include " + dir + "/none*.conf\n", &err)) << err;
  EXPECT_FALSE(loadConfigText(&c, "include " + dir + "/missing.conf\n", &err));
  EXPECT_NE(err.find("can't open config file '" + dir + "/missing.conf'"), std::string::npos);
  // An error inside an included file names its line there.
  writeFile(dir + "/bad.conf", "\nhz abc\n");
  EXPECT_FALSE(loadConfigText(&c, "include " + dir + "/bad.conf\n", &err));
  EXPECT_NE(err.find("at line 2"), std::string::npos) << err;
  // A file including itself stops at a depth limit instead of recursing.
  writeFile(dir + "/self.conf", "include " + dir + "/self.conf\n");
  EXPECT_FALSE(loadConfigText(&c, "include " + dir + "/self.conf\n", &err));
  EXPECT_NE(err.find("include nesting"), std::string::npos) << err;
  for (const char* f : {"a", "b", "bad", "self"}) unlink((dir + "/" + f + ".conf").c_str());
  rmdir(dir.c_str());
}

TEST(ConfigOptions, RewriteKeepsUnknownLinesAndWritesNotImplementedOptions) {
  std::string dir = tempDir();
  std::string path = dir + "/r.conf";
  writeFile(path,
            "# my comment\nappendonly no\nrename-command FLUSHALL \"\"\nappendfsync always\n");
  Config c;
  std::string err;
  ASSERT_TRUE(loadConfigText(&c, readFile(path), &err)) << err;
  bool unknown, immutable;
  ASSERT_TRUE(configSet(&c, "appendonly", {"yes"}, &err, &unknown, &immutable));
  ASSERT_TRUE(configSet(&c, "replica-priority", {"5"}, &err, &unknown, &immutable));
  ASSERT_TRUE(rewriteConfigFile(c, path, &err)) << err;
  EXPECT_EQ(readFile(path),
            "# my comment\nappendonly yes\nrename-command FLUSHALL \"\"\nappendfsync always\n"
            "# Generated by CONFIG REWRITE\nreplica-priority 5\n");
  unlink(path.c_str());
  rmdir(dir.c_str());
}

TEST(ConfigOptions, ProcessOptionsValidateAsRedis) {
  Config c;
  std::string err;
  bool unknown, immutable;
  EXPECT_FALSE(configSet(&c, "oom-score-adj-values", {"1 2"}, &err, &unknown, &immutable));
  EXPECT_EQ(err, "wrong number of arguments");
  EXPECT_FALSE(configSet(&c, "oom-score-adj-values", {"0 200 3000"}, &err, &unknown, &immutable));
  EXPECT_EQ(err, "Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
  EXPECT_TRUE(configSet(&c, "oom-score-adj-values", {"-5 10 900"}, &err, &unknown, &immutable));
  EXPECT_EQ(get(c, "oom-score-adj-values"), "-5 10 900");
  EXPECT_FALSE(configSet(&c, "proc-title-template", {"{title}"}, &err, &unknown, &immutable));
  EXPECT_EQ(err, "template format is invalid or contains unknown variables");
  EXPECT_FALSE(configSet(&c, "proc-title-template", {"{nope} x"}, &err, &unknown, &immutable));
  EXPECT_TRUE(configSet(&c, "proc-title-template", {"x {port}"}, &err, &unknown, &immutable));
  EXPECT_FALSE(configSet(&c, "daemonize", {"yes"}, &err, &unknown, &immutable));
  EXPECT_TRUE(immutable);
  EXPECT_TRUE(loadConfigText(&c, "daemonize yes\nsupervised AUTO\nio-threads 4\n", &err)) << err;
  EXPECT_TRUE(c.daemonize);
  EXPECT_EQ(get(c, "supervised"), "auto");
  EXPECT_FALSE(loadConfigText(&c, "supervised bogus\n", &err));
  EXPECT_NE(err.find("argument(s) must be one of the following: upstart, systemd, auto, no"),
            std::string::npos);
  EXPECT_FALSE(loadConfigText(&c, "io-threads 0\n", &err));
  EXPECT_NE(err.find("argument must be between 1 and 128 inclusive"), std::string::npos);
}

}  // namespace
}  // namespace server
