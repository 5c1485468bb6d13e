#include "server/core/state.h"

#include "common/hash.h"
#include "server/core/client.h"
#include "server/core/version.h"

namespace server {

Server* g_server = nullptr;

namespace {
constexpr size_t kSharedQueryBuffer = 64 * 1024;
}  // namespace

const char* kVersion() {
  return kRedisVersion;
}

void Stats::countError(std::string_view msg) {
  total_error_replies++;
  constexpr size_t kMaxErrorCodes = 128;
  std::string_view code = "ERR";
  if (!msg.empty() && msg[0] == '-') {
    size_t end = msg.find(' ');
    code = msg.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1);
  }
  auto it = error_codes.find(code);
  if (it != error_codes.end()) {
    it->second++;
  } else if (error_codes.size() < kMaxErrorCodes) {
    error_codes.emplace(std::string(code), 1);
  }
}

int64_t uptimeSeconds() {
  return (db::Clock::nowMs - g_server->stats.start_time_ms) / 1000;
}

Server::Server() {
  g_server = this;
  g_config = &config;
  g_commands = &commands;
  shared_qbuf.resize(kSharedQueryBuffer);
  db::Clock::update();
  stats.start_time_ms = db::Clock::nowMs;
  static const char hex[] = "0123456789abcdef";
  for (int i = 0; i < 40; i++) run_id[i] = hex[common::randomU64() & 15];
}

Server::~Server() {
  for (Client* c : clients) delete c;
  clients.clear();
  g_server = nullptr;
  g_config = nullptr;
  g_commands = nullptr;
}

bool Server::rebindListeners(std::string* err) {
  *err = "no listeners in this process";
  return false;
}

}  // namespace server
