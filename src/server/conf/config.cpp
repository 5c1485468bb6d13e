#include "server/conf/config.h"

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
#include "resp/request_parser.h"
#include "server/conf/unimplemented.h"
#include "server/core/version.h"
#include "server/process/proc_title.h"
#include "server/process/startup.h"
#include "server/pubsub/notify.h"

namespace server {

namespace {

using Args = std::vector<std::string>;
// std::function: the rows of connection types' settings capture their spec.
using Setter = std::function<bool(Config&, const Args&, std::string* err)>;
using Getter = std::function<std::string(const Config&)>;

struct Option {
  const char* name;
  bool is_mutable;
  int min_args;  // value arguments after the name
  int max_args;  // -1: any
  Setter set;
  Getter get;
  // Redis's hidden configs (test aids): CONFIG GET shows them only when
  // asked by their exact name, never for a pattern.
  bool hidden = false;
  // CONFIG SET applies it even when the value is unchanged (it names a
  // file whose content may have changed).
  bool apply_unchanged = false;
};

Option hiddenOption(Option o) {
  o.hidden = true;
  return o;
}

ConfigApplyHook g_apply_hook = nullptr;
ConfigUserLinesHook g_user_lines_hook = nullptr;

bool parseBool(const std::string& v, bool* out, std::string* err) {
  if (strcasecmp(v.c_str(), "yes") == 0) {
    *out = true;
    return true;
  }
  if (strcasecmp(v.c_str(), "no") == 0) {
    *out = false;
    return true;
  }
  *err = "argument must be 'yes' or 'no'";
  return false;
}

bool parseRange(const std::string& v, int64_t lo, int64_t hi, int64_t* out, std::string* err) {
  int64_t n;
  if (!strutil::parseInt64(v, &n)) {
    *err = "argument couldn't be parsed into an integer";
    return false;
  }
  if (n < lo || n > hi) {
    *err = "argument must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
           " inclusive";
    return false;
  }
  *out = n;
  return true;
}

// "1gb", "512mb", "100k" (k = 1000, kb = 1024, as in redis.conf). No sign:
// like Redis, "-1" is not a memory value.
bool parseMemory(const std::string& v, int64_t* out) {
  size_t i = 0;
  while (i < v.size() && isdigit(static_cast<unsigned char>(v[i]))) i++;
  std::string num = v.substr(0, i), unit = v.substr(i);
  int64_t n;
  if (v.empty()) {
    n = 0;  // as Redis reads an empty memory value
  } else if (!strutil::parseInt64(num, &n)) {
    return false;
  }
  int64_t mul = 1;
  const char* u = unit.c_str();
  if (unit.empty() || strcasecmp(u, "b") == 0)
    mul = 1;
  else if (strcasecmp(u, "k") == 0)
    mul = 1000;
  else if (strcasecmp(u, "kb") == 0)
    mul = 1024;
  else if (strcasecmp(u, "m") == 0)
    mul = 1000 * 1000;
  else if (strcasecmp(u, "mb") == 0)
    mul = 1024 * 1024;
  else if (strcasecmp(u, "g") == 0)
    mul = 1000ll * 1000 * 1000;
  else if (strcasecmp(u, "gb") == 0)
    mul = 1024ll * 1024 * 1024;
  else
    return false;
  if (n != 0 && n > INT64_MAX / mul) return false;
  *out = n * mul;
  return true;
}

}  // namespace

bool parseMemoryValue(const std::string& v, int64_t* out) {
  return parseMemory(v, out);
}

namespace {

bool parseMemoryRange(const std::string& v, int64_t lo, int64_t hi, int64_t* out,
                      std::string* err) {
  int64_t n;
  if (!parseMemory(v, &n)) {
    *err = "argument must be a memory value";
    return false;
  }
  if (n < lo || n > hi) {
    *err = "argument must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
           " inclusive";
    return false;
  }
  *out = n;
  return true;
}

// Arguments that may each hold several space-separated words ("bind a b" or
// CONFIG SET bind "a b"), flattened to one word list.
std::vector<std::string> splitWords(const Args& a) {
  std::vector<std::string> out;
  for (const auto& s : a) {
    std::vector<std::string> sub;
    resp::splitArgs(s, &sub);
    out.insert(out.end(), sub.begin(), sub.end());
  }
  return out;
}

std::string yesno(bool b) {
  return b ? "yes" : "no";
}

std::string joinArgs(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) {
    if (!out.empty()) out += ' ';
    out += s;
  }
  return out;
}

bool validSave(const Args& a, std::string* err) {
  // Either a single "" or pairs of "<seconds> <changes>".
  if (a.size() == 1 && a[0].empty()) return true;
  std::vector<std::string> parts = splitWords(a);
  if (parts.empty() || parts.size() % 2 != 0) {
    *err = "Invalid save parameters";
    return false;
  }
  for (const auto& p : parts) {
    int64_t n;
    if (!strutil::parseInt64(p, &n) || n < 0) {
      *err = "Invalid save parameters";
      return false;
    }
  }
  return true;
}

// client-output-buffer-limit: groups of "<class> <hard> <soft> <seconds>";
// only the classes named change (several config lines add up). Validation
// and messages as Redis 7.0; the whole value is refused on any error.
bool setOutputBufferLimits(Config& c, const Args& a, std::string* err) {
  std::vector<std::string> w = splitWords(a);
  if (w.size() % 4 != 0) {
    *err = "Wrong number of arguments in buffer limit configuration.";
    return false;
  }
  Config::OutputBufferLimit next[Config::kClientClasses];
  std::copy(std::begin(c.obuf_limits), std::end(c.obuf_limits), next);
  for (size_t i = 0; i < w.size(); i += 4) {
    int cls;
    const char* name = w[i].c_str();
    if (strcasecmp(name, "normal") == 0) {
      cls = Config::kClassNormal;
    } else if (strcasecmp(name, "slave") == 0 || strcasecmp(name, "replica") == 0) {
      cls = Config::kClassReplica;
    } else if (strcasecmp(name, "pubsub") == 0) {
      cls = Config::kClassPubSub;
    } else {
      *err = "Invalid client class specified in buffer limit configuration.";
      return false;
    }
    int64_t hard, soft, secs;
    if (!parseMemory(w[i + 1], &hard) || !parseMemory(w[i + 2], &soft) ||
        !strutil::parseInt64(w[i + 3], &secs) || hard < 0 || soft < 0 || secs < 0) {
      *err = "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
      return false;
    }
    next[cls] = {hard, soft, secs};
  }
  std::copy(std::begin(next), std::end(next), c.obuf_limits);
  return true;
}

std::string getOutputBufferLimits(const Config& c) {
  static const char* const kNames[] = {"normal", "slave", "pubsub"};
  std::string out;
  for (int i = 0; i < Config::kClientClasses; i++) {
    const Config::OutputBufferLimit& l = c.obuf_limits[i];
    if (!out.empty()) out += ' ';
    out += std::string(kNames[i]) + " " + std::to_string(l.hard) + " " + std::to_string(l.soft) +
           " " + std::to_string(l.soft_seconds);
  }
  return out;
}

#define BOOL_OPT(NAME, FIELD, MUT)                                                             \
  Option {                                                                                     \
    NAME, MUT, 1, 1,                                                                           \
        [](Config& c, const Args& a, std::string* e) { return parseBool(a[0], &c.FIELD, e); }, \
        [](const Config& c) { return yesno(c.FIELD); }                                         \
  }
#define INT_OPT(NAME, FIELD, LO, HI, MUT)                       \
  Option {                                                      \
    NAME, MUT, 1, 1,                                            \
        [](Config& c, const Args& a, std::string* e) {          \
          return parseRange(a[0], LO, HI, &c.FIELD, e);         \
        },                                                      \
        [](const Config& c) { return std::to_string(c.FIELD); } \
  }
#define MEM_OPT(NAME, FIELD, LO, HI, MUT)                       \
  Option {                                                      \
    NAME, MUT, 1, 1,                                            \
        [](Config& c, const Args& a, std::string* e) {          \
          return parseMemoryRange(a[0], LO, HI, &c.FIELD, e);   \
        },                                                      \
        [](const Config& c) { return std::to_string(c.FIELD); } \
  }
#define STR_OPT(NAME, FIELD, MUT)                    \
  Option {                                           \
    NAME, MUT, 1, 1,                                 \
        [](Config& c, const Args& a, std::string*) { \
          c.FIELD = a[0];                            \
          return true;                               \
        },                                           \
        [](const Config& c) { return c.FIELD; }      \
  }

// latency-tracking-info-percentiles: numbers in [0, 100], space separated
// (one CONFIG SET argument) or as several config-file arguments; "" none.
bool setLatencyPercentiles(Config& c, const Args& a, std::string* err) {
  std::vector<double> out;
  for (const std::string& arg : a) {
    std::istringstream words(arg);
    std::string w;
    while (words >> w) {
      char* end = nullptr;
      double v = strtod(w.c_str(), &end);
      if (end == w.c_str() || *end != '\0' || std::isnan(v)) {
        *err = "Invalid latency-tracking-info-percentiles parameters";
        return false;
      }
      if (v < 0.0 || v > 100.0) {
        *err = "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
        return false;
      }
      out.push_back(v);
    }
  }
  c.latency_tracking_info_percentiles = std::move(out);
  return true;
}

std::string getLatencyPercentiles(const Config& c) {
  std::string out;
  for (double v : c.latency_tracking_info_percentiles) {
    char buf[32];
    snprintf(buf, sizeof(buf), "%g", v);
    if (!out.empty()) out += ' ';
    out += buf;
  }
  return out;
}

// maxmemory-clients: a memory value, or "N%" of maxmemory (stored as -N).
bool setMaxmemoryClients(Config& c, const Args& a, std::string* err) {
  const std::string& v = a[0];
  if (!v.empty() && v.back() == '%') {
    int64_t pct;
    if (!strutil::parseInt64(std::string_view(v).substr(0, v.size() - 1), &pct) || pct < 0) {
      *err = "argument must be a memory or percent value";
      return false;
    }
    if (pct > 100) {
      *err = "percentage argument must be less or equal to 100";
      return false;
    }
    c.maxmemory_clients = -pct;
    return true;
  }
  int64_t n;
  if (!parseMemory(v, &n)) {
    *err = "argument must be a memory or percent value";
    return false;
  }
  c.maxmemory_clients = n;
  return true;
}

// Allowed values of an enumerated option, listed in the error as Redis does.
struct EnumValues {
  const char* const* names;
  size_t count;
};
constexpr const char* kMaxmemoryPolicyNames[] = {
    "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
    "allkeys-lru",  "allkeys-lfu",  "allkeys-random",  "noeviction"};
constexpr EnumValues kMaxmemoryPolicies = {kMaxmemoryPolicyNames, 8};
constexpr const char* kPubsubDefaultNames[] = {"allchannels", "resetchannels"};
constexpr EnumValues kPubsubDefaults = {kPubsubDefaultNames, 2};
constexpr const char* kProtectedModeNames[] = {"no", "yes", "local"};
constexpr EnumValues kProtectedModes = {kProtectedModeNames, 3};
constexpr const char* kSupervisedNames[] = {"upstart", "systemd", "auto", "no"};
constexpr EnumValues kSupervisedModes = {kSupervisedNames, 4};
constexpr const char* kOomScoreAdjNames[] = {"no", "yes", "relative", "absolute"};
constexpr EnumValues kOomScoreAdjModes = {kOomScoreAdjNames, 4};
constexpr const char* kSyslogFacilityNames[] = {"user",   "local0", "local1", "local2", "local3",
                                                "local4", "local5", "local6", "local7"};
constexpr EnumValues kSyslogFacilities = {kSyslogFacilityNames, 9};
constexpr const char* kAppendFsyncNames[] = {"everysec", "always", "no"};
constexpr EnumValues kAppendFsync = {kAppendFsyncNames, 3};
constexpr const char* kDisklessLoadNames[] = {"disabled", "on-empty-db", "swapdb"};
constexpr EnumValues kDisklessLoad = {kDisklessLoadNames, 3};

// replicaof <host> <port> | no one (one argument holding both words too).
bool setReplicaOf(Config& c, const std::vector<std::string>& a, std::string* e) {
  std::vector<std::string> w;
  for (const std::string& s : a) {
    std::vector<std::string> parts;
    if (!resp::splitArgs(s, &parts)) parts = {s};
    w.insert(w.end(), parts.begin(), parts.end());
  }
  if (w.size() != 2) {
    *e = "wrong number of arguments";
    return false;
  }
  if (strcasecmp(w[0].c_str(), "no") == 0 && strcasecmp(w[1].c_str(), "one") == 0) {
    c.replicaof.clear();
    return true;
  }
  int64_t port;
  if (!strutil::parseInt64(w[1], &port) || port < 0 || port > 65535) {
    *e = "Invalid master port";
    return false;
  }
  c.replicaof = w[0] + " " + w[1];
  return true;
}

// appendfilename / appenddirname: a bare name inside `dir`.
bool setAofName(std::string* field, const std::string& v, const char* what, std::string* e) {
  if (v.find('/') != std::string::npos) {
    *e = std::string(what) + " can't be a path, just a " +
         (strcmp(what, "appenddirname") == 0 ? "dirname" : "filename");
    return false;
  }
  if (v.empty()) {
    *e = std::string(what) + " can't be empty";
    return false;
  }
  *field = v;
  return true;
}

bool parseEnum(const std::string& v, const EnumValues& allowed, std::string* out,
               std::string* err) {
  for (size_t i = 0; i < allowed.count; i++) {
    if (strcasecmp(v.c_str(), allowed.names[i]) == 0) {
      *out = allowed.names[i];
      return true;
    }
  }
  *err = "argument(s) must be one of the following: ";
  for (size_t i = 0; i < allowed.count; i++) {
    if (i > 0) *err += ", ";
    *err += allowed.names[i];
  }
  return false;
}

#define ENUM_OPT(NAME, FIELD, VALUES, MUT)             \
  Option {                                             \
    NAME, MUT, 1, 1,                                   \
        [](Config& c, const Args& a, std::string* e) { \
          return parseEnum(a[0], VALUES, &c.FIELD, e); \
        },                                             \
        [](const Config& c) { return c.FIELD; }        \
  }

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
  return o;
}

std::vector<Option> builtinOptions();

const std::vector<Option>& options() {
  static const std::vector<Option> opts = [] {
    std::vector<Option> v = builtinOptions();
    for (const net::SettingSpec& s : net::allSettings()) v.push_back(transportOption(&s));
    return v;
  }();
  return opts;
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
      STR_OPT("masterauth", masterauth, true),
      STR_OPT("masteruser", masteruser, true),
      BOOL_OPT("replica-serve-stale-data", replica_serve_stale_data, true),
      BOOL_OPT("replica-read-only", replica_read_only, true),
      BOOL_OPT("replica-ignore-maxmemory", replica_ignore_maxmemory, true),
      BOOL_OPT("replica-lazy-flush", replica_lazy_flush, true),
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
      STR_OPT("requirepass", requirepass, true),
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
               logging::Level l;
               if (!logging::parseLevel(a[0], &l)) {
                 *e = "argument(s) must be one of the following: debug, verbose, notice, "
                      "warning";
                 return false;
               }
               c.loglevel = logging::levelName(l);
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
                 if (!strutil::parseInt64(w[static_cast<size_t>(i)], &v[i]) || v[i] < -2000 ||
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
      Option{"save", true, 1, -1,
             [](Config& c, const Args& a, std::string* e) {
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
      INT_OPT("list-max-listpack-size", list_max_listpack_size, INT_MIN, INT_MAX, true),
      INT_OPT("list-compress-depth", list_compress_depth, 0, INT_MAX, true),
  };
  return opts;
}

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

// The whole file in *out; false (errno set) when it cannot be opened.
bool readWholeFile(const std::string& path, std::string* out) {
  std::ifstream f(path);
  if (!f) return false;
  std::stringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return true;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

}  // namespace

void setConfigUserLinesHook(ConfigUserLinesHook hook) {
  g_user_lines_hook = hook;
}

void setConfigApplyHook(ConfigApplyHook hook) {
  g_apply_hook = hook;
}

namespace {

constexpr int kMaxIncludeDepth = 16;

bool loadText(Config* cfg, const std::string& text, int depth, std::string* err);

// include <path>: the file's lines are read in place of the directive. A
// path with glob characters names every matching file (in sorted order;
// none is fine); a plain path must open.
bool includeFiles(Config* cfg, const std::string& pattern, int depth, std::string* err) {
  if (depth >= kMaxIncludeDepth) {
    *err = "include nesting is deeper than " + std::to_string(kMaxIncludeDepth) + " levels";
    return false;
  }
  std::vector<std::string> paths;
  if (pattern.find_first_of("*?[") == std::string::npos) {
    paths.push_back(pattern);
  } else {
    glob_t g;
    if (glob(pattern.c_str(), 0, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; i++) paths.emplace_back(g.gl_pathv[i]);
    }
    globfree(&g);
  }
  for (const std::string& path : paths) {
    std::string text;
    if (!readWholeFile(path, &text)) {
      *err = "Fatal error, can't open config file '" + path + "': " + strerror(errno);
      return false;
    }
    if (!loadText(cfg, text, depth + 1, err)) return false;
  }
  return true;
}

bool loadText(Config* cfg, const std::string& text, int depth, std::string* err) {
  std::istringstream in(text);
  std::string raw;
  int linenum = 0;
  while (std::getline(in, raw)) {
    linenum++;
    std::string line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> argv;
    std::string reason;
    if (!resp::splitArgs(line, &argv)) {
      reason = "Unbalanced quotes in configuration line";
    } else if (argv.size() == 3 && strcasecmp(argv[0].c_str(), "rename-command") == 0) {
      cfg->rename_commands.push_back({argv[1], argv[2], linenum, line});
    } else if (!argv.empty() && strcasecmp(argv[0].c_str(), "user") == 0) {
      // `user <name> <rules...>` may repeat; applied by acl::init.
      if (argv.size() < 2)
        reason = "wrong number of arguments";
      else
        cfg->acl_users.emplace_back(argv.begin() + 1, argv.end());
    } else if (!argv.empty()) {
      const Option* o = findOption(argv[0]);
      const conf::UnimplementedOption* u =
          o == nullptr ? conf::findUnimplemented(argv[0]) : nullptr;
      int nvals = static_cast<int>(argv.size()) - 1;
      Args vals(argv.begin() + 1, argv.end());
      if (strcasecmp(argv[0].c_str(), "include") == 0 && nvals == 1) {
        // Its own errors name the included file: passed on as they are.
        if (!includeFiles(cfg, vals[0], depth, err)) return false;
      } else if (u != nullptr) {
        if (!conf::unimplementedArity(*u, vals.size())) {
          reason = "wrong number of arguments";
        } else {
          conf::setUnimplemented(cfg, *u, vals, &reason);
        }
      } else if (o == nullptr) {
        reason = "Bad directive or wrong number of arguments";
      } else if (nvals < o->min_args || (o->max_args != -1 && nvals > o->max_args)) {
        reason = "wrong number of arguments";
      } else {
        o->set(*cfg, vals, &reason);
      }
    }
    if (!reason.empty()) {
      *err = "\n*** FATAL CONFIG FILE ERROR (Redis " + std::string(kRedisVersion) +
             ") ***\nReading the configuration file, at line " + std::to_string(linenum) +
             "\n>>> '" + line + "'\n" + reason;
      return false;
    }
  }
  return true;
}

}  // namespace

bool loadConfigText(Config* cfg, const std::string& text, std::string* err) {
  cfg->loading_file = true;
  struct Done {
    Config* c;
    ~Done() { c->loading_file = false; }
  } done{cfg};
  return loadText(cfg, text, 0, err);
}

bool loadConfig(Config* cfg, const std::string& path, const std::string& extra, std::string* err) {
  std::string text;
  if (!path.empty()) {
    if (path == "-") {
      std::stringstream ss;
      ss << std::cin.rdbuf();
      text = ss.str();
    } else if (!readWholeFile(path, &text)) {
      *err = "Fatal error, can't open config file '" + path + "': " + strerror(errno);
      return false;
    }
  }
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += extra;
  return loadConfigText(cfg, text, err);
}

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
                          : strutil::globMatch(pattern, o.name, true);
    if (match) out.emplace_back(o.name, o.get(cfg));
  }
  for (const auto& a : kAliases) {
    if (strutil::globMatch(pattern, a.alias, true)) {
      out.emplace_back(a.alias, findOption(a.name)->get(cfg));
    }
  }
  for (const auto& u : conf::unimplementedOptions()) {
    if (u.kind == conf::Kind::kFileOnly) continue;
    if (u.hidden) {
      if (strcasecmp(pattern.c_str(), u.name) == 0)
        out.emplace_back(u.name, conf::getUnimplemented(cfg, u));
      continue;
    }
    if (strutil::globMatch(pattern, u.name, true)) {
      out.emplace_back(u.name, conf::getUnimplemented(cfg, u));
    }
    if (u.alias != nullptr && strutil::globMatch(pattern, u.alias, true)) {
      out.emplace_back(u.alias, conf::getUnimplemented(cfg, u));
    }
  }
  return out;
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
  if (strcasecmp(name.c_str(), "requirepass") == 0) return true;
  std::string canonical = configCanonicalName(name);
  const net::SettingSpec* spec = net::findSetting(canonical);
  return spec != nullptr && spec->sensitive;
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

// Quotes a single value so splitArgs() reads it back unchanged; plain words
// stay bare as a person would write them.
std::string quoteConfigValue(const std::string& v, bool always) {
  bool plain = !always && !v.empty();
  for (unsigned char ch : v) {
    if (ch <= ' ' || ch >= 127 || ch == '"' || ch == '\'' || ch == '\\') plain = false;
  }
  if (plain) return v;
  std::string out = "\"";
  for (unsigned char ch : v) {
    if (ch == '\\' || ch == '"') {
      out += '\\';
      out += static_cast<char>(ch);
    } else if (ch < 32 || ch >= 127) {
      char buf[8];
      snprintf(buf, sizeof(buf), "\\x%02x", ch);
      out += buf;
    } else {
      out += static_cast<char>(ch);
    }
  }
  return out + "\"";
}

namespace {

std::string optionLine(const Option& o, const Config& cfg) {
  std::string v = o.get(cfg);
  // Options taking a list (bind, save) are stored space-joined: write the
  // words bare so each stays one argument.
  if (o.max_args == -1 && !v.empty()) return std::string(o.name) + " " + v;
  return std::string(o.name) + " " + quoteConfigValue(v);
}

// Values made of several words (replicaof, shutdown-on-*) are written bare,
// one argument each, as for bind and save.
std::string unimplementedLine(const conf::UnimplementedOption& u, const Config& cfg) {
  std::string v = conf::getUnimplemented(cfg, u);
  bool words = u.kind == conf::Kind::kReplicaOf || u.kind == conf::Kind::kFlags;
  if (words && !v.empty()) return std::string(u.name) + " " + v;
  return std::string(u.name) + " " + quoteConfigValue(v);
}

}  // namespace

bool rewriteConfigFile(const Config& cfg, const std::string& path, std::string* err) {
  std::string text;
  if (!readWholeFile(path, &text)) {
    *err = "Rewriting config file: " + std::string(strerror(errno));
    return false;
  }
  static const char kGenerated[] = "# Generated by CONFIG REWRITE";
  const Config defaults;
  std::vector<bool> written(options().size(), false);
  std::set<std::string> written_u;  // not-implemented options already written
  bool marker = false;
  std::string out;
  std::vector<std::string> users;
  if (g_user_lines_hook != nullptr) users = g_user_lines_hook();
  size_t next_user = 0;
  std::istringstream in(text);
  std::string raw;
  while (std::getline(in, raw)) {
    std::string line = trim(raw);
    // Our marker from an earlier rewrite stays; options are appended after
    // the end of the file, which follows it.
    if (line == kGenerated) marker = true;
    std::vector<std::string> argv;
    if (line.empty() || line[0] == '#' || !resp::splitArgs(line, &argv) || argv.empty()) {
      out += raw + "\n";
      continue;
    }
    if (g_user_lines_hook != nullptr && strcasecmp(argv[0].c_str(), "user") == 0) {
      if (next_user < users.size()) out += users[next_user++] + "\n";
      continue;
    }
    const Option* o = findOption(argv[0]);
    const conf::UnimplementedOption* u = o == nullptr ? conf::findUnimplemented(argv[0]) : nullptr;
    if (u != nullptr && u->kind != conf::Kind::kFileOnly) {
      if (!written_u.insert(u->name).second) continue;
      out += unimplementedLine(*u, cfg) + "\n";
      continue;
    }
    if (o == nullptr) {
      out += raw + "\n";
      continue;
    }
    size_t idx = static_cast<size_t>(o - options().data());
    if (written[idx]) continue;  // a later duplicate: the first line holds the value
    written[idx] = true;
    out += optionLine(*o, cfg) + "\n";
  }
  for (size_t i = 0; i < options().size(); i++) {
    const Option& o = options()[i];
    if (written[i] || o.get(cfg) == o.get(defaults)) continue;
    if (!marker) {
      if (!out.empty() && out.back() != '\n') out += '\n';
      out += std::string(kGenerated) + "\n";
      marker = true;
    }
    out += optionLine(o, cfg) + "\n";
  }
  for (const auto& u : conf::unimplementedOptions()) {
    if (u.kind == conf::Kind::kFileOnly || written_u.count(u.name) ||
        cfg.unimplemented.count(u.name) == 0) {
      continue;
    }
    if (!marker) {
      if (!out.empty() && out.back() != '\n') out += '\n';
      out += std::string(kGenerated) + "\n";
      marker = true;
    }
    out += unimplementedLine(u, cfg) + "\n";
  }
  for (; next_user < users.size(); next_user++) {
    if (!marker) {
      if (!out.empty() && out.back() != '\n') out += '\n';
      out += std::string(kGenerated) + "\n";
      marker = true;
    }
    out += users[next_user] + "\n";
  }
  // In place, as Redis does: the file keeps its inode, owner and mode.
  FILE* f = fopen(path.c_str(), "r+");
  if (f == nullptr) {
    *err = "Rewriting config file: " + std::string(strerror(errno));
    return false;
  }
  bool ok = fwrite(out.data(), 1, out.size(), f) == out.size() && fflush(f) == 0 &&
            ftruncate(fileno(f), static_cast<off_t>(out.size())) == 0 && fsync(fileno(f)) == 0;
  int saved = errno;
  fclose(f);
  if (!ok) {
    *err = "Rewriting config file: " + std::string(strerror(saved));
    return false;
  }
  return true;
}

}  // namespace server
