// redis-cli: a command-line client compatible with Redis 7.0's redis-cli,
// over any of our connection types (tcp, unix, rdma).
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "cli/options.h"
#include "cli/repl.h"
#include "cli/session.h"

namespace {

std::string readAllStdin() {
  return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
}

int oneShot(cli::Options* opt, cli::Session* session) {
  std::vector<std::string> argv = opt->args;
  if (opt->stdin_last_arg) {
    argv.push_back(readAllStdin());
  } else if (!opt->stdin_tag.empty()) {
    std::string data;
    bool read = false;
    for (auto& a : argv) {
      if (a != opt->stdin_tag) continue;
      if (!read) {
        data = readAllStdin();
        read = true;
      }
      a = data;
    }
  }
  if (!session->connect()) return 1;
  switch (session->run(argv, opt->repeat)) {
    case cli::Session::RunResult::kOk:
      return 0;
    case cli::Session::RunResult::kErrorReply:
      return opt->exit_on_error ? 1 : 0;
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
  opt.format.mode = isatty(STDOUT_FILENO) ? cli::OutputMode::kStandard : cli::OutputMode::kRaw;
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
  cli::Session session(&opt);
  session.setInteractive(isatty(STDOUT_FILENO));
  if (!opt.args.empty()) return oneShot(&opt, &session);

  bool tty = isatty(STDIN_FILENO);
  // Like redis-cli: line mode survives a closed output pipe.
  signal(SIGPIPE, SIG_IGN);
  session.connect();
  return cli::runRepl(&opt, &session, tty);
}
