// Incremental RESP2/RESP3 reply parser. No I/O: bytes go in through
// prepare()/commit() (read straight into the parser's buffer) or feed(), and
// complete replies come out of next() (a Reply tree) or skim() (validated and
// summarised without building anything: the fast path of the benchmark).
//
// Contract:
// - Input may be split anywhere, even inside "\r\n"; the parser keeps its
//   position and never re-scans consumed bytes.
// - Hostile input is safe: nesting depth, bulk length, aggregate length and
//   line length are bounded (ReplyLimits); any violation or malformed byte
//   makes next()/skim() return kError with error() set, and the parser stays
//   failed until reset(). Memory is never reserved for lengths the peer only
//   claimed: storage grows with the bytes that actually arrived.
// - Use one of next()/skim() per reply; switching modes in the middle of a
//   reply (after kIncomplete) is not supported.
// - Bulk payloads are copied out of the buffer as they arrive (next()) or
//   skipped (skim()), so the buffer only ever holds headers and the tail of
//   the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "resp/reply.h"

namespace resp {

struct ReplyLimits {
  size_t max_depth = 128;                  // nested aggregates
  int64_t max_bulk = 512LL * 1024 * 1024;  // bytes in one bulk/verbatim/blob error
  int64_t max_elements = INT32_MAX;        // entries of one aggregate
  size_t max_line = 64 * 1024 * 1024;      // one status/error/number line
};

// What skim() tells about a reply it did not build.
struct ReplySummary {
  ReplyType type = ReplyType::kNil;
  // The message of a top-level error reply (empty otherwise). Valid until the
  // next call on the parser.
  std::string_view error;
  // The text of a top-level bulk string of at most kSkimTextMax bytes (empty
  // otherwise; e.g. redis-cli --pipe recognises its closing ECHO by it).
  // Valid until the next call on the parser.
  std::string_view text;
};

// Longest top-level bulk whose text skim() reports (longer ones are skipped
// without a copy, as every nested value is).
constexpr size_t kSkimTextMax = 64;

class ReplyParser {
 public:
  enum class Result { kReply, kIncomplete, kError };

  explicit ReplyParser(ReplyLimits limits = {});

  // Returns a pointer to at least `min` writable bytes; *avail gets the
  // actual room. Write into it, then commit() the count written.
  char* prepare(size_t min, size_t* avail);
  void commit(size_t n);
  // Copies len bytes in (prepare + memcpy + commit).
  void feed(const void* data, size_t len);

  // kReply: *out holds the next complete reply (its old content replaced).
  // kIncomplete: more input is needed. kError: see error().
  Result next(Reply* out);
  // Same, without building a tree.
  Result skim(ReplySummary* out);

  const std::string& error() const { return error_; }
  // Bytes received but not consumed yet (the start of an incomplete reply).
  size_t buffered() const { return wpos_ - rpos_; }
  // Forgets all input and any error.
  void reset();
  // Moves up to max received bytes that no reply has started to use into
  // *out (raw reads: a SYNC payload follows its "$" line). Returns the count.
  size_t takeRaw(std::string* out, size_t max);

 private:
  struct Frame {
    ReplyType type;
    int64_t remaining;                    // values still expected (keys and values for maps)
    Reply* node;                          // nullptr when skimming
    std::unique_ptr<Reply> owned;         // the node itself, for attributes
    std::unique_ptr<Reply> pending_attr;  // attribute waiting for the next child
  };
  Result parse(bool build, Reply* out, ReplySummary* sum);
  Result fail(std::string msg);
  Reply* newNode(bool build, ReplyType type);
  bool openAggregate(bool build, ReplyType type, int64_t n);
  bool completeValue(bool build);
  bool finishBulk(bool build);

  ReplyLimits limits_;
  std::vector<char> buf_;
  size_t rpos_ = 0;
  size_t wpos_ = 0;
  size_t scanned_ = 0;  // bytes after rpos_ known to hold no line end

  std::vector<Frame> stack_;
  std::unique_ptr<Reply> root_pending_attr_;
  Reply root_;  // the top-level value being built
  ReplyType top_type_ = ReplyType::kNil;

  // Inside a bulk-like payload: bytes left including the final "\r\n".
  bool in_bulk_ = false;
  int64_t bulk_left_ = 0;
  ReplyType bulk_type_ = ReplyType::kBulk;
  Reply* bulk_node_ = nullptr;

  std::string skim_text_;
  std::string error_;
  bool failed_ = false;
};

// Client-side encoding of commands as RESP multibulk ("*N\r\n$len\r\narg\r\n...").
// Binary-safe; appends to *out so many commands can be pipelined in one buffer.
void appendCommand(std::string* out, const std::vector<std::string>& argv);
void appendCommand(std::string* out, const std::vector<std::string_view>& argv);
std::string encodeCommand(const std::vector<std::string>& argv);

}  // namespace resp
