// The RDB of a full resynchronization: after +FULLRESYNC the master sends
// "$<length>\r\n" and that many bytes, or "$EOF:<40 byte mark>\r\n", the
// RDB and the mark again (diskless master). Bare newlines before the "$"
// line only keep the link alive. The bytes go to a temp file renamed over
// dbfilename (repl-diskless-load disabled, or on-empty-db with data) or
// stay in memory (swapdb, on-empty-db with empty databases); then the
// server loads them and the connection becomes the master client.
//
// A master that sends garbage, closes early or goes silent for repl-timeout
// costs this attempt only: the reason is logged, the temp file removed and
// the cron connects again.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/log.h"
#include "net/connection.h"
#include "server/core/state.h"
#include "server/persist/persist.h"
#include "server/repl/master/replicas.h"
#include "server/repl/replica/replica.h"

namespace server::repl::replica {

namespace {

constexpr size_t kReadChunk = 64 * 1024;
constexpr size_t kMarkLen = 40;
constexpr size_t kMaxPreamble = 1024;
constexpr uint64_t kSyncEvery = 8u << 20;

bool allDbsEmpty() {
  for (auto& d : g_server->dbs)
    if (d->size() > 0) return false;
  return true;
}

// Parses the "$..." line; false (link dropped) when it is not one.
bool startBody(const std::string& line) {
  Link& l = link();
  if (line[0] == '-') {
    linkLost("MASTER aborted replication with an error: " + line.substr(1, 256));
    return false;
  }
  if (line[0] != '$') {
    linkLost("Bad protocol from MASTER, the first byte is not '$' (we received '" +
             line.substr(0, 128) + "'), are you sure the host and port are right?");
    return false;
  }
  if (line.size() == 5 + kMarkLen && line.compare(1, 4, "EOF:") == 0) {
    l.mark = line.substr(5);
    l.size = -1;
  } else {
    char* end = nullptr;
    errno = 0;
    long long n = strtoll(line.c_str() + 1, &end, 10);
    if (line.size() < 2 || *end != '\0' || errno != 0 || n < 0) {
      linkLost("Bad RDB length from MASTER: '" + line.substr(0, 128) + "'");
      return false;
    }
    l.size = n;
  }
  l.have_preamble = true;
  if (!l.diskless) {
    char name[64];
    snprintf(name, sizeof(name), "temp-%lld.%d.rdb", static_cast<long long>(nowSec()),
             static_cast<int>(getpid()));
    l.fd = open(name, O_CREAT | O_WRONLY | O_EXCL | O_CLOEXEC, 0644);
    if (l.fd < 0) {
      linkLost(
          std::string("Opening the temp file needed for MASTER <-> REPLICA synchronization: ") +
          strerror(errno));
      return false;
    }
    l.tmpfile = name;
  }
  if (l.size < 0)
    LOG_NOTICE("MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to %s",
               l.diskless ? "parser" : "disk");
  else
    LOG_NOTICE("MASTER <-> REPLICA sync: receiving %lld bytes from master to %s",
               static_cast<long long>(l.size), l.diskless ? "parser" : "disk");
  return true;
}

bool store(const char* p, size_t n) {
  Link& l = link();
  l.received += n;
  if (l.diskless) {
    l.body.append(p, n);
    return true;
  }
  while (n > 0) {
    ssize_t w = write(l.fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      linkLost(std::string("Write error writing to the DB file (received from MASTER): ") +
               strerror(errno));
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  // Every 8 MiB the bytes received since go to disk (waiting for what was
  // started before them), so the fsync before loading has little left.
  if (l.received - l.synced >= kSyncEvery) {
    sync_file_range(l.fd, static_cast<off_t>(l.synced), static_cast<off_t>(l.received - l.synced),
                    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE);
    l.synced = l.received;
  }
  return true;
}

// With an EOF mark: the last 40 bytes received are the mark.
bool markSeen(const char* p, size_t n) {
  Link& l = link();
  if (l.diskless) {
    return l.body.size() >= kMarkLen &&
           memcmp(l.body.data() + l.body.size() - kMarkLen, l.mark.data(), kMarkLen) == 0;
  }
  l.tail.append(p, n);
  if (l.tail.size() > kMarkLen) l.tail.erase(0, l.tail.size() - kMarkLen);
  return l.tail == l.mark;
}

void finish(std::string_view rest) {
  Link& l = link();
  const Config& cfg = g_server->config;
  net::Connection* conn = l.conn;
  // Nothing is read from the master while the data set loads.
  conn->setReadHandler(nullptr);
  persist::ReplicaRdb in;
  in.lazy_flush = cfg.replica_lazy_flush;
  in.serve_events = [] { g_server->serveEventsWhileBusy(); };
  uint64_t len = l.received - (l.size < 0 ? kMarkLen : 0);
  if (l.diskless) {
    l.body.resize(len);
    in.data = reinterpret_cast<const uint8_t*>(l.body.data());
    in.len = l.body.size();
    in.keep_on_error = cfg.repl_diskless_load == "swapdb";
    in.async = l.async;
    LOG_NOTICE("MASTER <-> REPLICA sync: Loading DB in memory");
  } else {
    bool ok = ftruncate(l.fd, static_cast<off_t>(len)) == 0 && fsync(l.fd) == 0;
    close(l.fd);
    l.fd = -1;
    if (!ok || rename(l.tmpfile.c_str(), cfg.dbfilename.c_str()) != 0) {
      linkLost(std::string("Failed trying to rename the temp DB into ") + cfg.dbfilename +
               " in MASTER <-> REPLICA synchronization: " + strerror(errno));
      return;
    }
    l.tmpfile.clear();
    in.path = cfg.dbfilename;
    LOG_NOTICE("MASTER <-> REPLICA sync: Flushing old data");
    LOG_NOTICE("MASTER <-> REPLICA sync: Loading DB in memory");
  }
  // A BGSAVE of the old data set is worthless now.
  persist::killChild();
  std::string keep(rest);
  persist::ReplicaRdbResult res;
  std::string err;
  bool ok = persist::loadReplicaRdb(in, &res, &err);
  persist::setAsyncLoading(false);
  l.body = std::string();
  if (l.conn != conn || l.state != State::kTransfer) return;  // REPLICAOF meanwhile
  if (!ok) {
    LOG_WARNING("%s", err.c_str());
    linkLost(std::string("Failed trying to load the MASTER synchronization DB from ") +
             (l.diskless ? "socket" : "disk") + ", check server logs.");
    return;
  }
  if (!l.diskless && cfg.rdb_del_sync_files && cfg.save.empty() && !cfg.appendonly) {
    LOG_NOTICE(
        "Removing the RDB file obtained from the master. This replica has persistence "
        "disabled");
    unlink(cfg.dbfilename.c_str());
  }
  setReplIdAndOffset(l.full_replid, l.full_offset);
  setMasterDb(res.repl_stream_db >= 0 ? static_cast<int>(res.repl_stream_db) : 0);
  l.ever_synced = true;
  dropSubReplicas();
  LOG_NOTICE("MASTER <-> REPLICA sync: Finished with success");
  becomeConnected(keep);
}

// Consumes received bytes; false once the transfer ended (or failed).
bool consume(const char* p, size_t n) {
  Link& l = link();
  while (n > 0) {
    if (!l.have_preamble) {
      const char* nl = static_cast<const char*>(memchr(p, '\n', n));
      size_t take = nl ? static_cast<size_t>(nl - p) + 1 : n;
      l.preamble.append(p, take);
      p += take;
      n -= take;
      if (nl == nullptr) {
        if (l.preamble.size() > kMaxPreamble) {
          linkLost("Bad protocol from MASTER: the RDB length line is too long");
          return false;
        }
        return true;
      }
      std::string line;
      line.swap(l.preamble);
      line.pop_back();
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) continue;  // a keep-alive newline
      if (!startBody(line)) return false;
      continue;
    }
    size_t take = n;
    if (l.size >= 0) take = std::min<uint64_t>(n, static_cast<uint64_t>(l.size) - l.received);
    if (!store(p, take)) return false;
    bool done = l.size >= 0 ? l.received == static_cast<uint64_t>(l.size) : markSeen(p, take);
    p += take;
    n -= take;
    if (done) {
      finish(std::string_view(p, n));
      return false;
    }
  }
  return true;
}

void onReadable(net::Connection* conn) {
  Link& l = link();
  char buf[kReadChunk];
  for (int round = 0; round < 8 && l.conn == conn && l.state == State::kTransfer; round++) {
    ssize_t n = conn->read(buf, sizeof(buf));
    if (n == 0) {
      linkLost("I/O error trying to sync with MASTER: connection lost");
      return;
    }
    if (n < 0) {
      if (conn->state() == net::ConnState::kConnected) return;
      linkLost("I/O error trying to sync with MASTER: " + conn->lastError());
      return;
    }
    noteIo();
    if (!consume(buf, static_cast<size_t>(n))) return;
  }
}

}  // namespace

void beginTransfer(const std::string& replid, int64_t offset, std::string_view rest) {
  Link& l = link();
  const Config& cfg = g_server->config;
  abortTransfer();
  // Whatever we had no longer continues anything.
  l.ever_synced = false;
  l.state = State::kTransfer;
  l.full_replid = replid;
  l.full_offset = offset;
  l.diskless = cfg.repl_diskless_load == "swapdb" ||
               (cfg.repl_diskless_load == "on-empty-db" && allDbsEmpty());
  // swapdb, when the master continues the history this replica's data
  // comes from (same replication id, as after a PSYNC beyond the backlog):
  // from the first byte on, the sync is an asynchronous load, the old data
  // set serving clients until the new one replaces it, as Redis decides.
  l.async = cfg.repl_diskless_load == "swapdb" && replid == replId();
  if (l.async) persist::setAsyncLoading(true);
  l.conn->setReadHandler(onReadable);
  if (!rest.empty()) consume(rest.data(), rest.size());
}

void abortTransfer() {
  Link& l = link();
  persist::setAsyncLoading(false);
  if (l.fd >= 0) close(l.fd);
  l.fd = -1;
  if (!l.tmpfile.empty()) unlink(l.tmpfile.c_str());
  l.tmpfile.clear();
  l.preamble.clear();
  l.have_preamble = false;
  l.mark.clear();
  l.size = -1;
  l.received = 0;
  l.synced = 0;
  l.body = std::string();
  l.tail.clear();
}

}  // namespace server::repl::replica
