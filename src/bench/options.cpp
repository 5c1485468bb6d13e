#include "bench/options.h"

#include <strings.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "client/endpoint.h"

namespace bench {

void printUsage() {
  // Our own wording; the option names and defaults are those of 7.0.
  fprintf(stdout,
          "Usage: redis-benchmark [OPTIONS] [COMMAND ARGS...]\n"
          "\n"
          "Options:\n"
          " -h <hostname>      Server host name (default 127.0.0.1).\n"
          " -p <port>          Server port (default 6379).\n"
          " -s <socket>        Unix socket path (overrides host and port).\n"
          " --rdma             Connect over RDMA (the 'rdma' connection type).\n"
          " --rdma-dialect <d> RDMA dialect: auto (default: detected from the server),\n"
          "                    ours, seed (the 2021 prototype) or valkey. See RDMA.md.\n"
          " --rdma-keepalive-interval <ms>  Liveness probe period over RDMA (default\n"
          "                    3000, 0 = off): a server that vanished without a\n"
          "                    disconnect fails its clients within two periods.\n"
          " --rdma-flow-control <yes|no>  Offer our server flow control (credited\n"
          "                    rings that grow and shrink; default yes). See RDMA.md.\n"
          "%s"
          " -a <password>      Password for AUTH.\n"
          " --user <username>  ACL user name: sends AUTH <user> <pass>. Needs -a.\n"
          " -c <clients>       Number of parallel connections (default 50).\n"
          " -n <requests>      Total number of requests (default 100000).\n"
          " -d <size>          Value size of SET/GET and friends in bytes (default 3).\n"
          " --dbnum <db>       SELECT this database number first (default 0).\n"
          " -3                 Speak RESP3 (HELLO 3 on each connection).\n"
          " --tracking         CLIENT TRACKING ON on each connection (client-side\n"
          "                    caching: the server remembers the keys read).\n"
          " --threads <num>    Run the clients on this many threads, one event loop each.\n"
          " --busy-poll-us <us>\n"
          "                    Before an event loop sleeps, poll for up to this many\n"
          "                    microseconds (RDMA completion queues directly): replies\n"
          "                    are picked up without a wake-up, at the cost of a busy\n"
          "                    core per thread. 0 (default): off.\n"
          " -k <boolean>       1: keep connections alive, 0: reconnect after each\n"
          "                    request (default 1).\n"
          " -r <keyspacelen>   Replace each __rand_int__ in the commands by a 12-digit\n"
          "                    random number in [0, keyspacelen), anew for every\n"
          "                    request. Without -r every request uses the same key.\n"
          " -P <numreq>        Pipeline <numreq> requests (default 1: no pipelining).\n"
          " -q                 Quiet: only the requests per second of each test.\n"
          " --precision <n>    Decimal places of latencies in milliseconds (default 3).\n"
          " --csv              Print the results as CSV.\n"
          " -l                 Loop: run the tests forever.\n"
          " -t <tests>         Only run this comma-separated list of tests (names as\n"
          "                    printed, case-insensitive). Ignored when a command is\n"
          "                    given after the options.\n"
          " -x                 Read the last argument of the command from stdin.\n"
          " --cluster          Cluster mode: the masters are read from the node at\n"
          "                    -h/-p (CLUSTER NODES); the clients are spread over them\n"
          "                    (one thread per master unless --threads says otherwise)\n"
          "                    and each key carries a {tag} of a slot its master owns.\n"
          "                    A command given on the command line must hold \"{tag}\"\n"
          "                    in its keys to reach the right node. On -MOVED/-ASK the\n"
          "                    slots are read again (CLUSTER SLOTS).\n"
          " --help             Print this help and exit.\n"
          " --version          Print the version and exit.\n"
          "\n"
          "Tests (all run by default, in this order): ping_inline, ping_mbulk, set,\n"
          "get, incr, lpush, rpush, lpop, rpop, sadd, hset, spop, zadd, zpopmin,\n"
          "lrange_100, lrange_300, lrange_500, lrange_600, mset. The lrange tests run\n"
          "lpush first to fill the list. 'ping' selects both ping tests, 'lrange'\n"
          "all four lrange tests.\n"
          "\n"
          "Examples:\n"
          "  redis-benchmark -p 6380 -t set,get -n 100000 -q\n"
          "  redis-benchmark -c 100 -P 16 --threads 2 -t set -r 1000000\n"
          "  redis-benchmark -r 10000 -n 10000 lpush mylist __rand_int__\n",
          client::tlsUsage(" ").c_str());
}

namespace {

bool parseLong(const char* s, long long lo, long long hi, long long* out) {
  errno = 0;
  char* end = nullptr;
  long long v = strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

void splitTests(const char* list, std::vector<std::string>* out) {
  std::string cur;
  for (const char* p = list;; p++) {
    if (*p == ',' || *p == '\0') {
      if (!cur.empty()) out->push_back(cur);
      cur.clear();
      if (*p == '\0') break;
    } else {
      cur.push_back(static_cast<char>(tolower(static_cast<unsigned char>(*p))));
    }
  }
}

}  // namespace

ParseOutcome parseOptions(int argc, char** argv, Options* opt) {
  client::EndpointOptions conn;  // -s, --rdma, --rdma-<setting>, --tls, ...
  int i = 1;
  for (; i < argc; i++) {
    const char* a = argv[i];
    bool has_next = i + 1 < argc;
    auto is = [a](const char* name) { return strcmp(a, name) == 0; };
    auto needsArg = [&]() {
      if (has_next) return true;
      fprintf(stderr, "Invalid option \"%s\" or option argument missing\n\n", a);
      return false;
    };
    auto number = [&](long long lo, long long hi, long long* out) {
      if (!needsArg()) return false;
      const char* v = argv[++i];
      if (parseLong(v, lo, hi, out)) return true;
      fprintf(stderr, "Invalid value \"%s\" for option %s\n", v, a);
      return false;
    };
    long long n = 0;
    if (a[0] != '-') break;  // the command starts here
    if (auto m = conn.take(argc, argv, &i); m != client::EndpointOptions::Match::kNo) {
      if (m == client::EndpointOptions::Match::kTaken) continue;
      needsArg();  // prints the message
      return ParseOutcome::kExitError;
    }
    if (is("--help")) {
      printUsage();
      return ParseOutcome::kExitOk;
    } else if (is("--version") || is("-v")) {
      printf("redis-benchmark 7.0.15 (compatible; this project's implementation)\n");
      return ParseOutcome::kExitOk;
    } else if (is("-h")) {
      if (!needsArg()) return ParseOutcome::kExitError;
      opt->endpoint.host = argv[++i];
    } else if (is("-p")) {
      if (!number(0, 65535, &n)) return ParseOutcome::kExitError;
      opt->endpoint.port = static_cast<int>(n);
    } else if (is("-a")) {
      if (!needsArg()) return ParseOutcome::kExitError;
      opt->auth = argv[++i];
    } else if (is("--user")) {
      if (!needsArg()) return ParseOutcome::kExitError;
      opt->user = argv[++i];
    } else if (is("-c")) {
      if (!number(1, 1000000, &n)) return ParseOutcome::kExitError;
      opt->clients = static_cast<int>(n);
    } else if (is("-n")) {
      if (!number(1, LLONG_MAX / 2, &n)) return ParseOutcome::kExitError;
      opt->requests = n;
    } else if (is("-d")) {
      if (!number(1, 1 << 30, &n)) return ParseOutcome::kExitError;
      opt->data_size = static_cast<int>(n);
    } else if (is("--dbnum")) {
      if (!number(0, INT_MAX, &n)) return ParseOutcome::kExitError;
      opt->dbnum = static_cast<int>(n);
    } else if (is("-3")) {
      opt->resp3 = true;
    } else if (is("--tracking")) {
      opt->tracking = true;
    } else if (is("--threads")) {
      if (!number(0, 500, &n)) return ParseOutcome::kExitError;
      opt->threads = static_cast<int>(n);
    } else if (is("--busy-poll-us")) {
      if (!number(0, 1000000, &n)) return ParseOutcome::kExitError;
      opt->busy_poll_us = static_cast<int>(n);
    } else if (is("-k")) {
      if (!number(0, 1, &n)) return ParseOutcome::kExitError;
      opt->keepalive = n == 1;
    } else if (is("-r")) {
      if (!number(0, LLONG_MAX / 2, &n)) return ParseOutcome::kExitError;
      opt->keyspace = n;
    } else if (is("-P")) {
      if (!number(1, 1000000, &n)) return ParseOutcome::kExitError;
      opt->pipeline = static_cast<int>(n);
    } else if (is("-q")) {
      opt->quiet = true;
    } else if (is("--csv")) {
      opt->csv = true;
    } else if (is("-l")) {
      opt->loop = true;
    } else if (is("--precision")) {
      if (!number(0, 9, &n)) return ParseOutcome::kExitError;
      opt->precision = static_cast<int>(n);
    } else if (is("-t")) {
      if (!needsArg()) return ParseOutcome::kExitError;
      splitTests(argv[++i], &opt->tests);
    } else if (is("-x")) {
      opt->stdin_last_arg = true;
    } else if (is("--cluster")) {
      opt->cluster = true;
    } else if (is("-e")) {
      opt->show_errors = true;  // always on here; accepted for compatibility
    } else {
      fprintf(stderr, "Invalid option \"%s\" or option argument missing\n\n", a);
      printUsage();
      return ParseOutcome::kExitError;
    }
  }
  for (; i < argc; i++) opt->command.emplace_back(argv[i]);

  if (opt->user && !opt->auth) {
    fprintf(stderr, "Option --user needs a password (-a).\n");
    return ParseOutcome::kExitError;
  }
  if (std::string err; !conn.finish("redis-benchmark", &opt->endpoint, &err)) {
    fprintf(stderr, "%s\n", err.c_str());
    return ParseOutcome::kExitError;
  }
  if (opt->stdin_last_arg && opt->command.empty()) {
    fprintf(stderr, "Option -x needs a command after the options.\n");
    return ParseOutcome::kExitError;
  }
  return ParseOutcome::kRun;
}

}  // namespace bench
