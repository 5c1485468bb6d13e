#include "resp/reply_buffer.h"

#include <malloc.h>

#include <cstdlib>
#include <new>

namespace resp {

ReplyBuffer::~ReplyBuffer() {
  clear();
  if (spare_ != nullptr) freeChunk(spare_);
}

ReplyBuffer::Chunk* ReplyBuffer::newChunk(size_t cap) {
  if (cap == first_cap_ && spare_ != nullptr) {
    Chunk* c = spare_;
    spare_ = nullptr;
    c->next = nullptr;
    c->used = c->sent = 0;
    c->sealed = false;
    return c;
  }
  void* mem = malloc(sizeof(Chunk) + cap);
  if (mem == nullptr) throw std::bad_alloc();
  Chunk* c = static_cast<Chunk*>(mem);
  c->next = nullptr;
  c->cap = cap;
  // What the allocator gave (its size classes round up: a 16 KiB chunk and
  // its header take 20 KiB with jemalloc), so that INFO, CLIENT LIST and
  // the output limits count the memory really held.
  c->footprint = malloc_usable_size(mem);
  c->used = c->sent = 0;
  c->sealed = false;
  allocated_ += c->footprint;
  return c;
}

void ReplyBuffer::freeChunk(Chunk* c) {
  if (c->cap == first_cap_ && spare_ == nullptr) {
    if (c->used > peak_) peak_ = c->used;
    spare_ = c;
    return;
  }
  allocated_ -= c->footprint;
  free(c);
}

void ReplyBuffer::appendSlow(const void* data, size_t len) {
  const char* p = static_cast<const char*>(data);
  if (tail_ == nullptr) head_ = tail_ = newChunk(first_cap_);
  // Fill what is left of the tail, then one chunk big enough for the rest.
  if (!tail_->sealed) {
    size_t room = tail_->cap - tail_->used;
    if (room > len) room = len;
    memcpy(tail_->data + tail_->used, p, room);
    tail_->used += room;
    pending_ += room;
    p += room;
    len -= room;
    if (len == 0) return;
  }
  Chunk* c = newChunk(len > kChunkSize ? len : kChunkSize);
  memcpy(c->data, p, len);
  c->used = len;
  pending_ += len;
  if (tail_ == nullptr) {
    head_ = tail_ = c;
  } else {
    tail_->next = c;
    tail_ = c;
  }
}

char* ReplyBuffer::reserve(size_t len) {
  if (tail_ == nullptr || tail_->sealed || tail_->cap - tail_->used < len) {
    size_t size = tail_ == nullptr ? first_cap_ : kChunkSize;
    Chunk* c = newChunk(len > size ? len : size);
    if (tail_ == nullptr) {
      head_ = tail_ = c;
    } else {
      tail_->next = c;
      tail_ = c;
    }
  }
  return tail_->data + tail_->used;
}

void* ReplyBuffer::deferLen() {
  Chunk* c = newChunk(kDeferredSlot);
  c->sealed = true;
  if (tail_ == nullptr) {
    head_ = tail_ = c;
  } else {
    tail_->next = c;
    tail_ = c;
  }
  return c;
}

void ReplyBuffer::setDeferred(void* slot, const char* header, size_t len) {
  Chunk* c = static_cast<Chunk*>(slot);
  memcpy(c->data, header, len);
  c->used = len;
  pending_ += len;
}

int ReplyBuffer::iovecs(struct iovec* iov, int max) const {
  int n = 0;
  for (Chunk* c = head_; c != nullptr && n < max; c = c->next) {
    if (c->used == c->sent) {
      // An unfilled deferred slot stops the output: what follows it must not
      // be sent before its header.
      if (c->sealed && c->used == 0) break;
      continue;
    }
    iov[n].iov_base = c->data + c->sent;
    iov[n].iov_len = c->used - c->sent;
    n++;
  }
  return n;
}

void ReplyBuffer::consume(size_t n) {
  pending_ -= n;
  // Request/reply: the one first-size chunk is drained. It stays the tail,
  // emptied, so the next reply appends inline (what the spare would give,
  // without the detour; the memory counted is the same).
  if (head_ == tail_ && head_ != nullptr && pending_ == 0 && !head_->sealed &&
      head_->cap == first_cap_ && spare_ == nullptr) {
    if (head_->used > peak_) peak_ = head_->used;
    head_->used = head_->sent = 0;
    return;
  }
  while (n > 0 && head_ != nullptr) {
    size_t avail = head_->used - head_->sent;
    if (n < avail) {
      head_->sent += n;
      return;
    }
    n -= avail;
    head_->sent = head_->used;
    if (head_->next == nullptr) break;
    Chunk* next = head_->next;
    freeChunk(head_);
    head_ = next;
  }
  // Drop fully consumed chunks at the head (including empty filled slots).
  while (head_ != nullptr && head_->sent == head_->used && !(head_->sealed && head_->used == 0)) {
    Chunk* next = head_->next;
    freeChunk(head_);
    head_ = next;
    if (head_ == nullptr) tail_ = nullptr;
  }
}

bool ReplyBuffer::resizeFirst(size_t cap) {
  if (pending_ != 0) return false;
  clear();
  if (spare_ != nullptr) {
    allocated_ -= spare_->footprint;
    free(spare_);
    spare_ = nullptr;
  }
  first_cap_ = cap;
  return true;
}

void ReplyBuffer::clear() {
  while (head_ != nullptr) {
    Chunk* next = head_->next;
    freeChunk(head_);
    head_ = next;
  }
  tail_ = nullptr;
  pending_ = 0;
}

}  // namespace resp
