// What the command logs (SLOWLOG, MONITOR) show of a request: the
// arguments with secrets replaced by "(redacted)", as Redis 7.0 does for
// AUTH's arguments, HELLO's AUTH username and password, ACL SETUSER's user
// and rules, and CONFIG SET's value of a sensitive option (requirepass).
#pragma once

#include <string_view>
#include <vector>

namespace server {

struct Command;

// One flag per argument: true when the logs must hide it. cmd is the
// command that ran (a subcommand entry for CONFIG SET).
std::vector<bool> redactedArgs(const Command& cmd, const std::vector<std::string_view>& argv);

// False for commands the logs never show: QUIT (Redis 7.0 answers it before
// command lookup).
bool commandIsLogged(const Command& cmd);

constexpr std::string_view kRedacted = "(redacted)";

}  // namespace server
