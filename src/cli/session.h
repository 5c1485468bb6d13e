// The CLI's connection to the server: connect, then AUTH, SELECT and HELLO
// as the options say, with the messages redis-cli prints when one fails.
// Runs commands and prints their replies in the selected output mode.
#pragma once

#include <string>
#include <vector>

#include "cli/options.h"
#include "client/client.h"

namespace cli {

class Session {
 public:
  explicit Session(Options* opt);

  // Connects (closing any previous connection). Prints "Could not connect
  // to Redis at <addr>: <why>" on failure unless quiet. cluster_node: a
  // redirection's target, reached as client::connectNode does.
  bool connect(bool quiet = false, bool cluster_node = false);
  bool connected() const { return client_.connected(); }
  // Text redis-cli puts after "Could not connect ... : " (the OS reason).
  std::string lastReason() const;

  // kRedirectFailed: -c could not reach the node a redirection named (the
  // reason is printed already).
  enum class RunResult { kOk, kErrorReply, kConnectionLost, kRedirectFailed };
  // Sends argv `repeat` times (waiting interval_us between runs), printing
  // each reply. Tracks SELECT/AUTH/HELLO so a reconnect restores them.
  // Subscribe and monitor commands keep printing what arrives until the
  // connection ends.
  RunResult run(const std::vector<std::string>& argv, int64_t repeat);

  // Sends one command and returns its reply without printing it (help,
  // completion). False when the connection is lost.
  bool query(const std::vector<std::string>& argv, resp::Reply* reply);

  // Prompt for interactive mode: "127.0.0.1:6379[2]> ", "redis /tmp/s> " or
  // "not connected> ".
  std::string prompt() const;
  // stdout is a terminal (stdoutIsTerminal()): show push messages unless
  // --show-pushes says otherwise.
  void setInteractive(bool on) { interactive_ = on; }
  // Commands come from the prompt or piped lines: Ctrl-C during SUBSCRIBE or
  // MONITOR returns to the prompt (on a new connection) instead of exiting,
  // and in the standard format a command that took 0.5 s or more is
  // followed by its time, "(0.61s)".
  void setInRepl(bool on) { in_repl_ = on; }

  // The connection itself, for the special modes (cli/modes/) that drive it
  // directly after connect() has authenticated and selected the db.
  client::Client& client() { return client_; }
  Options& options() { return *opt_; }

 private:
  bool handshake();
  // call(), and with -c the redirections followed: -MOVED and -ASK move the
  // session to the named node (ASKING first for -ASK) and send argv again.
  RunResult callFollowing(const std::vector<std::string>& argv, resp::Reply* r);
  void installPushHandler();
  void printReply(const resp::Reply& r, bool force_raw);
  RunResult streamReplies(bool pubsub, bool force_raw, int64_t start_ms);

  Options* opt_;
  client::Client client_;
  bool interactive_ = false;
  bool in_repl_ = false;
  bool in_multi_ = false;
  std::string type_;  // the connection type the options chose (redirections keep it)
};

}  // namespace cli
