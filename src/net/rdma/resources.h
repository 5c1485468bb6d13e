// RAII owners of rdma_cm and verbs objects. Each object has exactly one
// owner whose deleter frees it; Endpoint declares its members in creation
// order, so C++ destroys them in reverse order, which is the order verbs
// requires (QP before CQ and PD, MR before its memory, id before channel).
//
// Convention: the make*() factories return an empty owner and set *err to a
// sentence naming the verbs/rdma_cm call that failed and errno's text.
#pragma once

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <cstdint>
#include <memory>
#include <string>

namespace net::rdma {

// Live objects and pinned bytes in this process, for INFO and leak tests.
struct ResourceCounters {
  int64_t objects = 0;
  int64_t pinned_bytes = 0;
};
ResourceCounters resourceCounters();

struct EventChannelDeleter {
  void operator()(rdma_event_channel* ch) const;
};
struct CmIdDeleter {
  void operator()(rdma_cm_id* id) const;
};
struct PdDeleter {
  void operator()(ibv_pd* pd) const;
};
struct CompChannelDeleter {
  void operator()(ibv_comp_channel* ch) const;
};
struct CqDeleter {
  void operator()(ibv_cq* cq) const;
};
struct MrDeleter {
  void operator()(ibv_mr* mr) const;
};
struct MemDeleter {
  void operator()(uint8_t* p) const;
};

using EventChannel = std::unique_ptr<rdma_event_channel, EventChannelDeleter>;
using CmId = std::unique_ptr<rdma_cm_id, CmIdDeleter>;
using Pd = std::unique_ptr<ibv_pd, PdDeleter>;
using CompChannel = std::unique_ptr<ibv_comp_channel, CompChannelDeleter>;
using Cq = std::unique_ptr<ibv_cq, CqDeleter>;
using Mr = std::unique_ptr<ibv_mr, MrDeleter>;
using Mem = std::unique_ptr<uint8_t, MemDeleter>;

// The QP of a cm_id (rdma_create_qp / rdma_destroy_qp).
class Qp {
 public:
  Qp() = default;
  Qp(Qp&& o) noexcept : id_(o.id_) { o.id_ = nullptr; }
  Qp& operator=(Qp&& o) noexcept;
  ~Qp() { reset(); }
  void reset();
  ibv_qp* get() const { return id_ != nullptr ? id_->qp : nullptr; }
  // Creates an RC QP on id over pd/cq. Returns false with *err set.
  bool create(rdma_cm_id* id, ibv_pd* pd, ibv_cq* cq, std::string* err);

 private:
  rdma_cm_id* id_ = nullptr;
};

// Page-aligned memory and its memory region.
struct Region {
  Mem mem;  // declared first: freed after the MR that pins it
  Mr mr;
  uint32_t size = 0;
  uint8_t* data() const { return mem.get(); }
  // Deregisters, then frees (a move-assignment would free first).
  void reset() {
    mr.reset();
    mem.reset();
    size = 0;
  }
  // Allocates `size` bytes, zeroed, and registers them with `access`.
  bool create(ibv_pd* pd, uint32_t size, int access, std::string* err);
};

// A non-blocking event channel. Empty on failure.
EventChannel makeEventChannel(std::string* err);

// Fork safety (RDMA.md, "Fork safety"): the server forks for BGSAVE while
// RDMA connections are live. Called once before the process's first verbs
// call (makeEventChannel does it): asks rdma-core for fork support, which on
// kernels that copy pinned pages at fork (5.13+) needs nothing, and on older
// ones marks every registered region MADV_DONTFORK. forkSafetyMode() then
// says which: "kernel", "madvise", or "unsafe" (ibv_fork_init failed).
void initForkSafety();
const char* forkSafetyMode();
// An RC (RDMA_PS_TCP) id on ch with `context`.
CmId makeCmId(rdma_event_channel* ch, void* context, std::string* err);
// Takes ownership of an id rdma_cm created (a connect request's).
CmId adoptCmId(rdma_cm_id* id);

// Everything one connection owns, in creation order.
struct Endpoint {
  EventChannel channel;
  CmId id;
  Pd pd;
  CompChannel comp;
  Cq cq;
  Qp qp;
  Region rx;       // peer writes here: LOCAL_WRITE | REMOTE_WRITE
  Region rx_next;  // flow control: the ring announced to replace rx
  Region rx_old;   // flow control: the replaced ring, until read to its end
  Region tx;       // staging for our writes: local access only
  Region ctrl_rx;  // kRecvDepth control slots: LOCAL_WRITE
  Region ctrl_tx;  // kCtrlSlots control slots: local only

  // Creates pd..ctrl_tx on id's device (id must have a route or be a
  // connect request). vector < 0 spreads CQs over the device's vectors.
  bool createVerbs(uint32_t rx_size, uint32_t tx_size, int vector, std::string* err);
  // Replaces *r (rx, rx_next or tx) by a new region of `size` bytes:
  // remote-writable for the RX rings. On failure *r is left as it was.
  bool replace(Region* r, uint32_t size, std::string* err);
  // Frees everything, newest first. Idempotent.
  void reset();
};

// Fetches and acknowledges one event of a non-blocking completion channel:
// true when there was one. One per call, not a loop until EAGAIN: a CQ armed
// once raises at most one event, and epoll (level-triggered) reports the fd
// again if more are queued, so a second read would only find nothing at the
// cost of a system call per completion event.
bool takeCqEvent(ibv_comp_channel* ch);

// Bytes one connection pins with the given RX size (its most under flow
// control, where it starts at 2 x kFlowMinRing).
uint64_t pinnedPerConnection(uint32_t rx_size);
// Fails (with a sentence saying what is needed) when RLIMIT_MEMLOCK cannot
// cover `bytes` and the process lacks CAP_IPC_LOCK.
bool checkMemlock(uint64_t bytes, std::string* err);
// "<call> failed: <strerror(errno)>"
std::string callFailed(const char* call);

}  // namespace net::rdma
