// --bigkeys, --memkeys and --hotkeys: walk the keyspace with SCAN and report,
// per type, the largest key (by element count or by MEMORY USAGE) and the
// totals, or the keys with the highest LFU counters (OBJECT FREQ). Output
// lines are those of redis-cli 7.0; the type order of the summary is its
// fixed order (list, hash, string, stream, set, zset).
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>

#include "cli/format.h"
#include "cli/modes/modes.h"
#include "cli/modes/scan_walk.h"

namespace cli::modes {

namespace {

struct TypeInfo {
  const char* name;
  const char* size_cmd;  // element count command for --bigkeys
  const char* unit;      // what --bigkeys counts
};

constexpr std::array<TypeInfo, 6> kTypes = {{
    {"list", "LLEN", "items"},
    {"hash", "HLEN", "fields"},
    {"string", "STRLEN", "bytes"},
    {"stream", "XLEN", "entries"},
    {"set", "SCARD", "members"},
    {"zset", "ZCARD", "members"},
}};

int typeIndex(const std::string& name) {
  for (size_t i = 0; i < kTypes.size(); i++) {
    if (name == kTypes[i].name) return static_cast<int>(i);
  }
  return -1;
}

std::string quoted(const std::string& key) {
  std::string q;
  appendQuoted(&q, key);
  return q;
}

struct TypeStats {
  uint64_t keys = 0;
  uint64_t total = 0;    // elements or bytes
  uint64_t biggest = 0;  // size of the largest key found
  std::string biggest_key;
  bool found = false;
};

// Number of keys, for the progress percentage (0 when unknown).
uint64_t dbSize(Session* s) {
  resp::Reply r;
  if (!s->client().call({"DBSIZE"}, &r) || r.type != resp::ReplyType::kInteger) return 0;
  return static_cast<uint64_t>(r.integer);
}

double percent(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

void printBanner(const char* what) {
  printf(
      "\n# Scanning the entire keyspace to find %s as well as\n"
      "# average sizes per key type.  You can use -i 0.1 to sleep 0.1 sec\n"
      "# per 100 SCAN commands (not usually needed).\n\n",
      what);
}

// --bigkeys (memory = false) and --memkeys (memory = true).
int sizeMode(Session* s, bool memory) {
  const Options& o = s->options();
  uint64_t total_keys = dbSize(s);
  uint64_t sampled = 0;
  uint64_t key_bytes = 0;
  std::array<TypeStats, kTypes.size()> stats;
  printBanner("biggest keys");
  bool ok = scanWalk(
      s,
      [&](const std::vector<std::string>& keys) {
        std::vector<std::vector<std::string>> cmds;
        for (const auto& k : keys) cmds.push_back({"TYPE", k});
        auto types = pipelined(s, cmds);
        if (!types) return false;
        std::vector<int> idx(keys.size(), -1);
        cmds.clear();
        std::vector<size_t> asked;
        for (size_t i = 0; i < keys.size(); i++) {
          idx[i] = typeIndex((*types)[i].str);
          if (idx[i] < 0) continue;  // gone meanwhile, or a type we do not size
          if (memory) {
            std::vector<std::string> c = {"MEMORY", "USAGE", keys[i]};
            if (o.memkeys_samples > 0) {
              c.push_back("SAMPLES");
              c.push_back(std::to_string(o.memkeys_samples));
            }
            cmds.push_back(std::move(c));
          } else {
            cmds.push_back({kTypes[static_cast<size_t>(idx[i])].size_cmd, keys[i]});
          }
          asked.push_back(i);
        }
        auto sizes = pipelined(s, cmds);
        if (!sizes) return false;
        // Progress is reported as of the start of this SCAN batch.
        const uint64_t done_before = sampled;
        for (size_t j = 0; j < asked.size(); j++) {
          size_t i = asked[j];
          const resp::Reply& r = (*sizes)[j];
          if (r.isError()) {
            fprintf(stderr, "Error: %s\n", r.str.c_str());
            return false;
          }
          uint64_t size =
              r.type == resp::ReplyType::kInteger ? static_cast<uint64_t>(r.integer) : 0;
          TypeStats& t = stats[static_cast<size_t>(idx[i])];
          const TypeInfo& ti = kTypes[static_cast<size_t>(idx[i])];
          sampled++;
          key_bytes += keys[i].size();
          t.keys++;
          t.total += size;
          if (size > t.biggest) {  // an empty key is never the biggest
            t.found = true;
            t.biggest = size;
            t.biggest_key = keys[i];
            printf("[%05.2f%%] Biggest %-6s found so far '%s' with %llu %s\n",
                   percent(done_before, total_keys), ti.name, quoted(keys[i]).c_str(),
                   static_cast<unsigned long long>(size), memory ? "bytes" : ti.unit);
          }
        }
        fflush(stdout);
        return true;
      },
      false);
  if (!ok) return 1;
  printf("\n-------- summary -------\n\n");
  printf("Sampled %llu keys in the keyspace!\n", static_cast<unsigned long long>(sampled));
  printf("Total key length in bytes is %llu (avg len %.2f)\n\n",
         static_cast<unsigned long long>(key_bytes),
         sampled ? static_cast<double>(key_bytes) / static_cast<double>(sampled) : 0.0);
  for (size_t i = 0; i < kTypes.size(); i++) {
    if (!stats[i].found) continue;
    printf("Biggest %6s found '%s' has %llu %s\n", kTypes[i].name,
           quoted(stats[i].biggest_key).c_str(), static_cast<unsigned long long>(stats[i].biggest),
           memory ? "bytes" : kTypes[i].unit);
  }
  printf("\n");
  for (size_t i = 0; i < kTypes.size(); i++) {
    const TypeStats& t = stats[i];
    printf("%llu %ss with %llu %s (%05.2f%% of keys, avg size %.2f)\n",
           static_cast<unsigned long long>(t.keys), kTypes[i].name,
           static_cast<unsigned long long>(t.total), memory ? "bytes" : kTypes[i].unit,
           percent(t.keys, sampled),
           t.keys ? static_cast<double>(t.total) / static_cast<double>(t.keys) : 0.0);
  }
  fflush(stdout);
  return 0;
}

}  // namespace

int bigKeysMode(Session* s) {
  return sizeMode(s, false);
}

int memKeysMode(Session* s) {
  return sizeMode(s, true);
}

int hotKeysMode(Session* s) {
  // The hottest keys seen so far, coldest first (redis-cli keeps 16).
  constexpr size_t kHot = 16;
  std::array<uint64_t, kHot> counters{};
  std::array<std::string, kHot> names;
  uint64_t total_keys = dbSize(s);
  uint64_t sampled = 0;
  printBanner("hot keys");
  bool ok = scanWalk(
      s,
      [&](const std::vector<std::string>& keys) {
        std::vector<std::vector<std::string>> cmds;
        for (const auto& k : keys) cmds.push_back({"OBJECT", "FREQ", k});
        auto freqs = pipelined(s, cmds);
        if (!freqs) return false;
        const uint64_t done_before = sampled;
        for (size_t i = 0; i < keys.size(); i++) {
          const resp::Reply& r = (*freqs)[i];
          if (r.isError()) {
            fflush(stdout);
            fprintf(stderr, "Error: %s\n", r.str.c_str());
            return false;
          }
          sampled++;
          uint64_t freq = static_cast<uint64_t>(r.integer);
          if (freq <= counters[0]) continue;
          // Insert in order, dropping the coldest.
          size_t pos = 0;
          while (pos + 1 < kHot && counters[pos + 1] < freq) pos++;
          for (size_t j = 0; j < pos; j++) {
            counters[j] = counters[j + 1];
            names[j] = std::move(names[j + 1]);
          }
          counters[pos] = freq;
          names[pos] = keys[i];
          printf("[%05.2f%%] Hot key '%s' found so far with counter %llu\n",
                 percent(done_before, total_keys), quoted(keys[i]).c_str(),
                 static_cast<unsigned long long>(freq));
        }
        fflush(stdout);
        return true;
      },
      false);
  if (!ok) return 1;
  printf("\n-------- summary -------\n\n");
  printf("Sampled %llu keys in the keyspace!\n", static_cast<unsigned long long>(sampled));
  for (size_t i = kHot; i-- > 0;) {
    if (counters[i] == 0) continue;
    printf("hot key found with counter: %llu\tkeyname: %s\n",
           static_cast<unsigned long long>(counters[i]), quoted(names[i]).c_str());
  }
  fflush(stdout);
  return 0;
}

}  // namespace cli::modes
