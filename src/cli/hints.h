// Interactive-mode hints: the grey argument syntax redis-cli shows after what
// has been typed ("hset k" shows " field value [field value ...]"), built from
// the server's COMMAND DOCS.
#pragma once

#include <string>
#include <unordered_map>

#include "cli/session.h"

namespace cli {

class Hints {
 public:
  // Fetches COMMAND DOCS once; without it (an old server, or no connection)
  // every hint is empty. Safe to call again: only the first success counts.
  void load(Session* session);

  // The hint for a line being typed, "" when there is none. As redis-cli:
  // the syntax of the subcommand named by the first two words, or else of
  // the command named by the first, less one word for each argument already
  // typed, stopping at the first optional part; with a leading space unless
  // the line ends with one.
  std::string hintFor(const std::string& line) const;

 private:
  bool loaded_ = false;
  std::unordered_map<std::string, std::string> syntax_;  // lower-case "cmd" or "cmd sub"
};

}  // namespace cli
