// The RDB of a full resynchronization: after +FULLRESYNC the master sends
// "$<length>\r\n" and that many bytes, or "$EOF:<40 byte mark>\r\n", the
// RDB and the mark again (diskless master). Bare newlines before the "$"
// line only keep the link alive. The bytes go to a temp file renamed over
// dbfilename and loaded once all are in (repl-diskless-load disabled, or
// on-empty-db with data), or are loaded as they arrive, straight from the
// connection (swapdb, on-empty-db with empty databases): the loader pulls
// them, serving the event loop while it waits, so a replica that loads
// slowly reads slowly and its master sees it. Then the connection becomes
// the master client.
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
#include "server/persist/rdb_io.h"
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

// Disk load: the bytes go to the temp file.
bool store(const char* p, size_t n) {
  Link& l = link();
  l.received += n;
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

// Disk load with an EOF mark: the last 40 bytes received are the mark.
bool markSeen(const char* p, size_t n) {
  Link& l = link();
  l.tail.append(p, n);
  if (l.tail.size() > kMarkLen) l.tail.erase(0, l.tail.size() - kMarkLen);
  return l.tail == l.mark;
}

// The transfer of connection attempt `attempt` is still under way (no
// REPLICAOF, timeout or lost link meanwhile, nor a new attempt).
bool stillTransferring(uint64_t attempt) {
  const Link& l = link();
  return l.attempt == attempt && l.state == State::kTransfer;
}

persist::ReplicaRdb loadInput() {
  const Config& cfg = g_server->config;
  persist::ReplicaRdb in;
  in.lazy_flush = cfg.replica_lazy_flush;
  in.serve_events = [] { g_server->serveEventsWhileBusy(); };
  return in;
}

// After a load: the master's history is ours, and the connection becomes
// the master client with the stream bytes already read (`rest`).
void completeSync(const persist::ReplicaRdbResult& res, std::string_view rest) {
  Link& l = link();
  const Config& cfg = g_server->config;
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
  becomeConnected(rest);
}

void loadFailed(const std::string& err) {
  LOG_WARNING("%s", err.c_str());
  linkLost(std::string("Failed trying to load the MASTER synchronization DB from ") +
           (link().diskless ? "socket" : "disk") + ", check server logs.");
}

// Disk load: every byte is in the temp file; it becomes dbfilename and is
// loaded.
void loadFromDisk(std::string_view rest) {
  Link& l = link();
  const Config& cfg = g_server->config;
  uint64_t attempt = l.attempt;
  // Nothing is read from the master while the data set loads.
  l.conn->setReadHandler(nullptr);
  uint64_t len = l.received - (l.size < 0 ? kMarkLen : 0);
  bool ok = ftruncate(l.fd, static_cast<off_t>(len)) == 0 && fsync(l.fd) == 0;
  close(l.fd);
  l.fd = -1;
  if (!ok || rename(l.tmpfile.c_str(), cfg.dbfilename.c_str()) != 0) {
    linkLost(std::string("Failed trying to rename the temp DB into ") + cfg.dbfilename +
             " in MASTER <-> REPLICA synchronization: " + strerror(errno));
    return;
  }
  l.tmpfile.clear();
  persist::ReplicaRdb in = loadInput();
  in.path = cfg.dbfilename;
  LOG_NOTICE("MASTER <-> REPLICA sync: Flushing old data");
  LOG_NOTICE("MASTER <-> REPLICA sync: Loading DB in memory");
  // A BGSAVE of the old data set is worthless now, and what this replica
  // had no longer continues anything.
  persist::killChild();
  l.ever_synced = false;
  std::string keep(rest);
  persist::ReplicaRdbResult res;
  std::string err;
  ok = persist::loadReplicaRdb(in, &res, &err);
  if (!stillTransferring(attempt)) return;  // REPLICAOF meanwhile
  if (!ok) {
    loadFailed(err);
    return;
  }
  completeSync(res, keep);
}

// Diskless load: the reader's bytes, pulled from the connection as the
// loader needs them (the bytes already read after the "$" line first).
// While none are there it runs the event loop, the connection's read
// handler only waking it.
class LinkSource : public persist::RdbReader::Source {
 public:
  LinkSource(net::Connection* conn, std::string_view first)
      : conn_(conn), attempt_(link().attempt), first_(first) {}

  // The link this load reads is still the current one.
  bool current() const { return stillTransferring(attempt_); }
  // Bytes read from the connection that the reader has not taken.
  std::string_view unread() const { return first_; }

  bool fill(uint8_t* buf, size_t min, size_t cap, size_t* got, std::string* err) override {
    Link& l = link();
    *got = 0;
    while (*got < min) {
      size_t room = cap - *got;
      if (!first_.empty()) {
        size_t take = std::min(room, first_.size());
        memcpy(buf + *got, first_.data(), take);
        first_.remove_prefix(take);
        *got += take;
        l.received += take;
        continue;
      }
      if (!current()) {
        *err = "the link to the MASTER went down or was replaced during the load";
        return false;
      }
      ssize_t n = conn_->read(buf + *got, room);
      if (n > 0) {
        *got += static_cast<size_t>(n);
        l.received += static_cast<uint64_t>(n);
        noteIo();
        continue;
      }
      if (n == 0 || conn_->state() != net::ConnState::kConnected) {
        *err = "I/O error reading the RDB from the MASTER: " +
               (n == 0 ? std::string("connection lost") : conn_->lastError());
        return false;
      }
      conn_->setReadHandler(onReadableWhileLoading);
      g_server->serveEventsWhileBusy(true);
    }
    return true;
  }

  int64_t left() const override {
    const Link& l = link();
    return l.size < 0 ? -1 : l.size - static_cast<int64_t>(l.received);
  }

 private:
  // Level-triggered: unregistered until the loader waits again.
  static void onReadableWhileLoading(net::Connection* conn) { conn->setReadHandler(nullptr); }

  net::Connection* conn_;
  uint64_t attempt_;
  std::string_view first_;
};

// True when the RDB ended where the master said it would: at the
// announced length, or followed by the EOF mark.
bool endVerified(persist::RdbReader& r, std::string* err) {
  const Link& l = link();
  if (l.size >= 0) {
    if (r.offset() == static_cast<size_t>(l.size)) return true;
    *err = "the RDB from the MASTER ended at byte " + std::to_string(r.offset()) + " of the " +
           std::to_string(l.size) + " it announced";
    return false;
  }
  const uint8_t* p;
  if (r.raw(kMarkLen, &p) && memcmp(p, l.mark.data(), kMarkLen) == 0) return true;
  *err = "Replication stream EOF marker is broken (the bytes after the RDB are not the mark)";
  return false;
}

void loadStreamed(std::string_view first) {
  Link& l = link();
  const Config& cfg = g_server->config;
  net::Connection* conn = l.conn;
  conn->setReadHandler(nullptr);
  LinkSource src(conn, first);
  persist::RdbReader reader(&src);
  persist::ReplicaRdb in = loadInput();
  in.stream = &reader;
  in.stream_len = l.size < 0 ? 0 : static_cast<size_t>(l.size);
  in.keep_on_error = cfg.repl_diskless_load == "swapdb";
  in.async = l.async;
  in.still_wanted = [&src] { return src.current(); };
  in.verify_end = [&reader](std::string* err) { return endVerified(reader, err); };
  LOG_NOTICE("MASTER <-> REPLICA sync: Loading DB in memory");
  persist::killChild();
  l.ever_synced = false;
  persist::ReplicaRdbResult res;
  std::string err;
  bool ok = persist::loadReplicaRdb(in, &res, &err);
  persist::setTransferLoading(persist::Loading::kNone);
  if (!src.current()) return;  // REPLICAOF, a timeout or an error meanwhile
  if (!ok) {
    loadFailed(err);
    return;
  }
  std::string keep(reader.buffered());
  keep.append(src.unread());
  completeSync(res, keep);
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
      if (l.diskless) {
        loadStreamed(std::string_view(p, n));
        return false;
      }
      continue;
    }
    size_t take = n;
    if (l.size >= 0) take = std::min<uint64_t>(n, static_cast<uint64_t>(l.size) - l.received);
    if (!store(p, take)) return false;
    bool done = l.size >= 0 ? l.received == static_cast<uint64_t>(l.size) : markSeen(p, take);
    p += take;
    n -= take;
    if (done) {
      loadFromDisk(std::string_view(p, n));
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
  // What this replica had still continues its history (a PSYNC to its
  // previous master, should this transfer fail) until the load begins.
  l.state = State::kTransfer;
  l.full_replid = replid;
  l.full_offset = offset;
  l.diskless = cfg.repl_diskless_load == "swapdb" ||
               (cfg.repl_diskless_load == "on-empty-db" && allDbsEmpty());
  // swapdb, when the master continues the history this replica's data
  // comes from (same replication id, as after a PSYNC beyond the backlog):
  // from the first byte on, the sync is an asynchronous load, the old data
  // set serving clients until the new one replaces it, as Redis decides.
  // Any other diskless sync is a load from its first byte too, clients
  // getting -LOADING meanwhile, as Redis's streamed load.
  l.async = cfg.repl_diskless_load == "swapdb" && replid == replId();
  if (l.diskless)
    persist::setTransferLoading(l.async ? persist::Loading::kAsync : persist::Loading::kSync);
  l.conn->setReadHandler(onReadable);
  if (!rest.empty()) consume(rest.data(), rest.size());
}

void abortTransfer() {
  Link& l = link();
  persist::setTransferLoading(persist::Loading::kNone);
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
  l.tail.clear();
}

}  // namespace server::repl::replica
