// Snapshot state shared by the persistence files: the BGSAVE child, the
// last save's outcome and the save points. One instance per process.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "server/core/command.h"
#include "server/db/db.h"
#include "server/persist/rdb_file.h"
#include "server/persist/rdb_value.h"

namespace server::persist {

struct SnapshotState {
  pid_t child_pid = -1;
  int64_t child_start_ms = 0;
  int64_t dirty_before_bgsave = 0;
  int64_t lastsave = 0;         // unix seconds of the last successful save
  int64_t last_bgsave_try = 0;  // unix seconds
  bool last_bgsave_ok = true;
  int64_t last_bgsave_time_sec = -1;
  bool bgsave_scheduled = false;
  uint64_t rdb_saves = 0;
  uint64_t last_load_keys_loaded = 0;
  uint64_t last_load_keys_expired = 0;
  int64_t loading_start = 0;  // unix seconds
  uint64_t loading_total_bytes = 0;
  uint64_t loading_loaded_bytes = 0;
  int64_t loading_rdb_used_mem = 0;
};

SnapshotState& state();

// From the configuration.
SaveOptions saveOptions();
LoadLimits loadLimits();
std::vector<std::pair<int64_t, int64_t>> savePoints();  // (seconds, changes)
std::vector<db::Db*> serverDbs();

// SAVE in the foreground. True on success (logs either way).
bool saveNow();
// BGSAVE: forks a child that writes the file. False with *err when the
// fork failed.
bool startBgsave(std::string* err);
// Stops a running BGSAVE child only (FLUSHALL leaves an AOF rewrite be).
void killRdbChild();
// The same fork for SYNC (server/repl/): with out_fd < 0 the child writes
// the file as BGSAVE does (a disk-target SYNC is a BGSAVE in Redis too);
// otherwise it writes the RDB image, then `trailer`, to out_fd (a pipe the
// parent forwards to replicas) and leaves the file, LASTSAVE and the dirty
// counter alone. The caller closes its copy of out_fd after the call.
bool startBgsaveWith(const SaveOptions& opt, int out_fd, const std::string& trailer,
                     std::string* err);
// True while the child of either kind runs.
bool childActive();
// Called from the cron when a child ends (and when killChild() stops one):
// ok is false on error or kill; to_fd says which kind it was.
using ChildDoneHook = void (*)(bool ok, bool to_fd);
void setChildDoneHook(ChildDoneHook hook);
// Loads `path` into the server's databases, replacing them only on success.
bool reloadFrom(const std::string& path, std::string* err);
// DEBUG RELOAD NOFLUSH: loads the file into the data set as it is, keys and
// function libraries added to the present ones. A key or library already
// present fails the load (*err names it) unless `merge`, which makes the
// file's copy replace it (DEBUG RELOAD NOFLUSH MERGE). Redis 7.0 stops on
// such a duplicate key; here the load is refused before anything changes.
bool reloadInto(const std::string& path, bool merge, std::string* err);

// DUMP and RESTORE (dump_cmds.cpp).
void registerDumpCommands(server::CommandTable& t);

// Replaces the function libraries with those of a loaded file. False (with
// *err) when one does not load.
bool applyFunctions(const LoadStats& stats, std::string* err);
// Logs what wrote a loaded file (version, server) and what changed on the
// way in (field expiry times not kept).
void logLoadOrigin(const LoadStats& stats);

// In a forked child: closes the listening sockets (a restarted server
// must be able to bind while the child still runs).
void closeListeningSockets();

}  // namespace server::persist
