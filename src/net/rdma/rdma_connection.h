// Internal header of the "rdma" connection type: the connection and listener
// classes and the state they share with the type. Only files under
// src/net/rdma/ include it; everyone else goes through net/connection.h.
//
// Files: cm.cpp (rdma_cm events: listen, connect, accept, disconnect,
// teardown), linger.cpp (closed connections finishing their last writes),
// datapath.cpp (posting, completions, read/write, handler
// dispatch), flow.cpp (flow control: credited rings that grow and shrink),
// timers.cpp (liveness probe, write kick), rdma_type.cpp (the
// ConnectionType table, options, INFO).
//
// Handler delivery: there is no POLLOUT and received data sits in user
// space, so readiness is tracked here. A connection "wants service" while it
// has a read handler and unread data / EOF / an error, or a write handler and
// room to write. Such connections sit in Shared::pending; the server's
// before-sleep calls processPendingData() (and does not block while any
// remain), which calls the handlers.
//
// Threads: each thread that runs an event loop (the server's main thread;
// each of redis-benchmark's --threads) has its own Shared, so a loop only
// ever services, counts and frees its own connections. The options are the
// type's, read by all.
//
// Busy polling: while the loop busy-polls (busy-poll-us), a connection that
// got a completion event leaves its CQ unarmed and registers as the loop's
// Poller; the loop then reaps its completions with ibv_poll_cq on every spin
// (no interrupt, no channel read, no wake-up) and re-arms the CQ only before
// it blocks. Idle connections stay armed and reach the loop through their
// completion channel as usual.
#pragma once

#include <deque>
#include <string>
#include <unordered_set>

#include "event/event_loop.h"
#include "net/connection.h"
#include "net/rdma/dialect.h"
#include "net/rdma/resources.h"
#include "net/rdma/wire.h"

namespace net::rdma {

class RdmaConnection;
class Linger;

// What an rdma_cm event's private data says of the peer: nothing (another
// implementation), kHello (our own build), kHello offering flow control.
enum class Hello : uint8_t { kNone, kPlain, kFlow };

struct Options {
  uint32_t rx_size = kDefaultRxSize;
  int completion_vector = -1;  // -1: spread over the device's vectors
  // Outbound connections: the dialect to speak; kUnknown detects it.
  DialectId client_dialect = DialectId::kUnknown;
  // Period of the liveness probe (and of Valkey's keepalive); 0: none.
  int keepalive_ms = kDefaultKeepaliveMs;
  // Offer (client) / take (server) flow control with our own peers.
  bool flow = true;
};

// wr_id of send-queue work requests (receives carry their slot number).
constexpr uint64_t kWrData = 1;       // data writes and the closing fence
constexpr uint64_t kWrCtrl = 2;       // control messages
constexpr uint64_t kWrProbe = 3;      // zero-length liveness write
constexpr uint64_t kWrProbeCtrl = 4;  // keepalive control message
constexpr uint64_t kWrCredit = 5;     // flow control: Credit / Switched

// Totals since start (INFO's rdma section).
struct Stats {
  uint64_t listeners = 0;
  uint64_t connected_clients = 0;  // accepted connections now established
  uint64_t bytes_received = 0;
  uint64_t bytes_sent = 0;
  uint64_t writes_posted = 0;
  uint64_t reregistrations = 0;
  uint64_t tx_full_waits = 0;
  uint64_t errors = 0;
  uint64_t completion_events = 0;   // fetched from completion channels
  uint64_t polled_completions = 0;  // reaped by busy polling, without an event
  uint64_t dead_peers = 0;          // closed because a liveness probe failed
  uint64_t keepalives_sent = 0;
  uint64_t keepalives_received = 0;
  uint64_t dialect_errors = 0;  // first control messages matching no dialect
  // Flow control (flow.cpp).
  uint64_t credits_sent = 0;
  uint64_t credits_received = 0;
  uint64_t ring_grows = 0;          // RX rings announced bigger, TX staging grown
  uint64_t ring_shrinks = 0;        // both back to the smallest size after idling
  uint64_t ring_grow_failures = 0;  // a bigger ring could not be registered
};

// State shared by the connections of one thread's event loop; the type owns
// one per such thread (rdma_type.cpp) and frees them with itself.
struct Shared {
  const Options& opts;  // the type's
  Stats stats;
  std::unordered_set<RdmaConnection*> pending;
  std::unordered_set<RdmaConnection*> live;
  std::unordered_set<Linger*> lingering;
  explicit Shared(const Options& o) : opts(o) {}
  Shared(const Shared&) = delete;
  Shared& operator=(const Shared&) = delete;
  ~Shared();
};

// The verbs resources of a connection closed while writes it posted were
// still in flight. Disconnecting (or destroying the QP) flushes unfinished
// work requests, so a final reply written just before close (QUIT's +OK,
// -DENIED, a protocol error) would be lost; the Linger keeps the QP until
// those writes complete, the peer disconnects, a completion fails, or
// kLingerMs passes, then disconnects and frees everything. `writes` counts
// the completions to wait for: the signaled writes in flight, the last of
// which is signaled (RdmaConnection::signalLastWrite). It belongs to
// Shared::lingering and frees itself.
class Linger {
 public:
  static void start(Shared* shared, event::EventLoop* loop, Endpoint&& ep, size_t writes,
                    bool disconnected);
  Linger(const Linger&) = delete;
  Linger& operator=(const Linger&) = delete;
  // Frees the resources without touching the loop (type teardown).
  ~Linger();

 private:
  Linger(Shared* shared, event::EventLoop* loop, Endpoint&& ep, size_t writes, bool disconnected);
  static void onCompletion(event::EventLoop* loop, int fd, void* data, int mask);
  static void onCmEvent(event::EventLoop* loop, int fd, void* data, int mask);
  // Reaps completions; finishes when the writes are done or one failed.
  void poll();
  // Leaves the loop, disconnects, frees (deletes this).
  void finish();

  Shared* shared_;
  event::EventLoop* loop_;
  Endpoint ep_;
  size_t writes_;
  bool disconnected_;
  bool watching_ = false;
  event::TimerId timer_ = 0;
};

class RdmaConnection : public Connection, private event::Poller {
 public:
  // Outbound (cm.cpp): creates the id and starts address resolution; `cb`
  // runs once connected (TX ready both ways) or failed. nullptr + *err if it
  // cannot start.
  static RdmaConnection* connectTo(const ConnectionType* type, Shared* shared,
                                   event::EventLoop* loop, const ConnectAddr& addr, ConnHandler cb,
                                   std::string* err);
  // Inbound (cm.cpp): takes a CONNECT_REQUEST's id (event already acked),
  // creates its resources and moves it to an event channel of its own. On
  // failure rejects and destroys the id and returns nullptr.
  // `hello`: the request's private data carried kHello (our own client),
  // perhaps offering flow control.
  // `no_reads`: without kHello, it asked for no RDMA-read resources, as
  // builds of our client from before the dialects do (cm.cpp, eventNoReads).
  static RdmaConnection* fromRequest(const ConnectionType* type, Shared* shared,
                                     event::EventLoop* loop, rdma_cm_id* id, Hello hello,
                                     bool no_reads, std::string* err);

  // Called by processPendingData(): runs due handlers. Returns false if the
  // connection was closed (the object is gone).
  bool service();
  // The dialect spoken; kUnknown until the peer's first control message.
  DialectId dialectId() const { return dialect_ != nullptr ? dialect_->id() : DialectId::kUnknown; }
  // Under flow control (wire.h): negotiated with our own peer.
  bool flowControl() const { return flow_; }

 protected:
  int doAccept(ConnHandler cb) override;
  ssize_t doRead(void* buf, size_t len) override;
  ssize_t doWrite(const void* buf, size_t len) override;
  ssize_t doWritev(const struct iovec* iov, int iovcnt) override;
  int doSetReadHandler(ConnHandler h) override;
  int doSetWriteHandler(ConnHandler h, bool barrier) override;
  void doAfterForeignIo() override;
  void doClose() override;
  std::string doAddress(bool peer) const override;
  bool doIsLocal() const override;
  int doFd() const override;
  std::string doTransport() const override;

 private:
  RdmaConnection(const ConnectionType* type, Shared* shared, event::EventLoop* loop);
  ~RdmaConnection() override;

  // ---- cm.cpp ----
  static void onCmEvent(event::EventLoop* loop, int fd, void* data, int mask);
  // Returns false if the connection was closed inside.
  // `hello`: what the event's private data carried.
  bool handleCmEvent(rdma_cm_event_type type, int status, Hello hello);
  bool onRouteResolved();
  bool onEstablished(Hello hello);
  // Server: closes a connection whose peer has not spoken within
  // kHandshakeTimeoutMs (its dialect is still unknown).
  void armIdentifyTimer();
  // Runs the pending connect/accept callback if the handshake finished or
  // failed. Returns false if the connection was closed inside.
  bool notifyHandshake();
  bool watchFds();
  void armHandshakeTimer();

  // ---- datapath.cpp ----
  static void onCompletion(event::EventLoop* loop, int fd, void* data, int mask);
  // Polls the CQ until empty, adding the completions reaped to *reaped if
  // given; returns false on a fatal error (state kError).
  bool drainCq(uint64_t* reaped = nullptr);
  // event::Poller, while the CQ is left unarmed for busy polling: poll()
  // drains the CQ and marks the connection pending if anything changed.
  bool poll() override;
  bool rearm() override;
  // Arms the CQ for the next completion event if it is not; false (and
  // kError) if that failed.
  bool armCq();
  bool handleCompletion(const ibv_wc& wc);
  bool onData(uint32_t imm, uint32_t byte_len);
  bool onControl(uint32_t slot, uint32_t bytes);
  // Fixes the connection's dialect (first message of an unidentified peer,
  // or our own choice); a server then announces its RX buffer.
  bool adoptDialect(DialectId id);
  bool postRecv(uint32_t slot);
  bool postControl(const wire::CtrlMsg& msg, uint64_t wr_id, const char* what);
  bool postRegister();
  // Liveness probe (see RDMA.md, "Dead peers"): every keepalive_ms a
  // signaled zero-length RDMA write (or the dialect's keepalive message on a
  // server); one still unacknowledged at the next tick, or failing, means
  // the peer is gone.
  void startProbeTimer();
  int probeTick();
  // A signaled zero-length RDMA write to the peer's registered buffer: no
  // byte is written and no peer software runs, but its HCA acknowledges it
  // after every write before it. Returns ibv_post_send's code.
  int postEmptyWrite(uint64_t wr_id);
  // Before close: makes sure the last write in flight raises a completion,
  // posting a signaled zero-length RDMA write (a fence) after it if it was
  // unsignaled. Returns the completions to wait for, 0 if posting failed.
  size_t signalLastWrite();
  ssize_t writeChunks(const struct iovec* iov, int iovcnt);
  // Contiguous free staging bytes for the next write, at *off.
  uint32_t stagingSlot(uint32_t* off) const;
  bool writable() const;
  uint32_t readable() const { return rx_unread_ + old_unread_; }
  // Contiguous bytes the peer's RX buffer takes at tx_off_ now.
  uint32_t peerRoom() const;
  bool wantsService() const;
  // Puts the connection in the type's pending list or out of it. On an I/O
  // thread (net::onIoThread) it only notes that doAfterForeignIo must.
  void updatePending();
  // The counters the data path adds to: the type's, or on an I/O thread
  // the connection's own, folded into the type's by doAfterForeignIo.
  Stats& counters() { return onIoThread() ? foreign_stats_ : shared_->stats; }
  // After completions or CM events: runs the handlers that became due.
  // Returns false if the connection was closed.
  bool dispatch();
  // Marks the connection broken (kError), counts and logs it (a warning for
  // a protocol violation by the peer), and disconnects the QP.
  void fail(const std::string& why, bool protocol);
  void startKickTimer();
  void stopKickTimer();

  // ---- flow.cpp (flow control, wire.h) ----
  // The client's rings at their full size when the peer turned out not to
  // take flow control (they start small when it is offered).
  bool fullSizeRings();
  bool onFlowData(uint32_t bytes);
  bool onFlowControl(const Control& c);
  size_t readFlow(uint8_t* dst, size_t len);
  // Credits what the application consumed once it is worth a message.
  void maybeCredit();
  // Sends what waited for a free control slot (a Credit, a Switched).
  void flushDeferredControl();
  // Announces a new RX ring of `size` bytes (rx_next); false if it could
  // not be had (the connection goes on with the ring it has).
  bool announceRing(uint32_t size);
  // Starts writing into the peer's announced ring, after our Switched.
  bool switchRemote();
  // The peer's ring `gen` becomes our TX target, from offset 0, all credit.
  void writeInto(const wire::Region& ring, uint32_t gen);
  // Grows or shrinks the TX staging buffer when no write uses it.
  void resizeStaging(uint32_t size);
  void startIdleTimer();
  int idleTick();

  Shared* shared_;
  Stats foreign_stats_;
  bool pending_stale_ = false;
  Endpoint ep_;
  ConnHandler connect_cb_ = nullptr;  // client: run once connected/failed
  ConnHandler accept_cb_ = nullptr;   // server: run on ESTABLISHED
  bool outbound_ = false;
  bool established_ = false;
  bool counted_client_ = false;
  bool accept_called_ = false;
  bool peer_closed_ = false;   // DISCONNECTED seen: EOF after buffered data
  bool watching_ = false;      // fds registered in the loop
  bool disconnected_ = false;  // rdma_disconnect() already called
  bool cq_armed_ = true;       // resources arm the CQ at creation
  event::TimerId handshake_timer_ = 0;
  event::TimerId kick_timer_ = 0;
  event::TimerId probe_timer_ = 0;
  int probe_ms_ = 0;  // the probe period when the timer started (CONFIG SET changes new ones)
  bool probe_outstanding_ = false;
  const Dialect* dialect_ = nullptr;  // nullptr until known
  // Server: "ours" assumed for a request without kHello that asked for no
  // RDMA-read resources (an older build of our client, which waits for us to
  // speak first). Its first control message confirms it, or shows the
  // prototype's head, which our register message also suits.
  bool dialect_assumed_ = false;
  bool announced_ = false;  // our RX buffer was registered once
  std::string peer_addr_;
  std::string local_addr_;

  // RX: the peer writes [rx_tail_, ...) of ep_.rx; we hand out from rx_head_.
  uint32_t rx_head_ = 0;
  uint32_t rx_tail_ = 0;
  uint32_t rx_unread_ = 0;

  // Flow control (flow.cpp). RX: a ring the peer writes around (rx_tail_
  // wraps to 0 at its end) as far as our credits allow; while a ring
  // replacing it is announced it sits in ep_.rx_next, and after the peer's
  // Switched the previous one drains from ep_.rx_old before ep_.rx is read.
  bool flow_ = false;
  uint32_t rx_gen_ = 0;
  uint64_t rx_received_ = 0;     // bytes landed in ring rx_gen_
  uint64_t rx_consumed_ = 0;     // of them, read by the application
  uint64_t rx_credited_ = 0;     // the last Credit sent: the peer may reach this + ring size
  bool ring_announced_ = false;  // ring rx_gen_ + 1 waits for the peer's Switched
  bool credit_due_ = false;      // a Credit waits for a control slot
  bool grow_failed_ = false;     // until the next idle tick: do not retry
  uint32_t old_head_ = 0;
  uint32_t old_unread_ = 0;
  // TX: the peer's ring tx_gen_, of which tx_sent_ bytes were written and
  // tx_credit_ credited back; a newly announced ring waits in next_remote_
  // until a control slot carries our Switched.
  uint32_t tx_gen_ = 0;
  uint64_t tx_sent_ = 0;
  uint64_t tx_credit_ = 0;
  bool next_remote_due_ = false;
  wire::Region next_remote_;
  uint32_t next_gen_ = 0;
  uint32_t staging_want_ = 0;  // staging size to move to once no write is in flight
  uint64_t activity_ = 0;      // bytes moved either way; the idle timer compares
  uint64_t activity_seen_ = 0;
  event::TimerId idle_timer_ = 0;
  bool idle_due_ = false;  // startIdleTimer on an I/O thread: doAfterForeignIo starts it

  // TX target: the peer's RX buffer, valid once it registered.
  bool tx_ready_ = false;
  bool tx_waiting_ = false;  // counted one tx_full_wait, not yet released
  wire::Region remote_;
  uint32_t tx_off_ = 0;

  // TX staging ring over ep_.tx: writes in flight own [offset, offset+len).
  // A write stays here until a signaled one at or after it completes.
  struct InFlight {
    uint32_t offset;
    uint32_t len;
    bool signaled;
  };
  std::deque<InFlight> inflight_;
  uint32_t inflight_bytes_ = 0;
  uint32_t st_head_ = 0;
  int ctrl_inflight_ = 0;
  uint32_t ctrl_next_ = 0;
};

class RdmaListener : public Listener {
 public:
  // Binds one id per address; nullptr + *err on failure.
  static RdmaListener* create(const ConnectionType* type, Shared* shared, event::EventLoop* loop,
                              const ListenSpec& spec, AcceptCallback cb, void* cb_data,
                              std::string* err);
  ~RdmaListener() override;
  std::string describe() const override { return description_; }

 private:
  RdmaListener() = default;
  static void onCmEvent(event::EventLoop* loop, int fd, void* data, int mask);

  const ConnectionType* type_ = nullptr;
  Shared* shared_ = nullptr;
  event::EventLoop* loop_ = nullptr;
  AcceptCallback cb_ = nullptr;
  void* cb_data_ = nullptr;
  EventChannel channel_;
  std::vector<CmId> ids_;  // after channel_: destroyed first
  std::string description_;
  bool counted_ = false;  // in Stats::listeners
};

// "ip:port" of a sockaddr ("" if unknown).
std::string formatSockaddr(const sockaddr* sa);
// "ibv_post_<what> failed: <strerror(rc)>"
std::string postFailed(const char* what, int rc);

}  // namespace net::rdma
