#include "net/socket/socket_connection.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "common/log.h"
#include "event/event_loop.h"
#include "net/socket/socket.h"

namespace net {

SocketConnection::SocketConnection(const ConnectionType* type, event::EventLoop* loop, int fd,
                                   ConnState state)
    : Connection(type, loop), fd_(fd) {
  state_ = state;
}

int SocketConnection::doAccept(ConnHandler cb) {
  if (state_ != ConnState::kAccepting) return -1;
  state_ = ConnState::kConnected;
  callHandler(cb);
  return 0;
}

void SocketConnection::startConnect(ConnHandler cb) {
  connect_cb_ = cb;
  loop_->addFileEvent(fd_, event::kWritable, onEvent, this);
}

ssize_t SocketConnection::checkIo(ssize_t n) {
  if (n > 0) return n;
  if (n == 0) {
    state_ = ConnState::kClosed;
    return 0;
  }
  if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
    setError(strerror(errno));
  }
  return -1;
}

ssize_t SocketConnection::doRead(void* buf, size_t len) {
  ssize_t n = checkIo(::read(fd_, buf, len));
  if (watch_tls_hello_ && n > 0) [[unlikely]]
    return checkFirstBytes(buf, n);
  return n;
}

ssize_t SocketConnection::checkFirstBytes(const void* buf, ssize_t n) {
  watch_tls_hello_ = false;
  // A TLS record header: handshake (22), protocol major version 3, minor
  // 0..4. No Redis request starts with byte 22.
  const auto* b = static_cast<const unsigned char*>(buf);
  if (n < 3 || b[0] != 22 || b[1] != 3 || b[2] > 4) return n;
  // Atomic: I/O threads read connections of the server in parallel.
  static std::atomic<int64_t> last_log_ms{0};
  int64_t now = event::EventLoop::nowMs();
  int64_t last = last_log_ms.load(std::memory_order_relaxed);
  // A storm of them must not flood the log: one line a second.
  if (now - last >= 1000 && last_log_ms.compare_exchange_strong(last, now)) {
    LOG_WARNING(
        "Closing connection from %s: it began a TLS handshake on a plain-text %s port "
        "(a client set up for TLS on the wrong port?)",
        doAddress(true).c_str(), type_->name());
  }
  setError("TLS handshake received on a plain-text port");
  return -1;
}

ssize_t SocketConnection::doWrite(const void* buf, size_t len) {
  // send() with MSG_NOSIGNAL: a peer that went away must not kill us with
  // SIGPIPE (the server also ignores SIGPIPE; the client library may not).
  ssize_t n = ::send(fd_, buf, len, MSG_NOSIGNAL);
  if (n == 0 && len > 0) return -1;
  return checkIo(n);
}

ssize_t SocketConnection::doWritev(const struct iovec* iov, int iovcnt) {
  struct msghdr msg = {};
  msg.msg_iov = const_cast<struct iovec*>(iov);
  msg.msg_iovlen = iovcnt;
  ssize_t n = ::sendmsg(fd_, &msg, MSG_NOSIGNAL);
  if (n == 0) return -1;
  return checkIo(n);
}

int SocketConnection::doSetReadHandler(ConnHandler h) {
  if (h == read_handler_) return 0;
  read_handler_ = h;
  if (h == nullptr) {
    loop_->removeFileEvent(fd_, event::kReadable);
    return 0;
  }
  return loop_->addFileEvent(fd_, event::kReadable, onEvent, this);
}

int SocketConnection::doSetWriteHandler(ConnHandler h, bool barrier) {
  if (h == write_handler_ && barrier == write_barrier_) return 0;
  write_handler_ = h;
  write_barrier_ = barrier;
  if (h == nullptr) {
    loop_->removeFileEvent(fd_, event::kWritable);
    return 0;
  }
  return loop_->addFileEvent(fd_, event::kWritable | (barrier ? event::kBarrier : 0), onEvent,
                             this);
}

void SocketConnection::onEvent(event::EventLoop* loop, int fd, void* data, int mask) {
  auto* c = static_cast<SocketConnection*>(data);
  if (c->state_ == ConnState::kConnecting) {
    std::string err;
    loop->removeFileEvent(fd, event::kWritable);
    if (sock::connectResult(fd, &err) == 0) {
      c->state_ = ConnState::kConnected;
    } else {
      c->setError(err);
    }
    ConnHandler cb = c->connect_cb_;
    c->connect_cb_ = nullptr;
    c->callHandler(cb);
    return;
  }
  if (mask & event::kReadable) {
    c->callHandler(c->read_handler_);
  } else if (mask & event::kWritable) {
    c->callHandler(c->write_handler_);
  }
}

void SocketConnection::doClose() {
  if (fd_ != -1) {
    loop_->removeFileEvent(fd_, event::kReadable | event::kWritable);
    ::close(fd_);
    fd_ = -1;
  }
  state_ = ConnState::kClosed;
}

int SocketConnection::doSetNoDelay(bool on) {
  return sock::setNoDelay(fd_, on);
}

std::string SocketConnection::doAddress(bool peer) const {
  return sock::formatAddress(fd_, peer);
}

bool SocketConnection::doIsLocal() const {
  return sock::isLocalPeer(fd_);
}

SocketListener::SocketListener(const ConnectionType* type, event::EventLoop* loop,
                               std::vector<int> fds, std::string description, AcceptCallback cb,
                               void* cb_data, bool tcp, SocketConnFactory factory,
                               void* factory_data)
    : type_(type),
      loop_(loop),
      fds_(std::move(fds)),
      description_(std::move(description)),
      cb_(cb),
      cb_data_(cb_data),
      tcp_(tcp),
      factory_(factory),
      factory_data_(factory_data) {
  for (int fd : fds_) loop_->addFileEvent(fd, event::kReadable, onAcceptable, this);
}

SocketListener::~SocketListener() {
  for (event::TimerId t : backoff_timers_) loop_->deleteTimer(t);
  for (int fd : fds_) {
    loop_->removeFileEvent(fd, event::kReadable);
    ::close(fd);
  }
}

void SocketListener::onAcceptable(event::EventLoop* loop, int lfd, void* data, int) {
  auto* l = static_cast<SocketListener*>(data);
  // Bounded batch: a flood of connects must not starve established clients.
  constexpr int kMaxAcceptsPerCall = 1000;
  for (int i = 0; i < kMaxAcceptsPerCall; i++) {
    std::string err;
    int fd = sock::accept(lfd, &err);
    if (fd == -1) {
      if (err.empty()) break;  // nothing left to accept
      int e = errno;
      // One line a second at most: a client storm must not flood the log.
      int64_t now = event::EventLoop::nowMs();
      if (now - l->last_error_log_ms_ >= 1000) {
        l->last_error_log_ms_ = now;
        LOG_WARNING("Accepting client connection: %s", err.c_str());
      }
      if (e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM) l->backOff(lfd);
      break;
    }
    if (l->tcp_) sock::setNoDelay(fd, true);
    Connection* conn = nullptr;
    if (l->factory_ != nullptr) {
      conn = l->factory_(l->type_, loop, fd, l->factory_data_);
    } else {
      auto* sc = new SocketConnection(l->type_, loop, fd, ConnState::kAccepting);
      if (l->tcp_) sc->watchForTlsHello();
      conn = sc;
    }
    l->cb_(conn, l->cb_data_);
  }
}

void SocketListener::backOff(int lfd) {
  // Descriptors come back as clients leave; until then the connection waits
  // in the backlog rather than the loop spinning on accept.
  constexpr int64_t kAcceptBackoffMs = 100;
  loop_->removeFileEvent(lfd, event::kReadable);
  backoff_timers_.push_back(
      loop_->addTimer(kAcceptBackoffMs, [this, lfd](event::EventLoop* loop, event::TimerId id) {
        backoff_timers_.erase(std::find(backoff_timers_.begin(), backoff_timers_.end(), id));
        loop->addFileEvent(lfd, event::kReadable, onAcceptable, this);
        return event::kNoMore;
      }));
}

}  // namespace net
