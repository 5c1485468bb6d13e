// The open-files limit (RLIMIT_NOFILE) against maxclients, as Redis 7.0
// manages it: every client costs one descriptor and the server keeps
// kReservedFds more for listeners, the log, epoll and the like.
//
// At start the soft and hard limits are raised to maxclients + kReservedFds.
// When the system refuses, the highest limit it grants is kept (tried
// downwards in steps of 16) and maxclients is lowered to fit, with Redis's
// three warning lines; when not even the reserved descriptors fit, start-up
// stops. CONFIG SET maxclients to a larger value goes through the same
// raise and is refused ("The operating system is not able to handle the
// specified number of clients, try with N") when the limit cannot follow.
//
// Module limits/ (namespace server::limits): may include common/ only;
// included by the top (start-up) and commands/ (CONFIG SET maxclients).
#pragma once

#include <cstdint>
#include <string>

namespace server::limits {

constexpr int64_t kReservedFds = 32;

// Raises RLIMIT_NOFILE for *maxclients, lowering *maxclients when the
// system does not allow enough. Returns false (logged) when the server
// cannot start at all.
bool adjustOpenFilesLimit(int64_t* maxclients);

// CONFIG SET maxclients to *maxclients. Returns false with *err set
// (Redis's text) when the open-files limit cannot follow; the caller then
// restores the old value.
bool applyMaxclients(int64_t* maxclients, std::string* err);

}  // namespace server::limits
