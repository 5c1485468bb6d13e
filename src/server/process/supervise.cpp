#include "server/process/supervise.h"

#include <fcntl.h>
#include <signal.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/log.h"

namespace server::process {

Supervisor detectSupervisor(const std::string& mode) {
  bool upstart = mode == "upstart";
  bool systemd = mode == "systemd";
  if (mode == "auto") {
    if (getenv("UPSTART_JOB") != nullptr) {
      upstart = true;
    } else if (getenv("NOTIFY_SOCKET") != nullptr) {
      systemd = true;
    }
  }
  if (upstart) {
    if (getenv("UPSTART_JOB") == nullptr) {
      LOG_WARNING("upstart supervision requested, but UPSTART_JOB not found!");
      return Supervisor::kNone;
    }
    LOG_NOTICE("supervised by upstart, will stop to signal readiness.");
    raise(SIGSTOP);
    unsetenv("UPSTART_JOB");
    return Supervisor::kUpstart;
  }
  if (systemd) {
    if (getenv("NOTIFY_SOCKET") == nullptr) {
      LOG_WARNING(
          "systemd supervision requested or auto-detected, but NOTIFY_SOCKET environment "
          "variable not found!");
      return Supervisor::kNone;
    }
    LOG_NOTICE(
        "Supervised by systemd. Please make sure you set appropriate values for "
        "TimeoutStartSec and TimeoutStopSec in your service unit.");
    return Supervisor::kSystemd;
  }
  return Supervisor::kNone;
}

void daemonize() {
  pid_t pid = fork();
  if (pid == -1) {
    LOG_WARNING("Can't fork to daemonize: %s", strerror(errno));
    exit(1);
  }
  if (pid != 0) _exit(0);  // the parent: the child carries on
  setsid();
  int fd = open("/dev/null", O_RDWR);
  if (fd != -1) {
    dup2(fd, STDIN_FILENO);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    if (fd > STDERR_FILENO) close(fd);
  }
}

std::string pidfilePath(const std::string& configured, bool daemonized) {
  if (!configured.empty()) return configured;
  return daemonized ? kDefaultPidfile : "";
}

void writePidfile(const std::string& path) {
  FILE* f = fopen(path.c_str(), "w");
  if (f == nullptr) {
    LOG_WARNING("Failed to write PID file: %s", strerror(errno));
    return;
  }
  fprintf(f, "%d\n", static_cast<int>(getpid()));
  fclose(f);
}

void notifySupervisor(Supervisor s, const std::string& message) {
  if (s != Supervisor::kSystemd) return;
  int r = sd_notify(0, message.c_str());
  if (r < 0) LOG_WARNING("sd_notify failed: %s", strerror(-r));
}

}  // namespace server::process
