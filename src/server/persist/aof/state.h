// The append-only file's process-wide state, shared by the files of this
// folder (private to persist::aof; the server reaches AOF through
// server/persist/persist.h).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "server/persist/aof/manifest.h"

namespace server::persist::aof {

enum class Mode {
  kOff,
  kOn,
  // CONFIG SET appendonly yes: writes go to a temp incr file until the
  // first rewrite has produced a base (as Redis's AOF_WAIT_REWRITE).
  kWaitRewrite,
};

struct State {
  Mode mode = Mode::kOff;
  Manifest manifest;
  int fd = -1;      // the incr file (or temp incr) being appended
  std::string buf;  // fed effects not written yet
  int selected_db = -1;
  int64_t cur_timestamp = 0;  // last #TS annotation (aof-timestamp-enabled)

  uint64_t current_size = 0;    // aof_current_size: base + incrs
  uint64_t base_size = 0;       // aof_base_size: reference for auto rewrite
  uint64_t last_incr_size = 0;  // bytes in the incr file being appended
  uint64_t fsync_offset = 0;    // current_size at the last fsync started
  int64_t last_fsync_ms = 0;
  int64_t flush_postponed_start = 0;  // ms; everysec waiting on a slow fsync
  uint64_t delayed_fsync = 0;
  bool last_write_ok = true;
  int last_write_errno = 0;

  // Rewrite child.
  pid_t child_pid = -1;
  int64_t rewrite_start_ms = 0;
  bool rewrite_scheduled = false;
  int64_t last_rewrite_time_sec = -1;
  bool last_bgrewrite_ok = true;
  uint64_t rewrites = 0;
  uint64_t consecutive_failures = 0;
  int64_t next_auto_try_ms = 0;  // back-off after repeated failures
};

State& state();

int64_t monoMs();

// Paths inside appenddirname (relative to `dir`, the working directory).
std::string dirName();
std::string pathOf(const std::string& name);

// The propagation sink: feeds effects into state().buf while mode != kOff.
void registerSink();
void unregisterSink();

// Writes the buffer to the incr file and fsyncs per appendfsync (writer.cpp).
// force: write even while an everysec fsync is still running.
void flush(bool force);
// fdatasync of fd on the background thread (everysec).
void fsyncInBackground(int fd);
// Closes fd on the background thread (a close may block on a big file).
void closeInBackground(int fd);
// Unlinks path on the background thread.
void unlinkInBackground(const std::string& path);
// errno of a failed background fsync since the last call, or 0.
int takeBackgroundFsyncError();
// Background fsyncs queued or running.
int pendingFsyncs();
// Waits until the background thread has done everything queued.
void drainBackground();

// Files (files.cpp): the manifest on disk and the incr file being appended.
bool persistManifest(std::string* err);
// Opens the next incr file for appending and makes it current; in
// kWaitRewrite mode the temp incr instead. False (logged) on failure.
bool openNewIncr(const char* why);
// Marks history files deleted (unless aof-disable-auto-gc) and persists.
void deleteHistoryFiles();
// True when a rewrite or BGSAVE child runs.
bool anyChild();

}  // namespace server::persist::aof
