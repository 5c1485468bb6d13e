#include "net/tls/tls_connection.h"

#include <openssl/err.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "net/socket/socket.h"

namespace net::tls {
namespace {

// Most bytes one write call hands to OpenSSL (records of 16 KiB each): a
// large reply goes out over several calls, as with a short TCP write.
constexpr size_t kMaxWrite = 64 * 1024;
// Separate writes smaller than one record are gathered into one.
constexpr size_t kRecordSize = 16 * 1024;
static_assert(kMaxWrite >= 2 * kRecordSize, "a retried write covers a record left half sent");

// OpenSSL's reason for a failed handshake, with a hint for the usual
// mistake: a plain-text client on the TLS port.
// Outbound (client) failures read as redis-cli 7.0 prints them: "SSL_connect
// failed: certificate verify failed".
std::string handshakeError(int ssl_err, int saved_errno, bool client) {
  unsigned long e = ERR_peek_error();
  if (e == 0) {
    if (ssl_err == SSL_ERROR_SYSCALL && saved_errno != 0) return strerror(saved_errno);
    return "connection closed by the peer during the TLS handshake";
  }
  int reason = ERR_GET_REASON(e);
  if (client) {
    const char* r = ERR_reason_error_string(e);
    ERR_clear_error();
    return std::string("SSL_connect failed: ") + (r != nullptr ? r : "unknown error");
  }
  std::string why = takeSslError();
  if (reason == SSL_R_WRONG_VERSION_NUMBER || reason == SSL_R_HTTP_REQUEST ||
      reason == SSL_R_HTTPS_PROXY_REQUEST || reason == SSL_R_PACKET_LENGTH_TOO_LONG ||
      reason == SSL_R_RECORD_LENGTH_MISMATCH) {
    why += " (not a TLS handshake: a plain-text client on the TLS port?)";
  }
  return why;
}

}  // namespace

std::unordered_set<TlsConnection*>& pendingSet() {
  thread_local std::unordered_set<TlsConnection*> set;
  return set;
}

TlsConnection::TlsConnection(const ConnectionType* type, Shared* shared, event::EventLoop* loop,
                             int fd, SSL* ssl, ConnState state)
    : Connection(type, loop), shared_(shared), fd_(fd), ssl_(ssl) {
  state_ = state;
  if (ssl_ == nullptr) return;
  SSL_set_fd(ssl_, fd_);
  if (state == ConnState::kAccepting) {
    SSL_set_accept_state(ssl_);
    switch (shared_->auth_clients) {
      case AuthClients::kNo:
        SSL_set_verify(ssl_, SSL_VERIFY_NONE, nullptr);
        break;
      case AuthClients::kOptional:
        SSL_set_verify(ssl_, SSL_VERIFY_PEER, nullptr);
        break;
      case AuthClients::kYes:
        SSL_set_verify(ssl_, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
        break;
    }
  } else {
    SSL_set_connect_state(ssl_);
    if (!shared_->sni.empty()) SSL_set_tlsext_host_name(ssl_, shared_->sni.c_str());
  }
}

int TlsConnection::doAccept(ConnHandler cb) {
  if (state_ != ConnState::kAccepting) return -1;
  if (ssl_ == nullptr) {
    setError("SSL_new failed: " + takeSslError());
    return -1;
  }
  handshake_cb_ = cb;
  handshaking_ = true;
  startHandshakeTimer();
  handshake();
  return 0;
}

void TlsConnection::startConnect(ConnHandler cb) {
  handshake_cb_ = cb;
  tcp_connecting_ = true;
  updateEvents();
}

void TlsConnection::startHandshakeTimer() {
  long long ms = shared_->handshake_timeout_ms;
  if (ms <= 0) return;
  handshake_timer_ = loop_->addTimer(ms, [this, ms](event::EventLoop*, event::TimerId) {
    handshake_timer_ = 0;
    setError("TLS handshake not completed within " + std::to_string(ms) + " ms");
    fatal_ = true;
    finishHandshake(false);
    return event::kNoMore;
  });
}

void TlsConnection::handshake() {
  ERR_clear_error();
  int r = SSL_do_handshake(ssl_);
  int saved_errno = errno;
  if (r == 1) {
    finishHandshake(true);
    return;
  }
  int e = SSL_get_error(ssl_, r);
  if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
    want_mask_ = e == SSL_ERROR_WANT_READ ? event::kReadable : event::kWritable;
    updateEvents();
    return;
  }
  setError(handshakeError(e, saved_errno, SSL_is_server(ssl_) == 0));
  fatal_ = true;
  finishHandshake(false);
}

void TlsConnection::finishHandshake(bool ok) {
  handshaking_ = false;
  want_mask_ = 0;
  if (handshake_timer_ != 0) {
    loop_->deleteTimer(handshake_timer_);
    handshake_timer_ = 0;
  }
  if (ok) state_ = ConnState::kConnected;
  updateEvents();
  ConnHandler cb = handshake_cb_;
  handshake_cb_ = nullptr;
  if (!callHandler(cb)) return;
  // Application data that came with the last handshake flight.
  if (state_ == ConnState::kConnected) updatePending();
}

void TlsConnection::updateEvents() {
  // On an I/O thread the loop is not ours to touch: afterForeignIo does it.
  if (onIoThread()) [[unlikely]] {
    events_stale_ = true;
    return;
  }
  int want = 0;
  if (fd_ == -1) return;
  if (tcp_connecting_) {
    want = event::kWritable;
  } else if (handshaking_) {
    want = want_mask_;
  } else if (state_ == ConnState::kConnected) {
    if (read_handler_ != nullptr) want |= read_wants_write_ ? event::kWritable : event::kReadable;
    if (write_handler_ != nullptr) want |= write_wants_read_ ? event::kReadable : event::kWritable;
    if (write_wants_read_) want |= event::kReadable;
    if (read_wants_write_) want |= event::kWritable;
    // Bytes taken but not yet through OpenSSL go out without any handler.
    if (!retry_.empty()) want |= write_wants_read_ ? event::kReadable : event::kWritable;
    if ((want & event::kWritable) && write_barrier_) want |= event::kBarrier;
  }
  if (want == registered_) return;
  int drop = registered_ & ~want;
  if (drop & event::kBarrier) drop |= event::kWritable;  // cleared only with it
  if (drop & (event::kReadable | event::kWritable)) {
    loop_->removeFileEvent(fd_, drop & (event::kReadable | event::kWritable));
  }
  int left = registered_ & ~drop;
  if (drop & event::kWritable) left &= ~event::kBarrier;
  if ((want & ~left) != 0) loop_->addFileEvent(fd_, want, onEvent, this);
  registered_ = want;
}

void TlsConnection::onEvent(event::EventLoop*, int fd, void* data, int mask) {
  auto* c = static_cast<TlsConnection*>(data);
  if (c->tcp_connecting_) {
    c->tcp_connecting_ = false;
    std::string err;
    if (sock::connectResult(fd, &err) != 0) {
      c->setError(err);
      c->fatal_ = true;
      c->finishHandshake(false);
      return;
    }
    c->handshaking_ = true;
    c->startHandshakeTimer();
    c->handshake();
    return;
  }
  if (c->handshaking_) {
    c->handshake();
    return;
  }
  if (c->state_ != ConnState::kConnected) return;
  if (mask & event::kReadable) {
    // A write that waited for the peer's bytes (a TLS 1.3 key update)
    // goes first; then the reader.
    if (c->write_wants_read_) {
      c->write_wants_read_ = false;
      if (!c->sendHeld()) return;
      if (!c->callHandler(c->write_handler_)) return;
    }
    c->callHandler(c->read_handler_);
  } else if (mask & event::kWritable) {
    if (c->read_wants_write_) {
      c->read_wants_write_ = false;
      c->updateEvents();
      if (!c->callHandler(c->read_handler_)) return;
    }
    if (!c->sendHeld()) return;
    c->callHandler(c->write_handler_);
  }
}

bool TlsConnection::sendHeld() {
  if (retry_.empty()) {
    updateEvents();
    return true;
  }
  bool ok = flushRetry();
  updateEvents();
  if (ok || state_ == ConnState::kConnected) return true;
  // The session broke with nobody writing: the reader finds out.
  callHandler(read_handler_);
  return false;
}

void TlsConnection::doAfterForeignIo() {
  if (events_stale_) {
    events_stale_ = false;
    updateEvents();
  }
  updatePending();  // SSL_read may have left decrypted bytes behind
}

void TlsConnection::updatePending() {
  if (onIoThread()) [[unlikely]] {
    events_stale_ = true;  // doAfterForeignIo updates both
    return;
  }
  bool has = read_handler_ != nullptr && state_ == ConnState::kConnected && SSL_pending(ssl_) > 0;
  if (has == in_pending_) return;
  in_pending_ = has;
  if (has) {
    pendingSet().insert(this);
  } else {
    pendingSet().erase(this);
  }
}

void TlsConnection::servicePending() {
  // Out of the set first: a handler that reads puts it back while bytes
  // remain; one that does not read cannot make the loop spin.
  in_pending_ = false;
  pendingSet().erase(this);
  callHandler(read_handler_);
}

ssize_t TlsConnection::ioFailed(int r, bool reading) {
  int saved_errno = errno;
  int e = SSL_get_error(ssl_, r);
  switch (e) {
    case SSL_ERROR_WANT_READ:
      if (!reading && !write_wants_read_) {
        write_wants_read_ = true;
        updateEvents();
      }
      return -1;
    case SSL_ERROR_WANT_WRITE:
      if (reading && !read_wants_write_) {
        read_wants_write_ = true;
        updateEvents();
      }
      return -1;
    case SSL_ERROR_ZERO_RETURN:  // the peer's close_notify
      state_ = ConnState::kClosed;
      return 0;
    default:
      break;
  }
  fatal_ = true;
  unsigned long err = ERR_peek_error();
  if (err == 0) {
    // A bare socket error or end of stream.
    if (e == SSL_ERROR_SYSCALL && saved_errno != 0 && saved_errno != EAGAIN) {
      setError(strerror(saved_errno));
      return -1;
    }
    if (reading) {
      state_ = ConnState::kClosed;
      return 0;
    }
    setError("Connection reset by peer");
    return -1;
  }
  // Most clients close without a close_notify: that is an end of stream,
  // not an error worth a log line.
  if (reading && ERR_GET_REASON(err) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
    ERR_clear_error();
    state_ = ConnState::kClosed;
    return 0;
  }
  setError(takeSslError());
  return -1;
}

ssize_t TlsConnection::doRead(void* buf, size_t len) {
  if (state_ != ConnState::kConnected) return state_ == ConnState::kClosed ? 0 : -1;
  ERR_clear_error();
  int r = SSL_read(ssl_, buf, static_cast<int>(std::min<size_t>(len, INT_MAX)));
  if (r > 0) {
    updatePending();
    return r;
  }
  ssize_t n = ioFailed(r, true);
  updatePending();
  return n;
}

bool TlsConnection::flushRetry() {
  while (!retry_.empty()) {
    ERR_clear_error();
    int r = SSL_write(ssl_, retry_.data(), static_cast<int>(retry_.size()));
    if (r <= 0) {
      ioFailed(r, false);
      return false;
    }
    retry_.erase(0, static_cast<size_t>(r));
  }
  if (retry_.capacity() > kRecordSize) std::string().swap(retry_);
  return true;
}

ssize_t TlsConnection::doWrite(const void* buf, size_t len) {
  if (state_ != ConnState::kConnected) return -1;
  if (!retry_.empty()) {
    if (!flushRetry()) return -1;
    updateEvents();
  }
  const char* p = static_cast<const char*>(buf);
  size_t n = std::min(len, kMaxWrite);
  size_t done = 0;
  while (done < n) {
    ERR_clear_error();
    int r = SSL_write(ssl_, p + done, static_cast<int>(n - done));
    if (r > 0) {
      done += static_cast<size_t>(r);
      continue;
    }
    ssize_t res = ioFailed(r, false);
    if (state_ != ConnState::kConnected) return res;
    // OpenSSL holds a record of these bytes and wants the same bytes again
    // on the retry: they are taken (counted as written) and kept here,
    // sent before anything else once the socket allows.
    retry_.assign(p + done, n - done);
    updateEvents();
    return static_cast<ssize_t>(n);
  }
  return static_cast<ssize_t>(done);
}

ssize_t TlsConnection::doWritev(const struct iovec* iov, int iovcnt) {
  if (!retry_.empty()) {
    if (!flushRetry()) return -1;
    updateEvents();
  }
  if (iovcnt == 1 || iov[0].iov_len >= kRecordSize) {
    return doWrite(iov[0].iov_base, iov[0].iov_len);
  }
  // Small replies gathered into one record rather than one record each.
  thread_local std::string gather;
  gather.clear();
  for (int i = 0; i < iovcnt && gather.size() < kMaxWrite; i++) {
    size_t take = std::min(iov[i].iov_len, kMaxWrite - gather.size());
    gather.append(static_cast<const char*>(iov[i].iov_base), take);
  }
  return doWrite(gather.data(), gather.size());
}

int TlsConnection::doSetReadHandler(ConnHandler h) {
  read_handler_ = h;
  updateEvents();
  updatePending();
  return 0;
}

int TlsConnection::doSetWriteHandler(ConnHandler h, bool barrier) {
  write_handler_ = h;
  write_barrier_ = barrier;
  updateEvents();
  return 0;
}

void TlsConnection::doClose() {
  if (handshake_timer_ != 0) {
    loop_->deleteTimer(handshake_timer_);
    handshake_timer_ = 0;
  }
  if (in_pending_) {
    pendingSet().erase(this);
    in_pending_ = false;
  }
  if (fd_ != -1) {
    loop_->removeFileEvent(fd_, event::kReadable | event::kWritable);
    // Held bytes (a last reply) and a close_notify when the session is
    // healthy: best effort, never waits.
    if (state_ == ConnState::kConnected && !fatal_) {
      if (!retry_.empty()) flushRetry();
      ERR_clear_error();
      if (state_ == ConnState::kConnected && !fatal_) SSL_shutdown(ssl_);
    }
    ERR_clear_error();
    ::close(fd_);
    fd_ = -1;
  }
  if (ssl_ != nullptr) {
    SSL_free(ssl_);
    ssl_ = nullptr;
  }
  state_ = ConnState::kClosed;
}

int TlsConnection::doSetNoDelay(bool on) {
  return sock::setNoDelay(fd_, on);
}

std::string TlsConnection::doAddress(bool peer) const {
  return sock::formatAddress(fd_, peer);
}

bool TlsConnection::doIsLocal() const {
  return sock::isLocalPeer(fd_);
}

}  // namespace net::tls
