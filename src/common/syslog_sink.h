// syslog(3) behind names that do not clash: <syslog.h> defines LOG_DEBUG,
// LOG_NOTICE and LOG_WARNING as constants, which log.h uses as macros.
#pragma once

#include <string>

namespace common::logging::syslog_sink {

// facility: "user", "local0".."local7" (anything else: local0).
void open(const std::string& ident, const std::string& facility);
// level: 0 debug, 1 verbose, 2 notice, 3 warning (common::logging::Level).
void write(int level, const char* msg);

}  // namespace common::logging::syslog_sink
