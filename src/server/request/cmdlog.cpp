#include "server/request/cmdlog.h"

#include <cstring>

#include "common/strutil.h"
#include "server/conf/config.h"
#include "server/core/command.h"

namespace server {

bool commandIsLogged(const Command& cmd) {
  return strcmp(cmd.name, "quit") != 0;
}

std::vector<bool> redactedArgs(const Command& cmd, const std::vector<std::string_view>& argv) {
  std::vector<bool> mask(argv.size(), false);
  if (strcmp(cmd.name, "auth") == 0) {
    for (size_t i = 1; i < argv.size(); i++) mask[i] = true;
  } else if (strcmp(cmd.name, "hello") == 0) {
    // HELLO [protover [AUTH username password] [SETNAME name]]
    for (size_t i = 2; i < argv.size(); i++) {
      if (common::strutil::equalsIgnoreCase(argv[i], "AUTH") && i + 2 < argv.size()) {
        mask[i + 1] = mask[i + 2] = true;
        i += 2;
      }
    }
  } else if (strcmp(cmd.name, "acl|setuser") == 0) {
    // The user name and every rule (passwords among them), as Redis 7.0.
    for (size_t i = 2; i < argv.size(); i++) mask[i] = true;
  } else if (strcmp(cmd.name, "migrate") == 0) {
    // MIGRATE ... [AUTH password | AUTH2 username password] [KEYS ...]
    for (size_t i = 6; i < argv.size(); i++) {
      if (common::strutil::equalsIgnoreCase(argv[i], "KEYS")) break;
      size_t n = common::strutil::equalsIgnoreCase(argv[i], "AUTH")    ? 1
                 : common::strutil::equalsIgnoreCase(argv[i], "AUTH2") ? 2
                                                                       : 0;
      for (size_t k = 1; k <= n && i + 1 < argv.size(); k++) mask[++i] = true;
    }
  } else if (strcmp(cmd.name, "config|set") == 0) {
    // CONFIG SET name value [name value ...]
    for (size_t i = 2; i + 1 < argv.size(); i += 2) {
      if (configIsSensitive(std::string(argv[i]))) mask[i + 1] = true;
    }
  }
  return mask;
}

}  // namespace server
