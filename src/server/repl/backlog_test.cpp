#include "server/repl/backlog.h"

#include <gtest/gtest.h>

namespace server::repl {
namespace {

TEST(Backlog, KeepsWhatFitsAndServesFromAnOffset) {
  Backlog b(8, 1);
  EXPECT_TRUE(b.covers(1));  // nothing fed: offset 1 is "the next byte"
  EXPECT_EQ(b.from(1), "");
  b.feed("abcde");
  EXPECT_EQ(b.firstOffset(), 1);
  EXPECT_EQ(b.histlen(), 5u);
  EXPECT_EQ(b.from(3), "cde");
  EXPECT_TRUE(b.covers(6));
  EXPECT_FALSE(b.covers(7));
  b.feed("fghij");  // wraps: a b are gone
  EXPECT_EQ(b.firstOffset(), 3);
  EXPECT_EQ(b.histlen(), 8u);
  EXPECT_FALSE(b.covers(2));
  EXPECT_EQ(b.from(3), "cdefghij");
  EXPECT_EQ(b.from(9), "ij");
}

TEST(Backlog, AFeedLargerThanTheRingKeepsItsTail) {
  Backlog b(4, 101);
  b.feed("xy");
  b.feed("0123456789");
  EXPECT_EQ(b.firstOffset(), 101 + 12 - 4);
  EXPECT_EQ(b.from(b.firstOffset()), "6789");
}

TEST(Backlog, ResizeKeepsTheNewestBytes) {
  Backlog b(8, 1);
  b.feed("abcdefghij");
  b.resize(4);
  EXPECT_EQ(b.firstOffset(), 7);
  EXPECT_EQ(b.from(7), "ghij");
  b.resize(16);
  EXPECT_EQ(b.from(7), "ghij");
  b.feed("kl");
  EXPECT_EQ(b.from(7), "ghijkl");
  EXPECT_TRUE(b.covers(13));
}

}  // namespace
}  // namespace server::repl
