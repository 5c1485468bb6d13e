// redis-cli: a command-line client compatible with Redis 7.0's redis-cli,
// over any of our connection types (tcp, unix, rdma).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/askpass.h"
#include "cli/cluster/cluster.h"
#include "cli/modes/modes.h"
#include "cli/options.h"
#include "cli/repl.h"
#include "cli/session.h"
#include "cli/split.h"

namespace {

std::string readAllStdin() {
  // Straight from the descriptor in large blocks: std::cin, synced with
  // stdio, hands out one character per call (a 16 MiB -x value took three
  // times as long as Redis's redis-cli).
  std::string all;
  std::vector<char> buf(1 << 20);
  for (;;) {
    ssize_t n = read(STDIN_FILENO, buf.data(), buf.size());
    if (n > 0) {
      all.append(buf.data(), static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  return all;
}

// --eval <file> [key ...] [, arg ...]: EVAL of the file's text; a lone ","
// separates the keys from the arguments.
bool evalArgv(const cli::Options& opt, std::vector<std::string>* argv) {
  FILE* f = fopen(opt.eval_file->c_str(), "r");
  if (f == nullptr) {
    fprintf(stderr, "Can't open file '%s': %s\n", opt.eval_file->c_str(), strerror(errno));
    return false;
  }
  std::string script;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) script.append(buf, n);
  fclose(f);
  std::vector<std::string> keys, args;
  bool in_args = false;
  for (const auto& a : opt.args) {
    if (!in_args && a == ",") {
      in_args = true;
      continue;
    }
    (in_args ? args : keys).push_back(a);
  }
  *argv = {"EVAL", script, std::to_string(keys.size())};
  argv->insert(argv->end(), keys.begin(), keys.end());
  argv->insert(argv->end(), args.begin(), args.end());
  return true;
}

// The one-shot command line: --quoted-input unquoting (not for --eval, as in
// redis-cli), then -x / -X. An argument that does not unquote to exactly one
// value, or a -X tag found nowhere, ends the run with status 1 before any
// command is sent (and before stdin is read).
bool commandArgv(const cli::Options& opt, std::vector<std::string>* argv) {
  if (opt.eval_file) return evalArgv(opt, argv);
  *argv = opt.args;
  if (opt.quoted_input) {
    for (auto& a : *argv) {
      auto v = cli::unquoteArg(a);
      if (!v) {
        printf("Invalid quoted string\n");
        return false;
      }
      a = std::move(*v);
    }
  }
  if (opt.stdin_last_arg) {
    argv->push_back(readAllStdin());
  } else if (opt.stdin_tag) {
    // Only the first argument equal to the tag takes stdin.
    auto it = std::find(argv->begin(), argv->end(), *opt.stdin_tag);
    if (it == argv->end()) {
      fprintf(stderr, "Using -X option but stdin tag not match.\n");
      return false;
    }
    *it = readAllStdin();
  }
  return true;
}

int oneShot(cli::Options* opt, cli::Session* session) {
  std::vector<std::string> argv;
  if (!commandArgv(*opt, &argv)) return 1;
  if (!session->connect()) return 1;
  switch (session->run(argv, opt->repeat)) {
    case cli::Session::RunResult::kOk:
      return 0;
    case cli::Session::RunResult::kErrorReply:
      return opt->exit_on_error ? 1 : 0;
    case cli::Session::RunResult::kRedirectFailed:
      return 1;
    case cli::Session::RunResult::kConnectionLost:
      fflush(stdout);
      fprintf(stderr, "Error: %s\n", session->lastReason().c_str());
      return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  cli::Options opt;
  // Formatted output on a terminal, raw otherwise (options may override).
  opt.format.mode = cli::stdoutIsTerminal() ? cli::OutputMode::kStandard : cli::OutputMode::kRaw;
  switch (cli::parseOptions(argc, argv, &opt)) {
    case cli::ParseOutcome::kRun:
      break;
    case cli::ParseOutcome::kExitOk:
      return 0;
    case cli::ParseOutcome::kExitError:
      return 1;
  }
  // Socket writes never raise SIGPIPE (MSG_NOSIGNAL); a closed stdout does,
  // and in one-shot mode that ends "redis-cli -r -1 ... | head" as it should.
  if (opt.askpass) opt.auth = cli::askPassword("Please input password: ");
  // The cluster manager runs before any other mode, as in redis-cli.
  if (!opt.cluster_command.name.empty()) return cli::cluster::run(&opt);
  cli::Session session(&opt);
  session.setInteractive(cli::stdoutIsTerminal());
  session.client().loop()->setBusyPoll(opt.busy_poll_us);
  if (auto status = cli::modes::runSelected(&session)) return *status;
  if (!opt.args.empty() || opt.eval_file) return oneShot(&opt, &session);

  bool tty = isatty(STDIN_FILENO);
  // Like redis-cli: line mode survives a closed output pipe.
  signal(SIGPIPE, SIG_IGN);
  session.connect();
  return cli::runRepl(&opt, &session, tty);
}
