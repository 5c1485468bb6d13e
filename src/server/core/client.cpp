#include "server/core/client.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "common/log.h"
#include "common/strutil.h"
#include "server/core/command.h"

namespace server {

namespace {
constexpr size_t kReadChunk = 16 * 1024;
constexpr int kMaxIov = 64;
// A private buffer bigger than this is freed once drained (one huge request
// must not pin its memory for the client's lifetime).
constexpr size_t kKeepQueryBuffer = 64 * 1024;
constexpr size_t kKeepArgs = 1024;  // argument slots kept between requests

// The hooks are few and registered at start: a vector scanned on close.
std::vector<Client::CloseHook>& closeHooks() {
  static std::vector<Client::CloseHook> hooks;
  return hooks;
}
void (*g_error_hook)(const Client*, std::string_view) = nullptr;
}  // namespace

void Client::addCloseHook(CloseHook hook) {
  for (CloseHook h : closeHooks()) {
    if (h == hook) return;
  }
  closeHooks().push_back(hook);
}

void (*g_exec_refused_hook)(Client*, std::string_view) = nullptr;

void Client::setExecRefusedHook(void (*hook)(Client* c, std::string_view msg)) {
  g_exec_refused_hook = hook;
}

void Client::setErrorHook(void (*hook)(const Client* c, std::string_view msg)) {
  g_error_hook = hook;
}

Client::Client(net::Connection* conn, uint64_t id, db::Db* db)
    : id_(id), conn_(conn), db_(db), writer_(&replies_, 2) {
  ctime_ms = last_interaction_ms = db::Clock::nowMs;
  if (conn_ != nullptr) conn_->setPrivateData(this);
}

Client::~Client() {
  for (CloseHook h : closeHooks()) h(this);
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

void Client::addError(std::string_view msg) {
  if ((flags & kExecChecking) && g_exec_refused_hook != nullptr) [[unlikely]] {
    flags &= ~kExecChecking;
    g_exec_refused_hook(this, msg);
    return;
  }
  if (g_error_hook != nullptr) g_error_hook(this, msg);
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
  if (common::strutil::parseInt64(argv_[i], out)) return true;
  addNotInteger();
  return false;
}

bool Client::argInt64Msg(size_t i, int64_t* out, const char* msg) {
  if (common::strutil::parseInt64(argv_[i], out)) return true;
  addError(msg);
  return false;
}

bool Client::argLongDouble(size_t i, long double* out) {
  if (common::strutil::parseLongDouble(argv_[i], out)) return true;
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

void Client::ensureQueryCapacity(size_t need, bool exact) {
  if (qcap_ >= need) return;
  size_t cap = qcap_ ? qcap_ : kReadChunk;
  while (cap < need) cap = cap < (64u << 20) ? cap * 2 : cap + (64u << 20);
  if (exact) cap = need;
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

ssize_t Client::readInput(char* scratch, size_t scratch_len, const char** base, size_t* len) {
  char* dst;
  size_t room;
  reading_scratch_ = qlen_ == qpos_ && scratch_len > 0;
  if (reading_scratch_) {
    // Nothing partial pending: read into the shared scratch buffer.
    if (qbuf_ != nullptr && qcap_ > kKeepQueryBuffer) {
      free(qbuf_);
      qbuf_ = nullptr;
      qcap_ = 0;
    }
    qlen_ = qpos_ = 0;
    dst = scratch;
    room = scratch_len;
  } else {
    // Compact, then make room for what the parser says the request needs.
    if (qpos_ > 0) {
      memmove(qbuf_, qbuf_ + qpos_, qlen_ - qpos_);
      qlen_ -= qpos_;
      qpos_ = 0;
    }
    // A big argument's length is known: room for exactly the rest of the
    // request, as Redis sizes its buffer for a big bulk (no doubling past
    // it); what follows it is read once it ran.
    size_t hint = parser_.bytesHint();
    bool exact = hint > qlen_;
    ensureQueryCapacity(exact ? hint : qlen_ + kReadChunk, exact);
    dst = qbuf_ + qlen_;
    room = qcap_ - qlen_;
  }
  ssize_t n = conn_->read(dst, room);
  if (n <= 0) return n;
  if (reading_scratch_) {
    *base = dst;
    *len = static_cast<size_t>(n);
  } else {
    qlen_ += static_cast<size_t>(n);
    *base = qbuf_;
    *len = qlen_;
  }
  return n;
}

size_t Client::inputProcessed(const char* base, size_t len, size_t used) {
  size_t left = len - used;
  if (reading_scratch_) {
    if (left > 0) keepLeftover(base + used, left);
  } else {
    qpos_ = used;
    if (qpos_ == qlen_) qpos_ = qlen_ = 0;
  }
  return left;
}

void Client::consumeHeld(size_t used) {
  qpos_ += used;
  if (qpos_ == qlen_) qpos_ = qlen_ = 0;
}

resp::RequestParser::Result Client::parseRequest(const char* data, size_t len,
                                                 const resp::ParserLimits& limits,
                                                 size_t* consumed) {
  resp::RequestParser::Result r = parser_.feed(data, len, limits);
  if (r != resp::RequestParser::kDone) return r;
  const char* argbase = parser_.isInline() ? parser_.inlineStorage().data() : data;
  const auto& args = parser_.args();
  argv_.resize(args.size());
  for (size_t i = 0; i < args.size(); i++) argv_[i] = {argbase + args[i].off, args[i].len};
  *consumed = parser_.consumed();
  parser_.reset();
  return r;
}

void Client::trimArgs() {
  if (argv_.capacity() > kKeepArgs) std::vector<std::string_view>().swap(argv_);
  if (qlen_ != qpos_) return;  // a request half-read or held: all stays
  parser_.trim(kKeepArgs);
  // The private buffer of a big request, drained: freed now rather than at
  // the next read, which may be seconds away (a master link after a big
  // write). Redis's clients cron trims such query buffers too.
  if (qbuf_ != nullptr && qcap_ > kKeepQueryBuffer) {
    free(qbuf_);
    qbuf_ = nullptr;
    qcap_ = 0;
    qlen_ = qpos_ = 0;
  }
}

int Client::resizeReplyBuffer(int64_t now_ms, int64_t peak_reset_ms) {
  constexpr size_t kMin = 1024, kChunk = resp::ReplyBuffer::kChunkSize;
  size_t cap = replies_.firstCapacity(), peak = replies_.peak();
  size_t want = 0;
  int how = 0;
  if (cap / 2 >= kMin && peak < cap / 2) {
    want = peak + 1 > kMin ? peak + 1 : kMin;
    how = -1;
  } else if (cap * 2 < kChunk * 2 && peak == cap) {
    want = cap * 2 < kChunk ? cap * 2 : kChunk;
    how = 1;
  }
  if (peak_reset_ms >= 0 && now_ms - reply_peak_reset_ms_ >= peak_reset_ms) {
    replies_.resetPeak();
    reply_peak_reset_ms_ = now_ms;
  }
  // Only an empty buffer is resized: one with replies waiting is busy anyway.
  if (how == 0 || !replies_.resizeFirst(want)) return 0;
  return how;
}

bool Client::writeReplies(uint64_t* written) {
  struct iovec iov[kMaxIov];
  while (!replies_.empty()) {
    int n = replies_.iovecs(iov, kMaxIov);
    if (n == 0) break;
    ssize_t w = n == 1 ? conn_->write(iov[0].iov_base, iov[0].iov_len) : conn_->writev(iov, n);
    if (w <= 0) {
      if (conn_->state() == net::ConnState::kConnected) break;  // would block
      return false;
    }
    replies_.consume(static_cast<size_t>(w));
    *written += static_cast<uint64_t>(w);
  }
  return true;
}

}  // namespace server
