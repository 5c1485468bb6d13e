// Connection over a stream socket fd: the shared implementation of the tcp
// and unix connection types (they differ only in how they listen, connect
// and print addresses). Readiness comes straight from epoll.
//
// Module net/socket/: socket syscalls (socket.h), this connection and the
// tcp and unix types. May include net/connection.h, event/, common/;
// included by nothing but its own files (the registry makes the types
// through net/transports.h).
#pragma once

#include <string>
#include <vector>

#include "event/event_loop.h"
#include "net/connection.h"

namespace net {

class SocketConnection : public Connection {
 public:
  // Takes ownership of fd.
  SocketConnection(const ConnectionType* type, event::EventLoop* loop, int fd, ConnState state);

  // Outbound: waits for the pending connect, then calls cb.
  void startConnect(ConnHandler cb);
  // Accepted on a plain-text TCP port: the first bytes read are checked for
  // a TLS ClientHello (a client configured for TLS on the wrong port), which
  // is logged and ends the connection instead of being parsed as a command.
  void watchForTlsHello() { watch_tls_hello_ = true; }

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
  ssize_t checkIo(ssize_t n);
  ssize_t checkFirstBytes(const void* buf, ssize_t n);

  int fd_;
  bool watch_tls_hello_ = false;
  ConnHandler connect_cb_ = nullptr;
};

// Makes the connection of an accepted fd (taking ownership of it), for
// types that run their own protocol over a stream socket (tls); nullptr
// means a plain SocketConnection.
using SocketConnFactory = Connection* (*)(const ConnectionType* type, event::EventLoop* loop,
                                          int fd, void* data);

// Listener over one or more listening fds (one per bound address).
class SocketListener : public Listener {
 public:
  SocketListener(const ConnectionType* type, event::EventLoop* loop, std::vector<int> fds,
                 std::string description, AcceptCallback cb, void* cb_data, bool tcp,
                 SocketConnFactory factory = nullptr, void* factory_data = nullptr);
  ~SocketListener() override;
  std::string describe() const override { return description_; }

 private:
  static void onAcceptable(event::EventLoop* loop, int fd, void* data, int mask);
  // Out of descriptors (EMFILE, ENFILE) or kernel memory: the pending
  // connection stays in the backlog and the listening fd stays readable, so
  // accepting again at once would spin. Stops watching `lfd` for
  // kAcceptBackoffMs, then watches it again.
  void backOff(int lfd);

  const ConnectionType* type_;
  event::EventLoop* loop_;
  std::vector<int> fds_;
  std::string description_;
  AcceptCallback cb_;
  void* cb_data_;
  bool tcp_;
  SocketConnFactory factory_;
  void* factory_data_;
  std::vector<event::TimerId> backoff_timers_;
  int64_t last_error_log_ms_ = 0;
};

// The spec of a listener over TCP on `port` (0: none, *wanted false): the
// addresses of `bind` and tcp-backlog; tcp and any type over TCP read them
// alike.
void tcpListenSpecFrom(const SettingLookup& get, int port, ListenSpec* spec, bool* wanted);

// Binds spec's addresses (all of them when empty) on spec.port for `type`
// (the tcp type's listener, and any type over TCP). `what` names the
// listener in errors ("TCP", "TLS"). nullptr with *err on failure.
Listener* listenTcpSpec(const ConnectionType* type, event::EventLoop* loop, const ListenSpec& spec,
                        AcceptCallback cb, void* cb_data, const char* what, std::string* err,
                        SocketConnFactory factory = nullptr, void* factory_data = nullptr);

}  // namespace net
