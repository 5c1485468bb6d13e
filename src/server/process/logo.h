// The start-up banner: an ASCII-art logo with version, mode, port and pid
// when always-show-logo is set, or when logging to a terminal (standard
// output is a tty, no logfile, no syslog); otherwise one
// "Running mode=<mode>, port=N." line, as Redis 7.0 decides.
#pragma once

#include <cstdint>
#include <string>

namespace server::process {

struct LogoInfo {
  std::string version;
  int64_t port = 0;
  int pid = 0;
  const char* mode = "standalone";  // or "cluster"
  bool always_show = false;
  bool to_terminal = false;  // logs go to a tty (no logfile, no syslog)
};

// The banner text (several lines, each ending in "\n").
std::string logoText(const LogoInfo& info);
// Logs the banner or the one-line summary.
void showLogo(const LogoInfo& info);

}  // namespace server::process
