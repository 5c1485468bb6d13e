// A deque of blocks, appended at the back and freed from the front.
#include "server/repl/repl_buffer.h"

#include <malloc.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace server::repl {

ReplBuffer::ReplBuffer(size_t backlog_size, int64_t next_offset)
    : backlog_size_(backlog_size), first_(next_offset), end_(next_offset) {}

ReplBuffer::~ReplBuffer() {
  for (Block* b : blocks_) free(b);
}

ReplBuffer::Block* ReplBuffer::newBlock(size_t want) {
  size_t limit = std::max(backlog_size_ / 16, kMinBlock);
  size_t size = std::min(std::max(want, kMinBlock), limit);
  void* p = malloc(sizeof(Block) + size);
  if (p == nullptr) throw std::bad_alloc();
  // The allocator's rounding is room too.
  size_t alloc = malloc_usable_size(p);
  Block* b = static_cast<Block*>(p);
  b->offset = end_;
  b->used = 0;
  b->cap = alloc - sizeof(Block);
  b->alloc = alloc;
  memory_ += alloc + sizeof(Block*);
  return b;
}

void ReplBuffer::feedSlow(std::string_view bytes) {
  while (!bytes.empty()) {
    if (tail_ == nullptr || tail_->used == tail_->cap) {
      Block* b = newBlock(bytes.size());
      blocks_.push_back(b);
      if (front_ == nullptr) front_ = b;
      // The front block is complete once another follows it.
      if (tail_ != nullptr && tail_ == front_)
        front_end_ = front_->offset + static_cast<int64_t>(front_->used);
      tail_ = b;
    }
    size_t n = std::min(bytes.size(), tail_->cap - tail_->used);
    memcpy(tail_->data + tail_->used, bytes.data(), n);
    tail_->used += n;
    end_ += static_cast<int64_t>(n);
    bytes.remove_prefix(n);
  }
}

size_t ReplBuffer::trim(int64_t min_reader, size_t max_blocks) {
  size_t freed = 0;
  while (freed < max_blocks && blocks_.size() > 1) {
    Block* b = blocks_.front();
    int64_t b_end = b->offset + static_cast<int64_t>(b->used);
    // A reader still needs it, or the backlog would keep too little.
    if (b_end > min_reader || histlen() - b->used <= backlog_size_) break;
    blocks_.pop_front();
    memory_ -= b->alloc + sizeof(Block*);
    free(b);
    front_ = blocks_.front();
    first_ = front_->offset;
    if (front_ != tail_) front_end_ = front_->offset + static_cast<int64_t>(front_->used);
    freed++;
  }
  return freed;
}

const ReplBuffer::Block* ReplBuffer::blockAt(int64_t offset) const {
  // Readers are mostly at the newest bytes: the last block first.
  const Block* last = blocks_.back();
  if (offset >= last->offset) return last;
  auto it = std::upper_bound(blocks_.begin(), blocks_.end(), offset,
                             [](int64_t o, const Block* b) { return o < b->offset; });
  return *(it - 1);
}

std::string_view ReplBuffer::read(int64_t offset, size_t max) const {
  if (offset >= end_ || blocks_.empty()) return {};
  const Block* b = blockAt(offset);
  size_t skip = static_cast<size_t>(offset - b->offset);
  return {b->data + skip, std::min(max, b->used - skip)};
}

}  // namespace server::repl
