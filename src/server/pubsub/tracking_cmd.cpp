// CLIENT TRACKING, CLIENT CACHING, CLIENT GETREDIR, CLIENT TRACKINGINFO
// with Redis 7.0.15's option checks and error texts.
#include <string>
#include <string_view>
#include <vector>

#include "common/strutil.h"
#include "server/core/client.h"
#include "server/core/clients.h"
#include "server/pubsub/tracking.h"
#include "server/pubsub/tracking_state.h"

namespace server::tracking {

namespace {

// One of two prefixes starts with the other (BCAST prefixes of a client
// must not overlap, or a key would be reported twice).
bool overlaps(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size());
  return a.compare(0, n, b, 0, n) == 0;
}

bool checkPrefixes(Client* c, const std::vector<std::string_view>& prefixes) {
  const State* st = c->tracking_state;
  for (size_t i = 0; i < prefixes.size(); i++) {
    if (st != nullptr) {
      for (const std::string& existing : st->prefixes) {
        if (!overlaps(existing, prefixes[i])) continue;
        c->addErrorFormat(
            "Prefix '%.*s' overlaps with an existing prefix '%s'. Prefixes for a single client "
            "must not overlap.",
            static_cast<int>(prefixes[i].size()), prefixes[i].data(), existing.c_str());
        return false;
      }
    }
    for (size_t j = i + 1; j < prefixes.size(); j++) {
      if (!overlaps(prefixes[i], prefixes[j])) continue;
      c->addErrorFormat(
          "Prefix '%.*s' overlaps with another provided prefix '%.*s'. Prefixes for a single "
          "client must not overlap.",
          static_cast<int>(prefixes[i].size()), prefixes[i].data(),
          static_cast<int>(prefixes[j].size()), prefixes[j].data());
      return false;
    }
  }
  return true;
}

}  // namespace

void clientTrackingCommand(Client* c) {
  int64_t redirect = 0;
  bool bcast = false, optin = false, optout = false, noloop = false;
  std::vector<std::string_view> prefixes;
  for (size_t j = 3; j < c->argc(); j++) {
    std::string_view opt = c->arg(j);
    bool more = j + 1 < c->argc();
    if (common::strutil::equalsIgnoreCase(opt, "redirect") && more) {
      j++;
      if (redirect != 0) {
        c->addError("A client can only redirect to a single other client");
        return;
      }
      if (!c->argInt64(j, &redirect)) return;
      // The target must exist now (it may go later: the redirect breaks).
      if (redirect <= 0 || findClientById(static_cast<uint64_t>(redirect)) == nullptr) {
        c->addError("The client ID you want redirect to does not exist");
        return;
      }
    } else if (common::strutil::equalsIgnoreCase(opt, "bcast")) {
      bcast = true;
    } else if (common::strutil::equalsIgnoreCase(opt, "optin")) {
      optin = true;
    } else if (common::strutil::equalsIgnoreCase(opt, "optout")) {
      optout = true;
    } else if (common::strutil::equalsIgnoreCase(opt, "noloop")) {
      noloop = true;
    } else if (common::strutil::equalsIgnoreCase(opt, "prefix") && more) {
      prefixes.push_back(c->arg(++j));
    } else {
      c->addSyntaxError();
      return;
    }
  }
  std::string_view mode = c->arg(2);
  if (common::strutil::equalsIgnoreCase(mode, "off")) {
    resetClient(c);
    c->addOk();
    return;
  }
  if (!common::strutil::equalsIgnoreCase(mode, "on")) {
    c->addSyntaxError();
    return;
  }
  const State* st = c->tracking_state;
  bool on = st != nullptr && st->on;
  if (!bcast && !prefixes.empty()) {
    c->addError("PREFIX option requires BCAST mode to be enabled");
    return;
  }
  if (on && st->bcast != bcast) {
    c->addError(
        "You can't switch BCAST mode on/off before disabling tracking for this client, and then "
        "re-enabling it with a different mode.");
    return;
  }
  if (bcast && (optin || optout)) {
    c->addError("OPTIN and OPTOUT are not compatible with BCAST");
    return;
  }
  if (optin && optout) {
    c->addError("You can't specify both OPTIN mode and OPTOUT mode");
    return;
  }
  if (on && ((optin && st->optout) || (optout && st->optin))) {
    c->addError(
        "You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then "
        "re-enabling it with a different mode.");
    return;
  }
  if (bcast && !checkPrefixes(c, prefixes)) return;
  enable(c, static_cast<uint64_t>(redirect), bcast, optin, optout, noloop, prefixes);
  c->addOk();
}

void clientCachingCommand(Client* c) {
  State* st = c->tracking_state;
  if (st == nullptr || !st->on) {
    c->addError(
        "CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or "
        "OPTOUT mode enabled");
    return;
  }
  std::string_view opt = c->arg(2);
  if (common::strutil::equalsIgnoreCase(opt, "yes")) {
    if (!st->optin) {
      c->addError("CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
      return;
    }
  } else if (common::strutil::equalsIgnoreCase(opt, "no")) {
    if (!st->optout) {
      c->addError("CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
      return;
    }
  } else {
    c->addSyntaxError();
    return;
  }
  st->caching = true;
  c->addOk();
}

void clientGetredirCommand(Client* c) {
  c->addInteger(clientListRedir(c));
}

void clientTrackinginfoCommand(Client* c) {
  const State* st = c->tracking_state;
  bool on = st != nullptr && st->on;
  resp::Writer& w = c->reply();
  w.mapLen(3);
  w.bulk("flags");
  std::vector<const char*> flags;
  if (!on) {
    flags.push_back("off");
  } else {
    flags.push_back("on");
    if (st->bcast) flags.push_back("bcast");
    if (st->optin) {
      flags.push_back("optin");
      if (st->caching) flags.push_back("caching-yes");
    }
    if (st->optout) {
      flags.push_back("optout");
      if (st->caching) flags.push_back("caching-no");
    }
    if (st->noloop) flags.push_back("noloop");
    if (st->broken_redir) flags.push_back("broken_redirect");
  }
  w.setLen(static_cast<int64_t>(flags.size()));
  for (const char* f : flags) w.bulk(f);
  w.bulk("redirect");
  w.integer(clientListRedir(c));
  w.bulk("prefixes");
  size_t n = on ? st->prefixes.size() : 0;
  w.arrayLen(static_cast<int64_t>(n));
  if (on) {
    for (const std::string& p : st->prefixes) w.bulk(p);
  }
}

}  // namespace server::tracking
