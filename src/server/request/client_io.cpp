#include "server/request/client_io.h"

#include <cstdint>

#include "common/log.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/dispatch.h"
#include "server/request/obuf_limits.h"
#include "server/request/threaded_io.h"

namespace server {

namespace {

MasterAppliedHook g_master_applied = nullptr;
ReplicaDrainedHook g_replica_drained = nullptr;

void onWritable(net::Connection* conn) {
  auto* c = static_cast<Client*>(conn->privateData());
  if (c != nullptr) flushClient(c);
}

// Parses and runs every complete request in [base, base+len). Returns the
// number of bytes consumed, or SIZE_MAX if the client was freed. FromMaster
// is the replica's link to its master (kMaster): each applied request's
// bytes go to the replication hook. An instance of its own, so that other
// clients' requests pay nothing for it.
template <bool FromMaster>
[[gnu::always_inline]] inline size_t processInput(Client* c, const char* base, size_t len) {
  Server& s = *g_server;
  resp::ParserLimits limits;
  limits.max_bulk_len = s.config.proto_max_bulk_len;
  limits.authenticated = (c->flags & kAuthenticated) != 0;
  c->input_batch = len;
  size_t pos = 0;
  while (pos < len && !(c->flags & (kCloseAfterReply | kCloseAsap | kPostponed | kBlocked))) {
    size_t request_len = 0;
    resp::RequestParser::Result r = c->parseRequest(base + pos, len - pos, limits, &request_len);
    if (r == resp::RequestParser::kNeedMore) break;
    if (r == resp::RequestParser::kError) {
      LOG_VERBOSE("Protocol error (%s) from client: id=%llu addr=%s", c->parseError(),
                  static_cast<unsigned long long>(c->id()), c->conn()->peerAddress().c_str());
      c->addError(c->parseError());
      c->flags |= kCloseAfterReply;
      c->resetParser();
      pos = len;
      break;
    }
    if (c->argc() == 0) {
      if constexpr (FromMaster) g_master_applied(c, std::string_view(base + pos, request_len));
      pos += request_len;
      continue;
    }
    if (!dispatchCommand(c)) return SIZE_MAX;  // client freed by the command
    // The master's stream: what was applied counts (replication offset).
    if constexpr (FromMaster) {
      if (!(c->flags & kPostponed)) g_master_applied(c, std::string_view(base + pos, request_len));
    }
    // Errors refused before a command runs (NOAUTH, unknown command) are
    // not seen by callCommand's check; an unauthenticated client must not
    // pile them up without reading.
    if (!(c->flags & kAuthenticated)) enforceOutputBufferLimits(c);
    // A paused request is left unconsumed: it runs again from the buffer.
    if (c->flags & kPostponed) break;
    pos += request_len;
    limits.authenticated = (c->flags & kAuthenticated) != 0;
  }
  if (c->hasPendingReplies() && !(c->flags & kPendingWrite)) s.queueWrite(c);
  if ((c->flags & kCloseAfterReply) && !c->hasPendingReplies()) s.freeClientAsync(c);
  return pos;
}

// What the loop thread does with the outcome of one read (made here or by
// an I/O thread): runs the requests, or closes the client.
template <bool FromMaster>
[[gnu::always_inline]] inline void afterRead(Client* c, ssize_t n, const char* base, size_t len) {
  Server& s = *g_server;
  net::Connection* conn = c->conn();
  if (n <= 0) {
    if (n == -1 && conn->state() == net::ConnState::kConnected) return;  // would block
    if (n == 0) {
      LOG_VERBOSE("Client closed connection id=%llu addr=%s",
                  static_cast<unsigned long long>(c->id()), conn->peerAddress().c_str());
    } else {
      LOG_VERBOSE("Reading from client: %s", conn->lastError().c_str());
    }
    s.freeClientAsync(c);
    return;
  }
  s.stats.net_input_bytes += static_cast<uint64_t>(n);
  c->last_interaction_ms = db::Clock::nowMs;
  size_t used = processInput<FromMaster>(c, base, len);
  if (used == SIZE_MAX) return;
  size_t left = c->inputProcessed(base, len, used);
  if (static_cast<int64_t>(left) > s.config.client_query_buffer_limit) {
    LOG_WARNING("Closing client that reached max query buffer length: id=%llu addr=%s qbuf=%zu",
                static_cast<unsigned long long>(c->id()), conn->peerAddress().c_str(), left);
    s.stats.client_qbuf_limit_disconnections++;
    s.freeClientAsync(c);
  }
}

// MayDefer: the handler of clients of a server whose I/O threads may read
// for them (threaded_io.h): under load the read is left to the next step.
// An instance of its own, so that a server without threads pays nothing.
template <bool FromMaster, bool MayDefer = false>
void readFromConnection(Client* c) {
  Server& s = *g_server;
  if (c->flags & kCloseAsap) return;
  if constexpr (MayDefer) {
    if (threaded_io::deferRead(c)) return;
  }
  const char* base = nullptr;
  size_t len = 0;
  ssize_t n = c->readInput(s.shared_qbuf.data(), s.shared_qbuf.size(), &base, &len);
  afterRead<FromMaster>(c, n, base, len);
}

template <bool FromMaster, bool MayDefer = false>
void onReadable(net::Connection* conn) {
  auto* c = static_cast<Client*>(conn->privateData());
  if (c != nullptr) readFromConnection<FromMaster, MayDefer>(c);
}

}  // namespace

void setReplicaDrainedHook(ReplicaDrainedHook hook) {
  g_replica_drained = hook;
}

void setMasterAppliedHook(MasterAppliedHook hook) {
  g_master_applied = hook;
}

void startReading(Client* c) {
  net::ConnHandler h = onReadable<false>;
  if (c->flags & kMaster) {
    h = onReadable<true>;
  } else if (threaded_io::readsThreaded() && !(c->flags & kReplica)) {
    h = onReadable<false, true>;
  }
  c->conn()->setReadHandler(h);
}

bool resumeInput(Client* c) {
  std::string_view held = c->heldInput();
  if (held.empty()) return true;
  size_t used = (c->flags & kMaster) ? processInput<true>(c, held.data(), held.size())
                                     : processInput<false>(c, held.data(), held.size());
  if (used == SIZE_MAX) return false;
  c->consumeHeld(used);
  return true;
}

void afterThreadedRead(Client* c, ssize_t n, const char* base, size_t len) {
  afterRead<false>(c, n, base, len);
}

namespace {

// finishWrite's drained case for a replica or a client to close after its
// reply. Returns false if the client is being closed.
[[gnu::noinline, gnu::cold]] bool drainedRare(Client* c) {
  net::Connection* conn = c->conn();
  bool more = (c->flags & kReplica) && g_replica_drained != nullptr && g_replica_drained(c);
  if (more) {
    if (!conn->hasWriteHandler()) conn->setWriteHandler(onWritable, true);
    return true;
  }
  if (conn->hasWriteHandler()) conn->setWriteHandler(nullptr);
  if (c->flags & kCloseAfterReply) {
    g_server->freeClientAsync(c);
    return false;
  }
  return true;
}

[[gnu::always_inline]] inline bool finishWrite(Client* c, bool ok, uint64_t written) {
  Server& s = *g_server;
  net::Connection* conn = c->conn();
  s.stats.net_output_bytes += written;
  if (!ok) {
    LOG_VERBOSE("Error writing to client: %s", conn->lastError().c_str());
    s.freeClientAsync(c);
    return false;
  }
  if (!c->hasPendingReplies()) {
    // One test for the two rare cases: a replica may have more of the
    // stream to send, a client may have to be closed.
    if (c->flags & (kCloseAfterReply | kReplica)) [[unlikely]]
      return drainedRare(c);
    if (conn->hasWriteHandler()) conn->setWriteHandler(nullptr);
  } else if (!conn->hasWriteHandler()) {
    // The transport is full: let it tell us when it can take more. The
    // barrier flushes replies before more requests are read.
    conn->setWriteHandler(onWritable, true);
  }
  return true;
}

}  // namespace

bool flushClient(Client* c) {
  uint64_t written = 0;
  bool ok = c->writeReplies(&written);
  return finishWrite(c, ok, written);
}

bool afterWrite(Client* c, bool ok, uint64_t written) {
  return finishWrite(c, ok, written);
}

}  // namespace server
