// INFO [section ...]: Redis 7.0's sections and field names. Fields that
// describe machinery this server does not have (active defragmentation)
// report the values Redis reports when that machinery is idle; fields that
// would need tracking we do not do are left out rather than invented
// (total_reads_processed, total_writes_processed, dump_payload_sanitizations).
#include <malloc.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <set>
#include <string>
#include <string_view>

#ifdef USE_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

#include "common/hash.h"
#include "common/strutil.h"
#include "net/registry.h"
#include "server/cluster/cluster.h"
#include "server/commands/server/introspection.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/core/version.h"
#include "server/evict/allocator.h"
#include "server/evict/evict.h"
#include "server/evict/lazyfree.h"
#include "server/latency/monitor.h"
#include "server/persist/persist.h"
#include "server/process/startup.h"
#include "server/pubsub/pubsub.h"
#include "server/pubsub/tracking.h"
#include "server/repl/repl.h"
#include "server/request/blocking.h"
#include "server/request/pause.h"
#include "server/request/threaded_io.h"
#include "server/script/script.h"

namespace server {

namespace {

using ull = unsigned long long;
using ll = long long;

uint64_t processRss() {
  FILE* f = fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long size = 0, resident = 0;
  int n = fscanf(f, "%lu %lu", &size, &resident);
  fclose(f);
  if (n != 2) return 0;
  return static_cast<uint64_t>(resident) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

MemoryNumbers memoryNumbers() {
  MemoryNumbers m;
  m.rss = processRss();
#ifdef USE_JEMALLOC
  // jemalloc caches its statistics until the epoch is advanced.
  uint64_t epoch = 1;
  size_t sz = sizeof(epoch);
  mallctl("epoch", &epoch, &sz, &epoch, sz);
  size_t v = 0;
  sz = sizeof(v);
  if (mallctl("stats.allocated", &v, &sz, nullptr, 0) == 0) m.allocated = v;
  sz = sizeof(v);
  if (mallctl("stats.active", &v, &sz, nullptr, 0) == 0) m.active = v;
  sz = sizeof(v);
  if (mallctl("stats.resident", &v, &sz, nullptr, 0) == 0) m.resident = v;
#endif
  // used_memory as maxmemory counts it (evict/allocator.h).
  m.used = evict::usedMemory();
  if (m.allocated == 0) m.allocated = m.used;
  return m;
}

namespace {

const char* allocatorName() {
#ifdef USE_JEMALLOC
  static const std::string name = [] {
    std::string v = JEMALLOC_VERSION;
    return "jemalloc-" + v.substr(0, v.find('-'));
  }();
  return name.c_str();
#else
  return "libc";
#endif
}

uint64_t g_peak_memory = 0;
}  // namespace

uint64_t peakMemory(uint64_t used) {
  if (used > g_peak_memory) g_peak_memory = used;
  return g_peak_memory;
}

namespace {

double timevalSeconds(const struct timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1000000.0;
}

void serverSection(std::string* o) {
  Server& s = *g_server;
  struct utsname name = {};
  uname(&name);
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  std::string executable = n > 0 ? std::string(exe, static_cast<size_t>(n)) : s.executable;
  int64_t uptime = uptimeSeconds();
  appendFormat(o, "redis_version:%s\r\nredis_git_sha1:00000000\r\nredis_git_dirty:0\r\n",
               kRedisVersion);
  appendFormat(o, "redis_build_id:%016llx\r\n",
               static_cast<ull>(std::hash<std::string>{}(std::string(__DATE__ __TIME__))));
  appendFormat(o, "redis_mode:standalone\r\nos:%s %s %s\r\narch_bits:%d\r\n", name.sysname,
               name.release, name.machine, static_cast<int>(sizeof(void*) * 8));
  appendFormat(o, "monotonic_clock:POSIX clock_gettime\r\nmultiplexing_api:epoll\r\n");
  // The atomics are C++'s std::atomic, the compiler's C11 builtins.
  appendFormat(o, "atomicvar_api:c11-builtin\r\n");
#ifdef __GNUC__
  appendFormat(o, "gcc_version:%d.%d.%d\r\n", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#endif
  appendFormat(o, "process_id:%d\r\nprocess_supervised:%s\r\nrun_id:%s\r\ntcp_port:%lld\r\n",
               static_cast<int>(getpid()), process::supervisedName(), s.run_id,
               static_cast<ll>(s.config.port));
  appendFormat(o, "server_time_usec:%lld\r\n",
               static_cast<ll>(tv.tv_sec) * 1000000 + static_cast<ll>(tv.tv_usec));
  appendFormat(o, "uptime_in_seconds:%lld\r\nuptime_in_days:%lld\r\n", static_cast<ll>(uptime),
               static_cast<ll>(uptime / 86400));
  appendFormat(o, "hz:%lld\r\nconfigured_hz:%lld\r\nlru_clock:%u\r\n", static_cast<ll>(s.hz),
               static_cast<ll>(s.config.hz), db::Clock::lruSeconds);
  appendFormat(o, "executable:%s\r\nconfig_file:%s\r\nio_threads_active:%d\r\n", executable.c_str(),
               s.config_file.c_str(), threaded_io::engaged() ? 1 : 0);
  // Only while a SHUTDOWN waits for lagging replicas, as Redis 7.0.
  if (s.shutdown_deadline_ms != 0) {
    appendFormat(
        o, "shutdown_in_milliseconds:%lld\r\n",
        static_cast<ll>(std::max<int64_t>(s.shutdown_deadline_ms - event::EventLoop::nowMs(), 0)));
  }
}

void clientsSection(std::string* o) {
  Server& s = *g_server;
  size_t max_in = 0, max_out = 0, replicas = 0;
  for (Client* c : s.clients) {
    // connected_clients leaves replicas out, as Redis does (maxclients
    // counts them).
    if ((c->flags & (kReplica | kCloseAsap)) == kReplica) replicas++;
    max_in = std::max(max_in, c->queryBufferCapacity());
    max_out = std::max(max_out, c->outputMemory());
  }
  appendFormat(o, "connected_clients:%zu\r\ncluster_connections:0\r\nmaxclients:%lld\r\n",
               s.clientCount() - std::min(replicas, s.clientCount()),
               static_cast<ll>(s.config.maxclients));
  appendFormat(o, "client_recent_max_input_buffer:%zu\r\nclient_recent_max_output_buffer:%zu\r\n",
               max_in, max_out);
  appendFormat(o, "blocked_clients:%zu\r\ntracking_clients:%zu\r\nclients_in_timeout_table:0\r\n",
               blocking::blockedClientCount() + pause::heldCount() + s.shutdown_callers,
               tracking::clientCount());
}

void memorySection(std::string* o) {
  Server& s = *g_server;
  MemoryNumbers m = memoryNumbers();
  if (m.used > g_peak_memory) g_peak_memory = m.used;
  // Replicas count apart (mem_clients_slaves), as Redis counts them.
  size_t clients_mem = 0;
  for (Client* c : s.clients) {
    if (!(c->flags & kReplica)) clients_mem += c->outputMemory() + c->queryBufferCapacity();
  }
  repl::MemoryUse repl_mem = repl::memoryUse();
  uint64_t total =
      static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  appendFormat(o, "used_memory:%llu\r\nused_memory_human:%s\r\n", static_cast<ull>(m.used),
               bytesToHuman(m.used).c_str());
  appendFormat(o, "used_memory_rss:%llu\r\nused_memory_rss_human:%s\r\n", static_cast<ull>(m.rss),
               bytesToHuman(m.rss).c_str());
  appendFormat(o, "used_memory_peak:%llu\r\nused_memory_peak_human:%s\r\n",
               static_cast<ull>(g_peak_memory), bytesToHuman(g_peak_memory).c_str());
  appendFormat(o, "used_memory_peak_perc:%.2f%%\r\n",
               g_peak_memory
                   ? 100.0 * static_cast<double>(m.used) / static_cast<double>(g_peak_memory)
                   : 0.0);
  MemoryOverhead over = memoryOverhead(m.used);
  appendFormat(o, "used_memory_overhead:%llu\r\nused_memory_startup:%llu\r\n",
               static_cast<ull>(over.total), static_cast<ull>(over.startup));
  appendFormat(o, "used_memory_dataset:%llu\r\nused_memory_dataset_perc:%.2f%%\r\n",
               static_cast<ull>(over.dataset), over.dataset_perc);
#ifdef USE_JEMALLOC
  appendFormat(
      o, "allocator_allocated:%llu\r\nallocator_active:%llu\r\nallocator_resident:%llu\r\n",
      static_cast<ull>(m.allocated), static_cast<ull>(m.active), static_cast<ull>(m.resident));
#endif
  appendFormat(o, "total_system_memory:%llu\r\ntotal_system_memory_human:%s\r\n",
               static_cast<ull>(total), bytesToHuman(total).c_str());
  script::appendMemoryInfo(o);
  uint64_t maxmem = static_cast<uint64_t>(s.config.maxmemory);
  appendFormat(o, "maxmemory:%llu\r\nmaxmemory_human:%s\r\nmaxmemory_policy:%s\r\n",
               static_cast<ull>(maxmem), bytesToHuman(maxmem).c_str(),
               s.config.maxmemory_policy.c_str());
#ifdef USE_JEMALLOC
  auto ratio = [](uint64_t a, uint64_t b) {
    return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
  };
  appendFormat(o, "allocator_frag_ratio:%.2f\r\nallocator_frag_bytes:%lld\r\n",
               ratio(m.active, m.allocated),
               static_cast<ll>(m.active) - static_cast<ll>(m.allocated));
  appendFormat(o, "allocator_rss_ratio:%.2f\r\nallocator_rss_bytes:%lld\r\n",
               ratio(m.resident, m.active),
               static_cast<ll>(m.resident) - static_cast<ll>(m.active));
  appendFormat(o, "rss_overhead_ratio:%.2f\r\nrss_overhead_bytes:%lld\r\n",
               ratio(m.rss, m.resident), static_cast<ll>(m.rss) - static_cast<ll>(m.resident));
#endif
  appendFormat(o, "mem_fragmentation_ratio:%.2f\r\nmem_fragmentation_bytes:%lld\r\n",
               m.used ? static_cast<double>(m.rss) / static_cast<double>(m.used) : 0.0,
               static_cast<ll>(m.rss) - static_cast<ll>(m.used));
  appendFormat(o, "mem_not_counted_for_evict:%zu\r\nmem_replication_backlog:%zu\r\n",
               evict::notCountedForEvict(), repl_mem.backlog);
  appendFormat(o, "mem_total_replication_buffers:%zu\r\nmem_clients_slaves:%zu\r\n",
               repl_mem.buffer, repl_mem.replicas);
  appendFormat(o, "mem_clients_normal:%zu\r\nmem_cluster_links:%zu\r\nmem_aof_buffer:%zu\r\n",
               clients_mem, cluster::linksMemory(), persist::aofBufferBytes());
  appendFormat(o, "mem_allocator:%s\r\nactive_defrag_running:0\r\n", allocatorName());
  appendFormat(o, "lazyfree_pending_objects:%zu\r\nlazyfreed_objects:%llu\r\n",
               evict::lazyfree::pendingObjects(),
               static_cast<ull>(evict::lazyfree::freedObjects()));
}

void persistenceSection(std::string* o) {
  persist::appendInfoPersistence(o);
}

// The mean of the cron's per-second samples.
uint64_t sampleMean(const uint64_t (&samples)[16]) {
  uint64_t sum = 0;
  for (uint64_t v : samples) sum += v;
  return sum / 16;
}

// Keys a writable replica's own clients gave a TTL: distinct names over
// every db, as Redis keeps one record per name.
size_t replicaOwnTtlKeyNames() {
  std::set<std::string_view> names;
  size_t total = 0, dbs = 0;
  for (auto& d : g_server->dbs) {
    const std::set<std::string>& keys = d->replicaOwnTtlKeys();
    if (keys.empty()) continue;
    total += keys.size();
    dbs++;
    names.insert(keys.begin(), keys.end());
  }
  return dbs > 1 ? names.size() : total;
}

void statsSection(std::string* o) {
  Server& s = *g_server;
  const Stats& st = s.stats;
  uint64_t ops = sampleMean(st.ops_samples);
  appendFormat(o, "total_connections_received:%llu\r\ntotal_commands_processed:%llu\r\n",
               static_cast<ull>(st.total_connections_received),
               static_cast<ull>(st.total_commands_processed));
  appendFormat(o, "instantaneous_ops_per_sec:%llu\r\n", static_cast<ull>(ops));
  appendFormat(o, "total_net_input_bytes:%llu\r\ntotal_net_output_bytes:%llu\r\n",
               static_cast<ull>(st.net_input_bytes), static_cast<ull>(st.net_output_bytes));
  appendFormat(o, "total_net_repl_input_bytes:0\r\ntotal_net_repl_output_bytes:0\r\n");
  appendFormat(o, "instantaneous_input_kbps:%.2f\r\ninstantaneous_output_kbps:%.2f\r\n",
               static_cast<double>(sampleMean(st.net_in_samples)) / 1024,
               static_cast<double>(sampleMean(st.net_out_samples)) / 1024);
  // Replication traffic is not counted apart (total_net_repl_*_bytes).
  appendFormat(o, "instantaneous_input_repl_kbps:0.00\r\ninstantaneous_output_repl_kbps:0.00\r\n");
  appendFormat(o, "rejected_connections:%llu\r\nsync_full:%llu\r\nsync_partial_ok:%llu\r\n",
               static_cast<ull>(st.rejected_connections), static_cast<ull>(st.sync_full),
               static_cast<ull>(st.sync_partial_ok));
  appendFormat(o, "sync_partial_err:%llu\r\nexpired_keys:%llu\r\n",
               static_cast<ull>(st.sync_partial_err), static_cast<ull>(st.expired_keys));
  appendFormat(o,
               "expired_stale_perc:%.2f\r\nexpired_time_cap_reached_count:%llu\r\n"
               "expire_cycle_cpu_milliseconds:%llu\r\n",
               st.expired_stale_perc * 100, static_cast<ull>(st.expired_time_cap_reached_count),
               static_cast<ull>(st.expire_cycle_us / 1000));
  appendFormat(o, "evicted_keys:%llu\r\nevicted_clients:%llu\r\n",
               static_cast<ull>(evict::stats.evicted_keys),
               static_cast<ull>(evict::stats.evicted_clients));
  int64_t exceeded_now =
      evict::stats.exceeded_since_ms ? db::Clock::nowMs - evict::stats.exceeded_since_ms : 0;
  appendFormat(o, "total_eviction_exceeded_time:%llu\r\ncurrent_eviction_exceeded_time:%lld\r\n",
               static_cast<ull>(evict::stats.exceeded_time_ms + static_cast<ull>(exceeded_now)),
               static_cast<ll>(exceeded_now));
  appendFormat(o, "keyspace_hits:%llu\r\nkeyspace_misses:%llu\r\n",
               static_cast<ull>(st.keyspace_hits), static_cast<ull>(st.keyspace_misses));
  appendFormat(o, "pubsub_channels:%zu\r\npubsub_patterns:%zu\r\npubsubshard_channels:%zu\r\n",
               pubsubChannelsTotal(), pubsubPatternsTotal(), pubsubShardChannelsTotal());
  persist::appendInfoForkStats(o);
  appendFormat(o, "migrate_cached_sockets:%zu\r\n", cluster::migrateCachedLinks());
  appendFormat(o, "slave_expires_tracked_keys:%zu\r\n", replicaOwnTtlKeyNames());
  // No active defragmentation here (CONFIG SET activedefrag yes is refused,
  // as by a Redis built without its own jemalloc): Redis's idle figures.
  appendFormat(o,
               "active_defrag_hits:0\r\nactive_defrag_misses:0\r\nactive_defrag_key_hits:0\r\n"
               "active_defrag_key_misses:0\r\ntotal_active_defrag_time:0\r\n"
               "current_active_defrag_time:0\r\n");
  appendFormat(o, "tracking_total_keys:%zu\r\ntracking_total_items:%zu\r\n", tracking::totalKeys(),
               tracking::totalItems());
  appendFormat(o, "tracking_total_prefixes:%zu\r\n", tracking::totalPrefixes());
  appendFormat(o, "unexpected_error_replies:%llu\r\ntotal_error_replies:%llu\r\n",
               static_cast<ull>(st.unexpected_error_replies),
               static_cast<ull>(st.total_error_replies));
  appendFormat(o, "io_threaded_reads_processed:%llu\r\nio_threaded_writes_processed:%llu\r\n",
               static_cast<ull>(threaded_io::readsProcessed()),
               static_cast<ull>(threaded_io::writesProcessed()));
  appendFormat(o, "client_query_buffer_limit_disconnections:%llu\r\n",
               static_cast<ull>(st.client_qbuf_limit_disconnections));
  appendFormat(o, "reply_buffer_shrinks:%llu\r\nreply_buffer_expands:%llu\r\n",
               static_cast<ull>(st.reply_buffer_shrinks),
               static_cast<ull>(st.reply_buffer_expands));
}

void replicationSection(std::string* o) {
  repl::appendInfoReplication(o);  // server/repl/: replicas attached through SYNC
}

void cpuSection(std::string* o) {
  struct rusage self = {}, children = {}, thread = {};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  getrusage(RUSAGE_THREAD, &thread);
  appendFormat(o, "used_cpu_sys:%.6f\r\nused_cpu_user:%.6f\r\n", timevalSeconds(self.ru_stime),
               timevalSeconds(self.ru_utime));
  appendFormat(o, "used_cpu_sys_children:%.6f\r\nused_cpu_user_children:%.6f\r\n",
               timevalSeconds(children.ru_stime), timevalSeconds(children.ru_utime));
  appendFormat(o, "used_cpu_sys_main_thread:%.6f\r\nused_cpu_user_main_thread:%.6f\r\n",
               timevalSeconds(thread.ru_stime), timevalSeconds(thread.ru_utime));
}

void commandStatsLine(const Command& c, std::string* o) {
  if (c.calls == 0 && c.failed_calls == 0 && c.rejected_calls == 0) return;
  double per_call = c.calls ? static_cast<double>(c.usec) / static_cast<double>(c.calls) : 0.0;
  appendFormat(o,
               "cmdstat_%s:calls=%llu,usec=%llu,usec_per_call=%.2f,rejected_calls=%llu,"
               "failed_calls=%llu\r\n",
               c.name, static_cast<ull>(c.calls), static_cast<ull>(c.usec), per_call,
               static_cast<ull>(c.rejected_calls), static_cast<ull>(c.failed_calls));
}

void commandstatsSection(std::string* o) {
  for (Command* c : g_server->commands.all()) {
    // A container's own line counts calls without a subcommand (COMMAND);
    // its rejections (unknown subcommands) are not shown, as in Redis.
    if (c->subcommands.empty() || c->calls > 0) commandStatsLine(*c, o);
    for (const Command& sub : c->subcommands) commandStatsLine(sub, o);
  }
}

void errorstatsSection(std::string* o) {
  for (const auto& [code, count] : g_server->stats.error_codes)
    appendFormat(o, "errorstat_%s:count=%llu\r\n", code.c_str(), static_cast<ull>(count));
}

void clusterSection(std::string* o) {
  appendFormat(o, "cluster_enabled:%d\r\n", g_server->config.cluster_enabled ? 1 : 0);
}

void keyspaceSection(std::string* o) {
  // avg_ttl is 0: Redis estimates it while sampling for active expiry and
  // reports 0 until it has; we do not keep that estimate.
  for (auto& d : g_server->dbs) {
    if (d->size() == 0) continue;
    appendFormat(o, "db%d:keys=%zu,expires=%zu,avg_ttl=0\r\n", d->id(), d->size(),
                 d->expiresSize());
  }
}

void noFields(std::string*) {}

struct Section {
  const char* name;   // lower case, as INFO's arguments name it
  const char* title;  // "# Title" header
  bool in_default;
  void (*fill)(std::string*);
};

constexpr Section kSections[] = {
    {"server", "Server", true, serverSection},
    {"clients", "Clients", true, clientsSection},
    {"memory", "Memory", true, memorySection},
    {"persistence", "Persistence", true, persistenceSection},
    {"stats", "Stats", true, statsSection},
    {"replication", "Replication", true, replicationSection},
    {"cpu", "CPU", true, cpuSection},
    {"modules", "Modules", true, noFields},
    {"commandstats", "Commandstats", false, commandstatsSection},
    {"errorstats", "Errorstats", true, errorstatsSection},
    {"latencystats", "Latencystats", false, latency::latencystatsSection},
    {"cluster", "Cluster", true, clusterSection},
    {"keyspace", "Keyspace", true, keyspaceSection},
};

void addSection(std::string* out, const std::string& title, const std::string& body) {
  if (!out->empty()) out->append("\r\n");
  out->append("# ");
  out->append(title);
  out->append("\r\n");
  out->append(body);
}

void infoCommand(Client* c) {
  std::vector<std::string_view> args(c->argv().begin() + 1, c->argv().end());
  std::string text = genInfoString(parseInfoSections(args));
  c->reply().verbatim(text);
}

}  // namespace

bool InfoSelection::wants(std::string_view section, bool in_default, bool in_all) const {
  if (all && in_all) return true;
  if (defaults && in_default) return true;
  for (const std::string& n : names) {
    if (n == section) return true;
  }
  return false;
}

InfoSelection parseInfoSections(const std::vector<std::string_view>& args) {
  InfoSelection sel;
  if (args.empty()) sel.defaults = true;
  for (std::string_view a : args) {
    std::string lower(a);
    for (char& ch : lower) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
    if (lower == "all" || lower == "everything") {
      sel.all = true;
    } else if (lower == "default") {
      sel.defaults = true;
    } else {
      sel.names.push_back(std::move(lower));
    }
  }
  return sel;
}

std::string genInfoString(const InfoSelection& sel) {
  std::string out;
  for (const Section& s : kSections) {
    if (!sel.wants(s.name, s.in_default, true)) continue;
    std::string body;
    s.fill(&body);
    addSection(&out, s.title, body);
  }
  // One section per connection type that reports something ("# Rdma").
  net::forEachType([&](net::ConnectionType* type) {
    std::string name = type->name();
    if (!sel.wants(name, true, true)) return;
    std::string body = type->info();
    if (body.empty()) return;
    std::string title = name;
    title[0] = static_cast<char>(toupper(static_cast<unsigned char>(title[0])));
    addSection(&out, title, body);
  });
  return out;
}

void resetServerStats() {
  Server& s = *g_server;
  int64_t start = s.stats.start_time_ms;
  s.stats = Stats();
  s.stats.start_time_ms = start;
  s.stats.last_sample_ms = db::Clock::nowMs;
  g_peak_memory = 0;
  evict::resetStats();
  latency::resetHistograms();
  for (Command* c : s.commands.all()) {
    c->calls = c->usec = c->rejected_calls = c->failed_calls = 0;
    for (Command& sub : c->subcommands)
      sub.calls = sub.usec = sub.rejected_calls = sub.failed_calls = 0;
  }
}

void registerInfoCommand(CommandTable& t) {
  t.add({"info", -1, kLoading | kStale | kSentinel, infoCommand, 0, 0, 0, "server",
         "Get information and statistics about the server", "1.0.0", "O(1)", "slow dangerous"});
}

}  // namespace server
