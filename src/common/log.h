// Process-wide logging in Redis's line format:
//   "<pid>:<role> <dd Mon yyyy HH:MM:SS.mmm> <level-char> <message>"
// with level chars '.' debug, '-' verbose, '*' notice, '#' warning.
// Messages below the configured level cost one comparison.
#pragma once

#include <string>

namespace common::logging {

enum Level : int { kDebug = 0, kVerbose = 1, kNotice = 2, kWarning = 3, kNothing = 4 };

// Returns false for an unknown name.
bool parseLevel(const std::string& name, Level* out);
const char* levelName(Level l);
void setLevel(Level l);
Level level();
// Empty path = standard output. Returns false (and keeps the old target) if
// the file cannot be opened; *err says why.
bool setFile(const std::string& path, std::string* err);
void setRole(char role);  // 'M' master, 'C' child, ...
// Also sends every line to syslog(3) under `ident` and `facility` ("user",
// "local0".."local7"; others mean local0), as syslog-enabled does.
void enableSyslog(const std::string& ident, const std::string& facility);
char role();
// The descriptor lines go to (the log file, else standard output), for
// signal handlers that must write without stdio. Every logf() line is
// flushed, so nothing written through it is left buffered.
int outputFd();

// Writes text as it is, without the line prefix (the start-up logo).
void raw(Level l, const std::string& text);
void logf(Level l, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
inline bool enabled(Level l) {
  return l >= level();
}

}  // namespace common::logging

#define LOG_AT(lvl, ...)                                                            \
  do {                                                                              \
    if (::common::logging::enabled(lvl)) ::common::logging::logf(lvl, __VA_ARGS__); \
  } while (0)
#define LOG_DEBUG(...) LOG_AT(::common::logging::kDebug, __VA_ARGS__)
#define LOG_VERBOSE(...) LOG_AT(::common::logging::kVerbose, __VA_ARGS__)
#define LOG_NOTICE(...) LOG_AT(::common::logging::kNotice, __VA_ARGS__)
#define LOG_WARNING(...) LOG_AT(::common::logging::kWarning, __VA_ARGS__)
