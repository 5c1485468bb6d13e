// Helpers of the modes that walk the keyspace (scan.cpp).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/session.h"

namespace cli::modes {

// Walks the keyspace with SCAN (MATCH --pattern when given), calling batch
// with each reply's keys; batch returns false to stop. Sleeps the -i
// interval after every SCAN when sleep_each, else after every 100. Prints
// "Error: ..." and returns false on an error reply or a lost connection.
bool scanWalk(Session* s, const std::function<bool(const std::vector<std::string>&)>& batch,
              bool sleep_each);

// Sends every command without waiting, then collects the replies in order.
// nullopt (after printing "Error: ...") when the connection is lost.
std::optional<std::vector<resp::Reply>> pipelined(
    Session* s, const std::vector<std::vector<std::string>>& cmds);

}  // namespace cli::modes
