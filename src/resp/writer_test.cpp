#include "resp/writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace resp {
namespace {

std::string drain(ReplyBuffer& b) {
  std::string out;
  struct iovec iov[64];
  int n = b.iovecs(iov, 64);
  for (int i = 0; i < n; i++) out.append(static_cast<char*>(iov[i].iov_base), iov[i].iov_len);
  b.consume(out.size());
  return out;
}

TEST(Writer, Resp2Encodings) {
  ReplyBuffer b;
  Writer w(&b, 2);
  w.status("OK");
  w.error("bad thing");
  w.error("-WRONGTYPE Operation");
  w.integer(-42);
  w.bulk("hi");
  w.null();
  w.nullArray();
  w.mapLen(2);
  w.setLen(3);
  w.doubleValue(1.5);
  w.boolean(true);
  w.verbatim("txt");
  EXPECT_EQ(drain(b),
            "+OK\r\n-ERR bad thing\r\n-WRONGTYPE Operation\r\n:-42\r\n$2\r\nhi\r\n$-1\r\n*-1\r\n"
            "*4\r\n*3\r\n$3\r\n1.5\r\n:1\r\n$3\r\ntxt\r\n");
  EXPECT_TRUE(b.empty());
}

TEST(Writer, Resp3Encodings) {
  ReplyBuffer b;
  Writer w(&b, 3);
  w.null();
  w.mapLen(2);
  w.setLen(3);
  w.doubleValue(INFINITY);
  w.doubleValue(0.1);
  w.boolean(false);
  w.verbatim("a\r\nb");
  w.bigNumber("123");
  w.pushLen(3);
  EXPECT_EQ(drain(b),
            "_\r\n%2\r\n~3\r\n,inf\r\n,0.10000000000000001\r\n#f\r\n=8\r\ntxt:a\r\nb\r\n(123\r\n"
            ">3\r\n");
}

TEST(Writer, ErrorNewlinesAreSanitised) {
  ReplyBuffer b;
  Writer w(&b, 2);
  w.error("a\r\nb");
  EXPECT_EQ(drain(b), "-ERR a  b\r\n");
}

TEST(Writer, DeferredLengthHoldsBackFollowingData) {
  ReplyBuffer b;
  Writer w(&b, 2);
  w.status("before");
  void* slot = w.beginDeferred();
  w.bulk("x");
  w.bulk("y");
  // Until the header is known nothing after the slot may go out.
  struct iovec iov[8];
  int n = b.iovecs(iov, 8);
  ASSERT_EQ(n, 1);
  EXPECT_EQ(std::string(static_cast<char*>(iov[0].iov_base), iov[0].iov_len), "+before\r\n");
  w.endDeferredArray(slot, 2);
  EXPECT_EQ(drain(b), "+before\r\n*2\r\n$1\r\nx\r\n$1\r\ny\r\n");
}

// allocated() counts what the allocator gave: the chunks' room, their
// headers and the rounding of the allocator's size classes (at most a
// quarter more with jemalloc and glibc at these sizes).
void expectHolds(const ReplyBuffer& b, size_t room) {
  EXPECT_GE(b.allocated(), room);
  EXPECT_LE(b.allocated(), room + room / 4 + 2 * 64);
}

TEST(ReplyBuffer, LargeAndPartialConsume) {
  ReplyBuffer b;
  std::string big(100000, 'z');
  b.append("abc", 3);
  b.append(big.data(), big.size());
  b.append("def", 3);
  EXPECT_EQ(b.pending(), 100006u);
  std::string out;
  // Consume in odd-sized pieces, as short writes would.
  while (!b.empty()) {
    struct iovec iov[4];
    int n = b.iovecs(iov, 4);
    ASSERT_GT(n, 0);
    size_t take = std::min<size_t>(iov[0].iov_len, 777);
    out.append(static_cast<char*>(iov[0].iov_base), take);
    b.consume(take);
  }
  EXPECT_EQ(out, "abc" + big + "def");
  // The first chunk is kept for reuse; nothing else stays allocated.
  expectHolds(b, ReplyBuffer::kChunkSize);
}

// Request/reply: the drained chunk stays in place for the next reply;
// nothing more is allocated, whatever the number of rounds.
// Drains everything pending, as writes of it would.
std::string drain(ReplyBuffer* b) {
  std::string out;
  while (!b->empty()) {
    struct iovec iov[8];
    int n = b->iovecs(iov, 8);
    size_t got = 0;
    for (int i = 0; i < n; i++) {
      out.append(static_cast<char*>(iov[i].iov_base), iov[i].iov_len);
      got += iov[i].iov_len;
    }
    b->consume(got);
  }
  return out;
}

TEST(ReplyBuffer, FirstChunkResizesWhileEmptyAndTracksItsPeak) {
  ReplyBuffer b;
  b.append("+OK\r\n", 5);
  EXPECT_FALSE(b.resizeFirst(1024));  // replies waiting: not now
  EXPECT_EQ(drain(&b), "+OK\r\n");
  EXPECT_EQ(b.peak(), 5u);
  ASSERT_TRUE(b.resizeFirst(1024));
  EXPECT_EQ(b.firstCapacity(), 1024u);
  EXPECT_EQ(b.allocated(), 0u);
  // A 3000-byte reply fills the first chunk and goes on in another.
  std::string big(3000, 'x');
  b.append(big.data(), big.size());
  expectHolds(b, 1024u + ReplyBuffer::kChunkSize);
  EXPECT_EQ(drain(&b), big);
  EXPECT_EQ(b.peak(), 1024u);  // the first chunk was full
  b.resetPeak();
  EXPECT_EQ(b.peak(), 0u);
  ASSERT_TRUE(b.resizeFirst(2048));
  b.append("abc", 3);
  EXPECT_EQ(drain(&b), "abc");
  expectHolds(b, 2048u);  // the drained first chunk is kept
}

TEST(ReplyBuffer, DrainedChunkIsReused) {
  ReplyBuffer b;
  for (int i = 0; i < 1000; i++) {
    b.append("+OK\r\n", 5);
    struct iovec iov[2];
    ASSERT_EQ(b.iovecs(iov, 2), 1);
    EXPECT_EQ(std::string(static_cast<char*>(iov[0].iov_base), iov[0].iov_len), "+OK\r\n");
    b.consume(iov[0].iov_len);
    EXPECT_TRUE(b.empty());
    EXPECT_EQ(b.iovecs(iov, 2), 0);
    expectHolds(b, ReplyBuffer::kChunkSize);
  }
}

}  // namespace
}  // namespace resp
