// Closed connections finishing their last writes (see Linger in
// rdma_connection.h).
#include <utility>

#include "net/rdma/rdma_connection.h"

namespace net::rdma {

Shared::~Shared() {
  // The loop may already be gone: Linger's destructor only frees verbs
  // resources.
  for (Linger* l : lingering) delete l;
}

Linger::Linger(Shared* shared, event::EventLoop* loop, Endpoint&& ep, size_t writes,
               bool disconnected)
    : shared_(shared),
      loop_(loop),
      ep_(std::move(ep)),
      writes_(writes),
      disconnected_(disconnected) {}

Linger::~Linger() {
  ep_.reset();
}

void Linger::start(Shared* shared, event::EventLoop* loop, Endpoint&& ep, size_t writes,
                   bool disconnected) {
  auto* l = new Linger(shared, loop, std::move(ep), writes, disconnected);
  shared->lingering.insert(l);
  bool ok = loop->addFileEvent(l->ep_.comp->fd, event::kReadable, onCompletion, l) == 0;
  if (ok && l->ep_.channel)
    ok = loop->addFileEvent(l->ep_.channel->fd, event::kReadable, onCmEvent, l) == 0;
  l->watching_ = true;
  if (!ok) {
    l->finish();
    return;
  }
  l->timer_ = loop->addTimer(kLingerMs, [l](event::EventLoop*, event::TimerId) {
    l->timer_ = 0;
    l->finish();
    return event::kNoMore;
  });
  // Completions may have arrived before the fds were watched.
  l->poll();
}

void Linger::onCompletion(event::EventLoop*, int, void* data, int) {
  auto* l = static_cast<Linger*>(data);
  if (takeCqEvent(l->ep_.comp.get())) ibv_req_notify_cq(l->ep_.cq.get(), 0);
  l->poll();
}

void Linger::onCmEvent(event::EventLoop*, int, void* data, int) {
  auto* l = static_cast<Linger*>(data);
  rdma_cm_event* ev = nullptr;
  bool gone = false;
  // Every event is acknowledged: rdma_destroy_id waits for unacknowledged ones.
  while (rdma_get_cm_event(l->ep_.channel.get(), &ev) == 0) {
    if (ev->event == RDMA_CM_EVENT_DISCONNECTED || ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL ||
        ev->event == RDMA_CM_EVENT_TIMEWAIT_EXIT)
      gone = true;
    rdma_ack_cm_event(ev);
  }
  if (gone) {
    l->disconnected_ = true;  // nothing more can be delivered
    l->finish();
  }
}

void Linger::poll() {
  ibv_wc wcs[kPollBatch];
  for (;;) {
    int n = ibv_poll_cq(ep_.cq.get(), kPollBatch, wcs);
    if (n < 0) {
      finish();
      return;
    }
    for (int i = 0; i < n; i++) {
      // A failed or flushed completion: the QP is in error, nothing of
      // what is left will be delivered.
      if (wcs[i].status != IBV_WC_SUCCESS) {
        finish();
        return;
      }
      // Data writes and the fence only: a liveness probe in flight is not
      // one of the writes waited for.
      if (wcs[i].opcode == IBV_WC_RDMA_WRITE && wcs[i].wr_id == kWrData && writes_ > 0) writes_--;
      // Receives (the peer still writing) are reaped and dropped.
    }
    if (n < kPollBatch) break;
  }
  if (writes_ == 0) finish();
}

void Linger::finish() {
  if (timer_ != 0) {
    loop_->deleteTimer(timer_);
    timer_ = 0;
  }
  if (watching_) {
    if (ep_.comp) loop_->removeFileEvent(ep_.comp->fd, event::kReadable);
    if (ep_.channel) loop_->removeFileEvent(ep_.channel->fd, event::kReadable);
    watching_ = false;
  }
  if (ep_.id && !disconnected_) rdma_disconnect(ep_.id.get());
  shared_->lingering.erase(this);
  delete this;
}

}  // namespace net::rdma
