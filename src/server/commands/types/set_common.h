// Helpers shared by the set command files (sets.cpp, set_algebra.cpp).
#pragma once

#include <string_view>

#include "server/db/set.h"

namespace server {

class Client;

// The set-max-* limits from the config.
db::SetLimits setLimits();
// The set at key for a read: nullptr when absent or of another type
// (*wrongtype tells which; WRONGTYPE is already replied).
db::Set* setForRead(Client* c, std::string_view key, bool* wrongtype);

}  // namespace server
