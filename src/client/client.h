// A connection to a Redis-compatible server over any registered connection
// type (tcp, unix, rdma), with a blocking API (redis-cli) and an async API
// (redis-benchmark: many clients on one loop).
//
// Event loop: a Client runs in an event::EventLoop. Transports such as RDMA
// buffer received data in user space and deliver it from the loop's
// before-sleep hook, so every loop that drives clients must run
// client::serviceTransports() in its before-sleep hook; installLoopHooks()
// does exactly that for a loop with no hook of its own. The blocking calls
// drive the loop themselves (processEvents) and never look at fds.
//
// Replies are dispatched in this order: RESP3 push messages to the push
// handler when one is set; otherwise, in skim mode, every reply goes to the
// skim handler; otherwise to the oldest callback given to command(); replies
// nobody claims (no callback queued, e.g. after call()-less sends or in
// pub/sub) wait in a queue that readReply() pops.
//
// Lifetime: never destroy a Client inside one of its own callbacks; call
// close() there and destroy it afterwards. After a connection failure every
// queued callback is called with nullptr and lastError() says why.
#pragma once

#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "event/event_loop.h"
#include "net/connection.h"
#include "resp/reply.h"
#include "resp/reply_parser.h"

namespace client {

// The reply parser lives in src/resp/ (shared with the server); the client
// library's users know it by these names.
using Parser = resp::ReplyParser;
using ParserLimits = resp::ReplyLimits;
using resp::appendCommand;
using resp::encodeCommand;
using resp::Reply;
using resp::ReplySummary;
using resp::ReplyType;
using resp::replyTypeName;

struct Endpoint {
  std::string type = "tcp";  // a net::findType() name
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string path;  // unix socket path (type "unix")
};

// "host:port" ("[v6]:port") or the socket path, as redis-cli prints it.
std::string describe(const Endpoint& ep);

// Runs the transports' pending-data delivery; call from a before-sleep hook.
void serviceTransports(event::EventLoop* loop);
// Installs serviceTransports() as the loop's before-sleep hook.
void installLoopHooks(event::EventLoop* loop);

class Client {
 public:
  using ReplyCallback = std::function<void(Reply* reply)>;  // nullptr: connection failed
  using ConnectCallback = std::function<void(bool ok)>;
  using SkimHandler = void (*)(Client* c, const ReplySummary& r, void* data);
  using PushHandler = std::function<void(Reply&& push)>;

  // The loop must outlive the client. With no loop, the client owns one
  // (with installLoopHooks() applied): the usual set-up for blocking use.
  explicit Client(event::EventLoop* loop = nullptr, ParserLimits limits = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  event::EventLoop* loop() const { return loop_; }
  const Endpoint& endpoint() const { return endpoint_; }
  bool connected() const { return state_ == State::kConnected; }
  // Why the last operation failed: "Connection refused", "Connection reset
  // by peer", "Server closed the connection", a protocol error, "timeout".
  const std::string& lastError() const { return error_; }

  // Async: starts connecting; cb(true) once connected, cb(false) on failure
  // (also when it cannot even start; then before this returns).
  void connectAsync(const Endpoint& ep, ConnectCallback cb);
  // Blocking: connects within timeout_ms (<= 0: no limit). False on failure.
  bool connect(const Endpoint& ep, int timeout_ms);
  // Drops the connection (queued callbacks get nullptr). Idempotent.
  void close();

  // Queue a command: encoded into the output buffer, sent on flush().
  void append(const std::vector<std::string>& argv);
  void append(const std::vector<std::string_view>& argv);
  // Queue bytes already in RESP form (e.g. a pipeline of N commands).
  void appendRaw(std::string_view bytes);
  // Writes as much as the transport takes now; the rest goes out from the
  // write handler. Returns false if the connection is broken.
  bool flush();
  size_t pendingOutput() const { return out_.size() - out_pos_; }

  // Async command: append + flush; cb runs with its reply.
  void command(const std::vector<std::string>& argv, ReplyCallback cb);
  // Skim mode: every non-push reply is validated, not built, and passed to h.
  void setSkimHandler(SkimHandler h, void* data);
  void setPushHandler(PushHandler h) { push_handler_ = std::move(h); }
  // Called once when the connection breaks or the server closes it.
  void setDisconnectHandler(std::function<void()> h) { disconnect_handler_ = std::move(h); }

  // Blocking: send argv and wait for its reply (timeout_ms <= 0: no limit).
  // False on timeout or connection failure (lastError() says which); an
  // error reply is a success with reply->type == kError.
  bool call(const std::vector<std::string>& argv, Reply* reply, int timeout_ms = 0);
  // Blocking: the next unclaimed reply (e.g. pub/sub messages).
  bool readReply(Reply* reply, int timeout_ms = 0);
  // Runs the loop until pred() is true, the timeout passes or the
  // connection fails. Returns pred().
  bool waitUntil(const std::function<bool()>& pred, int timeout_ms);

  // Raw mode (redis-cli --rdb, --replica): what arrives is kept as bytes,
  // not parsed, for readRaw(); bytes received but not yet parsed when it is
  // switched on go first. Switching it off parses what is left as replies.
  void setRawMode(bool on);
  // Blocking, raw mode: moves up to max bytes into *out (at least one,
  // unless the connection fails or timeout_ms passes: then false). Bytes
  // received before a failure are still returned first.
  bool readRaw(std::string* out, size_t max, int timeout_ms = 0);

 private:
  enum class State { kIdle, kConnecting, kConnected, kFailed };
  static void onConnect(net::Connection* conn);
  static void onReadable(net::Connection* conn);
  static void onWritable(net::Connection* conn);
  void handleRead();
  void dispatch(Reply&& r);
  void failConnection(const std::string& why);

  event::EventLoop* loop_;
  std::unique_ptr<event::EventLoop> owned_loop_;
  Endpoint endpoint_;
  net::Connection* conn_ = nullptr;
  State state_ = State::kIdle;
  std::string error_;
  ConnectCallback connect_cb_;

  Parser parser_;
  Reply scratch_;
  std::string out_;
  size_t out_pos_ = 0;
  std::deque<ReplyCallback> callbacks_;
  std::deque<Reply> unclaimed_;
  SkimHandler skim_ = nullptr;
  void* skim_data_ = nullptr;
  PushHandler push_handler_;
  std::function<void()> disconnect_handler_;
  bool in_read_ = false;
  bool raw_mode_ = false;
  std::string raw_in_;
};

}  // namespace client
