// MODULE as a Redis 7.0.15 server with no module loaded answers it: this
// server cannot load modules (README, "Not implemented yet"). LIST is
// empty; LOAD, LOADEX and UNLOAD are refused unless enable-module-command
// allows them for the client (as Redis refuses them), and then fail as a
// load that did not work, with the reason in the log.
#include <string>

#include "common/log.h"
#include "server/commands/server/introspection.h"
#include "server/conf/config.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/reply_helpers.h"
#include "server/core/state.h"

namespace server {
namespace {

constexpr const char* kNotAllowed =
    "MODULE command not allowed. If the enable-module-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";

bool allowed(Client* c) {
  const std::string& mode = g_server->config.enable_module_command;
  if (mode == "yes") return true;
  return mode == "local" && c->conn() != nullptr && c->conn()->isLocal();
}

void moduleListCommand(Client* c) {
  c->reply().arrayLen(0);
}

void moduleLoadCommand(Client* c) {
  if (!allowed(c)) {
    c->addError(kNotAllowed);
    return;
  }
  LOG_WARNING("Module %.*s failed to load: this server does not support modules",
              static_cast<int>(c->arg(2).size()), c->arg(2).data());
  c->addError("Error loading the extension. Please check the server logs.");
}

void moduleUnloadCommand(Client* c) {
  if (!allowed(c)) {
    c->addError(kNotAllowed);
    return;
  }
  c->addError("Error unloading module: no such module with that name");
}

void moduleHelpCommand(Client* c) {
  static const char* const kLines[] = {
      "MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "LIST",
      "    Return a list of loaded modules.",
      "LOAD <path> [<arg> ...]",
      "    Load a module library from <path>, passing to it any optional arguments.",
      "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
      "    Load a module library from <path>, while passing it module configurations and "
      "optional arguments.",
      "UNLOAD <name>",
      "    Unload a module.",
      "HELP",
      "    Prints this help.",
  };
  replyHelp(c, kLines);
}

void moduleCommand(Client* c) {
  c->addWrongArity();
}

}  // namespace

void registerModuleCommand(CommandTable& t) {
  constexpr SubcommandMaker sub{"server", "4.0.0"};
  const uint32_t kLoad = kNoAsyncLoading | kAdmin | kNoScript;
  const char* kAcl = "admin slow dangerous";
  Command module{"module",
                 -2,
                 0,
                 moduleCommand,
                 0,
                 0,
                 0,
                 "server",
                 "A container for module commands",
                 "4.0.0",
                 "Depends on subcommand.",
                 "slow"};
  module.subcommands = {
      sub("module|help", 2, kLoading | kStale, moduleHelpCommand,
          "Show helpful text about the different subcommands", "5.0.0", "O(1)", "slow"),
      sub("module|list", 2, kAdmin | kNoScript, moduleListCommand,
          "List all modules loaded by the server", "O(N) where N is the number of loaded modules.",
          kAcl),
      sub("module|load", -3, kLoad, moduleLoadCommand, "Load a module", "O(1)", kAcl),
      sub("module|loadex", -3, kLoad, moduleLoadCommand, "Load a module with extended parameters",
          "7.0.0", "O(1)", kAcl),
      sub("module|unload", 3, kLoad, moduleUnloadCommand, "Unload a module", "O(1)", kAcl),
  };
  t.add(std::move(module));
}

}  // namespace server
