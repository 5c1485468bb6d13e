#include "server/db/quicklist.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <string>

#include "server/db/list.h"

namespace db {
namespace {

std::vector<std::string> contents(const Quicklist& q) {
  std::vector<std::string> out;
  for (auto it = q.first(); it.valid(); it = q.next(it)) out.push_back(q.get(it).toString());
  return out;
}

// Every node within the limit (or holding one element), no empty node, and
// the counts add up.
void checkShape(const Quicklist& q) {
  size_t total = 0, nodes = 0;
  for (auto* n = q.head(); n != nullptr; n = n->next) {
    EXPECT_FALSE(n->lp.empty());
    if (n->lp.size() > 1) {
      EXPECT_FALSE(listpackOverLimit(q.fill(), n->lp.bytes(), n->lp.size()));
    }
    total += n->lp.size();
    nodes++;
  }
  EXPECT_EQ(total, q.size());
  EXPECT_EQ(nodes, q.nodeCount());
}

TEST(Quicklist, FillLimits) {
  EXPECT_EQ(fillByteLimit(-1), 4096u);
  EXPECT_EQ(fillByteLimit(-2), 8192u);
  EXPECT_EQ(fillByteLimit(-5), 65536u);
  EXPECT_EQ(fillByteLimit(-100), 65536u);
  EXPECT_EQ(fillCountLimit(5), 5u);
  EXPECT_TRUE(listpackOverLimit(5, 100, 6));
  EXPECT_FALSE(listpackOverLimit(5, 100, 5));
  EXPECT_TRUE(listpackOverLimit(-1, 4097, 1));
}

TEST(Quicklist, PushSplitsIntoNodesAndIndexesFromBothEnds) {
  Quicklist q(4);
  for (int i = 0; i < 10; i++) q.pushTail(std::to_string(i));
  EXPECT_EQ(q.size(), 10u);
  EXPECT_EQ(q.nodeCount(), 3u);
  for (int i = 0; i < 10; i++) {
    EXPECT_EQ(q.get(q.at(i)).toString(), std::to_string(i));
    EXPECT_EQ(q.get(q.at(-1 - i)).toString(), std::to_string(9 - i));
  }
  EXPECT_FALSE(q.at(10).valid());
  EXPECT_FALSE(q.at(-11).valid());
  q.pushHead("h");
  EXPECT_EQ(q.nodeCount(), 4u);
  EXPECT_EQ(q.get(q.at(0)).toString(), "h");
  checkShape(q);
}

TEST(Quicklist, InsertAcrossNodeBoundaries) {
  Quicklist q(3);
  for (int i = 0; i < 6; i++) q.pushTail(std::to_string(i));  // [0 1 2][3 4 5]
  q.insert(q.at(2), "a", true);                               // after the node's last
  q.insert(q.at(0), "b", false);                              // before the head
  q.insert(q.at(4), "c", false);                              // middle of a full node
  EXPECT_EQ(contents(q), (std::vector<std::string>{"b", "0", "1", "2", "c", "a", "3", "4", "5"}));
  checkShape(q);
}

TEST(Quicklist, EraseAcrossNodesAndRange) {
  Quicklist q(3);
  for (int i = 0; i < 9; i++) q.pushTail(std::to_string(i));
  auto it = q.at(2);
  it = q.erase(it);  // last of node 1: continues in node 2
  EXPECT_EQ(q.get(it).toString(), "3");
  q.eraseRange(1, 5);  // 1 3 4 5 6 go, whole node in the middle
  EXPECT_EQ(contents(q), (std::vector<std::string>{"0", "7", "8"}));
  checkShape(q);
  q.eraseRange(0, 100);
  EXPECT_EQ(q.size(), 0u);
  EXPECT_EQ(q.nodeCount(), 0u);
}

TEST(Quicklist, BigElementGetsItsOwnNode) {
  Quicklist q(-1);
  q.pushTail("a");
  q.pushTail(std::string(5000, 'x'));
  q.pushTail("b");
  EXPECT_EQ(q.nodeCount(), 3u);
  q.replace(q.at(0), std::string(5000, 'y'));
  EXPECT_EQ(q.get(q.at(0)).toString(), std::string(5000, 'y'));
  checkShape(q);
}

TEST(List, EncodingConvertsBothWaysWithHysteresis) {
  List l;
  const int fill = 8;
  for (int i = 0; i < 8; i++) {
    l.push(std::to_string(i), false);
    l.updateEncoding(fill);
  }
  EXPECT_STREQ(l.encodingName(), "listpack");
  l.push("x", false);
  l.updateEncoding(fill);
  EXPECT_STREQ(l.encodingName(), "quicklist");
  std::string out;
  // 9 -> 5 elements: still over half the limit (4).
  for (int i = 0; i < 4; i++) ASSERT_TRUE(l.pop(true, &out));
  l.updateEncoding(fill);
  EXPECT_STREQ(l.encodingName(), "quicklist");
  ASSERT_TRUE(l.pop(true, &out));
  l.updateEncoding(fill);
  EXPECT_STREQ(l.encodingName(), "listpack");
  EXPECT_EQ(l.size(), 4u);
  EXPECT_EQ(l.get(l.at(0)).toString(), "5");
  EXPECT_EQ(l.get(l.at(-1)).toString(), "x");
}

TEST(List, PrepareGrowthConvertsBeforeABigPush) {
  List l;
  l.push("a", false);
  l.prepareGrowth(4, 10, 3);
  EXPECT_STREQ(l.encodingName(), "listpack");
  l.prepareGrowth(4, 10, 4);
  EXPECT_STREQ(l.encodingName(), "quicklist");
  EXPECT_EQ(l.get(l.at(0)).toString(), "a");
}

TEST(List, ByteLimitConversion) {
  List l;
  l.push(std::string(5000, 'a'), true);
  l.updateEncoding(-2);
  EXPECT_STREQ(l.encodingName(), "listpack");
  l.push(std::string(5000, 'b'), true);
  l.updateEncoding(-2);
  EXPECT_STREQ(l.encodingName(), "quicklist");
  List* copy = static_cast<List*>(l.clone());
  EXPECT_EQ(copy->get(copy->at(0)).toString(), std::string(5000, 'b'));
  delete copy;
}

// Random operations against a std::deque, in both encodings.
TEST(List, RandomizedAgainstModel) {
  for (int fill : {-1, 0, 2, 5, 128}) {
    std::mt19937 rng(1234 + static_cast<unsigned>(fill));
    List l;
    std::deque<std::string> model;
    for (int op = 0; op < 20000; op++) {
      int r = static_cast<int>(rng() % 100);
      std::string v = rng() % 4 == 0 ? std::string(rng() % 600, 'v') : std::to_string(rng() % 1000);
      if (r < 30) {
        bool head = rng() % 2;
        l.push(v, head);
        if (head)
          model.push_front(v);
        else
          model.push_back(v);
      } else if (r < 50) {
        bool head = rng() % 2;
        std::string out;
        bool ok = l.pop(head, &out);
        ASSERT_EQ(ok, !model.empty());
        if (ok) {
          ASSERT_EQ(out, head ? model.front() : model.back());
          if (head)
            model.pop_front();
          else
            model.pop_back();
        }
      } else if (r < 65 && !model.empty()) {
        size_t i = rng() % model.size();
        bool after = rng() % 2;
        l.insert(l.at(static_cast<int64_t>(i)), v, after);
        model.insert(model.begin() + static_cast<long>(i + (after ? 1 : 0)), v);
      } else if (r < 75 && !model.empty()) {
        size_t i = rng() % model.size();
        l.replace(l.at(static_cast<int64_t>(i)), v);
        model[i] = v;
      } else if (r < 85 && !model.empty()) {
        size_t i = rng() % model.size();
        l.erase(l.at(static_cast<int64_t>(i)));
        model.erase(model.begin() + static_cast<long>(i));
      } else if (r < 88 && !model.empty()) {
        size_t i = rng() % model.size(), n = rng() % 10;
        l.eraseRange(i, n);
        size_t end = std::min(model.size(), i + n);
        model.erase(model.begin() + static_cast<long>(i), model.begin() + static_cast<long>(end));
      } else if (!model.empty()) {
        int64_t i = static_cast<int64_t>(rng() % model.size());
        if (rng() % 2) i = i - static_cast<int64_t>(model.size());
        size_t mi = i < 0 ? static_cast<size_t>(i + static_cast<int64_t>(model.size()))
                          : static_cast<size_t>(i);
        ASSERT_EQ(l.get(l.at(i)).toString(), model[mi]);
      }
      l.updateEncoding(fill);
      ASSERT_EQ(l.size(), model.size());
      if (l.isQuicklist()) {
        if (op % 97 == 0) checkShape(*l.quicklist());
      }
    }
    std::vector<std::string> all;
    for (auto it = l.first(); it.valid(); it = l.next(it)) all.push_back(l.get(it).toString());
    EXPECT_EQ(all, std::vector<std::string>(model.begin(), model.end()));
    std::vector<std::string> back;
    for (auto it = l.last(); it.valid(); it = l.prev(it))
      back.insert(back.begin(), l.get(it).toString());
    EXPECT_EQ(back, all);
  }
}

}  // namespace
}  // namespace db
