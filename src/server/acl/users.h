// The set of ACL users and how clients get one: the default user (whose
// password requirepass sets), `user` lines of redis.conf, the aclfile
// (ACL LOAD / ACL SAVE), authentication, and closing the clients of a
// user that is deleted or replaced.
//
// Clients hold a shared_ptr to their user: ACL SETUSER edits the user in
// place, so its new rules apply to connected clients at once (as Redis
// 7.0); ACL DELUSER and ACL LOAD close the clients of the users they drop.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/acl/user.h"

namespace server {
class Client;
}

namespace server::acl {

using UserPtr = std::shared_ptr<User>;

// Builds the catalog and the users from the configuration (requirepass,
// `user` lines or aclfile). False with *err (Redis's start-up message).
bool init(std::string* err);

UserPtr findUser(std::string_view name);
const UserPtr& defaultUser();
const std::map<std::string, UserPtr, std::less<>>& allUsers();

// Creates the user if missing and applies the rules in order; all or
// nothing. *err is the whole error reply text (without "ERR ").
// Clients of the user subscribed to channels it may no longer use are
// closed (`caller` after its reply).
bool setUser(std::string_view name, const std::vector<std::string_view>& rules, std::string* err,
             server::Client* caller);
// Removes the user and closes its clients (`caller` gets its reply
// first). False for "default".
bool deleteUser(std::string_view name, server::Client* caller);

// The user if name/pass open it (enabled, password matches), else null.
// A failure is logged to the ACL LOG against `c`.
UserPtr authenticate(server::Client* c, std::string_view name, std::string_view pass);
// Binds a client to a user and marks it authenticated.
void authenticateClient(server::Client* c, UserPtr user);
// New clients start as the default user, authenticated when it is
// enabled and needs no password.
void attachDefaultUser(server::Client* c);
// Whether the default user has no password (protected mode).
bool defaultUserIsOpen();

// requirepass (start-up and CONFIG SET): the default user's password.
void applyRequirepass(const std::string& pass);

// ACL LOAD: replaces every user with the aclfile's, closing the clients
// of users that are replaced (`caller` after its reply, as Redis). ACL
// SAVE: writes the users to it.
bool loadAclFile(server::Client* caller, std::string* err);
bool saveAclFile(std::string* err);

}  // namespace server::acl
