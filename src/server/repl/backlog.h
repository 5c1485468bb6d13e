// The replication backlog: the last repl-backlog-size bytes of the stream,
// kept so that a replica that lost its link can continue from its offset
// (PSYNC -> +CONTINUE) instead of a full resynchronization. Private to
// src/server/repl/.
//
// Offsets are Redis's: the stream's first byte is offset 1, and the
// backlog holds bytes [firstOffset(), firstOffset() + histlen()).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace server::repl {

class Backlog {
 public:
  // `next_offset`: the offset the next byte fed will have.
  Backlog(size_t size, int64_t next_offset);

  void feed(std::string_view bytes);
  // A new size: the newest bytes that fit are kept.
  void resize(size_t size);
  // Whether the stream from `offset` on is here (offset may be one past
  // the last byte: nothing to send).
  bool covers(int64_t offset) const;
  // The bytes from `offset` to the end (covers(offset) must hold).
  std::string from(int64_t offset) const;

  size_t size() const { return buf_.size(); }
  size_t histlen() const { return histlen_; }
  int64_t firstOffset() const { return first_; }

 private:
  std::string buf_;
  size_t idx_ = 0;  // where the next byte goes
  size_t histlen_ = 0;
  int64_t first_;
};

}  // namespace server::repl
