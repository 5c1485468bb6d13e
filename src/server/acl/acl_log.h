// ACL LOG: the recent denials (commands, keys, channels) and failed AUTHs,
// newest first, at most acllog-max-len entries. A denial equal to a recent
// one (same reason, context, object and user, within 60 seconds) bumps
// that entry's count instead of adding one, as Redis 7.0 does.
#pragma once

#include <string_view>

namespace server {
class Client;
}

namespace server::acl {

enum class LogReason { kCommand, kKey, kChannel, kAuth };

// context: "toplevel", "multi" or "lua".
void aclLogAdd(server::Client* c, LogReason reason, std::string_view context,
               std::string_view object, std::string_view username);
// ACL LOG [count]: replies with up to count entries (all when < 0).
void aclLogReply(server::Client* c, long count);
void aclLogReset();
// Trims to acllog-max-len (after CONFIG SET).
void aclLogTrim();

}  // namespace server::acl
