#include "cli/split.h"

#include "resp/request_parser.h"

namespace cli {

// redis-cli's quoting rules are the ones inline requests and config files
// use: one implementation serves all three.
std::optional<std::vector<std::string>> splitArgs(std::string_view line) {
  std::vector<std::string> args;
  if (!resp::splitArgs(line, &args)) return std::nullopt;
  return args;
}

std::optional<std::string> unquoteArg(std::string_view s) {
  auto parts = splitArgs(s);
  if (!parts || parts->size() != 1) return std::nullopt;
  return (*parts)[0];
}

}  // namespace cli
