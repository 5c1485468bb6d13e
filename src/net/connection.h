// The connection layer: the one interface every transport (tcp, unix, rdma)
// implements, and the only way the server talks to a transport.
//
// Two tables:
// - ConnectionType: one per transport, registered by name in the registry
//   (net/registry.h). Creates listeners and runs the before-sleep hook that
//   transports buffering data in user space need.
// - Connection: one per client. Public non-virtual wrappers state the
//   contract; transports implement the protected do*() slots.
//
// Error convention of this layer: I/O calls return a byte count, 0 for an
// orderly end of stream (read only), or -1. After -1, state() tells which:
// still kConnected means "would block, try again later"; kError means the
// connection is broken and lastError() says why. Nothing throws.
//
// Lifetime: the owner (the server's client) calls close(). A handler may
// call close() on its own connection: the object is then freed only when the
// outermost handler returns. After close() no handler is called again.
//
// Module net/ (namespace net; the transports: socket/ net::sock, rdma/
// net::rdma, tls/ net::tls): this table, the registry of types and their
// settings (registry.h). net/ itself may include event/ and common/; a
// transport folder may include net/ and a sibling's headers (tls/ builds
// on socket/). Nothing outside net/ includes a transport folder: the
// server, the client library and the programs reach every transport
// through this header and registry.h (transports.h lists the built-in
// types for registry.cpp).
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace event {
class EventLoop;
}

namespace net {

class Connection;
class ConnectionType;
using ConnHandler = void (*)(Connection* conn);

enum class ConnState : uint8_t { kNone, kConnecting, kAccepting, kConnected, kClosed, kError };

class Connection {
 public:
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  const ConnectionType& type() const { return *type_; }
  ConnState state() const { return state_; }
  const std::string& lastError() const { return last_error_; }

  // Completes the server side of the handshake and calls `cb` once the
  // connection is kConnected, or in state kError if the handshake failed
  // (the callback must then close it). TCP/Unix call back at once; RDMA when
  // the CM reports ESTABLISHED. Returns -1 if the handshake cannot start.
  int accept(ConnHandler cb) { return doAccept(cb); }

  // Read up to len bytes. >0 count, 0 on EOF (state becomes kClosed), -1: see
  // the file comment. Never blocks.
  ssize_t read(void* buf, size_t len) { return doRead(buf, len); }
  // Write up to len bytes; may write fewer (short write). Never blocks.
  ssize_t write(const void* buf, size_t len) { return doWrite(buf, len); }
  ssize_t writev(const struct iovec* iov, int iovcnt) { return doWritev(iov, iovcnt); }

  // Install or clear (nullptr) the handler called when data can be read,
  // including data the transport already holds in user space. Returns 0 or -1.
  int setReadHandler(ConnHandler h) { return doSetReadHandler(h); }
  // Install or clear the handler called when a write can make progress. With
  // barrier, in an iteration where both fire, the write handler runs first.
  int setWriteHandler(ConnHandler h, bool barrier = false) { return doSetWriteHandler(h, barrier); }
  bool hasReadHandler() const { return read_handler_ != nullptr; }
  bool hasWriteHandler() const { return write_handler_ != nullptr; }

  // Closes and frees the connection (deferred while a handler of it runs).
  void close();

  // "ip:port" / socket path of either end; empty on failure.
  std::string peerAddress() const { return doAddress(true); }
  std::string localAddress() const { return doAddress(false); }
  // True for loopback / unix peers (protected mode).
  bool isLocal() const { return doIsLocal(); }
  // The fd for diagnostics (CLIENT LIST fd=); -1 if the transport has none.
  int fd() const { return doFd(); }
  // Nagle's algorithm off (true, the default of TCP connections) or on.
  // 0, or -1 where the transport has no such notion (unix, rdma).
  int setNoDelay(bool on) { return doSetNoDelay(on); }
  // How MONITOR and logs name the peer: its address, or for a peer without
  // one (a unix socket's) "<type>:<local address>", e.g. "unix:/tmp/r.sock".
  std::string peerLabel() const;
  // The transport as CLIENT LIST shows it: the type name, and for types
  // with variants the variant ("rdma/valkey"). No spaces.
  std::string transport() const { return doTransport(); }

  // On the loop's thread, after read()/write()/writev() calls that another
  // thread made (ioFromAnyThread types) and before anything else touches
  // the connection: the transport applies what those calls left for it
  // (its shared lists, its counters, the loop's events).
  void afterForeignIo() { doAfterForeignIo(); }

  void setPrivateData(void* p) { private_data_ = p; }
  void* privateData() const { return private_data_; }

 protected:
  Connection(const ConnectionType* type, event::EventLoop* loop) : type_(type), loop_(loop) {}
  virtual ~Connection() = default;

  virtual int doAccept(ConnHandler cb) = 0;
  virtual ssize_t doRead(void* buf, size_t len) = 0;
  virtual ssize_t doWrite(const void* buf, size_t len) = 0;
  virtual ssize_t doWritev(const struct iovec* iov, int iovcnt) = 0;
  virtual int doSetReadHandler(ConnHandler h) = 0;
  virtual int doSetWriteHandler(ConnHandler h, bool barrier) = 0;
  // Release transport resources; called once, never from inside a handler of
  // this connection. The object is deleted right after.
  virtual void doClose() = 0;
  virtual std::string doAddress(bool peer) const = 0;
  virtual bool doIsLocal() const = 0;
  virtual int doFd() const { return -1; }
  virtual int doSetNoDelay(bool) { return -1; }
  virtual std::string doTransport() const;
  virtual void doAfterForeignIo() {}

  // Transports call handlers only through this: it keeps the object alive
  // while the handler runs and performs a close() requested inside it.
  // Returns false if the connection was closed during the call (the object
  // is gone: do not touch it).
  bool callHandler(ConnHandler h);

  void setError(const std::string& msg) {
    state_ = ConnState::kError;
    last_error_ = msg;
  }

  const ConnectionType* type_;
  event::EventLoop* loop_;
  ConnState state_ = ConnState::kNone;
  ConnHandler read_handler_ = nullptr;
  ConnHandler write_handler_ = nullptr;
  bool write_barrier_ = false;

 private:
  void* private_data_ = nullptr;
  std::string last_error_;
  int refs_ = 0;
  bool close_pending_ = false;
};

// Marks the calling thread as one that makes connection I/O away from the
// loop's thread (see ConnectionType::ioFromAnyThread); onIoThread() tells
// the transports where they run.
void markIoThread();
// constinit: read directly, without the wrapper call of dynamic TLS.
extern thread_local constinit bool t_io_thread;
inline bool onIoThread() {
  return t_io_thread;
}

// Where a listener binds. addrs empty means "all addresses" for IP transports.
struct ListenSpec {
  std::vector<std::string> addrs;
  int port = 0;       // IP transports
  std::string path;   // unix
  unsigned perm = 0;  // unix socket permissions (0 = leave umask default)
  int backlog = 511;
};

// A bound listening endpoint. Accepted connections arrive in state
// kAccepting through the callback given at creation; the receiver calls
// Connection::accept() on them.
class Listener {
 public:
  virtual ~Listener() = default;
  // Human-readable "addr:port" list or path, for logs.
  virtual std::string describe() const = 0;
};
using AcceptCallback = void (*)(Connection* conn, void* data);

// Where an outbound connection goes: host+port for IP transports, path for unix.
struct ConnectAddr {
  std::string host;
  int port = 0;
  std::string path;
  std::string source_addr;  // optional local address to bind first (IP transports)
};

// The server's settings by option name ("port", "bind", "rdma-port", ...),
// as CONFIG GET prints them; "" for an unknown name. Each type reads its own.
using SettingLookup = std::function<std::string(const std::string& name)>;

// Helpers for listenSpecFrom() and the types' parsers: a whole integer
// setting (false if it is not one), a space-separated list setting, and a
// yes/no setting (any case; false if it is neither).
bool settingInt(const std::string& v, long long* out);
std::vector<std::string> settingWords(const std::string& v);
bool settingYesNo(const std::string& v, bool* out);

// A server setting a connection type owns ("rdma-port", "rdma-rx-size"):
// the type declares its name, default and bounds; the server's options table
// lists every type's settings and keeps their values (redis.conf, the
// command line, CONFIG GET/SET/REWRITE), so the server names no transport.
struct SettingSpec {
  const char* name;
  const char* default_value;  // canonical form, as CONFIG GET prints it
  bool is_mutable;            // CONFIG SET may change it at run time
  bool is_list;               // any number of words (space-joined), else exactly one
  // Validates the value's words and gives the canonical value; false with
  // *err (the reason, as CONFIG SET and redis.conf errors show it).
  bool (*parse)(const std::vector<std::string>& words, std::string* canonical, std::string* err);
  // The value names a file whose content may change (a certificate): CONFIG
  // SET applies it even when the value itself is unchanged.
  bool reapply_unchanged = false;
  // A change reopens the server's listeners (a port).
  bool reopens_listeners = false;
  // The value is a secret: SLOWLOG and MONITOR show "(redacted)".
  bool sensitive = false;
};

// The links a server opens to its peers by itself; a setting of a type
// may ask for it to carry one (tls-replication, tls-cluster).
enum class ServerLink { kReplication, kCluster };

class ConnectionType {
 public:
  virtual ~ConnectionType() = default;
  virtual const char* name() const = 0;

  // The server setting naming the port this type serves clients on
  // ("port", "tls-port", "rdma-port"; "" when it has none): a cluster node
  // tells a client of this type the other nodes' ports of the same kind.
  virtual const char* clientPortSetting() const { return ""; }

  // True when this type's settings ask it to carry the server's outgoing
  // `link` (net::typeForLink picks the type that does).
  virtual bool carriesLink(const SettingLookup& get, ServerLink link) const {
    (void)get;
    (void)link;
    return false;
  }

  // The listener the server's settings ask of this type (net::openListeners
  // calls it): *wanted false when none is configured (port 0, no path).
  // Types also apply their own options (configure) from the settings here.
  // False with *err (a sentence) for a bad setting.
  virtual bool listenSpecFrom(const SettingLookup& get, ListenSpec* spec, bool* wanted,
                              std::string* err) {
    (void)get;
    (void)spec;
    (void)err;
    *wanted = false;
    return true;
  }
  // The server settings this type owns, with their defaults and bounds
  // (see SettingSpec); the server's options table lists them.
  virtual const std::vector<SettingSpec>& settings() const {
    static const std::vector<SettingSpec> kNone;
    return kNone;
  }
  // CONFIG SET changed `names`, mutable settings of this type (every value
  // of the command is already stored, so a certificate and its key change
  // as a pair): apply them to new connections. False with *err (the reason
  // CONFIG SET returns) leaves the type as it was; the server then restores
  // the previous values and calls this again with them.
  virtual bool applySettings(const SettingLookup& get, const std::vector<std::string>& names,
                             std::string* err) {
    (void)get;
    (void)names;
    (void)err;
    return true;
  }
  // The log line for a listener of this type once it is open.
  virtual std::string announce(const Listener& l) const {
    return std::string("Listening on ") + name() + " " + l.describe();
  }

  // Binds and starts accepting in `loop`. Returns nullptr and sets *err (a
  // complete sentence naming the address and the failing call) on failure.
  virtual Listener* listen(event::EventLoop* loop, const ListenSpec& spec, AcceptCallback cb,
                           void* cb_data, std::string* err) = 0;

  // Starts a non-blocking outbound connection in `loop`. Returns the
  // connection in state kConnecting (or already kConnected); `cb` runs once
  // when it is kConnected or has failed (state kError, lastError() says why;
  // the callback must then close it). Returns nullptr and sets *err if it
  // cannot even start (bad address, no device).
  virtual Connection* connect(event::EventLoop* loop, const ConnectAddr& addr, ConnHandler cb,
                              std::string* err) = 0;

  // Transport-specific option ("rx-size" for rdma, ...), set before listen()
  // or at run time. Returns false with *err set for an unknown name or a bad
  // value.
  virtual bool configure(const std::string& name, const std::string& value, std::string* err) {
    (void)value;
    *err = "unknown " + std::string(this->name()) + " option '" + name + "'";
    return false;
  }
  // "field:value\r\n" lines for INFO's section named after the type; empty
  // if the type has nothing to report.
  virtual std::string info() const { return ""; }

  // True when read(), write() and writev() of different connections of
  // this type may run at the same time on threads marked with
  // markIoThread() while the loop's thread waits for them (the server's I/O
  // threads): on such a thread a call touches nothing shared between
  // connections (neither the loop nor the type's own lists and counters)
  // and leaves those updates to afterForeignIo(). One connection is still
  // used by one thread at a time, and its handlers and close() stay on the
  // loop's thread. False by default: the server then does every I/O of the
  // type on the loop thread.
  virtual bool ioFromAnyThread() const { return false; }

  // Transports that buffer received data in user space: true while some
  // connection holds data its read handler has not been told about.
  virtual bool hasPendingData() const { return false; }
  // Calls the read handler of each such connection once. Returns how many.
  virtual int processPendingData() { return 0; }
};

}  // namespace net
