// Appending: the propagation sink that turns effects into RESP commands in
// a memory buffer, and the flush that writes the buffer to the incr file in
// before-sleep, ahead of the replies of the same loop iteration, then
// fsyncs per appendfsync.
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/log.h"
#include "server/core/state.h"
#include "server/persist/aof/state.h"
#include "server/propagate/propagate.h"

namespace server::persist::aof {

namespace {

// everysec: how long writes wait on a still running fsync before going
// ahead anyway (counted in aof_delayed_fsync).
constexpr int64_t kMaxPostponeMs = 2000;

class AofSink : public server::propagate::Sink {
 public:
  void feed(int db, std::span<const std::string_view> argv) override {
    State& st = state();
    // Switching on: effects before the rewrite's fork are in its snapshot;
    // only those after it go to the temp incr file.
    if (st.mode == Mode::kOff || (st.mode == Mode::kWaitRewrite && st.child_pid <= 0)) return;
    const server::Config& c = server::g_server->config;
    if (c.aof_timestamp_enabled) {
      int64_t now = static_cast<int64_t>(time(nullptr));
      if (now > st.cur_timestamp) {
        st.cur_timestamp = now;
        st.buf += "#TS:" + std::to_string(now) + "\r\n";
      }
    }
    server::propagate::appendToStream(&st.buf, &st.selected_db, db, argv);
  }
};

AofSink g_sink;

bool alwaysPolicy() {
  return server::g_server->config.appendfsync == "always";
}

bool everysecPolicy() {
  return server::g_server->config.appendfsync == "everysec";
}

void setWriteError(int err) {
  State& st = state();
  st.last_write_ok = false;
  st.last_write_errno = err;
}

}  // namespace

void registerSink() {
  server::propagate::addSink(&g_sink);
}

void unregisterSink() {
  server::propagate::removeSink(&g_sink);
}

namespace {
int64_t g_flush_sleep_us = 0;
}  // namespace

void setFlushSleepUs(int64_t us) {
  g_flush_sleep_us = us > 0 ? us : 0;
}

void flush(bool force) {
  State& st = state();
  if (st.mode == Mode::kOff || st.fd < 0) return;
  int64_t now = monoMs();
  if (int e = takeBackgroundFsyncError()) {
    LOG_WARNING("Error writing to the AOF file: fsync failed: %s", strerror(e));
    setWriteError(e);
  }
  bool sync_in_progress = false;
  if (everysecPolicy()) sync_in_progress = pendingFsyncs() > 0;
  if (st.buf.empty()) {
    // Nothing new, but writes may still wait for their everysec fsync.
    if (everysecPolicy() && st.fsync_offset != st.current_size && now - st.last_fsync_ms >= 1000 &&
        !sync_in_progress) {
      goto try_fsync;
    }
    return;
  }
  if (everysecPolicy() && !force && sync_in_progress) {
    // Writing while the disk is busy with the fsync would block in write().
    if (st.flush_postponed_start == 0) {
      st.flush_postponed_start = now;
      return;
    }
    if (now - st.flush_postponed_start < kMaxPostponeMs) return;
    st.delayed_fsync++;
    LOG_NOTICE(
        "Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF buffer "
        "without waiting for fsync to complete, this may slow down Redis.");
  }
  {
    if (g_flush_sleep_us > 0) usleep(static_cast<useconds_t>(g_flush_sleep_us));
    size_t done = 0;
    int err = 0;
    while (done < st.buf.size()) {
      ssize_t w = write(st.fd, st.buf.data() + done, st.buf.size() - done);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        err = errno;
        break;
      }
      if (w == 0) {
        err = ENOSPC;
        break;
      }
      done += static_cast<size_t>(w);
    }
    st.flush_postponed_start = 0;
    if (done != st.buf.size()) {
      if (alwaysPolicy()) {
        // Replies of this iteration promise durability: they must not go
        // out, and the buffer cannot be kept for later.
        LOG_WARNING(
            "Can't recover from AOF write error when the AOF fsync policy is 'always'. "
            "Exiting...");
        _exit(1);
      }
      if (done > 0) {
        // A partial command in the file would break loading: cut it off,
        // or keep what was written when that fails.
        if (ftruncate(st.fd, static_cast<off_t>(st.last_incr_size)) == 0) {
          done = 0;
        } else {
          LOG_WARNING(
              "Could not remove short write from the append-only file.  Redis may refuse to "
              "load the AOF the next time it starts.  ftruncate: %s",
              strerror(errno));
        }
      }
      if (err == 0) err = ENOSPC;
      LOG_WARNING("Error writing to the AOF file: %s", strerror(err));
      setWriteError(err);
      st.current_size += done;
      st.last_incr_size += done;
      st.buf.erase(0, done);
      return;
    }
    if (!st.last_write_ok) {
      LOG_WARNING("AOF write error looks solved, Redis can write again.");
      st.last_write_ok = true;
    }
    st.current_size += done;
    st.last_incr_size += done;
    // Big buffers are released rather than kept at their peak.
    if (st.buf.capacity() > 4000) {
      std::string().swap(st.buf);
    } else {
      st.buf.clear();
    }
  }
try_fsync:
  if (server::g_server->config.no_appendfsync_on_rewrite && anyChild()) return;
  if (alwaysPolicy()) {
    if (fdatasync(st.fd) != 0) {
      LOG_WARNING(
          "Can't persist AOF for fsync error when the AOF fsync policy is 'always': %s. "
          "Exiting...",
          strerror(errno));
      _exit(1);
    }
    st.fsync_offset = st.current_size;
    st.last_fsync_ms = now;
  } else if (everysecPolicy() && now - st.last_fsync_ms >= 1000) {
    if (!sync_in_progress) {
      fsyncInBackground(st.fd);
      st.fsync_offset = st.current_size;
    }
    st.last_fsync_ms = now;
  }
}

}  // namespace server::persist::aof
