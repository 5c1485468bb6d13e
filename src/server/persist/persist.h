// Persistence: the server's only entry points into RDB snapshots. The rest
// of the server calls these hooks; everything else in src/server/persist/
// is private to the module.
//
// Module persist/ (namespace server::persist; the AOF in persist/aof/,
// server::persist::aof): owns RDB files and payloads (save, load of every
// version, DUMP/RESTORE), the fork child, the AOF and its manifest. May
// include db/, conf/, core/, propagate/, pubsub/, request/ (to run loaded
// commands through call.h), script/ (functions in the RDB), evict/ and
// process/; the one include that runs up is introspection.h from
// commands/. Included by commands/, dispatch, evict/, repl/ and the top,
// through this header; repl/master/ also uses snapshot.h (the fork child
// for a sync) and DEBUG's inspection dump_payload.h.
//
//   start-up      loadAtStart() after the databases exist and before the
//                 listeners accept (a corrupt file stops start-up with its
//                 reason logged, as Redis does).
//   server cron   cron(): reaps a finished BGSAVE child, runs save points
//                 and BGSAVE SCHEDULE.
//   dispatch      writeError(): the -MISCONF refusal while saving fails
//                 (stop-writes-on-bgsave-error).
//   shutdown      shutdownSave() from SHUTDOWN and the signals (the top's
//                 shutdown.cpp), killChild() on
//                 the way out.
//   INFO          appendInfoPersistence() / appendInfoStats(),
//                 aofBufferBytes().
//   commands      registerPersistCommands(): SAVE BGSAVE LASTSAVE
//                 DUMP RESTORE; debugSubcommand() for DEBUG RELOAD/DIGEST.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "server/core/command.h"

namespace server {
class Client;
}

namespace server::persist {

// Loads dbfilename if it exists (false: the file is bad, start-up stops).
// Runs the event loop every few milliseconds meanwhile, so clients can
// connect and get -LOADING; a shutdown requested meanwhile abandons it.
bool loadAtStart();
// What load is under way: none; a load that refuses commands without the
// "loading" flag with -LOADING (at start, DEBUG RELOAD, a replica's full
// sync); or repl-diskless-load swapdb's asynchronous load, during which the
// old data set keeps serving and only commands flagged no-async-loading get
// -LOADING (INFO async_loading:1). One byte the request path reads.
enum class Loading : uint8_t { kNone, kSync, kAsync };
extern Loading g_loading;
inline bool loading() {
  return g_loading == Loading::kSync;
}
inline bool asyncLoading() {
  return g_loading == Loading::kAsync;
}
// The replica side marks a diskless full sync's transfer (the RDB arriving)
// as loading, as Redis's streamed load is: kAsync for swapdb continuing the
// replica's history, else kSync; kNone when the sync ends either way (only
// a mark this function set is cleared).
void setTransferLoading(Loading kind);
void cron();
// Before the loop sleeps and before replies are written: the AOF's write
// (and fsync with appendfsync always) of what this iteration changed.
void beforeSleep();
// CONFIG SET of a persistence parameter took effect (appendonly).
bool applyConfig(const std::string& name, std::string* err);
// Non-null while writes must be refused: the full error line (-MISCONF ...).
const char* writeError();

// Saves before exiting when asked (save) or when save points exist (and
// not nosave). False when the save failed and force is not set: the caller
// then stays up.
bool shutdownSave(bool save, bool nosave, bool force);
// Stops running BGSAVE and AOF rewrite children and removes their temp
// files.
void killChild();

// FLUSHALL as Redis 7.0.15: stops a BGSAVE in progress and, when save
// points exist, saves the now empty data set at once (so a restart does not
// bring the old data back), which leaves no change unsaved
// (rdb_changes_since_last_save 0). FLUSHALL reaches replicas and the AOF
// by forced propagation, not through the dirty counter.
void afterFlushAll();

void appendInfoPersistence(std::string* o);
// Bytes of effects fed to the AOF and not yet written (INFO mem_aof_buffer;
// maxmemory leaves them out, as Redis does).
size_t aofBufferBytes();
// latest_fork_usec and total_forks for INFO stats.
void appendInfoForkStats(std::string* o);

void registerPersistCommands(server::CommandTable& t);

// Replication (server/repl/replica/): the RDB of a full resynchronization,
// in memory (diskless load: data/len) or in the file at `path`. loading()
// is true meanwhile and serve_events runs every 20 ms so clients get
// -LOADING. Keys whose TTL passed are kept (the master deletes them). On
// success every database is replaced (the old contents freed in the
// background with lazy_flush) and the function libraries with the file's;
// on failure the databases are emptied, or kept with keep_on_error
// (repl-diskless-load swapdb), and *err says why.
// The replication aux fields every RDB this server saves carries (repl-id,
// repl-offset, repl-stream-db), from server/repl/; none without a hook or
// when it returns none.
using ReplAuxHook = std::vector<std::pair<std::string, std::string>> (*)();
void setReplAuxHook(ReplAuxHook hook);
// Those fields as the RDB loaded at start had them (empty id / -1 if not).
struct ReplInfo {
  std::string id;
  int64_t offset = -1;
  int64_t stream_db = -1;
};
const ReplInfo& loadedReplInfo();
// The keys the start-up load skipped because their TTL had passed (db, key),
// handed over once: a master continuing its history from the RDB feeds
// their DELs to the replicas that continue with it.
std::vector<std::pair<int, std::string>> takeLoadExpiredKeys();

class RdbReader;

// The RDB of a full synchronization: read from the master's connection as
// it arrives (stream, diskless load; stream_len its length if announced,
// else 0) or from the file received (path).
struct ReplicaRdb {
  RdbReader* stream = nullptr;
  size_t stream_len = 0;
  std::string path;
  bool lazy_flush = false;
  bool keep_on_error = false;
  bool async = false;  // swapdb: serve the old data set meanwhile (asyncLoading())
  std::function<void()> serve_events;
  // Asked while loading: false abandons the load (the link it reads went
  // away meanwhile).
  std::function<bool()> still_wanted;
  // After the last byte of the RDB, before the data replaces the old: false
  // with *err fails the load (what follows the RDB is not what it should be).
  std::function<bool(std::string* err)> verify_end;
};
struct ReplicaRdbResult {
  uint64_t keys = 0;
  double seconds = 0;
  int64_t repl_stream_db = -1;  // aux "repl-stream-db", -1 when absent
};
bool loadReplicaRdb(const ReplicaRdb& in, ReplicaRdbResult* out, std::string* err);
// DEBUG RELOAD / DIGEST / DIGEST-VALUE (and JMAP-like helpers are not ours):
// true when the subcommand was one of ours and has been answered.
bool debugSubcommand(server::Client* c);

}  // namespace server::persist
