// A ring buffer of the stream's newest bytes.
#include "server/repl/backlog.h"

#include <algorithm>
#include <cstring>

namespace server::repl {

Backlog::Backlog(size_t size, int64_t next_offset)
    : buf_(std::max<size_t>(size, 1), '\0'), first_(next_offset) {}

void Backlog::feed(std::string_view bytes) {
  const size_t cap = buf_.size();
  if (bytes.size() >= cap) {
    // Only the tail fits: it fills the whole ring.
    size_t skip = bytes.size() - cap;
    memcpy(buf_.data(), bytes.data() + skip, cap);
    idx_ = 0;
    first_ += static_cast<int64_t>(histlen_ + bytes.size() - cap);
    histlen_ = cap;
    return;
  }
  size_t first_part = std::min(bytes.size(), cap - idx_);
  memcpy(buf_.data() + idx_, bytes.data(), first_part);
  memcpy(buf_.data(), bytes.data() + first_part, bytes.size() - first_part);
  idx_ = (idx_ + bytes.size()) % cap;
  histlen_ += bytes.size();
  if (histlen_ > cap) {
    first_ += static_cast<int64_t>(histlen_ - cap);
    histlen_ = cap;
  }
}

void Backlog::resize(size_t size) {
  size = std::max<size_t>(size, 1);
  if (size == buf_.size()) return;
  std::string keep = from(first_);
  int64_t next = first_ + static_cast<int64_t>(histlen_);
  buf_.assign(size, '\0');
  idx_ = 0;
  histlen_ = 0;
  first_ = next - static_cast<int64_t>(keep.size());
  feed(keep);
  // feed() advanced first_ only for what did not fit.
}

bool Backlog::covers(int64_t offset) const {
  return offset >= first_ && offset <= first_ + static_cast<int64_t>(histlen_);
}

std::string Backlog::from(int64_t offset) const {
  size_t skip = static_cast<size_t>(offset - first_);
  size_t len = histlen_ - skip;
  const size_t cap = buf_.size();
  // The oldest byte sits at idx_ - histlen_ (mod cap).
  size_t start = (idx_ + cap - histlen_ % cap + skip) % cap;
  std::string out;
  out.reserve(len);
  size_t first_part = std::min(len, cap - start);
  out.append(buf_.data() + start, first_part);
  out.append(buf_.data(), len - first_part);
  return out;
}

}  // namespace server::repl
