// Every command's argument syntax, in the notation arg_syntax.h reads (the
// syntax lines of the Redis 7.0 command reference, with types added), and
// the COMMAND INFO key specs and tips of those that have them.
#pragma once

#include <string_view>

#include "server/core/command.h"

namespace server {

// The syntax line of "get" or "client|list"; nullptr for a name the table
// does not have. Commands without arguments have "".
const char* commandSyntax(std::string_view full_name);

// COMMAND INFO's key specs for the command (server/core/key_spec.h notation;
// "" when it has no keys).
const char* commandKeySpecs(std::string_view full_name);

// COMMAND INFO's tips for the command, space separated ("" when none).
const char* commandTips(std::string_view full_name);

// True when the tables are in name order (a unit test checks it).
bool commandTablesSorted();

// Sets each registered command's (and subcommand's) `tips` and parses its
// key specs and syntax line into `key_specs` and `arguments`. A line that does not parse is a bug
// in the table: start-up stops with the command's name and the reason.
void attachCommandDocs(CommandTable& t);

}  // namespace server
