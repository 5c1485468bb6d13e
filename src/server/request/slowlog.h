// The slow log: the last slowlog-max-len commands that ran for at least
// slowlog-log-slower-than microseconds (-1 disables it, 0 logs everything),
// newest first. Entries keep copies of what they show; arguments are
// trimmed as Redis does (at most 32 arguments, the last one replaced by
// "... (N more arguments)"; an argument over 128 bytes is cut there and
// followed by "... (N more bytes)").
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace server {

class Client;
struct Command;

struct SlowlogEntry {
  uint64_t id = 0;
  int64_t unix_time = 0;    // seconds
  int64_t duration_us = 0;  // time the command ran
  std::vector<std::string> argv;
  std::string peer;  // client address as CLIENT LIST shows it
  std::string name;  // client name
};

constexpr size_t kSlowlogMaxArgs = 32;
constexpr size_t kSlowlogMaxArgLen = 128;

// The argument list an entry stores (trimmed as above); redacted[i] says
// which arguments are shown as "(redacted)" (see cmdlog.h).
std::vector<std::string> slowlogArgs(const std::vector<std::string_view>& argv,
                                     const std::vector<bool>& redacted);

class Slowlog {
 public:
  // Called for every executed command: logs it when the configuration says
  // so and trims to max_len.
  void maybeLog(Client* c, const Command& cmd, int64_t duration_us);
  void push(SlowlogEntry e, size_t max_len);
  void reset() { entries_.clear(); }
  size_t size() const { return entries_.size(); }
  const std::deque<SlowlogEntry>& entries() const { return entries_; }  // newest first

 private:
  std::deque<SlowlogEntry> entries_;
  uint64_t next_id_ = 0;
};

extern Slowlog g_slowlog;

}  // namespace server
