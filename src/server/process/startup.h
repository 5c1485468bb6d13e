// What start-up and shutdown do to the process itself, in Redis 7.0's
// order: supervision and daemonizing before the listeners are opened; the
// pidfile, the title, the logo, the kernel settings and the
// not-implemented warnings after; the supervisor's READY=1 once the server
// accepts connections, STOPPING=1 at shutdown.
//
// Module process/ (namespace server::process): may include core/, conf/
// and common/; included by the top, conf/ (the title and the logo on
// CONFIG SET), persist/ (the child's OS tuning) and commands/.
#pragma once

#include <string>

#include "server/conf/config.h"
#include "server/process/proc_title.h"

namespace server::process {

// Syslog, supervision, daemonize, THP and CPU affinity. May fork (only the
// child returns). cfg.pidfile gets the default path when daemonized
// without one, as CONFIG GET pidfile then shows it.
void beforeListen(Config& cfg);
// Pidfile, process title, logo, oom_score_adj, and the
// warnings for options of features not implemented yet.
void afterListen(const Config& cfg, const std::string& executable, const std::string& config_file);
// INFO process_supervised: "systemd", "upstart" or "no".
const char* supervisedName();
// Tells a systemd supervisor the server is ready.
void ready();
// Tells a systemd supervisor the server is stopping.
void stopping();

// The template variables for the current configuration.
TitleVars titleVars(const Config& cfg, const std::string& title, const std::string& config_file);
// Sets the title from cfg's template when set-proc-title is on (start-up,
// CONFIG SET proc-title-template).
void updateProcTitle(const Config& cfg);

}  // namespace server::process
