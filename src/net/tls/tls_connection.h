// The tls datapath: a Connection over a TCP socket with an OpenSSL session
// on top, non-blocking in the one event loop. The handshake, SSL_read /
// SSL_write and the fd events they need (a read may need the socket
// writable and a write readable) live here; contexts are built elsewhere
// (context.h) and the type's glue is tls_type.cpp.
//
// User-space buffering: OpenSSL may hold decrypted bytes (or whole records)
// that no fd event will announce. A connection with a read handler and such
// bytes sits in pendingSet() (one per thread: redis-benchmark runs an event
// loop per thread); the type's processPendingData() (the before-sleep hook)
// calls its read handler.
#pragma once

#include <openssl/ssl.h>

#include <string>
#include <unordered_set>

#include "event/event_loop.h"
#include "net/connection.h"
#include "net/tls/context.h"

namespace net::tls {

class TlsConnection;

// State the type shares with its connections.
struct Shared {
  ServerContexts server;  // from the server's settings (empty in client programs)
  CtxPtr client;          // client programs' --tls options (configure())
  std::string sni;        // client programs' --sni
  AuthClients auth_clients = AuthClients::kYes;
  long long handshake_timeout_ms = kDefaultHandshakeTimeoutMs;
};

// The connections of this thread's event loop with bytes to deliver.
std::unordered_set<TlsConnection*>& pendingSet();

class TlsConnection : public Connection {
 public:
  // Takes ownership of fd and ssl (nullptr when SSL_new failed: accept()
  // then fails). Accepted: state kAccepting until accept() runs the
  // handshake; outbound: kConnecting.
  TlsConnection(const ConnectionType* type, Shared* shared, event::EventLoop* loop, int fd,
                SSL* ssl, ConnState state);

  // Outbound: waits for the TCP connect, then runs the client handshake,
  // then calls cb (kConnected, or kError with the reason).
  void startConnect(ConnHandler cb);
  // The before-sleep delivery of bytes OpenSSL holds (see the file comment).
  void servicePending();

 protected:
  int doAccept(ConnHandler cb) override;
  ssize_t doRead(void* buf, size_t len) override;
  ssize_t doWrite(const void* buf, size_t len) override;
  ssize_t doWritev(const struct iovec* iov, int iovcnt) override;
  int doSetReadHandler(ConnHandler h) override;
  int doSetWriteHandler(ConnHandler h, bool barrier) override;
  void doClose() override;
  std::string doAddress(bool peer) const override;
  bool doIsLocal() const override;
  int doFd() const override { return fd_; }
  int doSetNoDelay(bool on) override;

 private:
  static void onEvent(event::EventLoop* loop, int fd, void* data, int mask);
  // One step of the handshake; calls the handshake callback when it ends.
  void handshake();
  void finishHandshake(bool ok);
  void startHandshakeTimer();
  // Registers exactly the fd events the current state needs.
  void updateEvents();
  // After SSL_read/SSL_write returned r <= 0: -1 (would block, or error
  // state set) or 0 (orderly close).
  ssize_t ioFailed(int r, bool reading);
  // Hands retry_ to OpenSSL again; false while it would block or failed.
  bool flushRetry();
  // From an fd event: sends held bytes and updates the events; false if
  // the connection may be gone (a handler ran after a failure).
  bool sendHeld();
  // Both update shared state (the loop's events, the type's pending set):
  // on an I/O thread they only note it for doAfterForeignIo.
  void updatePending();
  void doAfterForeignIo() override;
  bool events_stale_ = false;

  Shared* shared_;
  int fd_;
  SSL* ssl_;
  ConnHandler handshake_cb_ = nullptr;
  event::TimerId handshake_timer_ = 0;
  bool handshaking_ = false;
  bool tcp_connecting_ = false;
  int want_mask_ = 0;              // fd events the handshake waits for
  bool read_wants_write_ = false;  // last SSL_read needs the socket writable
  bool write_wants_read_ = false;  // last SSL_write needs the socket readable
  int registered_ = 0;             // event mask now registered in the loop
  bool in_pending_ = false;        // in shared_->pending
  bool fatal_ = false;             // the session failed: no close_notify
  // A write that would block must be retried with the same bytes: the
  // caller is told they were written, and they are kept here (at most
  // 64 KiB) and sent first, without any handler, once the socket allows.
  std::string retry_;
};

}  // namespace net::tls
