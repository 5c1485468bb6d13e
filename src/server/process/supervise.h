// Running as a daemon or under a service manager, as Redis 7.0 does:
//   - daemonize yes: fork (the parent exits 0), new session, standard
//     input/output/error on /dev/null; skipped when supervised, since a
//     supervisor tracks the process it started.
//   - supervised systemd|upstart|auto|no: systemd gets sd_notify(3) status
//     messages (READY=1 once accepting connections, STOPPING=1 at
//     shutdown); upstart gets SIGSTOP once, as "expect stop" waits for.
//   - pidfile: written when set, or at /var/run/redis.pid when daemonized
//     without one; failure to write it is logged, not fatal.
#pragma once

#include <string>

namespace server::process {

enum class Supervisor { kNone, kUpstart, kSystemd };

// Resolves the supervised mode ("no", "upstart", "systemd", "auto") against
// the environment (UPSTART_JOB, NOTIFY_SOCKET), logging as Redis does.
// Upstart supervision stops the process (SIGSTOP) here, before returning.
Supervisor detectSupervisor(const std::string& mode);

// Forks into the background; only the child returns.
void daemonize();

// The pidfile to write: `configured`, else the default when daemonized,
// else "" (none).
std::string pidfilePath(const std::string& configured, bool daemonized);
constexpr const char kDefaultPidfile[] = "/var/run/redis.pid";
// Writes the current pid to path; logs a warning when it cannot.
void writePidfile(const std::string& path);

// Sends one sd_notify message ("READY=1", "STATUS=...") when supervised by
// systemd; does nothing otherwise.
void notifySupervisor(Supervisor s, const std::string& message);

}  // namespace server::process
