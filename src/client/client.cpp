#include "client/client.h"

#include <algorithm>
#include <cstdint>

#include "net/registry.h"

namespace client {

namespace {
// Read size per readable event: big enough for pipelined bursts, small
// enough that one connection cannot hog a loop shared by many.
constexpr size_t kReadChunk = 16 * 1024;
// Once this much of the output buffer is sent, the sent prefix is dropped.
constexpr size_t kOutCompact = 64 * 1024;
}  // namespace

std::string describe(const Endpoint& ep) {
  if (ep.type == "unix") return ep.path;
  if (ep.host.find(':') != std::string::npos) {
    return "[" + ep.host + "]:" + std::to_string(ep.port);
  }
  return ep.host + ":" + std::to_string(ep.port);
}

void serviceTransports(event::EventLoop* loop) {
  // Shared with the server (net/registry.h): a handler run here may have
  // completed the reply a caller of processEvents() is waiting for
  // (waitUntil re-checks its predicate only when processEvents returns), so
  // the next wait does not block.
  net::servicePendingData(loop);
}

void installLoopHooks(event::EventLoop* loop) {
  loop->setBeforeSleep([](event::EventLoop* l) { serviceTransports(l); });
}

Client::Client(event::EventLoop* loop, ParserLimits limits) : loop_(loop), parser_(limits) {
  if (loop_ == nullptr) {
    owned_loop_ = std::make_unique<event::EventLoop>();
    loop_ = owned_loop_.get();
    installLoopHooks(loop_);
  }
}

Client::~Client() {
  // Callbacks may capture state of the owner that is going away as well:
  // they are dropped, not called.
  callbacks_.clear();
  connect_cb_ = nullptr;
  disconnect_handler_ = nullptr;
  if (conn_ != nullptr) {
    conn_->close();
    conn_ = nullptr;
  }
}

void Client::connectAsync(const Endpoint& ep, ConnectCallback cb) {
  close();
  endpoint_ = ep;
  error_.clear();
  net::ConnectionType* type = net::findType(ep.type.c_str());
  if (type == nullptr) {
    error_ = "connection type '" + ep.type + "' is not compiled in";
    state_ = State::kFailed;
    if (cb) cb(false);
    return;
  }
  net::ConnectAddr addr;
  addr.host = ep.host;
  addr.port = ep.port;
  addr.path = ep.path;
  std::string err;
  state_ = State::kConnecting;
  connect_cb_ = std::move(cb);
  conn_ = type->connect(loop_, addr, onConnect, &err);
  if (conn_ == nullptr) {
    state_ = State::kFailed;
    error_ = err;
    ConnectCallback done = std::move(connect_cb_);
    connect_cb_ = nullptr;
    if (done) done(false);
    return;
  }
  conn_->setPrivateData(this);
  if (conn_->state() == net::ConnState::kConnected) onConnect(conn_);
}

void Client::onConnect(net::Connection* conn) {
  auto* c = static_cast<Client*>(conn->privateData());
  if (c == nullptr || c->state_ != State::kConnecting) return;
  ConnectCallback cb = std::move(c->connect_cb_);
  c->connect_cb_ = nullptr;
  if (conn->state() != net::ConnState::kConnected) {
    c->failConnection(conn->lastError().empty() ? "connection failed" : conn->lastError());
    if (cb) cb(false);
    return;
  }
  c->state_ = State::kConnected;
  conn->setReadHandler(onReadable);
  if (cb) cb(true);
  if (c->state_ == State::kConnected && c->pendingOutput() > 0) c->flush();
}

bool Client::connect(const Endpoint& ep, int timeout_ms) {
  bool done = false;
  bool ok = false;
  connectAsync(ep, [&](bool r) {
    done = true;
    ok = r;
  });
  if (!done) waitUntil([&] { return done; }, timeout_ms);
  if (!done) {
    // Timed out: the callback refers to this frame, drop it first.
    connect_cb_ = nullptr;
    close();
    error_ = "Connection timed out";
    state_ = State::kFailed;
  }
  return ok;
}

void Client::failConnection(const std::string& why) {
  if (state_ == State::kFailed || state_ == State::kIdle) return;
  error_ = why;
  state_ = State::kFailed;
  if (conn_ != nullptr) {
    conn_->setPrivateData(nullptr);
    conn_->close();
    conn_ = nullptr;
  }
  parser_.reset();
  out_.clear();
  out_pos_ = 0;
  std::deque<ReplyCallback> cbs;
  cbs.swap(callbacks_);
  for (auto& cb : cbs) {
    if (cb) cb(nullptr);
  }
  if (disconnect_handler_) disconnect_handler_();
}

void Client::close() {
  if (state_ == State::kIdle) return;
  std::string keep = error_;
  bool was_failed = state_ == State::kFailed;
  if (!was_failed) failConnection("Connection closed");
  state_ = State::kIdle;
  if (was_failed) error_ = keep;
  unclaimed_.clear();
}

void Client::append(const std::vector<std::string>& argv) {
  appendCommand(&out_, argv);
}

void Client::append(const std::vector<std::string_view>& argv) {
  appendCommand(&out_, argv);
}

void Client::appendRaw(std::string_view bytes) {
  out_.append(bytes.data(), bytes.size());
}

bool Client::flush() {
  if (state_ == State::kConnecting) return true;
  if (state_ != State::kConnected) return false;
  while (out_pos_ < out_.size()) {
    ssize_t n = conn_->write(out_.data() + out_pos_, out_.size() - out_pos_);
    if (n > 0) {
      out_pos_ += static_cast<size_t>(n);
      continue;
    }
    if (conn_->state() == net::ConnState::kConnected) break;  // would block
    failConnection(conn_->lastError().empty() ? "write failed" : conn_->lastError());
    return false;
  }
  if (out_pos_ == out_.size()) {
    out_.clear();
    out_pos_ = 0;
    conn_->setWriteHandler(nullptr);
  } else {
    if (out_pos_ >= kOutCompact) {
      out_.erase(0, out_pos_);
      out_pos_ = 0;
    }
    // The transport calls back when it can take more (fd writable for
    // sockets, TX credit or send buffer space for RDMA).
    conn_->setWriteHandler(onWritable);
  }
  return true;
}

void Client::onWritable(net::Connection* conn) {
  auto* c = static_cast<Client*>(conn->privateData());
  if (c != nullptr) c->flush();
}

void Client::command(const std::vector<std::string>& argv, ReplyCallback cb) {
  if (state_ != State::kConnected && state_ != State::kConnecting) {
    if (cb) cb(nullptr);
    return;
  }
  append(argv);
  callbacks_.push_back(std::move(cb));
  flush();
}

void Client::setSkimHandler(SkimHandler h, void* data) {
  skim_ = h;
  skim_data_ = data;
}

void Client::onReadable(net::Connection* conn) {
  auto* c = static_cast<Client*>(conn->privateData());
  if (c != nullptr) c->handleRead();
}

void Client::handleRead() {
  if (raw_mode_) {
    char buf[kReadChunk];
    ssize_t n = conn_->read(buf, sizeof(buf));
    if (n == 0) {
      failConnection("Server closed the connection");
    } else if (n < 0) {
      if (conn_->state() != net::ConnState::kConnected)
        failConnection(conn_->lastError().empty() ? "read failed" : conn_->lastError());
    } else {
      raw_in_.append(buf, static_cast<size_t>(n));
    }
    return;
  }
  size_t avail;
  char* p = parser_.prepare(kReadChunk, &avail);
  ssize_t n = conn_->read(p, avail);
  if (n == 0) {
    failConnection("Server closed the connection");
    return;
  }
  if (n < 0) {
    if (conn_->state() != net::ConnState::kConnected) {
      failConnection(conn_->lastError().empty() ? "read failed" : conn_->lastError());
    }
    return;
  }
  parser_.commit(static_cast<size_t>(n));
  while (state_ == State::kConnected) {
    Parser::Result r;
    if (skim_ != nullptr) {
      ReplySummary sum;
      r = parser_.skim(&sum);
      if (r == Parser::Result::kReply) {
        skim_(this, sum, skim_data_);
        continue;
      }
    } else {
      r = parser_.next(&scratch_);
      if (r == Parser::Result::kReply) {
        dispatch(std::move(scratch_));
        continue;
      }
    }
    if (r == Parser::Result::kError) failConnection(parser_.error());
    break;
  }
}

void Client::setRawMode(bool on) {
  if (on == raw_mode_) return;
  raw_mode_ = on;
  if (on) {
    parser_.takeRaw(&raw_in_, SIZE_MAX);
    return;
  }
  // What came after the raw part is replies again.
  if (raw_in_.empty()) return;
  parser_.feed(raw_in_.data(), raw_in_.size());
  raw_in_.clear();
  while (state_ == State::kConnected) {
    Parser::Result r = parser_.next(&scratch_);
    if (r == Parser::Result::kReply) {
      dispatch(std::move(scratch_));
      continue;
    }
    if (r == Parser::Result::kError) failConnection(parser_.error());
    break;
  }
}

bool Client::readRaw(std::string* out, size_t max, int timeout_ms) {
  if (raw_in_.empty()) waitUntil([&] { return !raw_in_.empty(); }, timeout_ms);
  if (raw_in_.empty()) {
    if (state_ == State::kConnected) error_ = "timeout";
    return false;
  }
  size_t n = std::min(max, raw_in_.size());
  out->append(raw_in_, 0, n);
  raw_in_.erase(0, n);
  return true;
}

void Client::dispatch(Reply&& r) {
  if (r.type == ReplyType::kPush && push_handler_) {
    push_handler_(std::move(r));
    return;
  }
  if (!callbacks_.empty()) {
    ReplyCallback cb = std::move(callbacks_.front());
    callbacks_.pop_front();
    if (cb) cb(&r);
    return;
  }
  unclaimed_.push_back(std::move(r));
}

bool Client::waitUntil(const std::function<bool()>& pred, int timeout_ms) {
  int64_t deadline = timeout_ms > 0 ? event::EventLoop::nowMs() + timeout_ms : 0;
  // The timer only makes sure the loop wakes up at the deadline.
  event::TimerId timer = 0;
  if (timeout_ms > 0) {
    timer = loop_->addTimer(timeout_ms,
                            [](event::EventLoop*, event::TimerId) { return event::kNoMore; });
  }
  while (!pred()) {
    if (state_ == State::kFailed || state_ == State::kIdle) break;
    if (deadline != 0 && event::EventLoop::nowMs() >= deadline) break;
    loop_->processEvents(true);
  }
  if (timer != 0) loop_->deleteTimer(timer);
  return pred();
}

bool Client::call(const std::vector<std::string>& argv, Reply* reply, int timeout_ms) {
  bool done = false;
  bool ok = false;
  command(argv, [&](Reply* r) {
    done = true;
    if (r != nullptr) {
      *reply = std::move(*r);
      ok = true;
    }
  });
  if (!done) waitUntil([&] { return done; }, timeout_ms);
  if (!done) {
    // The reply may still come; the connection is out of step, and the
    // queued callback points at this frame: drop both.
    failConnection("timeout");
    close();
    error_ = "timeout";
    state_ = State::kFailed;
  }
  return ok;
}

bool Client::readReply(Reply* reply, int timeout_ms) {
  if (unclaimed_.empty()) waitUntil([&] { return !unclaimed_.empty(); }, timeout_ms);
  if (unclaimed_.empty()) {
    if (state_ == State::kConnected) error_ = "timeout";
    return false;
  }
  *reply = std::move(unclaimed_.front());
  unclaimed_.pop_front();
  return true;
}

}  // namespace client
