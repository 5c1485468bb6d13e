// Command-line options of redis-benchmark, compatible with Redis 7.0's
// redis-benchmark (option names and defaults), plus --rdma.
//
// Module bench/ (namespace bench): redis-benchmark. May include client/,
// event/ and common/ (transports only through client/'s endpoint
// options); included by nothing else (a program).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "client/client.h"

namespace bench {

struct Options {
  client::Endpoint endpoint;         // -h -p -s --rdma --tls
  std::optional<std::string> auth;   // -a
  std::optional<std::string> user;   // --user (needs -a)
  int clients = 50;                  // -c
  long long requests = 100000;       // -n
  int data_size = 3;                 // -d
  int dbnum = 0;                     // --dbnum
  bool resp3 = false;                // -3
  bool tracking = false;             // --tracking: CLIENT TRACKING ON per connection
  bool keepalive = true;             // -k 1|0
  long long keyspace = 0;            // -r (0: no __rand_int__ substitution)
  int pipeline = 1;                  // -P
  bool quiet = false;                // -q
  bool csv = false;                  // --csv
  bool loop = false;                 // -l
  int threads = 0;                   // --threads (0: run in the main thread)
  int busy_poll_us = 0;              // --busy-poll-us (0: sleep when idle)
  int precision = 3;                 // --precision: decimals of latencies in ms
  bool show_errors = true;           // error replies are printed (at most 1/s)
  bool stdin_last_arg = false;       // -x
  bool cluster = false;              // --cluster: keys go to their slot's master
  std::vector<std::string> tests;    // -t, lower case
  std::vector<std::string> command;  // a command given after the options
};

enum class ParseOutcome { kRun, kExitOk, kExitError };

// Parses argv into *opt; prints usage/errors itself.
ParseOutcome parseOptions(int argc, char** argv, Options* opt);
void printUsage();

}  // namespace bench
