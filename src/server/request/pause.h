// CLIENT PAUSE: holds clients' requests back for a while without blocking
// the event loop. A held request stays unparsed in its client's query
// buffer (Client::kPostponed), so it and everything the client sent after
// it run later, in order, when the pause ends (timeout or CLIENT UNPAUSE).
//
// Modes (Redis 7.0): ALL holds every command; WRITE holds commands that may
// write (write or may-replicate flags, and EXEC) and lets the others
// through; commands queued in MULTI are held the same way. A client
// already holding a request holds everything after it. Monitors are never
// paused (Redis exempts replicas, which monitors count as). A new pause
// extends the end time and keeps the stricter mode. While any pause lasts
// keys do not expire (db::Db::expiry_paused): they read as absent once
// their time has passed and are deleted after the pause.
#pragma once

#include <cstddef>
#include <cstdint>

namespace server {

class Client;
struct Command;

namespace pause {

enum class Mode { kOff, kWrite, kAll };

// Starts or extends a pause until end_ms (ms since the epoch).
void start(Mode mode, int64_t end_ms);
// Ends the pause now; held clients resume from the event loop (after the
// current command's reply).
void stop();
// FAILOVER, a SHUTDOWN waiting for lagging replicas, and a cluster master
// a replica asked for a manual failover (CLUSTER FAILOVER) hold writes (as
// a WRITE pause without an end) until they are done or aborted; CLIENT
// PAUSE and UNPAUSE neither end nor shorten them, nor do they each other's.
enum class Hold : unsigned { kFailover = 1, kShutdown = 2, kClusterFailover = 4 };
void holdWrites(Hold who, bool hold);
// Read by the dispatcher before every command: inline, one load.
namespace detail {
extern Mode g_mode;  // written only by pause.cpp
}
inline bool active() {
  return detail::g_mode != Mode::kOff;
}
inline Mode mode() {
  return detail::g_mode;
}

// The dispatcher's gate: true when c's request for cmd must wait (c is then
// flagged kPostponed and queued).
bool shouldPostpone(Client* c, const Command& cmd);
// Called when a held client goes away (a client close hook).
void forget(Client* c);
// Clients holding a request (counted in INFO blocked_clients, as Redis
// counts its postponed clients).
size_t heldCount();

}  // namespace pause
}  // namespace server
