// CONFIG GET | SET | RESETSTAT | REWRITE | HELP, and the hook that applies
// options changed at run time to the running server.
#include <set>
#include <string>

#include "common/log.h"
#include "common/strutil.h"
#include "net/registry.h"
#include "server/acl/acl_log.h"
#include "server/acl/users.h"
#include "server/commands/server/introspection.h"
#include "server/conf/config.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/crash/signals.h"
#include "server/evict/evict.h"
#include "server/limits/open_files.h"
#include "server/persist/persist.h"
#include "server/process/os_tuning.h"
#include "server/process/startup.h"
#include "server/repl/repl.h"

namespace server {

namespace {

// Applies one option after CONFIG SET changed it. Options not listed here
// are read where they are used (timeout by the clients cron, maxclients at
// accept, requirepass for new connections, proto-max-bulk-len and
// client-query-buffer-limit by the request reader, hz by the cron).
// Settings of connection types changed by the running CONFIG SET: applied
// together once every value is stored (a certificate and its key change as
// a pair), by applyTransportChanges().
std::vector<std::string> g_transport_changes;

bool applyConfig(const std::string& name, std::string* err) {
  // The hook is process-wide; a Config edited while no server runs (unit
  // tests) has nothing to apply to.
  if (g_server == nullptr) return true;
  Server& s = *g_server;
  if (net::findSetting(name) != nullptr) {
    g_transport_changes.push_back(name);
    return true;
  }
  if (name == "loglevel") {
    common::logging::Level l;
    if (common::logging::parseLevel(s.config.loglevel, &l)) common::logging::setLevel(l);
    return true;
  }
  if (name == "port" || name == "bind") {
    // Redis's replies; what failed is in the log.
    std::string why;
    if (!s.rebindListeners(&why)) {
      LOG_WARNING("%s", why.c_str());
      if (name == "bind") {
        LOG_WARNING("Failed to bind");
        *err = "Failed to bind to specified addresses.";
      } else {
        *err = "Unable to listen on this port. Check server logs.";
      }
      return false;
    }
    return true;
  }
  if (name == "requirepass") {
    acl::applyRequirepass(s.config.requirepass);
    return true;
  }
  if (name == "acllog-max-len") {
    acl::aclLogTrim();
    return true;
  }
  if (name == "acl-pubsub-default") {
    acl::g_pubsub_default_all = s.config.acl_pubsub_default == "allchannels";
    return true;
  }
  if (name == "appendonly") return persist::applyConfig(name, err);
  if (name == "repl-backlog-size") {
    repl::applyBacklogSize();
    return true;
  }
  if (name == "maxclients") return limits::applyMaxclients(&s.config.maxclients, err);
  if (name == "oom-score-adj" || name == "oom-score-adj-values") {
    if (!process::applyServerOomScoreAdj(s.config)) {
      *err = "Failed to set current oom_score_adj. Check server logs.";
      return false;
    }
    return true;
  }
  if (name == "watchdog-period") {
    crash::armWatchdog(s.config.watchdog_period, s.hz);
    return true;
  }
  if (name == "proc-title-template") {
    process::updateProcTitle(s.config);
    return true;
  }
  if (name == "maxmemory-policy" || name == "lfu-log-factor" || name == "lfu-decay-time") {
    syncLfuConfig();
  }
  if (name.rfind("maxmemory", 0) == 0 || name.rfind("lazyfree-", 0) == 0 ||
      name == "jemalloc-bg-thread") {
    evict::applyConfig(name);
  }
  return true;
}

// Hands the queued changes to the connection types that own them, then
// reopens the listeners if a port moved. False with *err and *failed.
bool applyTransportChanges(std::string* err, std::string* failed) {
  std::vector<std::string> names;
  names.swap(g_transport_changes);
  if (names.empty() || g_server == nullptr) return true;
  Server& s = *g_server;
  auto get = [&s](const std::string& name) { return configValue(s.config, name); };
  bool reopen = false;
  if (!net::applySettings(get, names, &reopen, err, failed)) return false;
  if (reopen) {
    std::string why;
    if (!s.rebindListeners(&why)) {
      LOG_WARNING("%s", why.c_str());
      *err = "Unable to listen on this port. Check server logs.";
      *failed = names.front();
      return false;
    }
  }
  return true;
}

// enable-debug-command / enable-protected-configs: "yes", or "local" for
// loopback and unix peers.
bool allowedFrom(const std::string& mode, Client* c) {
  if (mode == "yes") return true;
  return mode == "local" && c->conn() != nullptr && c->conn()->isLocal();
}

void configGetCommand(Client* c) {
  std::vector<std::pair<std::string, std::string>> found;
  std::set<std::string> seen;
  for (size_t i = 2; i < c->argc(); i++) {
    for (auto& kv : configGet(g_server->config, std::string(c->arg(i)))) {
      if (seen.insert(kv.first).second) found.push_back(std::move(kv));
    }
  }
  resp::Writer& w = c->reply();
  w.mapLen(static_cast<int64_t>(found.size()));
  for (const auto& [name, value] : found) {
    w.bulk(name);
    w.bulk(value);
  }
}

void configSetCommand(Client* c) {
  if ((c->argc() - 2) % 2 != 0) {
    c->addWrongArity();
    return;
  }
  Config& cfg = g_server->config;
  // Check every name before changing anything: the call is all or nothing.
  // A name given twice is refused; an option and its alias (as Redis 7.0
  // treats them) are two names, applied in order.
  std::vector<std::string> names;
  std::vector<std::string_view> given_names;
  for (size_t i = 2; i < c->argc(); i += 2) {
    std::string given(c->arg(i));
    std::string name = configCanonicalName(given);
    if (name.empty() || !configSetArity(name, 1)) {
      c->addErrorFormat("Unknown option or number of arguments for CONFIG SET - '%s'",
                        given.c_str());
      return;
    }
    if (configIsProtected(name) && !allowedFrom(cfg.enable_protected_configs, c)) {
      c->addErrorFormat(
          "CONFIG SET failed (possibly related to argument '%s') - can't set "
          "protected config",
          given.c_str());
      return;
    }
    // Settings a load in progress depends on (Redis's DENY_LOADING_CONFIG):
    // refused while any load runs, an asynchronous one included.
    if (persist::g_loading != persist::Loading::kNone &&
        (name == "appendonly" || name == "repl-diskless-load" || name == "dir")) {
      c->addError("-LOADING Redis is loading the dataset in memory");
      return;
    }
    for (std::string_view n : given_names) {
      if (common::strutil::equalsIgnoreCase(n, given)) {
        c->addErrorFormat(
            "CONFIG SET failed (possibly related to argument '%s') - duplicate parameter",
            given.c_str());
        return;
      }
    }
    names.push_back(name);
    given_names.push_back(c->arg(i));
  }
  Config backup = cfg;
  for (size_t k = 0; k < names.size(); k++) {
    std::string err;
    bool unknown = false, immutable = false;
    std::vector<std::string> value{std::string(c->arg(3 + 2 * k))};
    if (configSet(&cfg, names[k], value, &err, &unknown, &immutable)) continue;
    // Undo: restore every value and re-apply the ones already applied
    // (the failing one included: its apply step may have half-run).
    cfg = backup;
    for (size_t j = 0; j <= k; j++) {
      std::string ignored;
      applyConfig(names[j], &ignored);
    }
    g_transport_changes.clear();  // none was applied yet
    std::string given(c->arg(2 + 2 * k));
    c->addErrorFormat("CONFIG SET failed (possibly related to argument '%s') - %s", given.c_str(),
                      err.c_str());
    return;
  }
  std::string err, failed;
  if (!applyTransportChanges(&err, &failed)) {
    LOG_WARNING(
        "Failed applying new configuration. Possibly related to new %s setting. Restoring "
        "previous settings.",
        failed.c_str());
    cfg = backup;
    for (const std::string& name : names) {
      std::string ignored;
      applyConfig(name, &ignored);
    }
    std::string ignored_err, ignored_name;
    applyTransportChanges(&ignored_err, &ignored_name);
    c->addErrorFormat("CONFIG SET failed (possibly related to argument '%s') - %s", failed.c_str(),
                      err.c_str());
    return;
  }
  c->addOk();
}

void configResetstatCommand(Client* c) {
  resetServerStats();
  c->addOk();
}

void configRewriteCommand(Client* c) {
  rewriteConfigAndReply(c, false);
}

}  // namespace

void rewriteConfigAndReply(Client* c, bool force_all) {
  const std::string& path = g_server->config_file;
  if (path.empty() || path == "-") {
    c->addError("The server is running without a config file");
    return;
  }
  std::string err;
  if (!rewriteConfigFile(g_server->config, path, &err, force_all)) {
    LOG_WARNING("CONFIG REWRITE failed: %s", err.c_str());
    c->addError(err);
    return;
  }
  LOG_NOTICE("CONFIG REWRITE executed with success.");
  c->addOk();
}

namespace {

void configHelpCommand(Client* c) {
  static const char* const kLines[] = {
      "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GET <pattern>",
      "    Return parameters matching the glob-like <pattern> and their values.",
      "SET <directive> <value>",
      "    Set the configuration <directive> to <value>.",
      "RESETSTAT",
      "    Reset statistics reported by the INFO command.",
      "REWRITE",
      "    Rewrite the configuration file.",
      "HELP",
      "    Prints this help.",
  };
  replyHelp(c, kLines);
}

void configCommand(Client* c) {
  c->addWrongArity();
}

constexpr SubcommandMaker sub{"server"};

}  // namespace

void registerConfigCommand(CommandTable& t) {
  setConfigApplyHook(applyConfig);
  const uint32_t kAdminFlags = kAdmin | kNoScript | kLoading | kStale;
  const char* kAdminAcl = "admin slow dangerous";
  const char* kPerParam = "O(N) when N is the number of configuration parameters provided";
  Command config{"config",
                 -2,
                 0,
                 configCommand,
                 0,
                 0,
                 0,
                 "server",
                 "A container for server configuration commands",
                 "2.0.0",
                 "Depends on subcommand.",
                 "slow"};
  config.subcommands = {
      sub("config|get", -3, kAdminFlags, configGetCommand,
          "Get the values of configuration parameters", "2.0.0", kPerParam, kAdminAcl),
      sub("config|set", -4, kAdminFlags, configSetCommand,
          "Set configuration parameters to the given values", "2.0.0", kPerParam, kAdminAcl),
      sub("config|resetstat", 2, kAdminFlags, configResetstatCommand,
          "Reset the stats returned by INFO", "2.0.0", "O(1)", kAdminAcl),
      sub("config|rewrite", 2, kAdminFlags, configRewriteCommand,
          "Rewrite the configuration file with the in memory configuration", "2.8.0", "O(1)",
          kAdminAcl),
      sub("config|help", 2, kLoading | kStale, configHelpCommand,
          "Show helpful text about the different subcommands", "5.0.0", "O(1)", "slow"),
  };
  t.add(std::move(config));
}

// Used by DEBUG (debug.cpp): same "yes"/"local" rule as protected configs.
bool debugCommandAllowed(Client* c) {
  return allowedFrom(g_server->config.enable_debug_command, c);
}

}  // namespace server
