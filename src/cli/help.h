// Interactive help of redis-cli, built from the server's COMMAND DOCS as
// redis-cli 7.2 does: "help <command> [subcommand]" prints the command's
// syntax, summary, since and group; "help @<group>" does so for every
// command of a group. Also the argument-syntax line itself, which tests and
// completion share.
#pragma once

#include <string>
#include <vector>

#include "cli/session.h"
#include "resp/reply.h"

namespace cli {

// The syntax line of a COMMAND DOCS "arguments" array, as redis-cli writes
// it: "key value [NX|XX] [GET] [EX seconds|PX milliseconds|...]". Accepts
// RESP2 (flat key/value arrays) and RESP3 maps alike.
std::string renderArguments(const resp::Reply& arguments);

// Handles "help ..." typed in line mode (topics = the words after "help").
// Prints to stdout; colours (bold name, grey syntax, yellow labels) only
// when `color`. Returns false when the connection was lost.
bool printHelp(Session* session, const std::vector<std::string>& topics, bool color);

}  // namespace cli
