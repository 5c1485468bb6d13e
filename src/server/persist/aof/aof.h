// The append-only file as the rest of persist/ sees it (the server itself
// goes through server/persist/persist.h, which forwards here).
#pragma once

#include <string>

#include "server/core/command.h"

namespace server::persist::aof {

// Start-up with appendonly yes: loads the AOF (or creates base and incr
// files when there is none) and starts appending. False: start-up stops.
bool loadAtStart();
// Start-up with appendonly no: reads the manifest if there is one, so a
// BGREWRITEAOF knows the files it replaces.
void readManifestAtStart();

// Writes (and fsyncs per appendfsync) what the loop iteration fed, before
// its replies go out.
void beforeSleep();
// Reaps the rewrite child, starts scheduled and automatic rewrites,
// retries failed writes, deletes history files.
void cron();

bool rewriteInProgress();
// BGSAVE waits on this: a rewrite is scheduled or running.
bool rewriteScheduled();
void killChild();
// SHUTDOWN / SIGTERM: stops the child, writes and fsyncs what is buffered.
void shutdown();
// DEBUG LOADAOF: writes what is buffered, empties the databases and loads
// the AOF again. False with *err when the files do not load.
bool debugLoadAof(std::string* err);
// DEBUG AOF-FLUSH-SLEEP <microseconds>: each write of the AOF buffer is
// preceded by this sleep (0: none), a test aid as in Redis.
void setFlushSleepUs(int64_t us);
// True while CONFIG SET appendonly yes waits for its first rewrite.
bool writingInitialAof();
// "-MISCONF Errors writing to the AOF file: ..." while writes fail.
const char* writeError();

// CONFIG SET appendonly / appendfsync ... took effect in the Config.
bool applyConfig(const std::string& name, std::string* err);

// aof_* fields of INFO persistence.
void appendInfo(std::string* o);

void registerAofCommands(server::CommandTable& t);

}  // namespace server::persist::aof
