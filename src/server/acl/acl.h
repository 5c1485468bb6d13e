// The ACL module's entry points for the rest of the server: registering
// the ACL command. The model is in user.h, the users in users.h, the
// permission check in check.h, ACL LOG in acl_log.h.
//
// Module acl/ (namespace server::acl): owns users, their permissions,
// the ACL file and ACL LOG. May include core/, conf/ and pubsub/ (channel
// permissions), and below; the one include that runs up is client_info.h
// from request/ (ACL LOG's client description). Included by dispatch
// (check.h), request/ and script/ (check.h: EXEC and redis.call run the
// same check), commands/ (users.h for AUTH and HELLO) and the top.
#pragma once

#include "server/core/command.h"

namespace server::acl {

// Adds ACL and its subcommands (acl_cmd.cpp).
void registerAclCommand(server::CommandTable& t);

}  // namespace server::acl
