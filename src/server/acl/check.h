// The permission check: may this user run this command with these
// arguments? Sits above the connection type (dispatch calls it for every
// transport alike), and is the one entry point for anything else that runs
// commands on a user's behalf (EXEC, and redis.call from scripts: call
// checkCommand with the script caller's user and report a denial with
// denialMessage / logDenial using context "lua").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/acl/user.h"
#include "server/core/client.h"
#include "server/core/command.h"

namespace server {
class Client;
}

namespace server::acl {

// Ordered as Redis ranks them: with several selectors, the denial of the
// one that got furthest is reported.
enum class Denial { kNone = 0, kCommand = 1, kKey = 2, kChannel = 4 };

struct CheckResult {
  Denial denial = Denial::kNone;
  size_t arg = 0;  // argv index of the key or channel denied
};

// argv[0] is the command name; cmd is the resolved (sub)command.
CheckResult checkCommand(const User& user, const server::Command& cmd,
                         const std::vector<std::string_view>& argv);

// Whether c's user may run its current command (c->cur_cmd) reading any
// key at all: SORT's BY and GET patterns name keys no check has seen, and
// Redis 7.0 allows them only then.
bool hasFullKeyAccess(server::Client* c);

// "-NOPERM this user has no permissions to ..." as Redis 7.0.15 words it.
std::string denialMessage(Denial d, const server::Command& cmd);
// ACL DRYRUN's wording: "This user has no permissions to access the 'k' key".
std::string dryRunMessage(const CheckResult& r, const server::Command& cmd,
                          const std::vector<std::string_view>& argv);
// Adds the ACL LOG entry for a denial.
void logDenial(server::Client* c, const User& user, const CheckResult& r,
               const server::Command& cmd, const std::vector<std::string_view>& argv,
               std::string_view context);

// For dispatch: checks c's user; on denial replies -NOPERM, logs it and
// returns false. context: "toplevel" or "multi" (queuing in MULTI). The
// unrestricted user (default) is answered inline: it costs a load and a
// test per command. For a one-selector user and a command with its one key
// at a fixed place (GET, SET, HSET ...) the check is a bit test and one
// pattern match (about 80-120 instructions); denials and other shapes take
// the generic walk.
bool checkClientSlow(server::Client* c, const server::Command& cmd, std::string_view context);
inline bool checkClient(server::Client* c, const server::Command& cmd, std::string_view context) {
  const User* u = c->acl_user.get();
  if (u == nullptr || u->unrestricted()) return true;
  return checkClientSlow(c, cmd, context);
}
// For EXEC (rules may have changed since queuing): the same check, with
// Redis's "ACLs rules changed ..." reply.
bool checkClientAtExec(server::Client* c, const server::Command& cmd);

}  // namespace server::acl
