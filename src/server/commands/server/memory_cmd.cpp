// MEMORY USAGE / STATS / DOCTOR / MALLOC-STATS / PURGE / HELP, and the
// bridge from the configuration to the keyspace's LFU access tracking.
#include <cstring>
#include <string>

#ifdef USE_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

#include "common/strutil.h"
#include "server/commands/server/introspection.h"
#include "server/commands/subfamilies.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/db/lfu.h"
#include "server/evict/allocator.h"

namespace server {

void syncLfuConfig() {
  const Config& cfg = g_server->config;
  const std::string& p = cfg.maxmemory_policy;
  db::lfu::params.enabled = p.size() > 4 && p.compare(p.size() - 4, 4, "-lfu") == 0;
  db::lfu::params.log_factor = cfg.lfu_log_factor;
  db::lfu::params.decay_time = cfg.lfu_decay_time;
}

namespace {

// What the allocator held when the commands were registered (start-up,
// before any client or key): MEMORY STATS startup.allocated.
uint64_t g_startup_allocated = 0;

// Below this much allocated memory MEMORY DOCTOR has nothing to say (the
// threshold Redis uses).
constexpr uint64_t kDoctorMinMemory = 5 * 1024 * 1024;

// The bytes a key costs: its entry (header and key bytes) plus what the
// value owns outside the entry.
size_t keyMemoryUsage(const db::Entry* e) {
  return sizeof(db::Entry) + e->keylen + e->val.heapBytes();
}

void memoryUsageCommand(Client* c) {
  // [SAMPLES count]: accepted as Redis does; sizes here are exact, so the
  // count does not change the answer.
  for (size_t i = 3; i < c->argc(); i++) {
    if (common::strutil::equalsIgnoreCase(c->arg(i), "SAMPLES") && i + 1 < c->argc()) {
      int64_t n;
      if (!c->argInt64(i + 1, &n)) return;
      if (n < 0) {
        c->addSyntaxError();
        return;
      }
      i++;
    } else {
      c->addSyntaxError();
      return;
    }
  }
  db::Entry* e = lookupReadNoTouch(c, c->arg(2), false);
  if (e == nullptr) {
    c->addNull();
    return;
  }
  c->addInteger(static_cast<int64_t>(keyMemoryUsage(e)));
}

uint64_t clientMemory(Client* cl) {
  return sizeof(Client) + cl->queryBufferCapacity() + cl->outputMemory();
}

// A db's main and expires tables with their entries (MEMORY STATS
// overhead.hashtable.main / .expires).
uint64_t mainTableOverhead(const db::Db& d) {
  return d.mainTableMemory() + d.size() * sizeof(db::Entry);
}
uint64_t expiresTableOverhead(const db::Db& d) {
  return d.expiresTableMemory() + d.expiresSize() * sizeof(db::ExpireNode);
}

}  // namespace

MemoryOverhead memoryOverhead(uint64_t used) {
  MemoryOverhead o;
  o.startup = g_startup_allocated;
  for (Client* cl : g_server->clients) o.clients += clientMemory(cl);
  o.total = o.startup + o.clients;
  for (auto& d : g_server->dbs) {
    if (d->size() > 0) o.total += mainTableOverhead(*d) + expiresTableOverhead(*d);
  }
  uint64_t net = used > o.startup ? used - o.startup : 0;
  o.dataset = used > o.total ? used - o.total : 0;
  o.dataset_perc = net ? 100.0 * static_cast<double>(o.dataset) / static_cast<double>(net) : 0;
  return o;
}

namespace {

void memoryStatsCommand(Client* c) {
  Server& s = *g_server;
  MemoryNumbers m = memoryNumbers();
  uint64_t peak = peakMemory(m.used);
  MemoryOverhead over = memoryOverhead(m.used);
  uint64_t keys = 0;
  size_t dbs_with_keys = 0;
  for (auto& d : s.dbs) {
    keys += d->size();
    if (d->size() > 0) dbs_with_keys++;
  }
  resp::Writer& w = c->reply();
  // 10 fixed fields before the dbs, 17 after.
  w.mapLen(static_cast<int64_t>(27 + dbs_with_keys));
  auto num = [&](const char* name, uint64_t v) {
    w.bulk(name);
    w.integer(static_cast<int64_t>(v));
  };
  auto dbl = [&](const char* name, double v) {
    w.bulk(name);
    w.doubleValue(v);
  };
  num("peak.allocated", peak);
  num("total.allocated", m.used);
  num("startup.allocated", over.startup);
  // Features this server does not have hold no memory.
  num("replication.backlog", 0);
  num("clients.slaves", 0);
  num("clients.normal", over.clients);
  num("cluster.links", 0);
  num("aof.buffer", 0);
  num("lua.caches", 0);
  num("functions.caches", 0);
  for (auto& d : s.dbs) {
    if (d->size() == 0) continue;
    w.bulk("db." + std::to_string(d->id()));
    w.mapLen(3);
    num("overhead.hashtable.main", mainTableOverhead(*d));
    num("overhead.hashtable.expires", expiresTableOverhead(*d));
    num("overhead.hashtable.slot-to-keys", 0);
  }
  uint64_t net = m.used > over.startup ? m.used - over.startup : 0;
  num("overhead.total", over.total);
  num("keys.count", keys);
  num("keys.bytes-per-key", keys ? net / keys : 0);
  num("dataset.bytes", over.dataset);
  dbl("dataset.percentage", over.dataset_perc);
  dbl("peak.percentage",
      peak ? 100.0 * static_cast<double>(m.used) / static_cast<double>(peak) : 0);
  uint64_t allocated = m.allocated, active = m.active ? m.active : m.used;
  uint64_t resident = m.resident ? m.resident : m.rss;
  num("allocator.allocated", allocated);
  num("allocator.active", active);
  num("allocator.resident", resident);
  auto ratio = [](uint64_t a, uint64_t b) {
    return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
  };
  auto diff = [](uint64_t a, uint64_t b) { return static_cast<uint64_t>(a > b ? a - b : 0); };
  dbl("allocator-fragmentation.ratio", ratio(active, allocated));
  num("allocator-fragmentation.bytes", diff(active, allocated));
  dbl("allocator.rss-ratio", ratio(resident, active));
  num("allocator.rss-bytes", diff(resident, active));
  dbl("rss-overhead.ratio", ratio(m.rss, resident));
  num("rss-overhead.bytes", diff(m.rss, resident));
  dbl("fragmentation", ratio(m.rss, m.used));
  num("fragmentation.bytes", diff(m.rss, m.used));
}

void memoryDoctorCommand(Client* c) {
  MemoryNumbers m = memoryNumbers();
  uint64_t peak = peakMemory(m.used);
  size_t keys = 0;
  for (auto& d : g_server->dbs) keys += d->size();
  std::string report;
  if (m.used < kDoctorMinMemory || keys == 0) {
    report =
        "Hi Sam, this instance is empty or is using very little memory, my issues detector can't "
        "be used in these conditions. Please, leave for your mission on Earth and fill it with "
        "some data. The new Sam and I will be back to our programming as soon as I finished "
        "rebooting.";
  } else {
    std::string issues;
    if (peak > m.used + m.used / 2) {
      issues +=
          " * Peak memory: the instance once used more than 150% of the memory it uses now. "
          "Memory freed since may not return to the system; RSS can stay near the peak.\n\n";
    }
    if (m.rss > m.used + m.used / 2) {
      issues +=
          " * High fragmentation: the process resident set is more than 1.5 times the memory "
          "the allocator hands out (see MEMORY STATS fragmentation). MEMORY PURGE may help.\n\n";
    }
    if (issues.empty()) {
      report =
          "Hi Sam, I can't find any memory issue in your instance. I can only account for what "
          "occurs on this base.";
    } else {
      report = "Sam, I detected a few issues in this Redis instance memory implants:\n\n" + issues;
    }
  }
  c->reply().verbatim(report);
}

void memoryMallocStatsCommand(Client* c) {
#ifdef USE_JEMALLOC
  std::string text;
  malloc_stats_print([](void* out, const char* s) { static_cast<std::string*>(out)->append(s); },
                     &text, nullptr);
  c->reply().verbatim(text);
#else
  c->reply().verbatim("Stats not supported for the current allocator");
#endif
}

void memoryPurgeCommand(Client* c) {
  // Returns dirty pages of every arena to the system.
  evict::purge();
  c->addOk();
}

void memoryHelpCommand(Client* c) {
  static const char* const kHelp[] = {
      "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DOCTOR",
      "    Return memory problems reports.",
      "MALLOC-STATS",
      "    Return internal statistics report from the memory allocator.",
      "PURGE",
      "    Attempt to purge dirty pages for reclamation by the allocator.",
      "STATS",
      "    Return information about the memory usage of the server.",
      "USAGE <key> [SAMPLES <count>]",
      "    Return memory in bytes used by <key> and its value. Nested values are",
      "    sampled up to <count> times (default: 5, 0 means sample all).",
      "HELP",
      "    Prints this help.",
  };
  replyHelp(c, kHelp);
}

// MEMORY USAGE names a key: its entry carries the key position.
Command sub(const char* name, int arity, uint32_t flags, CommandProc proc, int first_key,
            const char* summary, const char* complexity, const char* acl) {
  Command c =
      SubcommandMaker{"server", "4.0.0"}(name, arity, flags, proc, summary, complexity, acl);
  c.first_key = c.last_key = first_key;
  c.key_step = first_key ? 1 : 0;
  return c;
}

}  // namespace

void registerMemoryCommand(CommandTable& t) {
  g_startup_allocated = memoryNumbers().used;
  // The configuration is loaded before the commands are registered.
  syncLfuConfig();
  Command memory{"memory",
                 -2,
                 0,
                 memoryHelpCommand,
                 0,
                 0,
                 0,
                 "server",
                 "A container for memory diagnostics commands",
                 "4.0.0",
                 "Depends on subcommand.",
                 "slow"};
  memory.subcommands = {
      sub("memory|doctor", 2, 0, memoryDoctorCommand, 0, "Outputs memory problems report", "O(1)",
          "slow"),
      sub("memory|help", 2, kLoading | kStale, memoryHelpCommand, 0,
          "Show helpful text about the different subcommands", "O(1)", "slow"),
      sub("memory|malloc-stats", 2, 0, memoryMallocStatsCommand, 0, "Show allocator internal stats",
          "Depends on how much memory is allocated, could be slow", "slow"),
      sub("memory|purge", 2, 0, memoryPurgeCommand, 0, "Ask the allocator to release memory",
          "Depends on how much memory is allocated, could be slow", "slow"),
      sub("memory|stats", 2, 0, memoryStatsCommand, 0, "Show memory usage details", "O(1)", "slow"),
      sub("memory|usage", -3, kReadOnly, memoryUsageCommand, 2,
          "Estimate the memory usage of a key", "O(N) where N is the number of samples.",
          "read slow"),
  };
  t.add(std::move(memory));
}

}  // namespace server
