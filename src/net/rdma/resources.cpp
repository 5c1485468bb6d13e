#include "net/rdma/resources.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>

#include "common/log.h"
#include "net/rdma/wire.h"

namespace net::rdma {
namespace {

// Updated by every thread that owns verbs objects: the server's I/O threads
// re-register rings, redis-benchmark's threads each run connections.
std::atomic<int64_t> live_objects{0};
std::atomic<int64_t> pinned_bytes{0};

void created(int64_t pinned = 0) {
  live_objects.fetch_add(1, std::memory_order_relaxed);
  if (pinned != 0) pinned_bytes.fetch_add(pinned, std::memory_order_relaxed);
}
void destroyed(int64_t pinned = 0) {
  live_objects.fetch_sub(1, std::memory_order_relaxed);
  if (pinned != 0) pinned_bytes.fetch_sub(pinned, std::memory_order_relaxed);
}

// Deleters run during teardown where nobody can act on a failure; a failing
// destroy call means a leak or a bug, so it is logged with the call's name.
void logDestroyFailure(const char* call, int rc) {
  LOG_WARNING("RDMA: %s failed: %s", call, strerror(rc > 0 ? rc : errno));
}

bool setNonBlocking(int fd, const char* what, std::string* err) {
  int flags = fcntl(fd, F_GETFL);
  if (flags == -1 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) == -1) {
    *err = std::string("fcntl(O_NONBLOCK) on the ") + what + " failed: " + strerror(errno);
    return false;
  }
  return true;
}

// Whether the effective capability set holds CAP_IPC_LOCK (bit 14), which
// lifts RLIMIT_MEMLOCK for memory registration.
bool hasIpcLock() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("CapEff:", 0) == 0) {
      unsigned long long caps = strtoull(line.c_str() + 7, nullptr, 16);
      return (caps >> 14) & 1;
    }
  }
  return false;
}

}  // namespace

ResourceCounters resourceCounters() {
  return ResourceCounters{live_objects.load(std::memory_order_relaxed),
                          pinned_bytes.load(std::memory_order_relaxed)};
}

std::string callFailed(const char* call) {
  return std::string(call) + " failed: " + strerror(errno);
}

void EventChannelDeleter::operator()(rdma_event_channel* ch) const {
  rdma_destroy_event_channel(ch);
  destroyed();
}

void CmIdDeleter::operator()(rdma_cm_id* id) const {
  if (int rc = rdma_destroy_id(id); rc != 0) logDestroyFailure("rdma_destroy_id", rc);
  destroyed();
}

void PdDeleter::operator()(ibv_pd* pd) const {
  if (int rc = ibv_dealloc_pd(pd); rc != 0) logDestroyFailure("ibv_dealloc_pd", rc);
  destroyed();
}

void CompChannelDeleter::operator()(ibv_comp_channel* ch) const {
  if (int rc = ibv_destroy_comp_channel(ch); rc != 0) {
    logDestroyFailure("ibv_destroy_comp_channel", rc);
  }
  destroyed();
}

void CqDeleter::operator()(ibv_cq* cq) const {
  if (int rc = ibv_destroy_cq(cq); rc != 0) logDestroyFailure("ibv_destroy_cq", rc);
  destroyed();
}

void MrDeleter::operator()(ibv_mr* mr) const {
  int64_t len = static_cast<int64_t>(mr->length);
  if (int rc = ibv_dereg_mr(mr); rc != 0) logDestroyFailure("ibv_dereg_mr", rc);
  destroyed(len);
}

void MemDeleter::operator()(uint8_t* p) const {
  free(p);
}

Qp& Qp::operator=(Qp&& o) noexcept {
  if (this != &o) {
    reset();
    id_ = o.id_;
    o.id_ = nullptr;
  }
  return *this;
}

void Qp::reset() {
  if (id_ == nullptr) return;
  rdma_destroy_qp(id_);
  id_ = nullptr;
  destroyed();
}

bool Qp::create(rdma_cm_id* id, ibv_pd* pd, ibv_cq* cq, std::string* err) {
  ibv_qp_init_attr attr = {};
  attr.send_cq = cq;
  attr.recv_cq = cq;
  attr.qp_type = IBV_QPT_RC;
  attr.sq_sig_all = 0;
  attr.cap.max_send_wr = kSendDepth;
  attr.cap.max_recv_wr = kRecvDepth;
  attr.cap.max_send_sge = 1;
  attr.cap.max_recv_sge = 1;
  if (rdma_create_qp(id, pd, &attr) != 0) {
    *err = callFailed("rdma_create_qp");
    return false;
  }
  reset();
  id_ = id;
  created();
  return true;
}

bool Region::create(ibv_pd* pd, uint32_t bytes, int access, std::string* err) {
  void* p = nullptr;
  long page = sysconf(_SC_PAGESIZE);
  size_t align = page > 0 ? static_cast<size_t>(page) : 4096;
  // Whole pages: under MADV_DONTFORK (older kernels, see initForkSafety) a
  // page shared with other heap data would vanish from a forked child along
  // with that data.
  size_t alloc = (static_cast<size_t>(bytes) + align - 1) / align * align;
  if (posix_memalign(&p, align, alloc) != 0) {
    *err = "posix_memalign of " + std::to_string(alloc) + " bytes failed";
    return false;
  }
  memset(p, 0, alloc);
  mem.reset(static_cast<uint8_t*>(p));
  ibv_mr* m = ibv_reg_mr(pd, p, bytes, access);
  if (m == nullptr) {
    *err = callFailed("ibv_reg_mr");
    if (errno == ENOMEM || errno == EPERM) *err += " (RLIMIT_MEMLOCK too low? see `ulimit -l`)";
    mem.reset();
    return false;
  }
  mr.reset(m);
  created(static_cast<int64_t>(m->length));
  size = bytes;
  return true;
}

namespace {
std::atomic<const char*> g_fork_mode{"uninitialized"};

void initForkSafetyOnce() {
  // Without this, a page of a registered buffer that the parent writes after
  // fork() gets a fresh copy in the parent while the NIC keeps DMA-ing into
  // the old page, now the child's: the parent's RDMA data silently goes
  // stale. rdma-core either finds the kernel handles it (pinned pages are
  // copied for the child at fork) or marks each region MADV_DONTFORK, which
  // keeps the pages out of the child entirely.
  int rc = ibv_fork_init();
  switch (ibv_is_fork_initialized()) {
    case IBV_FORK_UNNEEDED:
      g_fork_mode.store("kernel");
      break;
    case IBV_FORK_ENABLED:
      g_fork_mode.store("madvise");
      break;
    default:
      g_fork_mode.store("unsafe");
      LOG_WARNING(
          "RDMA: ibv_fork_init failed (%s): BGSAVE while RDMA clients are connected may "
          "corrupt their buffers",
          strerror(rc > 0 ? rc : errno));
      break;
  }
  LOG_VERBOSE("RDMA fork safety: %s", g_fork_mode.load());
}

}  // namespace

void initForkSafety() {
  // Once per process, whichever thread opens the first channel.
  static std::once_flag once;
  std::call_once(once, initForkSafetyOnce);
}

const char* forkSafetyMode() {
  return g_fork_mode.load();
}

EventChannel makeEventChannel(std::string* err) {
  initForkSafety();
  rdma_event_channel* ch = rdma_create_event_channel();
  if (ch == nullptr) {
    *err = callFailed("rdma_create_event_channel");
    if (errno == ENODEV || errno == ENOENT) *err += " (no RDMA support in this kernel?)";
    return nullptr;
  }
  created();
  EventChannel owner(ch);
  if (!setNonBlocking(ch->fd, "rdma_cm event channel", err)) return nullptr;
  return owner;
}

CmId makeCmId(rdma_event_channel* ch, void* context, std::string* err) {
  rdma_cm_id* id = nullptr;
  if (rdma_create_id(ch, &id, context, RDMA_PS_TCP) != 0) {
    *err = callFailed("rdma_create_id");
    return nullptr;
  }
  created();
  return CmId(id);
}

CmId adoptCmId(rdma_cm_id* id) {
  created();
  return CmId(id);
}

void Endpoint::reset() {
  ctrl_tx.reset();
  ctrl_rx.reset();
  tx.reset();
  rx_old.reset();
  rx_next.reset();
  rx.reset();
  qp.reset();
  cq.reset();
  comp.reset();
  pd.reset();
  id.reset();
  channel.reset();
}

bool Endpoint::replace(Region* r, uint32_t size, std::string* err) {
  if (!pd) {
    *err = "no protection domain";
    return false;
  }
  int access = r == &tx ? 0 : IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  Region fresh;
  if (!fresh.create(pd.get(), size, access, err)) return false;
  r->reset();  // deregister, then free: a plain move-assignment frees first
  *r = std::move(fresh);
  return true;
}

bool Endpoint::createVerbs(uint32_t rx_size, uint32_t tx_size, int vector, std::string* err) {
  ibv_context* ctx = id->verbs;
  if (ctx == nullptr) {
    *err = "rdma_cm id has no device (address not on an RDMA device)";
    return false;
  }
  ibv_pd* p = ibv_alloc_pd(ctx);
  if (p == nullptr) {
    *err = callFailed("ibv_alloc_pd");
    return false;
  }
  pd.reset(p);
  created();
  ibv_comp_channel* ch = ibv_create_comp_channel(ctx);
  if (ch == nullptr) {
    *err = callFailed("ibv_create_comp_channel");
    return false;
  }
  comp.reset(ch);
  created();
  if (!setNonBlocking(ch->fd, "completion channel", err)) return false;
  if (vector < 0) {
    // Spread connections over the device's completion vectors (interrupts).
    static std::atomic<unsigned> next{0};
    unsigned n = next.fetch_add(1, std::memory_order_relaxed);
    vector = ctx->num_comp_vectors > 0 ? static_cast<int>(n % ctx->num_comp_vectors) : 0;
  } else if (vector >= ctx->num_comp_vectors) {
    vector = vector % (ctx->num_comp_vectors > 0 ? ctx->num_comp_vectors : 1);
  }
  ibv_cq* c = ibv_create_cq(ctx, kCqDepth, nullptr, ch, vector);
  if (c == nullptr) {
    *err = callFailed("ibv_create_cq");
    return false;
  }
  cq.reset(c);
  created();
  if (ibv_req_notify_cq(c, 0) != 0) {
    *err = callFailed("ibv_req_notify_cq");
    return false;
  }
  if (!qp.create(id.get(), p, c, err)) return false;
  constexpr uint32_t kCtrl = sizeof(wire::CtrlMsg);
  return rx.create(p, rx_size, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, err) &&
         tx.create(p, tx_size, 0, err) &&
         ctrl_rx.create(p, kRecvDepth * kCtrl, IBV_ACCESS_LOCAL_WRITE, err) &&
         ctrl_tx.create(p, kCtrlSlots * kCtrl, 0, err);
}

bool takeCqEvent(ibv_comp_channel* ch) {
  ibv_cq* cq = nullptr;
  void* ctx = nullptr;
  if (ibv_get_cq_event(ch, &cq, &ctx) != 0) return false;
  ibv_ack_cq_events(cq, 1);
  return true;
}

uint64_t pinnedPerConnection(uint32_t rx_size) {
  return 2ull * rx_size + (kRecvDepth + kCtrlSlots) * sizeof(wire::CtrlMsg);
}

bool checkMemlock(uint64_t bytes, std::string* err) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0) return true;  // cannot tell: let ibv_reg_mr decide
  if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= bytes || hasIpcLock()) return true;
  char buf[320];
  snprintf(buf, sizeof buf,
           "RLIMIT_MEMLOCK is %llu KiB but one RDMA connection pins %llu KiB "
           "(2 x rdma-rx-size + control buffers): raise it (`ulimit -l`, "
           "LimitMEMLOCK= in systemd) to at least %llu KiB per expected client, "
           "or lower rdma-rx-size",
           static_cast<unsigned long long>(rl.rlim_cur / 1024),
           static_cast<unsigned long long>((bytes + 1023) / 1024),
           static_cast<unsigned long long>((bytes + 1023) / 1024));
  *err = buf;
  return false;
}

}  // namespace net::rdma
