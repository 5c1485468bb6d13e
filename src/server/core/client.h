// A client of the server: the query buffer, request parser and reply buffer
// over one net::Connection. Nothing here knows which transport the
// connection uses, and the client calls nothing above it: reading and
// running requests is driven by client_io.h, and the features that keep
// per-client state (MULTI, pub/sub, MONITOR, CLIENT PAUSE, ...) register a
// close hook that ~Client runs.
//
// Request arguments (argv) are views into the query buffer, valid only for
// the duration of the command call. A command that keeps an argument beyond
// its call (blocking, MULTI queues) must copy it.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "net/connection.h"
#include "resp/reply_buffer.h"
#include "resp/request_parser.h"
#include "resp/writer.h"
#include "server/db/db.h"

namespace server::acl {
class User;
}

namespace server {

struct Command;
struct MultiState;
struct PubSubState;
namespace tracking {
struct State;
}
namespace repl {
struct ReplicaState;
}

enum ClientFlag : uint32_t {
  kCloseAfterReply = 1 << 0,
  kCloseAsap = 1 << 1,
  kPendingWrite = 1 << 2,
  kAuthenticated = 1 << 3,
  kProtectedRefuse = 1 << 4,  // refused at accept: only its error is sent, then closed
  kReplyOff = 1 << 5,         // CLIENT REPLY OFF
  kReplySkipNext = 1 << 6,    // CLIENT REPLY SKIP: drop the next command's reply
  // Commands must not block (set while EXEC runs the queued commands): a
  // blocking command answers as if its timeout had expired.
  kDenyBlocking = 1 << 7,
  // MONITOR: receives every command the server runs (monitor.h).
  kMonitor = 1 << 8,
  // CLIENT PAUSE held this client's next request back (pause.h): it stays
  // unparsed in the query buffer until resumeInput().
  kPostponed = 1 << 9,
  // CLIENT NO-EVICT ON (shown as 'e'): counted but never closed by
  // maxmemory-clients (server/evict/client_evict.h).
  kNoEvict = 1 << 10,
  // The client commands from Lua scripts run on (script/run_context.h):
  // MONITOR shows it as "lua".
  kScriptClient = 1 << 11,
  // Sent SYNC/PSYNC (server/repl/): receives the RDB, then the stream of
  // writes; shown as 'S' by CLIENT LIST.
  kReplica = 1 << 12,
  // The link to this server's master (server/repl/replica/): its commands
  // are applied without replies or the checks clients get; shown as 'M'.
  kMaster = 1 << 13,
  // EXEC of a transaction is being admitted (dispatch.cpp): an error reply
  // refusing it goes to the exec-refused hook instead (EXECABORT, as Redis).
  kExecChecking = 1 << 14,
  // Its read waits for the I/O threads' next step (request/threaded_io.h).
  kPendingRead = 1 << 15,
  // Waiting in a blocking command (server/request/blocking.h): input is not
  // processed until unblocked.
  kBlocked = 1 << 16,
  // Replays effects that must apply as written (the AOF loader): commands
  // skip the limits they put on users (XADD/XTRIM's LIMIT), as Redis's
  // mustObeyClient().
  kMustObey = 1 << 17,
  // Cluster mode (server/cluster/): ASKING was sent (the next command may
  // use a slot being imported), and READONLY (a replica serves reads of its
  // master's slots; CLIENT LIST flag 'r').
  kClientAsking = 1 << 18,
  kReadOnlyClient = 1 << 19,
};

class Client {
 public:
  // Takes ownership of conn (already accepted, or a null conn for internal
  // use in tests). Server::newClient picks the id and the database.
  Client(net::Connection* conn, uint64_t id, db::Db* db);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // ---- hooks of the layers above, installed once at start
  using CloseHook = void (*)(Client* c);
  // Registers the teardown of a feature's per-client state; ~Client runs
  // the hooks in registration order, before closing the connection.
  // Registering the same hook again does nothing.
  static void addCloseHook(CloseHook hook);
  // Called for every error reply added, with its client (INFO errorstats,
  // errors from the master's stream); none by default.
  static void setErrorHook(void (*hook)(const Client* c, std::string_view msg));
  // Called instead of replying when an error refuses EXEC under
  // kExecChecking (the flag is cleared first); request/multi installs it.
  static void setExecRefusedHook(void (*hook)(Client* c, std::string_view msg));

  // ---- arguments of the running command
  size_t argc() const { return argv_.size(); }
  std::string_view arg(size_t i) const { return argv_[i]; }
  const std::vector<std::string_view>& argv() const { return argv_; }
  // EXEC runs queued commands by swapping their arguments in.
  void swapArgv(std::vector<std::string_view>* other) { argv_.swap(*other); }

  // Blocking re-runs (server/request/blocking.cpp): argv as views into strings the
  // caller keeps alive until clearArgv().
  void setArgvViews(const std::vector<std::string>& args) {
    argv_.assign(args.begin(), args.end());
  }
  void clearArgv() { argv_.clear(); }

  // ---- replies (see resp::Writer for the encodings)
  resp::Writer& reply() { return writer_; }
  void addStatus(std::string_view s) { writer_.status(s); }
  void addOk() { writer_.raw("+OK\r\n"); }
  void addError(std::string_view msg);
  void addErrorFormat(const char* fmt, ...) __attribute__((format(printf, 2, 3)));
  void addInteger(int64_t v) { writer_.integer(v); }
  void addBulk(std::string_view s) { writer_.bulk(s); }
  void addNull() { writer_.null(); }
  void addArrayLen(int64_t n) { writer_.arrayLen(n); }
  // Common errors with Redis's exact text.
  void addWrongArity();  // for the current command
  void addSyntaxError() { addError("syntax error"); }
  void addWrongType();
  void addNotInteger() { addError("value is not an integer or out of range"); }
  void addNotFloat() { addError("value is not a valid float"); }

  // Argument helpers: on failure they reply with the standard error and
  // return false.
  bool argInt64(size_t i, int64_t* out);
  bool argInt64Msg(size_t i, int64_t* out, const char* msg);
  bool argLongDouble(size_t i, long double* out);

  // CLIENT REPLY: while muted, replies go to a buffer that is thrown away
  // (errors still count in the stats).
  void muteReplies(bool mute);
  // Runs fn(writer) with the writer bound to the real reply buffer even
  // while replies are muted: RESP3 push messages are not silenced by CLIENT
  // REPLY OFF|SKIP (Redis 7.0).
  template <typename Fn>
  void writeUnmuted(Fn fn) {
    resp::ReplyBuffer* current = writer_.buffer();
    writer_.setBuffer(&replies_);
    fn(writer_);
    writer_.setBuffer(current);
  }

  // ---- state
  uint64_t id() const { return id_; }
  net::Connection* conn() const { return conn_; }
  db::Db* db() const { return db_; }
  int dbIndex() const { return db_ ? db_->id() : 0; }
  void setDb(db::Db* db) { db_ = db; }
  int proto() const { return writer_.proto(); }
  void setProto(int p) { writer_.setProto(p); }
  const std::string& name() const { return name_; }
  void setName(std::string n) { name_ = std::move(n); }
  uint32_t flags = 0;
  int64_t ctime_ms = 0;
  int64_t last_interaction_ms = 0;
  // When it was scheduled to close (kCloseAsap), by the cached clock: the
  // link to a master went down then, not when it is freed later.
  int64_t close_asap_ms = 0;
  // Bytes of the input whose requests are being run (CLIENT INFO's qbuf for
  // the running client: Redis trims its query buffer only after the batch).
  size_t input_batch = 0;
  const Command* last_cmd = nullptr;
  const Command* cur_cmd = nullptr;
  std::string user = "default";
  // The ACL user this client runs as (acl/users.h); shared so that ACL
  // SETUSER changes apply to connected clients at once.
  std::shared_ptr<acl::User> acl_user;
  // Transaction and pub/sub state (server/request/multi.h, server/pubsub/pubsub.h), null
  // until first used; released by their modules' close hooks.
  MultiState* multi_state = nullptr;
  PubSubState* pubsub_state = nullptr;
  // CLIENT TRACKING state (server/pubsub/tracking.h), null until enabled.
  tracking::State* tracking_state = nullptr;
  // REPLCONF / SYNC state (server/repl/master/replicas.h), null until used.
  repl::ReplicaState* repl_state = nullptr;
  // The replication offset right after this client's last write effect went
  // into the stream (WAIT waits for it, as Redis's per-client woff).
  int64_t repl_woff = 0;
  // Output-buffer limits (server/request/obuf_limits.h): when pending output first
  // reached the soft limit, 0 while under it.
  int64_t obuf_soft_since_ms = 0;

  // ---- input and output, driven by client_io.h
  // Reads once from the connection. With no partial request pending the
  // bytes land in `scratch` (shared by every client; none when
  // scratch_len is 0), else in the client's own buffer, grown to what the
  // pending request needs. Touches nothing outside the client and its
  // connection: the I/O threads call it. Returns what the
  // connection's read returned; when positive, [*base, *base + *len) is the
  // unprocessed input, to be handed back to inputProcessed().
  ssize_t readInput(char* scratch, size_t scratch_len, const char** base, size_t* len);
  // `used` bytes of the window readInput gave were processed: what is left
  // is kept in the client's own buffer. Returns the bytes left.
  size_t inputProcessed(const char* base, size_t len, size_t used);
  // Input left in the client's own buffer while it was held (CLIENT PAUSE,
  // blocked), and its consumption.
  std::string_view heldInput() const { return {qbuf_ + qpos_, qlen_ - qpos_}; }
  void consumeHeld(size_t used);
  // Puts bytes read elsewhere in front of the input (the master link's
  // stream received with its RDB); only while no input is held. Run them
  // with resumeInput().
  void setPendingInput(std::string_view s) { keepLeftover(s.data(), s.size()); }
  // Parses one request from [data, data + len). On kDone the request is in
  // argv() (views valid until the next parse) and *consumed is its length.
  // On kError parseError() says why and resetParser() must follow.
  resp::RequestParser::Result parseRequest(const char* data, size_t len,
                                           const resp::ParserLimits& limits, size_t* consumed);
  const char* parseError() const { return parser_.error(); }
  void resetParser() { parser_.reset(); }
  // Writes pending replies until the transport would block, adding the
  // bytes written to *written. Returns false on a connection error. Like
  // readInput, safe on an I/O thread.
  bool writeReplies(uint64_t* written);

  bool hasPendingReplies() const { return !replies_.empty(); }
  size_t queryBufferBytes() const { return qlen_ - qpos_; }
  // CLIENT LIST qbuf, as Redis shows it: of a request still arriving, only
  // what is not parsed yet (Redis drops the parsed part from its buffer).
  size_t queryBufferUnparsed() const {
    size_t n = qlen_ - qpos_, parsed = parser_.consumed();
    return n > parsed ? n - parsed : 0;
  }
  size_t queryBufferCapacity() const { return qcap_; }
  size_t outputBytes() const { return replies_.pending(); }
  size_t outputMemory() const { return replies_.allocated(); }
  // Drops every reply not sent yet and gives their memory back: for a
  // client scheduled to close that will be sent nothing more. Never for the
  // client whose command is running (it may hold a deferred length slot).
  void dropPendingReplies() { replies_.clear(); }
  // CLIENT LIST's rbs and rbp: the reply buffer's first chunk and its peak.
  size_t replyBufferSize() const { return replies_.firstCapacity(); }
  size_t replyBufferPeak() const { return replies_.peak(); }
  // The cron's resize of the first chunk, Redis 7.0's rule: halve it to the
  // peak (at least 1 KB) when the peak is under half of it, double it (up
  // to 16 KB) when the peak filled it. Resets the peak every
  // `peak_reset_ms` (-1: never). Returns -1 shrunk, 1 grown, 0 neither.
  int resizeReplyBuffer(int64_t now_ms, int64_t peak_reset_ms);
  // Gives back the argument lists a request of many arguments grew (SADD
  // of 100,000 members): Redis frees its argv after each command; and the
  // drained private query buffer of a big request. From the cron, between
  // requests.
  void trimArgs();
  // For CLIENT LIST: "r", "rw", "w" or "".
  std::string eventsString() const;

  std::list<Client*>::iterator registry_pos;

 private:
  void keepLeftover(const char* data, size_t len);
  // Grows the private query buffer to at least `need` bytes: doubling, or
  // to exactly `need` when `exact` (a request of known size).
  void ensureQueryCapacity(size_t need, bool exact = false);

  uint64_t id_;
  net::Connection* conn_;
  db::Db* db_ = nullptr;
  std::string name_;

  // Private query buffer: only used while a request is split across reads.
  char* qbuf_ = nullptr;
  size_t qcap_ = 0;
  size_t qlen_ = 0;
  size_t qpos_ = 0;
  bool reading_scratch_ = false;  // the last readInput went to scratch
  resp::RequestParser parser_;
  std::vector<std::string_view> argv_;

  resp::ReplyBuffer replies_;
  int64_t reply_peak_reset_ms_ = 0;  // when the peak was last reset
  resp::Writer writer_;
};

}  // namespace server
