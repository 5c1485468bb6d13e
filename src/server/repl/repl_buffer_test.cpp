#include "server/repl/repl_buffer.h"

#include <gtest/gtest.h>

#include <climits>
#include <string>

namespace server::repl {
namespace {

constexpr int64_t kNoReader = INT64_MAX;

// Everything from `offset` to the end, gathered block by block.
std::string readAll(const ReplBuffer& b, int64_t offset) {
  std::string out;
  while (offset < b.endOffset()) {
    std::string_view piece = b.read(offset, SIZE_MAX);
    EXPECT_FALSE(piece.empty());
    out.append(piece);
    offset += static_cast<int64_t>(piece.size());
  }
  return out;
}

TEST(ReplBuffer, ServesFromAnyOffsetAcrossBlocks) {
  ReplBuffer b(1 << 20, 1);
  EXPECT_TRUE(b.covers(1));  // nothing fed: offset 1 is "the next byte"
  EXPECT_EQ(b.read(1, 10), "");
  std::string stream;
  for (int i = 0; i < 5000; i++) stream += "cmd" + std::to_string(i) + ";";
  b.feed(stream.substr(0, 7));
  b.feed(stream.substr(7));
  EXPECT_GT(b.blocks(), 1u);
  EXPECT_EQ(b.firstOffset(), 1);
  EXPECT_EQ(b.endOffset(), 1 + static_cast<int64_t>(stream.size()));
  EXPECT_EQ(readAll(b, 1), stream);
  EXPECT_EQ(readAll(b, 20000), stream.substr(19999));
  EXPECT_EQ(b.read(3, 4), stream.substr(2, 4));
  EXPECT_TRUE(b.covers(b.endOffset()));
  EXPECT_FALSE(b.covers(b.endOffset() + 1));
}

TEST(ReplBuffer, TrimKeepsTheBacklogSizeAndTheLastBlock) {
  const size_t backlog = 40000;
  ReplBuffer b(backlog, 101);
  std::string chunk(1000, 'x');
  for (int i = 0; i < 200; i++) b.feed(chunk);
  EXPECT_EQ(b.histlen(), 200000u);
  while (b.trim(kNoReader, 1) == 1) {
  }
  // More than the backlog's size stays, less than one block more.
  EXPECT_GT(b.histlen(), backlog);
  EXPECT_LE(b.histlen(), backlog + ReplBuffer::kMinBlock + 4096);
  EXPECT_EQ(b.endOffset(), 101 + 200000);
  EXPECT_EQ(readAll(b, b.firstOffset()).size(), b.histlen());

  ReplBuffer tiny(10, 1);
  tiny.feed(std::string(100000, 'y'));
  tiny.trim(kNoReader, 1000);
  EXPECT_EQ(tiny.blocks(), 1u);  // never less than one block
}

TEST(ReplBuffer, AReaderHoldsWhatItHasNotRead) {
  ReplBuffer b(1000, 1);
  std::string chunk(4096, 'r');
  for (int i = 0; i < 64; i++) b.feed(chunk);
  int64_t reader = 10000;
  b.trim(reader, SIZE_MAX);
  EXPECT_LE(b.firstOffset(), reader);  // the backlog outgrew its size
  EXPECT_GT(b.histlen(), 200000u);
  size_t held = b.memory();
  // Once the reader has read everything, the blocks go but for the last.
  reader = b.endOffset();
  b.trim(reader, SIZE_MAX);
  EXPECT_LT(b.memory(), held / 8);
  EXPECT_GT(b.memory(), 0u);
}

TEST(ReplBuffer, BlocksAreBoundedBySixteenthsOfTheBacklog) {
  ReplBuffer b(16 * 1024 * 1024, 1);
  b.feed(std::string(3 * 1024 * 1024, 'v'));  // one big command
  EXPECT_GE(b.blocks(), 3u);                  // at most 1 MiB each
  ReplBuffer small(1024, 1);
  small.feed(std::string(64 * 1024, 'v'));
  EXPECT_GE(small.blocks(), 4u);  // at most kMinBlock (and its rounding) each
  EXPECT_GT(small.memory(), 64u * 1024);
}

}  // namespace
}  // namespace server::repl
