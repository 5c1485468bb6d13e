// Keyspace notifications (notify-keyspace-events): Pub/Sub messages the
// server publishes when keys change, as Redis 7.0 does.
//
// Every event has a class (one of the flags below) and a name ("set",
// "lpush", "expired" ...). When the configured flags include the event's
// class and K (keyspace) and/or E (keyevent), keyspaceEvent publishes
//   K: channel "__keyspace@<db>__:<key>",   message <event>
//   E: channel "__keyevent@<db>__:<event>", message <key>
// through the ordinary Pub/Sub delivery (RESP2 messages, RESP3 pushes, any
// transport). With no subscriber class enabled it returns at once.
//
// Callers: commands (next to their keyModified call), the expiry hook
// ("expired"), db::Db's key-added hook ("new") and, through the same
// public function, eviction ("evicted", class kEvicted).
#pragma once

#include <string>
#include <string_view>

namespace server {
class Client;
}

namespace server::notify {

// The flag letters, in Redis 7.0's bit order.
enum : int {
  kKeyspace = 1 << 0,  // K
  kKeyevent = 1 << 1,  // E
  kGeneric = 1 << 2,   // g: del expire rename_* move_* copy_to persist ...
  kString = 1 << 3,    // $
  kList = 1 << 4,      // l
  kSet = 1 << 5,       // s
  kHash = 1 << 6,      // h
  kZset = 1 << 7,      // z
  kExpired = 1 << 8,   // x
  kEvicted = 1 << 9,   // e
  kStream = 1 << 10,   // t
  kKeyMiss = 1 << 11,  // m (not part of A)
  kModule = 1 << 13,   // d (accepted; this server has no modules)
  kNew = 1 << 14,      // n (not part of A)
  // A: every class but m and n.
  kAll =
      kGeneric | kString | kList | kSet | kHash | kZset | kExpired | kEvicted | kStream | kModule,
};

// Parses a notify-keyspace-events value. False for a character outside
// "Ag$lshzxeKEtmdn" (*out untouched).
bool parseFlags(std::string_view s, int* out);
// The canonical string CONFIG GET shows: "A" when every class of A is set
// (n is then not shown, as Redis 7.0 prints it), else the class letters in
// the order g$lshzxetdn, then K, E, m.
std::string flagsToString(int flags);

// The classes in effect (the server's notify-keyspace-events).
int enabledFlags();

// Publishes event for key in db dbid if the configured flags enable it.
void keyspaceEvent(int type, std::string_view event, std::string_view key, int dbid);
// The same for the client's current db.
void keyEvent(Client* c, int type, std::string_view event, std::string_view key);

}  // namespace server::notify
