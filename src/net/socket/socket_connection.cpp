#include "net/socket/socket_connection.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
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
  return checkIo(::read(fd_, buf, len));
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

std::string SocketConnection::doAddress(bool peer) const {
  return sock::formatAddress(fd_, peer);
}

bool SocketConnection::doIsLocal() const {
  return sock::isLocalPeer(fd_);
}

SocketListener::SocketListener(const ConnectionType* type, event::EventLoop* loop,
                               std::vector<int> fds, std::string description, AcceptCallback cb,
                               void* cb_data, bool tcp)
    : type_(type),
      loop_(loop),
      fds_(std::move(fds)),
      description_(std::move(description)),
      cb_(cb),
      cb_data_(cb_data),
      tcp_(tcp) {
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
    auto* conn = new SocketConnection(l->type_, loop, fd, ConnState::kAccepting);
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
