// The Redis version this server is compatible with. Clients read it from
// INFO (redis_version) and HELLO to decide which commands they may use, so
// it names the Redis release whose commands and replies we implement.
#pragma once

namespace server {
inline constexpr const char* kRedisVersion = "7.0.15";
inline constexpr const char* kServerName = "redis";
}  // namespace server
