#include "common/syslog_sink.h"

#include <syslog.h>

namespace common::logging::syslog_sink {

void open(const std::string& ident, const std::string& facility) {
  static const struct {
    const char* name;
    int value;
  } kFacilities[] = {{"user", LOG_USER},     {"local0", LOG_LOCAL0}, {"local1", LOG_LOCAL1},
                     {"local2", LOG_LOCAL2}, {"local3", LOG_LOCAL3}, {"local4", LOG_LOCAL4},
                     {"local5", LOG_LOCAL5}, {"local6", LOG_LOCAL6}, {"local7", LOG_LOCAL7}};
  int value = LOG_LOCAL0;
  for (const auto& f : kFacilities) {
    if (facility == f.name) value = f.value;
  }
  // openlog keeps the pointer: the copy lives as long as the process.
  static std::string kept;
  kept = ident;
  openlog(kept.c_str(), LOG_PID | LOG_NDELAY | LOG_NOWAIT, value);
}

void write(int level, const char* msg) {
  static const int kPriorities[] = {LOG_DEBUG, LOG_INFO, LOG_NOTICE, LOG_WARNING};
  if (level < 0 || level > 3) return;
  syslog(kPriorities[level], "%s", msg);
}

}  // namespace common::logging::syslog_sink
