// Loading the RDB a master sends in a full resynchronization
// (src/server/repl/replica/), from the received file or straight from the
// master's connection (diskless load), with the same -LOADING service and
// progress figures as a load at start-up.
#include <time.h>

#include "common/log.h"
#include "event/event_loop.h"
#include "server/core/state.h"
#include "server/evict/lazyfree.h"
#include "server/persist/persist.h"
#include "server/persist/rdb_file.h"
#include "server/persist/snapshot.h"
#include "server/pubsub/tracking.h"
#include "server/request/keyspace.h"

namespace server::persist {

namespace {

int64_t monoUs() {
  return event::EventLoop::nowUs();
}

// The databases' old contents go: freed on the lazy-free thread when
// `lazy` (replica-lazy-flush), else here.
void dropContents(db::Db& d, bool lazy) {
  if (d.size() == 0) return;
  if (lazy) {
    evict::lazyfree::freeDbAsync(d.detachAll());
  } else {
    d.clear();
  }
}

}  // namespace

bool loadReplicaRdb(const ReplicaRdb& in, ReplicaRdbResult* out, std::string* err) {
  server::Server& srv = *server::g_server;
  SnapshotState& st = state();
  // swapdb: the old data set keeps serving (asynchronous load).
  g_loading = in.async ? Loading::kAsync : Loading::kSync;
  st.loading_start = static_cast<int64_t>(time(nullptr));
  st.loading_loaded_bytes = 0;
  st.loading_total_bytes = in.stream != nullptr ? in.stream_len : 0;
  int64_t t0 = monoUs();
  std::vector<std::unique_ptr<db::Db>> fresh;
  LoadStats stats;
  LoadHooks hooks;
  hooks.key_delay_us = srv.config.key_load_delay;
  int64_t last_events = monoUs();
  hooks.progress = [&](size_t loaded, size_t total) {
    st.loading_loaded_bytes = loaded;
    st.loading_total_bytes = total;
    st.loading_rdb_used_mem = stats.used_mem;
    // Clients get -LOADING (and INFO) every 20 ms of loading, as at start.
    int64_t now = monoUs();
    if (now - last_events >= 20000) {
      last_events = now;
      if (in.serve_events) in.serve_events();
      hooks.key_delay_us = srv.config.key_load_delay;  // CONFIG SET meanwhile
    }
    return !srv.shutdown_asap && (!in.still_wanted || in.still_wanted());
  };
  // A replica keeps keys whose TTL has passed: the master's DEL removes
  // them (now_ms 0 skips nothing).
  bool ok;
  bool missing = false;
  int ndbs = static_cast<int>(srv.config.databases);
  if (in.stream != nullptr) {
    ok = loadRdb(*in.stream, in.stream_len, ndbs, loadLimits(), srv.config.rdbchecksum, 0, &fresh,
                 &stats, err, &hooks);
  } else {
    ok = loadRdbFile(in.path, ndbs, loadLimits(), srv.config.rdbchecksum, 0, &fresh, &stats,
                     &missing, err, &hooks);
    if (ok && missing) {
      ok = false;
      *err = "no such file: " + in.path;
    }
  }
  if (ok && in.verify_end && !in.verify_end(err)) ok = false;
  g_loading = Loading::kNone;
  if (ok && !applyFunctions(stats, err)) ok = false;
  if (!ok) {
    if (!in.keep_on_error) {
      // As Redis, which flushed before loading: the replica is left empty.
      for (auto& d : srv.dbs) {
        server::dbWillChange(d.get(), nullptr);
        dropContents(*d, in.lazy_flush);
      }
      server::tracking::invalidateOnFlush(true);
    }
    return false;
  }
  for (size_t i = 0; i < fresh.size() && i < srv.dbs.size(); i++) {
    server::dbWillChange(srv.dbs[i].get(), nullptr);
    srv.dbs[i]->swapWith(*fresh[i]);
    dropContents(*fresh[i], in.lazy_flush);
  }
  server::tracking::invalidateOnFlush(true);
  st.last_load_keys_loaded = stats.keys;
  st.last_load_keys_expired = stats.expired_skipped;
  if (!stats.redis_ver.empty())
    LOG_NOTICE("Loading RDB produced by version %s", stats.redis_ver.c_str());
  LOG_NOTICE("Done loading RDB, keys loaded: %llu, keys expired: %llu.",
             static_cast<unsigned long long>(stats.keys),
             static_cast<unsigned long long>(stats.expired_skipped));
  out->seconds = static_cast<double>(monoUs() - t0) / 1e6;
  out->keys = stats.keys;
  out->repl_stream_db = stats.repl_stream_db;
  return true;
}

}  // namespace server::persist
