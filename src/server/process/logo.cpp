#include "server/process/logo.h"

#include <cstdio>

#include "common/log.h"

namespace server::process {

std::string logoText(const LogoInfo& info) {
  // Our own drawing: a stack of three discs, the second one with a wire to
  // the side (a key-value store with a fast link).
  char buf[1024];
  snprintf(buf, sizeof(buf),
           "\n"
           "          .-=========-.\n"
           "         (_____________)        Redis-compatible server %s, 64 bit\n"
           "         |  .-------.  |\n"
           "         (_|  K : V  |_)=====   Running in %s mode\n"
           "         |  '-------'  |        Port: %lld\n"
           "         (_____________)        PID: %d\n"
           "          '-=========-'\n"
           "\n",
           info.version.c_str(), info.mode, static_cast<long long>(info.port), info.pid);
  return buf;
}

void showLogo(const LogoInfo& info) {
  if (info.always_show || info.to_terminal) {
    common::logging::raw(common::logging::kNotice, logoText(info));
  } else {
    LOG_NOTICE("Running mode=%s, port=%lld.", info.mode, static_cast<long long>(info.port));
  }
}

}  // namespace server::process
