// Producing and sending the RDB of a full resync, with the BGSAVE fork of
// src/server/persist/ (same child, same RDMA fork safety: see RDMA.md):
//
// - disk target (repl-diskless-sync no, or a replica without capa eof, and
//   no filter): a plain BGSAVE writes dbfilename; once it succeeds the file
//   goes to each waiting replica as "$<size>\r\n<bytes>".
// - socket target: the child writes the RDB and then a 40-character mark to
//   a pipe; the parent reads the pipe from the event loop and appends what
//   it reads to every target replica's output after "$EOF:<mark>\r\n".
//   Reading pauses while a replica has more than kMaxPending bytes queued,
//   so a slow replica holds the child back instead of filling memory.
//
// Either way the bytes go out through the replica's Client, so the
// transport (TCP, Unix, RDMA) does not matter here.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/log.h"
#include "event/event_loop.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/persist/persist.h"
#include "server/persist/snapshot.h"
#include "server/repl/master/replicas.h"

namespace server::repl {

namespace {

constexpr size_t kMaxPending = 16u << 20;
constexpr size_t kReadChunk = 64u << 10;

struct Transfer {
  int pipe_rd = -1;
  bool reading = false;     // the pipe's read handler is installed
  bool pipe_eof = false;    // the child closed its end
  bool child_done = false;  // reaped; child_ok says how it ended
  bool child_ok = false;
  event::TimerId resume_timer = 0;
};

Transfer& tr() {
  static Transfer t;
  return t;
}

std::vector<ReplicaState*> socketTargets() {
  std::vector<ReplicaState*> v;
  for (ReplicaState* r : replicas())
    if (r->state == SyncState::kWaitEnd && r->socket_target) v.push_back(r);
  return v;
}

persist::SaveOptions optionsFor(const ReplicaState& r, bool socket) {
  persist::SaveOptions o = persist::saveOptions();
  if (socket) o.fsync_every = 0;
  if (r.exclude_functions) o.function_libraries.clear();
  o.skip_data = r.exclude_data;
  // A master's stream starts with a SELECT after the fork; a replica's is
  // its master's, which goes on in the master client's db.
  Client* m = masterClient();
  o.extra_aux = {{"repl-stream-db", std::to_string(m != nullptr ? m->dbIndex() : 0)},
                 {"repl-id", replId()},
                 {"repl-offset", std::to_string(masterOffset())}};
  return o;
}

void closePipe() {
  Transfer& t = tr();
  if (t.resume_timer) {
    g_server->loop.deleteTimer(t.resume_timer);
    t.resume_timer = 0;
  }
  if (t.pipe_rd >= 0) {
    if (t.reading) g_server->loop.removeFileEvent(t.pipe_rd, event::kReadable);
    close(t.pipe_rd);
  }
  t = Transfer();
}

// Both the pipe's end and the child's exit are known: the transfer is over.
void finishSocketTransfer() {
  Transfer& t = tr();
  bool ok = t.child_ok;
  closePipe();
  for (ReplicaState* r : socketTargets()) {
    if (ok) {
      transferDone(r);
    } else {
      dropReplica(r, "Diskless rdb transfer failed, closing the link with replica");
    }
  }
  maybeStartTransfer(false);
}

void onPipeReadable(event::EventLoop* loop, int fd, void* data, int mask);

void resumeReading() {
  Transfer& t = tr();
  if (t.pipe_rd < 0 || t.reading || t.pipe_eof) return;
  if (g_server->loop.addFileEvent(t.pipe_rd, event::kReadable, onPipeReadable, nullptr) == 0)
    t.reading = true;
}

void pauseReading() {
  Transfer& t = tr();
  if (t.reading) g_server->loop.removeFileEvent(t.pipe_rd, event::kReadable);
  t.reading = false;
  if (t.resume_timer) return;
  t.resume_timer = g_server->loop.addTimer(10, [](event::EventLoop*, event::TimerId) {
    for (ReplicaState* r : socketTargets())
      if (r->client->outputBytes() > kMaxPending) return 10;  // still full: look again
    tr().resume_timer = 0;
    resumeReading();
    return event::kNoMore;
  });
}

void onPipeReadable(event::EventLoop*, int fd, void*, int) {
  Transfer& t = tr();
  char buf[kReadChunk];
  for (int rounds = 0; rounds < 16; rounds++) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {
      if (n < 0)
        LOG_WARNING("Diskless rdb transfer, read error sending DB to replicas: %s",
                    strerror(errno));
      g_server->loop.removeFileEvent(fd, event::kReadable);
      t.reading = false;
      t.pipe_eof = true;
      LOG_WARNING("Diskless rdb transfer, done reading from pipe, %zu replicas still up.",
                  socketTargets().size());
      if (t.child_done) finishSocketTransfer();
      return;
    }
    std::string_view chunk(buf, static_cast<size_t>(n));
    bool full = false;
    for (ReplicaState* r : socketTargets()) {
      sendRaw(r, chunk);
      r->rdb_bytes += static_cast<uint64_t>(n);
      if (r->client->outputBytes() > kMaxPending) full = true;
    }
    if (full) {
      pauseReading();
      return;
    }
  }
}

bool startSocket(const std::vector<ReplicaState*>& group) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    LOG_WARNING("Can't create the pipe for a diskless SYNC: %s", strerror(errno));
    return false;
  }
  std::string mark = randomId();
  std::string err;
  resetStreamDb();
  if (!persist::startBgsaveWith(optionsFor(*group[0], true), p[1], mark, &err)) {
    close(p[0]);
    close(p[1]);
    return false;
  }
  close(p[1]);
  fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
  Transfer& t = tr();
  t = Transfer();
  t.pipe_rd = p[0];
  int64_t off = masterOffset();
  for (ReplicaState* r : group) {
    r->state = SyncState::kWaitEnd;
    r->socket_target = true;
    r->psync_offset = off;
    holdStream(r);
    if (!r->pre_psync) sendRaw(r, "+FULLRESYNC " + replId() + " " + std::to_string(off) + "\r\n");
    sendRaw(r, "$EOF:" + mark + "\r\n");
  }
  resumeReading();
  return true;
}

// dbfilename was last written to feed replicas (rdb-del-sync-files).
bool g_file_for_replicas = false;

bool startDisk(const std::vector<ReplicaState*>& group) {
  std::string err;
  resetStreamDb();
  if (!persist::startBgsaveWith(optionsFor(*group[0], false), -1, std::string(), &err))
    return false;
  g_file_for_replicas = true;
  int64_t off = masterOffset();
  for (ReplicaState* r : group) {
    r->state = SyncState::kWaitEnd;
    r->socket_target = false;
    r->psync_offset = off;
    holdStream(r);
    if (!r->pre_psync) sendRaw(r, "+FULLRESYNC " + replId() + " " + std::to_string(off) + "\r\n");
  }
  return true;
}

// Feeds each replica its file in chunks while its output has room, so a big
// RDB is never held in memory and a slow replica only slows itself.
event::TimerId g_file_timer = 0;

int feedFiles(event::EventLoop*, event::TimerId) {
  bool pending = false;
  for (ReplicaState* r : std::vector<ReplicaState*>(replicas())) {
    if (r->file_fd < 0) continue;
    char buf[kReadChunk];
    while (r->file_left > 0 && r->client->outputBytes() < kMaxPending / 4) {
      size_t want = r->file_left < sizeof(buf) ? static_cast<size_t>(r->file_left) : sizeof(buf);
      ssize_t n = read(r->file_fd, buf, want);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        LOG_WARNING("Read error sending DB to replica: %s",
                    n == 0 ? "premature EOF" : strerror(errno));
        break;
      }
      sendRaw(r, std::string_view(buf, static_cast<size_t>(n)));
      r->file_left -= static_cast<uint64_t>(n);
      r->rdb_bytes += static_cast<uint64_t>(n);
    }
    if (r->file_left == 0) {
      close(r->file_fd);
      r->file_fd = -1;
      transferDone(r);
    } else if (r->client->outputBytes() < kMaxPending / 4) {
      // The read failed: the replica cannot get a whole RDB.
      close(r->file_fd);
      r->file_fd = -1;
      dropReplica(r, "SYNC failed reading the RDB file, closing the link with replica");
    } else {
      pending = true;
    }
  }
  if (pending) return 1;
  g_file_timer = 0;
  return event::kNoMore;
}

// A disk-target BGSAVE ended: send its file to the replicas waiting for it.
void sendFileToReplicas(bool ok) {
  std::vector<ReplicaState*> waiting;
  for (ReplicaState* r : replicas())
    if (r->state == SyncState::kWaitEnd && !r->socket_target && r->file_fd < 0)
      waiting.push_back(r);
  if (waiting.empty()) return;
  const std::string& path = g_server->config.dbfilename;
  for (ReplicaState* r : waiting) {
    if (!ok) {
      dropReplica(r, "SYNC failed. BGSAVE child returned an error, closing the link with replica");
      continue;
    }
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
      LOG_WARNING("SYNC failed. Can't open/stat DB after BGSAVE: %s", strerror(errno));
      if (fd >= 0) close(fd);
      dropReplica(r, "closing the link with replica");
      continue;
    }
    r->file_fd = fd;
    r->file_left = static_cast<uint64_t>(st.st_size);
    sendRaw(r, "$" + std::to_string(st.st_size) + "\r\n");
  }
  if (g_file_timer == 0) g_file_timer = g_server->loop.addTimer(0, feedFiles);
}

void onChildDone(bool ok, bool to_fd) {
  if (to_fd) {
    Transfer& t = tr();
    t.child_done = true;
    t.child_ok = ok;
    // What is left in the pipe is still read; a failed child's is not.
    if (t.pipe_eof || !ok || t.pipe_rd < 0) finishSocketTransfer();
    return;
  }
  sendFileToReplicas(ok);
  maybeStartTransfer(false);
}

}  // namespace

void installTransferHooks() {
  persist::setChildDoneHook(onChildDone);
}

bool socketTransferActive() {
  return tr().pipe_rd >= 0;
}

void maybeStartTransfer(bool cron_tick) {
  if (persist::childActive()) return;
  std::vector<ReplicaState*> group;
  for (ReplicaState* r : replicas()) {
    if (r->state != SyncState::kWaitStart || (r->client->flags & kCloseAsap)) continue;
    // One child serves the replicas that asked for the same filter.
    if (!group.empty() && (r->exclude_data != group[0]->exclude_data ||
                           r->exclude_functions != group[0]->exclude_functions))
      continue;
    group.push_back(r);
  }
  if (group.empty()) return;
  const Config& cfg = g_server->config;
  bool all_eof = true;
  int64_t max_idle = 0;
  int64_t now = nowSec();
  for (ReplicaState* r : group) {
    all_eof = all_eof && r->capa_eof;
    max_idle = std::max(max_idle, now - r->sync_start_s);
  }
  bool socket = (cfg.repl_diskless_sync || isFiltered(*group[0])) && all_eof;
  if (socket && cfg.repl_diskless_sync && cfg.repl_diskless_sync_delay > 0) {
    // Wait for more replicas to share the child, as Redis does.
    bool enough = cfg.repl_diskless_sync_max_replicas > 0 &&
                  static_cast<int64_t>(group.size()) >= cfg.repl_diskless_sync_max_replicas;
    if (!enough && (!cron_tick || max_idle < cfg.repl_diskless_sync_delay)) return;
  }
  LOG_NOTICE("Starting BGSAVE for SYNC with target: %s", socket ? "replicas sockets" : "disk");
  bool ok = socket ? startSocket(group) : startDisk(group);
  if (!ok) {
    LOG_WARNING("BGSAVE for replication failed");
    for (ReplicaState* r : group) {
      r->state = SyncState::kNone;
      r->client->addError("BGSAVE failed, replication can't continue");
      r->client->flags |= kCloseAfterReply;
      if (!(r->client->flags & kPendingWrite)) g_server->queueWrite(r->client);
    }
  }
}

void removeSyncFileIfDone() {
  const Config& cfg = g_server->config;
  if (!cfg.rdb_del_sync_files) {
    g_file_for_replicas = false;
    return;
  }
  if (!g_file_for_replicas || !cfg.save.empty() || cfg.appendonly || persist::childActive()) return;
  for (ReplicaState* r : replicas()) {
    if (r->state == SyncState::kWaitStart || r->state == SyncState::kWaitEnd || r->file_fd >= 0)
      return;
  }
  g_file_for_replicas = false;
  struct stat st;
  if (lstat(cfg.dbfilename.c_str(), &st) != 0) return;
  LOG_NOTICE("Removing the RDB file used to feed replicas in a persistence-less instance");
  unlink(cfg.dbfilename.c_str());
}

void forgetTransferTarget(ReplicaState* r) {
  if (r->file_fd >= 0) {
    close(r->file_fd);
    r->file_fd = -1;
  }
  if (r->state != SyncState::kWaitEnd) return;
  if (!r->socket_target) {
    // The BGSAVE it waited for is of no use without save points once no
    // other replica waits for it (as Redis decides).
    for (ReplicaState* o : replicas())
      if (o != r && o->state == SyncState::kWaitEnd && !o->socket_target) return;
    if (g_server->config.save.empty()) persist::killRdbChild();
    return;
  }
  // Once the pipe is drained the child is about to exit on its own.
  if (tr().pipe_rd < 0 || tr().pipe_eof || !socketTargets().empty()) return;
  LOG_WARNING("Diskless rdb transfer, last replica dropped, killing fork child.");
  // Close our end first: a child blocked writing to a full pipe then fails
  // at once (EPIPE), so killChild()'s wait cannot hang on it.
  closePipe();
  persist::killChild();
}

}  // namespace server::repl
