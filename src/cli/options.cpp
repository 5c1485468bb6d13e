#include "cli/options.h"

#include <strings.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "cli/split.h"
#include "client/endpoint.h"

namespace cli {

bool stdoutIsTerminal() {
  return isatty(STDOUT_FILENO) || getenv("FAKETTY") != nullptr;
}

const char* cliVersion() {
  return "7.0.15";
}

void printUsage(FILE* out) {
  // Our own wording; the option names are those of redis-cli 7.0.
  fprintf(out,
          "redis-cli %s\n"
          "\n"
          "Usage: redis-cli [OPTIONS] [cmd [arg [arg ...]]]\n"
          "  -h <hostname>      Server host name or address (default: 127.0.0.1).\n"
          "  -p <port>          Server port (default: 6379).\n"
          "  -s <socket>        Unix socket path (replaces host and port).\n"
          "  --rdma             Connect over RDMA (the 'rdma' connection type).\n"
          "  --rdma-dialect <d> RDMA dialect: auto (default: detected from the server),\n"
          "                     ours, seed (the 2021 prototype) or valkey. See RDMA.md.\n"
          "  --rdma-keepalive-interval <ms>  Liveness probe period over RDMA (default\n"
          "                     3000, 0 = off): a server that vanished without a\n"
          "                     disconnect is an error within two periods.\n"
          "  --rdma-flow-control <yes|no>  Offer our server flow control (credited\n"
          "                     rings that grow and shrink; default yes). See RDMA.md.\n"
          "%s"
          "  -a <password>      Password for AUTH (REDISCLI_AUTH in the environment\n"
          "                     keeps it off the command line; -a wins if both are set).\n"
          "  --user <username>  ACL user name for AUTH <user> <pass> (needs -a).\n"
          "  --pass <password>  Same as -a.\n"
          "  -u <uri>           Server URI: redis://[[user]:pass@]host[:port][/db]\n"
          "                     (rediss:// for TLS).\n"
          "  -r <repeat>        Run the command this many times (negative: forever).\n"
          "  -i <interval>      With -r, wait this many seconds between runs (e.g. 0.1).\n"
          "  -n <db>            Database number.\n"
          "  -2                 Speak RESP2 (HELLO 2).\n"
          "  -3                 Speak RESP3 (HELLO 3).\n"
          "  -x                 Take the last argument of the command from standard input.\n"
          "  -X <tag>           Replace the argument <tag> with standard input.\n"
          "  -d <delimiter>     Separator of multi-bulk items in raw output (default: \\n).\n"
          "  -D <delimiter>     Separator between replies in raw output (default: \\n).\n"
          "  -c                 Cluster mode: follow -MOVED and -ASK redirections (ASKING\n"
          "                     first for -ASK); at the prompt each one is announced as\n"
          "                     \"-> Redirected to slot [N] located at host:port\".\n"
          "  -e                 Exit with status 1 when a command returns an error.\n"
          "  --raw              Print replies raw (the default when output is not a tty).\n"
          "  --no-raw           Print replies formatted even when output is not a tty.\n"
          "  --quoted-input     Treat command arguments as quoted strings.\n"
          "  --csv              Print replies as CSV.\n"
          "  --show-pushes <yn> Print RESP3 push messages (default: yes on a tty).\n"
          "  --json             Print replies as JSON (RESP3 unless -2 is given).\n"
          "  --quoted-json      Like --json, with non-ASCII bytes as \\xHH escapes.\n"
          "  --askpass          Read the password from the terminal, masked (wins over\n"
          "                     -a and REDISCLI_AUTH).\n"
          "  --busy-poll-us <us> Poll up to this many microseconds for a reply before\n"
          "                     sleeping (over RDMA the completion queue itself): round\n"
          "                     trips without a wake-up, at the cost of a busy core.\n"
          "  --verbose          Report reconnections and other details.\n"
          "  --no-auth-warning  Do not warn about a password given on the command line.\n"
          "  --help             Print this help and exit.\n"
          "  -v, --version      Print the version and exit.\n"
          "\n"
          "Special modes (each runs instead of a command):\n"
          "  --pipe             Send raw RESP or inline commands from standard input,\n"
          "                     streaming; report \"errors: N, replies: M\".\n"
          "  --pipe-timeout <n> After the input ends, give up when no reply came for\n"
          "                     <n> seconds (default 30; 0 waits for ever).\n"
          "  --scan             List the keys with SCAN (--pattern <pat> filters them,\n"
          "                     --quoted-pattern <pat> takes a quoted pattern).\n"
          "  --bigkeys          Find the keys with the most elements, per type.\n"
          "  --memkeys          Find the keys using the most memory (MEMORY USAGE);\n"
          "                     --memkeys-samples <n> sets its SAMPLES.\n"
          "  --hotkeys          Find the most used keys (needs an LFU maxmemory-policy).\n"
          "  --stat             A line of server figures every second (-i changes it).\n"
          "  --latency          Time PING round trips (a live line on a terminal, else\n"
          "                     one \"min max avg samples\" line after 1 s or -i).\n"
          "  --latency-history  Like --latency, a new line every 15 s (-i changes it).\n"
          "  --latency-dist     Round-trip times as a coloured spectrum (256 colours).\n"
          "  --intrinsic-latency <sec> How long this machine keeps this process off\n"
          "                     the CPU, measured for <sec> seconds (no server needed).\n"
          "  --lru-test <keys>  A cache workload on <keys> keys (80/20 access), with\n"
          "                     the hit rate every second.\n"
          "  --replica          Act as a replica: print every write the server\n"
          "                     streams (as CSV).\n"
          "  --rdb <file>       Save the server's RDB (through SYNC) to <file>; \"-\"\n"
          "                     writes it to standard output.\n"
          "  --functions-rdb <file> Like --rdb, with only the function libraries.\n"
          "  --eval <file>      EVAL the Lua script in <file>: keys, then \",\", then\n"
          "                     arguments (redis-cli --eval f.lua k1 k2 , a1 a2).\n"
          "  --cluster <command> [args...] [opts...]\n"
          "                     Cluster manager: create, check, info, fix, reshard,\n"
          "                     rebalance, add-node, del-node, call, set-timeout, import,\n"
          "                     backup. \"--cluster help\" lists their arguments and\n"
          "                     --cluster-* options; -a/--user apply to every node.\n"
          "\n"
          "Examples:\n"
          "  redis-cli -p 6380 set greeting hello\n"
          "  cat notes.txt | redis-cli -x set notes\n"
          "  redis-cli -r 5 -i 0.5 incr counter\n"
          "  redis-cli -u redis://:secret@127.0.0.1:6380/2 dbsize\n"
          "\n"
          "Without a command, redis-cli reads commands interactively (or one per line\n"
          "from standard input when it is not a terminal). Type \"help\" at the prompt.\n",
          cliVersion(), client::tlsUsage("  ").c_str());
}

namespace {

int percentValue(char c) {
  c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool percentDecode(const std::string& s, std::string* out) {
  out->clear();
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] != '%') {
      out->push_back(s[i]);
      continue;
    }
    if (s.size() - i < 3) {
      fprintf(stderr, "Incomplete URI encoding\n");
      return false;
    }
    int h = percentValue(s[i + 1]);
    int l = percentValue(s[i + 2]);
    if (h < 0 || l < 0) {
      fprintf(stderr, "Illegal character in URI encoding\n");
      return false;
    }
    out->push_back(static_cast<char>(h * 16 + l));
    i += 2;
  }
  return true;
}

bool unrecognized(const char* arg) {
  fprintf(stderr, "Unrecognized option or bad number of args for: '%s'\n", arg);
  return false;
}

}  // namespace

bool parseUri(const std::string& uri, Options* opt) {
  std::string scheme = "redis://";
  if (strncasecmp(uri.c_str(), "rediss://", 9) == 0) {
    scheme = "rediss://";
    opt->endpoint_options.useTls();
  }
  if (uri.size() < scheme.size() || strncasecmp(uri.c_str(), scheme.c_str(), scheme.size()) != 0) {
    fprintf(stderr, "Invalid URI scheme\n");
    return false;
  }
  std::string rest = uri.substr(scheme.size());
  size_t at = rest.rfind('@');
  if (at != std::string::npos) {
    std::string userinfo = rest.substr(0, at);
    size_t colon = userinfo.find(':');
    std::string pass = colon == std::string::npos ? userinfo : userinfo.substr(colon + 1);
    std::string decoded;
    if (colon != std::string::npos) {
      if (!percentDecode(userinfo.substr(0, colon), &decoded)) return false;
      opt->user = decoded;
    }
    if (!percentDecode(pass, &decoded)) return false;
    opt->auth = decoded;
    opt->auth_from_cli = true;
    rest = rest.substr(at + 1);
  }
  size_t slash = rest.find('/');
  std::string hostport = rest.substr(0, slash);
  if (!hostport.empty()) {
    size_t colon = hostport.rfind(':');
    std::string host = hostport;
    if (colon != std::string::npos && hostport.find(']') < colon) {
      host = hostport.substr(0, colon);
      opt->endpoint.port = atoi(hostport.c_str() + colon + 1);
    } else if (colon != std::string::npos && hostport[0] != '[') {
      host = hostport.substr(0, colon);
      opt->endpoint.port = atoi(hostport.c_str() + colon + 1);
    }
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);
    }
    if (!host.empty()) opt->endpoint.host = host;
  }
  if (slash != std::string::npos && slash + 1 < rest.size()) {
    opt->db = atoi(rest.c_str() + slash + 1);
  }
  return true;
}

ParseOutcome parseOptions(int argc, char** argv, Options* opt) {
  client::EndpointOptions& conn = opt->endpoint_options;
  int i = 1;
  for (; i < argc; i++) {
    const char* a = argv[i];
    bool has_value = i + 1 < argc;
    auto is = [a](const char* name) { return strcmp(a, name) == 0; };
    switch (cluster::takeOption(argc, argv, &i, &opt->cluster_command)) {
      case cluster::OptionMatch::kTaken:
        continue;
      case cluster::OptionMatch::kExit:
        if (strcmp(a, "--cluster") == 0) printUsage(stderr);
        return ParseOutcome::kExitError;
      case cluster::OptionMatch::kNo:
        break;
    }
    if (a[0] != '-') break;  // the command starts here
    if (auto m = conn.take(argc, argv, &i); m != client::EndpointOptions::Match::kNo) {
      if (m == client::EndpointOptions::Match::kTaken) continue;
      unrecognized(a);
      return ParseOutcome::kExitError;
    }
    if (is("-h") && !has_value) {
      printUsage();
      return ParseOutcome::kExitOk;
    } else if (is("--help")) {
      printUsage();
      return ParseOutcome::kExitOk;
    } else if (is("-v") || is("--version")) {
      printf("redis-cli %s\n", cliVersion());
      return ParseOutcome::kExitOk;
    } else if (is("-x")) {
      opt->stdin_last_arg = true;
    } else if (is("-e")) {
      opt->exit_on_error = true;
    } else if (is("-c")) {
      opt->cluster = true;
    } else if (is("-2")) {
      opt->resp = 2;
      opt->resp_set = true;
    } else if (is("-3")) {
      opt->resp = 3;
      opt->resp_set = true;
    } else if (is("--raw")) {
      opt->format.mode = OutputMode::kRaw;
      opt->output_set = true;
    } else if (is("--no-raw")) {
      opt->format.mode = OutputMode::kStandard;
      opt->output_set = true;
    } else if (is("--csv")) {
      opt->format.mode = OutputMode::kCsv;
      opt->output_set = true;
    } else if (is("--quoted-input")) {
      opt->quoted_input = true;
    } else if (is("--verbose")) {
      opt->verbose = true;
    } else if (is("--no-auth-warning")) {
      opt->no_auth_warning = true;
    } else if (is("--json") || is("--quoted-json")) {
      opt->format.mode = is("--json") ? OutputMode::kJson : OutputMode::kQuotedJson;
      opt->output_set = true;
    } else if (is("--askpass")) {
      opt->askpass = true;
    } else if (is("--latency")) {
      opt->latency = true;
    } else if (is("--latency-history")) {
      opt->latency = true;
      opt->latency_history = true;
    } else if (is("--latency-dist")) {
      opt->latency = true;
      opt->latency_dist = true;
    } else if (is("--pipe")) {
      opt->pipe = true;
    } else if (is("--bigkeys")) {
      opt->bigkeys = true;
    } else if (is("--memkeys")) {
      opt->memkeys = true;
    } else if (is("--hotkeys")) {
      opt->hotkeys = true;
    } else if (is("--stat")) {
      opt->stat = true;
    } else if (is("--scan")) {
      opt->scan = true;
    } else if (is("--replica") || is("--slave")) {
      opt->replica = true;
    } else if (is("--ldb") || is("--ldb-sync-mode")) {
      fprintf(stderr, "Option '%s' is not supported by this redis-cli\n", a);
      return ParseOutcome::kExitError;
    } else if (!has_value) {
      unrecognized(a);
      return ParseOutcome::kExitError;
    } else if (is("-h")) {
      opt->endpoint.host = argv[++i];
    } else if (is("-p")) {
      opt->endpoint.port = atoi(argv[++i]);
    } else if (is("-a") || is("--pass")) {
      opt->auth = argv[++i];
      opt->auth_from_cli = true;
    } else if (is("--user")) {
      opt->user = argv[++i];
    } else if (is("-u")) {
      if (!parseUri(argv[++i], opt)) return ParseOutcome::kExitError;
    } else if (is("-r")) {
      opt->repeat = strtoll(argv[++i], nullptr, 10);
    } else if (is("-i")) {
      opt->interval_us = static_cast<int64_t>(atof(argv[++i]) * 1e6);
      opt->interval_set = true;
    } else if (is("--rdb") || is("--functions-rdb")) {
      opt->functions_rdb = is("--functions-rdb");
      opt->rdb = true;
      opt->rdb_filename = argv[++i];
    } else if (is("--lru-test")) {
      opt->lru_test_keys = strtoll(argv[++i], nullptr, 10);
    } else if (is("--pipe-timeout")) {
      opt->pipe_timeout_s = atoi(argv[++i]);
    } else if (is("--memkeys-samples")) {
      opt->memkeys = true;
      opt->memkeys_samples = strtoll(argv[++i], nullptr, 10);
    } else if (is("--pattern")) {
      opt->pattern = argv[++i];
    } else if (is("--quoted-pattern")) {
      auto v = unquoteArg(argv[++i]);
      if (!v) {
        fprintf(stderr, "Invalid quoted string specified for --quoted-pattern.\n");
        return ParseOutcome::kExitError;
      }
      opt->pattern = *v;
    } else if (is("--intrinsic-latency")) {
      opt->intrinsic_latency_s = strtoll(argv[++i], nullptr, 10);
    } else if (is("--eval")) {
      opt->eval_file = argv[++i];
    } else if (is("--busy-poll-us")) {
      char* end = nullptr;
      const char* v = argv[++i];
      long n = strtol(v, &end, 10);
      if (*v == '\0' || *end != '\0' || n < 0 || n > 1000000) {
        fprintf(stderr, "Invalid --busy-poll-us value '%s' (0..1000000)\n", v);
        return ParseOutcome::kExitError;
      }
      opt->busy_poll_us = static_cast<int>(n);
    } else if (is("-n")) {
      opt->db = atoi(argv[++i]);
    } else if (is("-d")) {
      opt->format.bulk_delim = argv[++i];
    } else if (is("-D")) {
      opt->format.reply_delim = argv[++i];
    } else if (is("-X")) {
      opt->stdin_tag = argv[++i];
    } else if (is("--show-pushes")) {
      const char* v = argv[++i];
      if (strcasecmp(v, "yes") == 0) {
        opt->show_pushes = true;
      } else if (strcasecmp(v, "no") == 0) {
        opt->show_pushes = false;
      } else {
        fprintf(stderr, "Unknown --show-pushes value '%s' (valid: '[y]es', '[n]o')\n", v);
        return ParseOutcome::kExitError;
      }
    } else {
      unrecognized(a);
      return ParseOutcome::kExitError;
    }
  }
  for (; i < argc; i++) opt->args.emplace_back(argv[i]);

  if (opt->stdin_last_arg && opt->stdin_tag) {
    fprintf(stderr, "Options -x and -X are mutually exclusive.\n");
    return ParseOutcome::kExitError;
  }
  if (std::string err; !conn.finish("redis-cli", &opt->endpoint, &err)) {
    fprintf(stderr, "%s\n", err.c_str());
    return ParseOutcome::kExitError;
  }
  if (opt->cluster && opt->endpoint.type == "unix") {
    fprintf(stderr, "Options -c and -s are mutually exclusive.\n");
    return ParseOutcome::kExitError;
  }
  if ((opt->format.mode == OutputMode::kJson || opt->format.mode == OutputMode::kQuotedJson) &&
      !opt->resp_set) {
    // JSON shows maps as objects: RESP3 unless -2 asks otherwise.
    opt->resp = 3;
    opt->resp_set = true;
  }
  if (opt->askpass) {
    // --askpass wins over -a and REDISCLI_AUTH; the prompt comes in main().
    opt->auth.reset();
    opt->auth_from_cli = false;
  } else if (!opt->auth) {
    const char* env = getenv("REDISCLI_AUTH");
    if (env != nullptr) opt->auth = env;
  } else if (opt->auth_from_cli && !opt->no_auth_warning) {
    fprintf(stderr,
            "Warning: Using a password with '-a' or '-u' option on the command line interface "
            "may not be safe.\n");
  }
  return ParseOutcome::kRun;
}

}  // namespace cli
