// RESP2/RESP3 encoding into a ReplyBuffer. Each call appends one complete
// protocol element (or an aggregate header); the RESP2 fallbacks follow
// Redis 7 (maps as flat arrays, doubles as bulk strings, booleans as 1/0).
//
// Module resp/ (namespace resp): RESP2/RESP3 without I/O: the request
// parser (server side), this writer and the reply buffer (replies), the
// reply parser and reply.h (the client side, and the replica's link to its
// master). May include common/; included by client/, cli/ and the
// server's core/, conf/, acl/, commands/, persist/ and repl/.
#pragma once

#include <cstdint>
#include <string_view>

#include "resp/reply_buffer.h"

namespace resp {

class Writer {
 public:
  Writer(ReplyBuffer* out, int proto) : out_(out), proto_(proto) {}
  int proto() const { return proto_; }
  // Redirects what follows to another buffer (CLIENT REPLY OFF/SKIP send
  // replies to a discarded one).
  void setBuffer(ReplyBuffer* out) { out_ = out; }
  ReplyBuffer* buffer() const { return out_; }
  void setProto(int p) { proto_ = p; }

  void status(std::string_view s);  // +s
  // "-ERR msg", or "-msg" when msg starts with '-' and so carries its own
  // code ("-WRONGTYPE ..."). Newlines become spaces (they would break RESP).
  void error(std::string_view msg);
  void integer(int64_t v);             // :v
  void bulk(const void* p, size_t n);  // $n\r\n...\r\n
  void bulk(std::string_view s) { bulk(s.data(), s.size()); }
  void bulkInt(int64_t v);                                        // integer as a bulk string
  void null();                                                    // $-1 / _
  void nullArray();                                               // *-1 / _
  void arrayLen(int64_t n);                                       // *n
  void mapLen(int64_t n);                                         // %n / *2n
  void setLen(int64_t n);                                         // ~n / *n
  void pushLen(int64_t n);                                        // >n / *n
  void doubleValue(double v);                                     // ,v / bulk
  void boolean(bool v);                                           // #t / :1
  void verbatim(std::string_view text, const char* ext = "txt");  // = / bulk
  void bigNumber(std::string_view digits);                        // ( / bulk
  void raw(std::string_view bytes) { out_->append(bytes.data(), bytes.size()); }

  // Aggregate whose length is known only after its elements are written.
  void* beginDeferred() { return out_->deferLen(); }
  void endDeferredArray(void* slot, int64_t n) { endDeferred(slot, '*', n); }
  void endDeferredMap(void* slot, int64_t n) {
    if (proto_ >= 3)
      endDeferred(slot, '%', n);
    else
      endDeferred(slot, '*', n * 2);
  }
  void endDeferredSet(void* slot, int64_t n) { endDeferred(slot, proto_ >= 3 ? '~' : '*', n); }

 private:
  void header(char type, int64_t n);
  void endDeferred(void* slot, char type, int64_t n);

  ReplyBuffer* out_;
  int proto_;
};

}  // namespace resp
