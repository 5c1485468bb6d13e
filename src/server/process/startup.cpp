#include "server/process/startup.h"

#include <unistd.h>

#include <cstring>

#include "common/log.h"
#include "server/conf/unimplemented.h"
#include "server/core/version.h"
#include "server/process/logo.h"
#include "server/process/os_tuning.h"
#include "server/process/supervise.h"

namespace server::process {

namespace {

Supervisor g_supervisor = Supervisor::kNone;
std::string g_executable;
std::string g_config_file;

}  // namespace

TitleVars titleVars(const Config& cfg, const std::string& title, const std::string& config_file) {
  TitleVars v;
  v.title = title;
  // The TLS port is a setting of its connection type, read by name.
  auto tls = configGet(cfg, "tls-port");
  v.tls_port = tls.empty() ? "0" : tls[0].second;
  // As Redis: the TCP port, else the TLS one.
  std::string port = cfg.port != 0 ? std::to_string(cfg.port) : v.tls_port;
  if (port != "0") {
    std::string addr = cfg.bind.empty() ? "*" : cfg.bind[0];
    // "-" marks an optional address in bind; it is not part of it.
    if (!addr.empty() && addr[0] == '-') addr = addr.substr(1);
    v.listen_addr = addr + ":" + port;
  } else {
    v.listen_addr = cfg.unixsocket;
  }
  v.port = std::to_string(cfg.port);
  v.unixsocket = cfg.unixsocket;
  v.config_file = config_file.empty() ? "-" : config_file;  // Redis shows "-" for none
  return v;
}

void updateProcTitle(const Config& cfg) {
  if (!cfg.set_proc_title) return;
  std::string title;
  if (expandProcTitle(cfg.proc_title_template, titleVars(cfg, g_executable, g_config_file),
                      &title)) {
    setProcTitle(title);
  }
}

void beforeListen(Config& cfg) {
  if (cfg.syslog_enabled) common::logging::enableSyslog(cfg.syslog_ident, cfg.syslog_facility);
  g_supervisor = detectSupervisor(cfg.supervised);
  bool background = cfg.daemonize && g_supervisor == Supervisor::kNone;
  if (background) daemonize();
  cfg.pidfile = pidfilePath(cfg.pidfile, background);
  if (cfg.disable_thp) disableTransparentHugePages();
  if (!cfg.server_cpulist.empty()) setCpuAffinity(cfg.server_cpulist);
}

void afterListen(const Config& cfg, const std::string& executable, const std::string& config_file) {
  g_executable = executable;
  g_config_file = config_file;
  if (!cfg.pidfile.empty()) writePidfile(cfg.pidfile);
  updateProcTitle(cfg);
  LogoInfo logo;
  logo.version = kRedisVersion;
  logo.port = cfg.port;
  logo.pid = static_cast<int>(getpid());
  if (cfg.cluster_enabled) logo.mode = "cluster";
  logo.always_show = cfg.always_show_logo;
  logo.to_terminal = !cfg.syslog_enabled && cfg.logfile.empty() && isatty(STDOUT_FILENO);
  showLogo(logo);
  if (cfg.oom_score_adj != "no") {
    if (!applyServerOomScoreAdj(cfg)) {
      LOG_WARNING("Failed to apply oom-score-adj %s", cfg.oom_score_adj.c_str());
    }
  }
  conf::logUnimplemented(cfg);
  // As Redis says before it loads its data (the same place here).
  notifySupervisor(g_supervisor, "STATUS=Redis is loading...");
}

const char* supervisedName() {
  switch (g_supervisor) {
    case Supervisor::kSystemd:
      return "systemd";
    case Supervisor::kUpstart:
      return "upstart";
    case Supervisor::kNone:
      break;
  }
  return "no";
}

void ready() {
  notifySupervisor(g_supervisor, "STATUS=Ready to accept connections");
  notifySupervisor(g_supervisor, "READY=1");
}

void stopping() {
  notifySupervisor(g_supervisor, "STOPPING=1");
}

}  // namespace server::process
