// Command-line options of redis-cli, parsed the way redis-cli 7.0 parses
// them: options come first, the first argument not starting with '-' starts
// the command; an option missing its value or unknown is an error.
//
// Module cli/ (namespace cli; modes/ cli::modes): redis-cli. May include
// client/, resp/, event/ and common/ (transports only through client/'s
// endpoint options); included by nothing else (a program).
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/cluster/cluster.h"
#include "cli/format.h"
#include "client/client.h"
#include "client/endpoint.h"

namespace cli {

struct Options {
  client::Endpoint endpoint;  // type "tcp", "unix" (-s), "rdma" (--rdma) or "tls" (--tls)
  client::EndpointOptions endpoint_options;  // -s, --rdma, --tls, ... (rediss:// sets --tls)
  std::optional<std::string> user;           // --user or URI user (AUTH user pass)
  std::optional<std::string> auth;
  bool auth_from_cli = false;  // -a/--pass/-u (warn about the command line)
  bool no_auth_warning = false;
  int db = 0;
  int64_t repeat = 1;  // -r; negative: forever
  int64_t interval_us = 0;
  bool stdin_last_arg = false;           // -x
  std::optional<std::string> stdin_tag;  // -X <tag> (an empty tag is a tag too)
  int resp = 2;
  bool resp_set = false;    // -2 / -3 given: send HELLO
  bool output_set = false;  // --raw/--no-raw/--csv given explicitly
  FormatOptions format;
  bool exit_on_error = false;  // -e
  bool cluster = false;        // -c: follow -MOVED and -ASK redirections
  bool quoted_input = false;   // --quoted-input: one-shot args are unquoted when run
  bool verbose = false;
  std::optional<bool> show_pushes;
  std::vector<std::string> args;  // the command, if any

  // ---- special modes (cli/modes/); at most one runs, in redis-cli's order
  bool interval_set = false;  // -i given (modes have their own defaults)
  bool askpass = false;       // --askpass: read the password from the terminal
  bool latency = false;       // --latency
  bool latency_history = false;
  bool latency_dist = false;
  int64_t lru_test_keys = 0;  // --lru-test <keys>
  bool pipe = false;          // --pipe
  int pipe_timeout_s = 30;    // --pipe-timeout (0: wait forever)
  bool bigkeys = false;
  bool memkeys = false;
  int64_t memkeys_samples = 0;  // --memkeys-samples (0: the server's default)
  bool hotkeys = false;
  bool stat = false;
  bool scan = false;
  bool replica = false;      // --replica / --slave
  std::string rdb_filename;  // --rdb / --functions-rdb <file> ("-": stdout)
  bool rdb = false;
  bool functions_rdb = false;            // --functions-rdb: only the functions
  std::string pattern;                   // --pattern / --quoted-pattern (empty: every key)
  int64_t intrinsic_latency_s = 0;       // --intrinsic-latency <seconds>
  std::optional<std::string> eval_file;  // --eval <file>
  int busy_poll_us = 0;                  // --busy-poll-us: poll before sleeping for a reply
  cluster::Command cluster_command;      // --cluster <cmd> and --cluster-* (cli/cluster/)
};

enum class ParseOutcome { kRun, kExitOk, kExitError };

// Parses argv (argv[0] is the program). Messages for --help/--version and
// errors are printed here; the caller exits on anything but kRun.
ParseOutcome parseOptions(int argc, char** argv, Options* opt);

// redis://[[user]:pass@]host[:port][/db]. Prints the error and returns false
// on a bad URI.
bool parseUri(const std::string& uri, Options* opt);

// Whether stdout counts as a terminal: it is one, or FAKETTY is set in the
// environment (as redis-cli 7.0 allows, so that its tests see terminal
// formatting through a pipe). Decides the default output format, push
// messages and coloured help.
bool stdoutIsTerminal();

const char* cliVersion();
// To stdout (--help) or to stderr (a misused option, as redis-cli's usage(1)).
void printUsage(FILE* out = stdout);

}  // namespace cli
