// Small helpers that replies and reports of every family use: the HELP
// subcommand reply, printf-style appending and Redis's human byte counts.
// Part of core/: includes nothing of the server; anyone may include it.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace server {

class Client;

// The reply of a HELP subcommand (ACL HELP, CONFIG HELP, ...): an array of
// one status line per entry of `lines`.
void replyHelp(Client* c, std::span<const char* const> lines);

// printf-style append.
void appendFormat(std::string* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// Redis's human form of a byte count: "0B", "895.02K", "1.50M", "23.54G".
std::string bytesToHuman(uint64_t n);

}  // namespace server
