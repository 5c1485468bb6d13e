#include "server/client.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "common/log.h"
#include "common/strutil.h"
#include "server/command.h"
#include "server/dispatch.h"
#include "server/monitor.h"
#include "server/multi.h"
#include "server/pause.h"
#include "server/pubsub.h"
#include "server/server.h"
#include "server/tracking/tracking.h"

namespace server {

namespace {
constexpr size_t kReadChunk = 16 * 1024;
constexpr int kMaxIov = 64;
// A private buffer bigger than this is freed once drained (one huge request
// must not pin its memory for the client's lifetime).
constexpr size_t kKeepQueryBuffer = 64 * 1024;
}  // namespace

Client::Client(net::Connection* conn)
    : id_(g_server->next_client_id++), conn_(conn), writer_(&replies_, 2) {
  db_ = &g_server->dbAt(0);
  ctime_ms = last_interaction_ms = db::Clock::nowMs;
  if (conn_ != nullptr) conn_->setPrivateData(this);
  if (g_server->config.requirepass.empty()) flags |= kAuthenticated;
}

Client::~Client() {
  resetMultiState(this);
  resetPubSubState(this);
  tracking::resetClient(this);
  if (flags & kMonitor) monitor::remove(this);
  if (flags & kPostponed) pause::forget(this);
  if (conn_ != nullptr) {
    conn_->setPrivateData(nullptr);
    conn_->close();
  }
  free(qbuf_);
}

void Client::muteReplies(bool mute) {
  // One discard buffer serves every client: the server is single-threaded
  // and it is emptied after each muted command.
  static resp::ReplyBuffer discard;
  if (mute) {
    writer_.setBuffer(&discard);
  } else {
    writer_.setBuffer(&replies_);
    discard.clear();
  }
}

bool Client::selectDb(int index) {
  if (index < 0 || index >= static_cast<int>(g_server->dbs.size())) return false;
  db_ = &g_server->dbAt(index);
  return true;
}

void Client::addError(std::string_view msg) {
  g_server->stats.total_error_replies++;
  g_server->stats.countError(msg);
  writer_.error(msg);
}

void Client::addErrorFormat(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (n < 0) n = 0;
  if (static_cast<size_t>(n) >= sizeof(buf)) n = sizeof(buf) - 1;
  addError(std::string_view(buf, static_cast<size_t>(n)));
}

void Client::addWrongArity() {
  const char* name = cur_cmd ? cur_cmd->name : "unknown";
  addErrorFormat("wrong number of arguments for '%s' command", name);
}

void Client::addWrongType() {
  addError("-WRONGTYPE Operation against a key holding the wrong kind of value");
}

bool Client::argInt64(size_t i, int64_t* out) {
  if (strutil::parseInt64(argv_[i], out)) return true;
  addNotInteger();
  return false;
}

bool Client::argInt64Msg(size_t i, int64_t* out, const char* msg) {
  if (strutil::parseInt64(argv_[i], out)) return true;
  addError(msg);
  return false;
}

bool Client::argLongDouble(size_t i, long double* out) {
  if (strutil::parseLongDouble(argv_[i], out)) return true;
  addNotFloat();
  return false;
}

std::string Client::eventsString() const {
  std::string s;
  if (conn_ == nullptr) return s;
  if (conn_->hasReadHandler()) s += 'r';
  if (conn_->hasWriteHandler()) s += 'w';
  return s;
}

void Client::startReading() {
  conn_->setReadHandler(onReadable);
}

void Client::onReadable(net::Connection* conn) {
  auto* c = static_cast<Client*>(conn->privateData());
  if (c != nullptr) c->readFromConnection();
}

void Client::onWritable(net::Connection* conn) {
  auto* c = static_cast<Client*>(conn->privateData());
  if (c != nullptr) c->flush();
}

void Client::ensureQueryCapacity(size_t need) {
  if (qcap_ >= need) return;
  size_t cap = qcap_ ? qcap_ : kReadChunk;
  while (cap < need) cap = cap < (64u << 20) ? cap * 2 : cap + (64u << 20);
  char* p = static_cast<char*>(realloc(qbuf_, cap));
  if (p == nullptr) throw std::bad_alloc();
  qbuf_ = p;
  qcap_ = cap;
}

void Client::keepLeftover(const char* data, size_t len) {
  ensureQueryCapacity(len + kReadChunk);
  memcpy(qbuf_, data, len);
  qpos_ = 0;
  qlen_ = len;
}

void Client::readFromConnection() {
  Server& s = *g_server;
  if (flags & kCloseAsap) return;
  char* dst;
  size_t room;
  bool shared = qlen_ == qpos_;
  if (shared) {
    // Nothing partial pending: read into the server's shared buffer.
    if (qbuf_ != nullptr && qcap_ > kKeepQueryBuffer) {
      free(qbuf_);
      qbuf_ = nullptr;
      qcap_ = 0;
    }
    qlen_ = qpos_ = 0;
    dst = s.shared_qbuf.data();
    room = s.shared_qbuf.size();
  } else {
    // Compact, then make room for what the parser says the request needs.
    if (qpos_ > 0) {
      memmove(qbuf_, qbuf_ + qpos_, qlen_ - qpos_);
      qlen_ -= qpos_;
      qpos_ = 0;
    }
    size_t want = qlen_ + kReadChunk;
    if (parser_.bytesHint() > want) want = parser_.bytesHint();
    ensureQueryCapacity(want);
    dst = qbuf_ + qlen_;
    room = qcap_ - qlen_;
  }
  ssize_t n = conn_->read(dst, room);
  if (n <= 0) {
    if (n == -1 && conn_->state() == net::ConnState::kConnected) return;  // would block
    if (n == 0) {
      LOG_VERBOSE("Client closed connection id=%llu addr=%s", static_cast<unsigned long long>(id_),
                  conn_->peerAddress().c_str());
    } else {
      LOG_VERBOSE("Reading from client: %s", conn_->lastError().c_str());
    }
    s.freeClientAsync(this);
    return;
  }
  s.stats.net_input_bytes += static_cast<uint64_t>(n);
  last_interaction_ms = db::Clock::nowMs;

  const char* base;
  size_t len;
  if (shared) {
    base = dst;
    len = static_cast<size_t>(n);
  } else {
    qlen_ += static_cast<size_t>(n);
    base = qbuf_;
    len = qlen_;
  }
  size_t used = processInput(base, len);
  if (used == SIZE_MAX) return;
  size_t left = len - used;
  if (shared) {
    if (left > 0) keepLeftover(base + used, left);
  } else {
    qpos_ = used;
    if (qpos_ == qlen_) qpos_ = qlen_ = 0;
  }
  if (static_cast<int64_t>(left) > s.config.client_query_buffer_limit) {
    LOG_WARNING("Closing client that reached max query buffer length: id=%llu addr=%s qbuf=%zu",
                static_cast<unsigned long long>(id_), conn_->peerAddress().c_str(), left);
    s.stats.client_qbuf_limit_disconnections++;
    s.freeClientAsync(this);
  }
}

size_t Client::processInput(const char* base, size_t len) {
  Server& s = *g_server;
  resp::ParserLimits limits;
  limits.max_bulk_len = s.config.proto_max_bulk_len;
  limits.authenticated = (flags & kAuthenticated) != 0;
  size_t pos = 0;
  while (pos < len && !(flags & (kCloseAfterReply | kCloseAsap | kPostponed | kBlocked))) {
    resp::RequestParser::Result r = parser_.feed(base + pos, len - pos, limits);
    if (r == resp::RequestParser::kNeedMore) break;
    if (r == resp::RequestParser::kError) {
      LOG_VERBOSE("Protocol error (%s) from client: id=%llu addr=%s", parser_.error(),
                  static_cast<unsigned long long>(id_), conn_->peerAddress().c_str());
      addError(parser_.error());
      flags |= kCloseAfterReply;
      parser_.reset();
      pos = len;
      break;
    }
    const char* argbase = parser_.isInline() ? parser_.inlineStorage().data() : base + pos;
    argv_.clear();
    for (const resp::ArgRef& a : parser_.args()) argv_.emplace_back(argbase + a.off, a.len);
    size_t request_len = parser_.consumed();
    parser_.reset();
    if (argv_.empty()) {
      pos += request_len;
      continue;
    }
    if (!dispatchCommand(this)) return SIZE_MAX;  // client freed by the command
    // A paused request is left unconsumed: it runs again from the buffer.
    if (flags & kPostponed) break;
    pos += request_len;
    limits.authenticated = (flags & kAuthenticated) != 0;
  }
  if (!replies_.empty() && !(flags & kPendingWrite)) s.queueWrite(this);
  if ((flags & kCloseAfterReply) && replies_.empty()) s.freeClientAsync(this);
  return pos;
}

bool Client::resumeInput() {
  if (qlen_ == qpos_) return true;
  size_t used = processInput(qbuf_ + qpos_, qlen_ - qpos_);
  if (used == SIZE_MAX) return false;
  qpos_ += used;
  if (qpos_ == qlen_) qpos_ = qlen_ = 0;
  return true;
}

bool Client::flush() {
  Server& s = *g_server;
  struct iovec iov[kMaxIov];
  while (!replies_.empty()) {
    int n = replies_.iovecs(iov, kMaxIov);
    if (n == 0) break;
    ssize_t w = n == 1 ? conn_->write(iov[0].iov_base, iov[0].iov_len) : conn_->writev(iov, n);
    if (w <= 0) {
      if (conn_->state() == net::ConnState::kConnected) break;  // would block
      LOG_VERBOSE("Error writing to client: %s", conn_->lastError().c_str());
      s.freeClientAsync(this);
      return false;
    }
    replies_.consume(static_cast<size_t>(w));
    s.stats.net_output_bytes += static_cast<uint64_t>(w);
  }
  if (replies_.empty()) {
    if (conn_->hasWriteHandler()) conn_->setWriteHandler(nullptr);
    if (flags & kCloseAfterReply) {
      s.freeClientAsync(this);
      return false;
    }
  } else if (!conn_->hasWriteHandler()) {
    // The transport is full: let it tell us when it can take more. The
    // barrier flushes replies before more requests are read.
    conn_->setWriteHandler(onWritable, true);
  }
  return true;
}

}  // namespace server
