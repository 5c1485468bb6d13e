// The replication buffer: the stream's bytes, kept once in a chain of
// blocks that the backlog and every replica read from (as Redis 7.0 shares
// one buffer between them). Private to src/server/repl/.
//
// Offsets are Redis's: the stream's first byte is offset 1; the buffer
// holds [firstOffset(), endOffset()). Readers are positions (the next
// offset a replica is sent), owned by the caller: trim() frees the oldest
// blocks only when no reader is in them and the backlog keeps more than
// its size without them. So a replica that lags keeps what it still needs
// (and a later PSYNC may continue from it: the backlog outgrows its size),
// and the memory goes once it catches up or leaves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string_view>

namespace server::repl {

class ReplBuffer {
 public:
  // Blocks hold at least this much (a feed appends to the last block's
  // room before it starts another).
  static constexpr size_t kMinBlock = 16 * 1024;

  // `next_offset`: the offset the next byte fed will have.
  ReplBuffer(size_t backlog_size, int64_t next_offset);
  ~ReplBuffer();
  ReplBuffer(const ReplBuffer&) = delete;
  ReplBuffer& operator=(const ReplBuffer&) = delete;

  void feed(std::string_view bytes) {
    // A command's bytes mostly fit in the last block's room.
    if (tail_ != nullptr && tail_->cap - tail_->used >= bytes.size()) {
      memcpy(tail_->data + tail_->used, bytes.data(), bytes.size());
      tail_->used += bytes.size();
      end_ += static_cast<int64_t>(bytes.size());
      return;
    }
    feedSlow(bytes);
  }
  // repl-backlog-size: how many bytes trim() keeps at least. New blocks are
  // at most a sixteenth of it (and at least kMinBlock), so that a big
  // command does not make one block that a reader holds whole.
  void setBacklogSize(size_t size) { backlog_size_ = size; }
  // Frees up to `max_blocks` of the oldest blocks that the backlog can do
  // without and that end at or before `min_reader` (the smallest reader
  // position; INT64_MAX with no readers). The last block always stays.
  // Returns how many were freed.
  size_t trim(int64_t min_reader, size_t max_blocks);
  // Whether trim() could free a block for the backlog's sake (readers
  // aside): a cheap test before looking for the oldest reader.
  bool trimmable() const {
    return front_ != tail_ && end_ - front_end_ > static_cast<int64_t>(backlog_size_);
  }

  // Whether the stream from `offset` on is here (offset may be
  // endOffset(): nothing to send yet).
  bool covers(int64_t offset) const { return offset >= first_ && offset <= end_; }
  // Up to `max` bytes from `offset` on, contiguous in one block
  // (covers(offset) must hold; empty at endOffset()).
  std::string_view read(int64_t offset, size_t max) const;

  int64_t firstOffset() const { return first_; }
  int64_t endOffset() const { return end_; }
  size_t histlen() const { return static_cast<size_t>(end_ - first_); }
  // Bytes allocated for the blocks and their index (INFO's
  // mem_total_replication_buffers).
  size_t memory() const { return memory_; }
  size_t blocks() const { return blocks_.size(); }

 private:
  struct Block {
    int64_t offset;  // of data[0]
    size_t used;
    size_t cap;
    size_t alloc;  // bytes the allocator gave for the block
    char data[];
  };
  Block* newBlock(size_t want);
  void feedSlow(std::string_view bytes);
  const Block* blockAt(int64_t offset) const;

  std::deque<Block*> blocks_;
  Block* front_ = nullptr;  // blocks_.front() and .back(), or nullptr
  Block* tail_ = nullptr;
  int64_t front_end_ = 0;  // the front block's end, while it is not the tail
  size_t backlog_size_;
  int64_t first_;  // offset of the oldest byte kept
  int64_t end_;    // offset of the next byte fed
  size_t memory_ = 0;
};

}  // namespace server::repl
