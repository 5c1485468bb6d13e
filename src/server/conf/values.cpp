// Option values: booleans, ranges, memory sizes, enumerations and the
// options whose value has a structure (client-output-buffer-limit, save,
// latency percentiles, maxmemory-clients).
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

#include "common/strutil.h"
#include "resp/request_parser.h"
#include "server/conf/unimplemented.h"

namespace server {

bool parseMemoryValue(const std::string& v, int64_t* out) {
  return conf::parseMemory(v, out);
}

}  // namespace server

namespace server::conf {

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
  if (!common::strutil::parseInt64(v, &n)) {
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
  } else if (!common::strutil::parseInt64(num, &n)) {
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
    if (!common::strutil::parseInt64(p, &n) || n < 0) {
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
        !common::strutil::parseInt64(w[i + 3], &secs) || hard < 0 || soft < 0 || secs < 0) {
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

bool parseShutdownFlags(const Args& a, std::string* out, std::string* err) {
  static const char* const kWords[] = {"default", "save", "nosave", "now", "force"};
  bool on[5] = {};
  std::vector<std::string> given = splitWords(a);
  for (const std::string& w : given) {
    size_t i = 0;
    while (i < 5 && strcasecmp(kWords[i], w.c_str()) != 0) i++;
    if (i == 5) {
      *err = "argument(s) must be one of the following: default, save, nosave, now, force";
      return false;
    }
    on[i] = true;
  }
  if (given.empty()) {
    *err = "argument(s) must be one of the following: default, save, nosave, now, force";
    return false;
  }
  if (on[1] && on[2]) {
    *err = "shutdown options SAVE and NOSAVE can't be used simultaneously";
    return false;
  }
  out->clear();
  for (size_t i = 1; i < 5; i++) {
    if (on[i]) *out += (out->empty() ? "" : " ") + std::string(kWords[i]);
  }
  if (out->empty()) *out = kWords[0];
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
    if (!common::strutil::parseInt64(std::string_view(v).substr(0, v.size() - 1), &pct) ||
        pct < 0) {
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
  if (!common::strutil::parseInt64(w[1], &port) || port < 0 || port > 65535) {
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

}  // namespace server::conf
