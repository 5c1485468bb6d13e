// Outgoing bytes of one client: a list of chunks, appended at the tail and
// consumed from the head by writev. No I/O here.
//
// The first chunk is kept when drained, so a client doing request/reply
// allocates nothing in steady state. Its size starts at kChunkSize and may
// be changed while the buffer is empty (resizeFirst: Redis 7.0 shrinks an
// idle client's buffer and grows a busy one's); later chunks are
// kChunkSize or the size of what they hold. deferLen() reserves a slot for
// an aggregate header whose count is known only later.
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
  // Memory held by chunks, headers and allocator rounding included (for
  // INFO, CLIENT LIST and the output-buffer limits).
  size_t allocated() const { return allocated_; }

  // The first chunk's size, and the most bytes it held at once since
  // resetPeak() (as far as the writes of it show: measured when drained).
  size_t firstCapacity() const { return first_cap_; }
  size_t peak() const { return peak_; }
  void resetPeak() { peak_ = pending_ < first_cap_ ? pending_ : first_cap_; }
  // Sets the first chunk's size; only while nothing is pending (false
  // otherwise). Frees the kept chunk: the next reply allocates the new size.
  bool resizeFirst(size_t cap);

 private:
  struct Chunk {
    Chunk* next;
    size_t cap;
    size_t footprint;  // bytes the allocator gave for the chunk (allocated())
    size_t used;       // bytes written
    size_t sent;       // bytes already consumed from the head
    bool sealed;       // deferred slot: nothing may be appended to it
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
  size_t first_cap_ = kChunkSize;
  size_t peak_ = 0;
};

}  // namespace resp
