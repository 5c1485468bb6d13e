// Command-line options of redis-cli, parsed the way redis-cli 7.0 parses
// them: options come first, the first argument not starting with '-' starts
// the command; an option missing its value or unknown is an error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/format.h"
#include "client/client.h"

namespace cli {

struct Options {
  client::Endpoint endpoint;        // type "tcp", "unix" (-s) or "rdma" (--rdma)
  std::optional<std::string> user;  // --user or URI user (AUTH user pass)
  std::optional<std::string> auth;
  bool auth_from_cli = false;  // -a/--pass/-u (warn about the command line)
  bool no_auth_warning = false;
  int db = 0;
  int64_t repeat = 1;  // -r; negative: forever
  int64_t interval_us = 0;
  bool stdin_last_arg = false;  // -x
  std::string stdin_tag;        // -X <tag>
  int resp = 2;
  bool resp_set = false;    // -2 / -3 given: send HELLO
  bool output_set = false;  // --raw/--no-raw/--csv given explicitly
  FormatOptions format;
  bool exit_on_error = false;  // -e
  bool cluster = false;        // -c: accepted, redirections are not followed
  bool quoted_input = false;
  bool verbose = false;
  std::optional<bool> show_pushes;
  std::vector<std::string> args;  // the command, if any
};

enum class ParseOutcome { kRun, kExitOk, kExitError };

// Parses argv (argv[0] is the program). Messages for --help/--version and
// errors are printed here; the caller exits on anything but kRun.
ParseOutcome parseOptions(int argc, char** argv, Options* opt);

// redis://[[user]:pass@]host[:port][/db]. Prints the error and returns false
// on a bad URI.
bool parseUri(const std::string& uri, Options* opt);

const char* cliVersion();
void printUsage();

}  // namespace cli
