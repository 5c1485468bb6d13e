// Outgoing bytes of one client: a list of chunks, appended at the tail and
// consumed from the head by writev. No I/O here.
//
// The first chunk (kChunkSize) is kept when drained, so a client doing
// request/reply allocates nothing in steady state. deferLen() reserves a
// slot for an aggregate header whose count is known only later.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace resp {

class ReplyBuffer {
 public:
  static constexpr size_t kChunkSize = 16 * 1024;
  // A deferred header slot fits "*<20 digits>\r\n".
  static constexpr size_t kDeferredSlot = 24;

  ReplyBuffer() = default;
  ~ReplyBuffer();
  ReplyBuffer(const ReplyBuffer&) = delete;
  ReplyBuffer& operator=(const ReplyBuffer&) = delete;

  void append(const void* data, size_t len) {
    if (tail_ != nullptr && !tail_->sealed && tail_->cap - tail_->used >= len) {
      memcpy(tail_->data + tail_->used, data, len);
      tail_->used += len;
      pending_ += len;
      return;
    }
    appendSlow(data, len);
  }
  // Returns a pointer where up to `len` bytes can be written, then commit(n).
  char* reserve(size_t len);
  void commit(size_t n) {
    tail_->used += n;
    pending_ += n;
  }

  // Opens a header slot; everything appended afterwards follows it.
  void* deferLen();
  // Fills the slot with the given header bytes (<= kDeferredSlot).
  void setDeferred(void* slot, const char* header, size_t len);

  // Bytes not yet consumed.
  size_t pending() const { return pending_; }
  bool empty() const { return pending_ == 0; }
  // Fills up to max iovecs with pending data; returns how many.
  int iovecs(struct iovec* iov, int max) const;
  // Drops n bytes from the head (after a successful write of n bytes).
  void consume(size_t n);
  // Drops everything.
  void clear();
  // Memory held by chunks (for INFO / output-buffer limits).
  size_t allocated() const { return allocated_; }

 private:
  struct Chunk {
    Chunk* next;
    size_t cap;
    size_t used;  // bytes written
    size_t sent;  // bytes already consumed from the head
    bool sealed;  // deferred slot: nothing may be appended to it
    char data[];
  };
  void appendSlow(const void* data, size_t len);
  Chunk* newChunk(size_t cap);
  void freeChunk(Chunk* c);

  Chunk* head_ = nullptr;
  Chunk* tail_ = nullptr;
  Chunk* spare_ = nullptr;  // the kept first chunk when drained
  size_t pending_ = 0;
  size_t allocated_ = 0;
};

}  // namespace resp
