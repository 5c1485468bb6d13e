// Internal to the tracking module: the per-client state and the call that
// turns tracking on (tracking.cpp), shared with the CLIENT subcommands
// (tracking_cmd.cpp).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace server {

class Client;

namespace tracking {

struct State {
  bool on = false;
  bool bcast = false;
  bool optin = false;
  bool optout = false;
  bool noloop = false;
  // CLIENT CACHING YES (OPTIN) / NO (OPTOUT) given for the next command.
  bool caching = false;
  // The redirect target was found gone (flag R); reset by TRACKING ON.
  bool broken_redir = false;
  uint64_t redirect = 0;  // 0: none
  // BCAST prefixes, in the order TRACKINGINFO lists them.
  std::set<std::string, std::less<>> prefixes;
};

// CLIENT TRACKING ON with validated options: replaces the mode flags and
// the redirect, adds the prefixes ("" when BCAST names none).
void enable(Client* c, uint64_t redirect, bool bcast, bool optin, bool optout, bool noloop,
            const std::vector<std::string_view>& prefixes);

}  // namespace tracking
}  // namespace server
