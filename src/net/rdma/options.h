// The rdma type's option values and their bounds: the one place they live.
// Header-only and free of verbs calls, so the server's settings table
// (net/rdma/settings.cpp, compiled with or without RDMA support) and the
// type's configure() (rdma_type.cpp) parse with the same code.
//
// Each parser takes the text a user wrote and either stores the value or
// sets *err to a sentence naming the option and its bounds.
#pragma once

#include <strings.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "net/connection.h"
#include "net/rdma/wire.h"

namespace net::rdma {

// "1048576", "64k", "64kb", "1m", "1mb" (case-insensitive; k = 1024).
inline bool parseBytes(const std::string& s, uint64_t* out) {
  if (s.empty() || s[0] == '-') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = strtoull(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str()) return false;
  uint64_t mul = 1;
  if (strcasecmp(end, "k") == 0 || strcasecmp(end, "kb") == 0) {
    mul = 1024;
  } else if (strcasecmp(end, "m") == 0 || strcasecmp(end, "mb") == 0) {
    mul = 1024 * 1024;
  } else if (*end != '\0') {
    return false;
  }
  if (v > UINT64_MAX / mul) return false;
  *out = v * mul;
  return true;
}

// A whole decimal number in [lo, hi].
inline bool parseLongIn(const std::string& s, long lo, long hi, long* out) {
  char* end = nullptr;
  errno = 0;
  long v = strtol(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

inline bool parseRxSize(const std::string& s, uint32_t* out, std::string* err) {
  uint64_t v = 0;
  if (!parseBytes(s, &v) || v < kMinRxSize || v > kMaxRxSize) {
    *err = "rdma rx-size must be between " + std::to_string(kMinRxSize) + " and " +
           std::to_string(kMaxRxSize) + " bytes";
    return false;
  }
  *out = static_cast<uint32_t>(v);
  return true;
}

// rdma-flow-control / --rdma-flow-control: yes or no.
inline bool parseFlowControl(const std::string& s, bool* out, std::string* err) {
  if (settingYesNo(s, out)) return true;
  *err = "rdma flow-control must be yes or no";
  return false;
}

// Completion vectors are small device indexes; -1 spreads connections.
constexpr long kMaxCompletionVector = 1023;

inline bool parseCompletionVector(const std::string& s, int* out, std::string* err) {
  long v = 0;
  if (!parseLongIn(s, -1, kMaxCompletionVector, &v)) {
    *err =
        "rdma completion-vector must be -1 (spread) or 0.." + std::to_string(kMaxCompletionVector);
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

inline bool parseKeepaliveMs(const std::string& s, int* out, std::string* err) {
  long v = 0;
  if (!parseLongIn(s, 0, kMaxKeepaliveMs, &v)) {
    *err = "rdma keepalive-interval must be 0 (off) .. " + std::to_string(kMaxKeepaliveMs) +
           " milliseconds";
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

// The rdma type's server settings (rdma-port, rdma-bind, ...), defined in
// settings.cpp: built with or without RDMA support.
const std::vector<SettingSpec>& settings();

}  // namespace net::rdma
