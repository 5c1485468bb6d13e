// SAVE, BGSAVE [SCHEDULE], LASTSAVE, SHUTDOWN and the persistence
// subcommands of DEBUG (RELOAD, DIGEST, DIGEST-VALUE).
#include <string>

#include "common/log.h"
#include "common/strutil.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/persist/aof/aof.h"
#include "server/persist/digest.h"
#include "server/persist/persist.h"
#include "server/persist/snapshot.h"
#include "server/request/multi.h"

namespace server::persist {

using server::Client;

namespace {

void saveCommand(Client* c) {
  if (state().child_pid > 0) {
    c->addError("Background save already in progress");
    return;
  }
  if (saveNow())
    c->addOk();
  else
    c->addError("-ERR");
}

void bgsaveCommand(Client* c) {
  bool schedule = false;
  if (c->argc() == 2 && common::strutil::equalsIgnoreCase(c->arg(1), "SCHEDULE")) {
    schedule = true;
  } else if (c->argc() > 1) {
    c->addSyntaxError();
    return;
  }
  if (state().child_pid > 0) {
    c->addError("Background save already in progress");
    return;
  }
  // Inside EXEC a BGSAVE is scheduled (the cron forks), as Redis does.
  if (aof::rewriteInProgress() || inExec()) {
    if (schedule || inExec()) {
      state().bgsave_scheduled = true;
      c->addStatus("Background saving scheduled");
    } else {
      c->addError(
          "Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE "
          "in order to schedule a BGSAVE whenever possible.");
    }
    return;
  }
  std::string err;
  if (!startBgsave(&err)) {
    c->addError("-ERR");
    return;
  }
  c->addStatus("Background saving started");
}

void lastsaveCommand(Client* c) {
  c->addInteger(state().lastsave);
}

void debugReload(Client* c) {
  bool nosave = false, noflush = false, merge = false;
  for (size_t i = 2; i < c->argc(); i++) {
    std::string_view a = c->arg(i);
    if (common::strutil::equalsIgnoreCase(a, "NOSAVE")) {
      nosave = true;
    } else if (common::strutil::equalsIgnoreCase(a, "NOFLUSH")) {
      noflush = true;
    } else if (common::strutil::equalsIgnoreCase(a, "MERGE")) {
      merge = true;
    } else {
      c->addError("DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
      return;
    }
  }
  if (!nosave && !saveNow()) {
    c->addError("-ERR");
    return;
  }
  std::string err;
  // MERGE alone changes nothing: the data set is emptied first anyway.
  const std::string& path = server::g_server->config.dbfilename;
  if (noflush ? !reloadInto(path, merge, &err) : !reloadFrom(path, &err)) {
    LOG_WARNING("DEBUG RELOAD: %s", err.c_str());
    c->addError("Error trying to load the RDB dump, check server logs.");
    return;
  }
  LOG_NOTICE("DB reloaded by DEBUG RELOAD");
  c->addOk();
}

}  // namespace

bool debugSubcommand(Client* c) {
  std::string_view sub = c->arg(1);
  if (common::strutil::equalsIgnoreCase(sub, "RELOAD")) {
    if (loading()) {
      c->addError("-LOADING Redis is loading the dataset in memory");
      return true;
    }
    debugReload(c);
    return true;
  }
  if (common::strutil::equalsIgnoreCase(sub, "LOADAOF") && c->argc() == 2) {
    std::string err;
    if (aof::debugLoadAof(&err))
      c->addOk();
    else
      c->addError(err);
    return true;
  }
  if (common::strutil::equalsIgnoreCase(sub, "AOF-FLUSH-SLEEP") && c->argc() == 3) {
    int64_t us;
    if (!c->argInt64(2, &us)) return true;
    aof::setFlushSleepUs(us);
    c->addOk();
    return true;
  }
  if (common::strutil::equalsIgnoreCase(sub, "DIGEST") && c->argc() == 2) {
    c->addStatus(datasetDigest(serverDbs()));
    return true;
  }
  if (common::strutil::equalsIgnoreCase(sub, "DIGEST-VALUE")) {
    c->addArrayLen(static_cast<int64_t>(c->argc() - 2));
    for (size_t i = 2; i < c->argc(); i++) c->addStatus(valueDigest(*c->db(), c->arg(i)));
    return true;
  }
  return false;
}

void registerPersistCommands(server::CommandTable& t) {
  using namespace server;
  t.add({"lastsave", 1, kLoading | kStale | kFast, lastsaveCommand, 0, 0, 0, "server",
         "Get the UNIX time stamp of the last successful save to disk", "1.0.0", "O(1)",
         "admin fast dangerous"});
  t.add({"save", 1, kAdmin | kNoScript | kNoMulti | kNoAsyncLoading, saveCommand, 0, 0, 0, "server",
         "Synchronously save the dataset to disk", "1.0.0",
         "O(N) where N is the total number of keys in all databases", "admin slow dangerous"});
  t.add({"bgsave", -1, kAdmin | kNoScript | kNoAsyncLoading, bgsaveCommand, 0, 0, 0, "server",
         "Asynchronously save the dataset to disk", "1.0.0", "O(1)", "admin slow dangerous"});
  registerDumpCommands(t);
  aof::registerAofCommands(t);
}

}  // namespace server::persist
