// The ACL module's entry points for the rest of the server: registering
// the ACL command. The model is in user.h, the users in users.h, the
// permission check in check.h, ACL LOG in acl_log.h.
#pragma once

#include "server/core/command.h"

namespace acl {

// Adds ACL and its subcommands (acl_cmd.cpp).
void registerAclCommand(server::CommandTable& t);

}  // namespace acl
