// Server configuration: every option with its Redis name, type, bounds and
// whether CONFIG SET may change it. Sources, in order: the config file, then
// `--name value` command-line arguments (appended as if they were lines of
// the file), then CONFIG SET at run time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace server {

struct Config {
  std::vector<std::string> bind = {"*", "-::*"};
  int64_t port = 6379;
  std::string unixsocket;
  int64_t unixsocketperm = 0;
  int64_t tcp_backlog = 511;
  int64_t tcp_keepalive = 300;
  int64_t timeout = 0;
  bool protected_mode = true;
  std::string requirepass;
  int64_t maxclients = 10000;
  int64_t databases = 16;
  int64_t hz = 10;
  std::string loglevel = "notice";
  std::string logfile;
  std::string dir;
  std::string pidfile;
  int64_t proto_max_bulk_len = 512ll * 1024 * 1024;
  int64_t client_query_buffer_limit = 1024ll * 1024 * 1024;
  std::string save;  // accepted for compatibility; no persistence (see redis.conf)
  bool appendonly = false;
  int64_t active_expire_effort = 1;
  bool activerehashing = true;
  // RDMA transport (rdma-*): handed to the "rdma" connection type.
  int64_t rdma_port = 0;
  std::vector<std::string> rdma_bind;  // empty: same as bind
  int64_t rdma_rx_size = 1024 * 1024;
  int64_t rdma_completion_vector = -1;
};

// Parses config text (a file's contents plus the command-line lines). On
// error returns false with *err holding Redis's multi-line fatal message
// (file line, the offending line and the reason).
bool loadConfigText(Config* cfg, const std::string& text, std::string* err);
// Reads a file ("-" = stdin) and appends extra lines; then loadConfigText.
bool loadConfig(Config* cfg, const std::string& path, const std::string& extra, std::string* err);

// CONFIG SET name value: validates and stores; *err is the reason for a
// failure (the caller wraps it in Redis's "CONFIG SET failed" sentence).
// *unknown is set when no such mutable option exists.
bool configSet(Config* cfg, const std::string& name, const std::vector<std::string>& values,
               std::string* err, bool* unknown, bool* immutable);
// CONFIG GET: (name, value) pairs of options matching the glob pattern.
std::vector<std::pair<std::string, std::string>> configGet(const Config& cfg,
                                                           const std::string& pattern);
// Called after an option changed at run time (applies it to the server).
using ConfigApplyHook = bool (*)(const std::string& name, std::string* err);
void setConfigApplyHook(ConfigApplyHook hook);

}  // namespace server
