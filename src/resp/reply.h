// A parsed RESP2/RESP3 reply: one tree node per value. Produced by
// resp::ReplyParser (resp/reply_parser.h); nothing here does I/O.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace resp {

enum class ReplyType : uint8_t {
  kStatus,     // +OK
  kError,      // -ERR ... and RESP3 blob error !
  kInteger,    // :1
  kBulk,       // $3 foo
  kNil,        // $-1, *-1 (RESP2 null array) and RESP3 _
  kArray,      // *
  kMap,        // % (elements hold key, value, key, value, ...)
  kSet,        // ~
  kAttribute,  // | (only ever seen as Reply::attribute of the value after it)
  kPush,       // >
  kDouble,     // , (str keeps the server's text, dval the parsed value)
  kBool,       // # (integer is 0 or 1)
  kBigNumber,  // ( (str keeps the digits)
  kVerbatim,   // = (format keeps "txt"/"mkd", str the text after "xxx:")
};

const char* replyTypeName(ReplyType t);

struct Reply {
  ReplyType type = ReplyType::kNil;
  // True for a RESP2 null array (*-1): kNil with this flag set.
  bool null_array = false;
  int64_t integer = 0;
  double dval = 0;
  std::string str;
  std::string format;
  std::vector<Reply> elements;
  // RESP3 attributes sent right before this value, if any.
  std::unique_ptr<Reply> attribute;

  bool isError() const { return type == ReplyType::kError; }
  bool isAggregate() const {
    return type == ReplyType::kArray || type == ReplyType::kMap || type == ReplyType::kSet ||
           type == ReplyType::kPush || type == ReplyType::kAttribute;
  }
};

}  // namespace resp
