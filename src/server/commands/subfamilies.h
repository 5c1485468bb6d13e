// Registration of the command files that belong to the string and key
// families but live in their own files. registerStringCommands and
// registerKeyCommands (families.h) call these, so the dispatcher's list of
// families stays as it is.
#pragma once

#include <string_view>

#include "server/core/command.h"
#include "server/db/db.h"

namespace server {

class Client;

void registerCounterCommands(CommandTable& t);    // INCR DECR INCRBY DECRBY INCRBYFLOAT
void registerLcsCommand(CommandTable& t);         // LCS
void registerExpireCommands(CommandTable& t);     // EXPIRE... TTL... PERSIST
void registerIterationCommands(CommandTable& t);  // KEYS SCAN RANDOMKEY

// Read lookup that leaves the access time alone (TYPE, TTL, OBJECT): lazy
// expiry and keyspace hit/miss statistics as lookupRead.
// notify_miss false: no "keymiss" notification (OBJECT, MEMORY USAGE, as
// Redis's LOOKUP_NONOTIFY).
db::Entry* lookupReadNoTouch(Client* c, std::string_view key, bool notify_miss = true);

}  // namespace server
