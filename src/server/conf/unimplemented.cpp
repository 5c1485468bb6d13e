#include "server/conf/unimplemented.h"

#include <strings.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>

#include "common/log.h"
#include "common/strutil.h"
#include "server/conf/config.h"

namespace server::conf {

namespace {

constexpr int64_t kLongMax = LONG_MAX;

// Shorthands for the table rows.

UnimplementedOption boolOpt(const char* name, const char* alias, const char* def, bool mut,
                            const char* feature) {
  return {name, alias, Kind::kBool, def, mut, 0, 0, feature};
}
UnimplementedOption intOpt(const char* name, const char* alias, const char* def, bool mut,
                           int64_t lo, int64_t hi, const char* feature) {
  return {name, alias, Kind::kInt, def, mut, lo, hi, feature};
}
UnimplementedOption memOpt(const char* name, const char* def, bool mut, int64_t lo, int64_t hi,
                           const char* feature) {
  return {name, nullptr, Kind::kMemory, def, mut, lo, hi, feature};
}
UnimplementedOption strOpt(const char* name, const char* alias, bool mut, const char* feature,
                           const char* def = "") {
  return {name, alias, Kind::kString, def, mut, 0, 0, feature};
}
UnimplementedOption fileOnly(const char* name, int64_t min_args, int64_t max_args,
                             const char* feature) {
  return {name, nullptr, Kind::kFileOnly, "", false, min_args, max_args, feature};
}

const char kDefrag[] = "active defragmentation";
const char kModules[] = "modules";
const char kAffinity[] = "CPU affinity of background work";
// The crash report (server/limits) is always written; these switches are not read.
const char kCrash[] = "switching the crash report off";
// Directives Redis 7.0 itself reads and ignores.
const char kDeprecated[] = "deprecated";

std::vector<UnimplementedOption> buildTable() {
  return {
      boolOpt("activedefrag", nullptr, "no", true, kDefrag),
      memOpt("active-defrag-ignore-bytes", "104857600", true, 1, LLONG_MAX, kDefrag),
      intOpt("active-defrag-threshold-lower", nullptr, "10", true, 0, 1000, kDefrag),
      intOpt("active-defrag-threshold-upper", nullptr, "100", true, 0, 1000, kDefrag),
      intOpt("active-defrag-cycle-min", nullptr, "1", true, 1, 99, kDefrag),
      intOpt("active-defrag-cycle-max", nullptr, "25", true, 1, 99, kDefrag),
      intOpt("active-defrag-max-scan-fields", nullptr, "1000", true, 1, kLongMax, kDefrag),
      // Modules (enable-module-command is a real option: MODULE reads it).
      fileOnly("loadmodule", 1, -1, kModules),
      // CPU affinity of the threads and children this server does not have.
      strOpt("bio_cpulist", nullptr, false, kAffinity),
      strOpt("aof_rewrite_cpulist", nullptr, false, kAffinity),
      strOpt("bgsave_cpulist", nullptr, false, kAffinity),
      // Crash report, the rest.
      boolOpt("crash-log-enabled", nullptr, "yes", true, kCrash),
      boolOpt("crash-memcheck-enabled", nullptr, "yes", true, kCrash),
      intOpt("socket-mark-id", nullptr, "0", false, 0, UINT_MAX, "socket marks (SO_MARK)"),
      strOpt("ignore-warnings", nullptr, true, "kernel bug warnings (ARM64-COW-BUG)"),
      // Read and ignored by Redis 7.0 as well.
      fileOnly("list-max-ziplist-entries", 1, 1, kDeprecated),
      fileOnly("list-max-ziplist-value", 1, 1, kDeprecated),
      fileOnly("lua-replicate-commands", 1, 1, kDeprecated),
  };
}

std::set<std::string>& warned() {
  static std::set<std::string> names;
  return names;
}

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
  return s;
}

bool rangeError(int64_t n, int64_t lo, int64_t hi, std::string* err) {
  if (n >= lo && n <= hi) return false;
  *err = "argument must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
         " inclusive";
  return true;
}

// Normalizes one value; false with Redis's message.
bool normalize(const UnimplementedOption& o, const std::vector<std::string>& values,
               std::string* out, std::string* err) {
  const std::string& v = values[0];
  switch (o.kind) {
    case Kind::kBool:
      if (strcasecmp(v.c_str(), "yes") == 0 || strcasecmp(v.c_str(), "no") == 0) {
        *out = lower(v);
        // As Debian's Redis (built with the system jemalloc) answers.
        if (*out == "yes" && strcmp(o.name, "activedefrag") == 0) {
          *err =
              "Active defragmentation cannot be enabled: it requires a Redis server compiled "
              "with a modified Jemalloc like the one shipped by default with the Redis source "
              "distribution";
          return false;
        }
        return true;
      }
      *err = "argument must be 'yes' or 'no'";
      return false;
    case Kind::kInt: {
      int64_t n;
      if (!common::strutil::parseInt64(v, &n)) {
        *err = "argument couldn't be parsed into an integer";
        return false;
      }
      if (rangeError(n, o.lo, o.hi, err)) return false;
      *out = std::to_string(n);
      return true;
    }
    case Kind::kMemory: {
      int64_t n;
      if (!parseMemoryValue(v, &n)) {
        *err = "argument must be a memory value";
        return false;
      }
      if (rangeError(n, o.lo, o.hi, err)) return false;
      *out = std::to_string(n);
      return true;
    }
    case Kind::kString:
      *out = v;
      return true;
    case Kind::kFileOnly:
      break;
  }
  *err = "not a configuration parameter";
  return false;
}

}  // namespace

const std::vector<UnimplementedOption>& unimplementedOptions() {
  static const std::vector<UnimplementedOption> table = buildTable();
  return table;
}

const UnimplementedOption* findUnimplemented(std::string_view name) {
  for (const auto& o : unimplementedOptions()) {
    if (name.size() == strlen(o.name) && strncasecmp(o.name, name.data(), name.size()) == 0) {
      return &o;
    }
    if (o.alias != nullptr && name.size() == strlen(o.alias) &&
        strncasecmp(o.alias, name.data(), name.size()) == 0) {
      return &o;
    }
  }
  return nullptr;
}

bool unimplementedArity(const UnimplementedOption& o, size_t nvalues) {
  int64_t n = static_cast<int64_t>(nvalues);
  if (o.kind == Kind::kFileOnly) return n >= o.lo && (o.hi == -1 || n <= o.hi);
  return n == 1;
}

bool setUnimplemented(Config* cfg, const UnimplementedOption& o,
                      const std::vector<std::string>& values, std::string* err) {
  if (o.kind == Kind::kFileOnly) {
    // Kept, one line per use, for the start-up warning.
    std::string line = o.name;
    for (const auto& v : values) line += " " + quoteConfigValue(v);
    std::string& all = cfg->unimplemented[o.name];
    all += (all.empty() ? "" : "\n") + line;
    return true;
  }
  std::string value;
  if (!normalize(o, values, &value, err)) return false;
  if (value == o.def) {
    cfg->unimplemented.erase(o.name);
  } else {
    cfg->unimplemented[o.name] = value;
  }
  return true;
}

std::string getUnimplemented(const Config& cfg, const UnimplementedOption& o) {
  auto it = cfg.unimplemented.find(o.name);
  return it == cfg.unimplemented.end() ? std::string(o.def) : it->second;
}

void logUnimplemented(const Config& cfg) {
  for (const auto& o : unimplementedOptions()) {
    auto it = cfg.unimplemented.find(o.name);
    if (it == cfg.unimplemented.end()) continue;
    warned().insert(o.name);
    if (o.kind != Kind::kFileOnly) {
      LOG_WARNING("'%s %s': %s is not implemented yet; this option has no effect", o.name,
                  it->second.c_str(), o.feature);
      continue;
    }
    size_t pos = 0;
    while (pos < it->second.size()) {
      size_t nl = it->second.find('\n', pos);
      if (nl == std::string::npos) nl = it->second.size();
      std::string line = it->second.substr(pos, nl - pos);
      pos = nl + 1;
      if (o.feature == kDeprecated) {
        LOG_NOTICE("'%s': deprecated directive, ignored (as Redis 7.0 does)", line.c_str());
        continue;
      }
      // A user line holds passwords: only its name is logged.
      if (strcmp(o.name, "user") == 0) line = line.substr(0, line.find(' ', 5)) + " ...";
      LOG_WARNING("'%s': %s is not implemented yet; this directive has no effect", line.c_str(),
                  o.feature);
    }
  }
}

void noteUnimplementedSet(const Config& cfg, const UnimplementedOption& o) {
  auto it = cfg.unimplemented.find(o.name);
  if (it == cfg.unimplemented.end() || !warned().insert(o.name).second) return;
  LOG_WARNING("CONFIG SET '%s %s': %s is not implemented yet; this option has no effect", o.name,
              it->second.c_str(), o.feature);
}

}  // namespace server::conf
