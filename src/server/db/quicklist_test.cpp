#include "server/db/quicklist.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <string>

#include "server/db/list.h"

namespace server::db {
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
    EXPECT_NE(n->size(), 0u);
    if (n->size() > 1) {
      EXPECT_FALSE(listpackOverLimit(q.fill(), n->bytes(), n->size()));
    }
    total += n->size();
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
  EXPECT_FALSE(l.isQuicklist());
  l.push("x", false);
  l.updateEncoding(fill);
  EXPECT_TRUE(l.isQuicklist());
  std::string out;
  // 9 -> 5 elements: still over half the limit (4).
  for (int i = 0; i < 4; i++) ASSERT_TRUE(l.pop(true, &out));
  l.updateEncoding(fill);
  EXPECT_TRUE(l.isQuicklist());
  ASSERT_TRUE(l.pop(true, &out));
  l.updateEncoding(fill);
  EXPECT_FALSE(l.isQuicklist());
  EXPECT_EQ(l.size(), 4u);
  EXPECT_EQ(l.get(l.at(0)).toString(), "5");
  EXPECT_EQ(l.get(l.at(-1)).toString(), "x");
}

TEST(List, PrepareGrowthConvertsBeforeABigPush) {
  List l;
  l.push("a", false);
  l.prepareGrowth(4, 10, 3);
  EXPECT_FALSE(l.isQuicklist());
  l.prepareGrowth(4, 10, 4);
  EXPECT_TRUE(l.isQuicklist());
  EXPECT_EQ(l.get(l.at(0)).toString(), "a");
}

TEST(List, ByteLimitConversion) {
  List l;
  l.push(std::string(5000, 'a'), true);
  l.updateEncoding(-2);
  EXPECT_FALSE(l.isQuicklist());
  l.push(std::string(5000, 'b'), true);
  l.updateEncoding(-2);
  EXPECT_TRUE(l.isQuicklist());
  List* copy = static_cast<List*>(l.clone());
  EXPECT_EQ(copy->get(copy->at(0)).toString(), std::string(5000, 'b'));
  delete copy;
}

// Compression invariants: no packed node within `depth` of an end, and at
// most two expanded interior nodes that could have been packed (the two a
// walk may still point into).
void checkCompression(const Quicklist& q, bool compressible) {
  int depth = q.compressDepth();
  if (depth == 0) return;
  size_t index = 0, raw_interior = 0;
  size_t len = q.nodeCount();
  for (auto* n = q.head(); n != nullptr; n = n->next, index++) {
    bool near_end =
        index < static_cast<size_t>(depth) || len - 1 - index < static_cast<size_t>(depth);
    if (near_end) {
      EXPECT_FALSE(n->isPacked()) << "node " << index << " of " << len;
    }
    if (!near_end && !n->isPacked() && n->bytes() >= 48) raw_interior++;
    if (n->isPacked()) {
      EXPECT_TRUE(n->lp.empty());
    }
  }
  if (compressible) {
    EXPECT_LE(raw_interior, 2u);
  }
}

// Random operations against a std::deque, in both encodings, with and
// without compression; the list is changed the way the commands do it
// (LREM's walks included).
void fuzzAgainstModel(int fill, int compress, bool compressible, unsigned seed, int ops) {
  std::mt19937 rng(seed);
  List l;
  std::deque<std::string> model;
  size_t max_packed = 0, max_nodes = 0;
  auto value = [&]() {
    if (compressible) return std::string(8 + rng() % 40, static_cast<char>('a' + rng() % 3));
    return rng() % 4 == 0 ? std::string(rng() % 600, 'v') : std::to_string(rng() % 1000);
  };
  for (int op = 0; op < ops; op++) {
    int r = static_cast<int>(rng() % 100);
    std::string v = value();
    if (r < 30) {
      bool head = rng() % 2;
      l.push(v, head);
      if (head)
        model.push_front(v);
      else
        model.push_back(v);
    } else if (r < 45) {
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
    } else if (r < 58 && !model.empty()) {
      size_t i = rng() % model.size();
      bool after = rng() % 2;
      l.insert(l.at(static_cast<int64_t>(i)), v, after);
      model.insert(model.begin() + static_cast<long>(i + (after ? 1 : 0)), v);
    } else if (r < 68 && !model.empty()) {
      size_t i = rng() % model.size();
      l.replace(l.at(static_cast<int64_t>(i)), v);
      model[i] = v;
    } else if (r < 76 && !model.empty()) {
      size_t i = rng() % model.size();
      l.erase(l.at(static_cast<int64_t>(i)));
      model.erase(model.begin() + static_cast<long>(i));
    } else if (r < 79 && !model.empty()) {
      size_t i = rng() % model.size(), n = rng() % 10;
      l.eraseRange(i, n);
      size_t end = std::min(model.size(), i + n);
      model.erase(model.begin() + static_cast<long>(i), model.begin() + static_cast<long>(end));
    } else if (r < 83 && !model.empty()) {
      // LREM's two walks: up to `limit` copies of one element.
      std::string elem = model[rng() % model.size()];
      size_t limit = 1 + rng() % 3;
      size_t removed = 0;
      if (rng() % 2) {
        for (auto it = l.first(); it.valid() && removed < limit;) {
          if (l.get(it).equals(elem)) {
            it = l.erase(it);
            removed++;
          } else {
            it = l.next(it);
          }
        }
        size_t gone = 0;
        for (auto m = model.begin(); m != model.end() && gone < limit;) {
          if (*m == elem) {
            m = model.erase(m);
            gone++;
          } else {
            ++m;
          }
        }
      } else {
        for (auto it = l.last(); it.valid() && removed < limit;) {
          if (!l.get(it).equals(elem)) {
            it = l.prev(it);
            continue;
          }
          auto after = l.erase(it);
          removed++;
          it = after.valid() ? l.prev(after) : l.last();
        }
        size_t gone = 0;
        for (size_t i = model.size(); i-- > 0 && gone < limit;) {
          if (model[i] == elem) {
            model.erase(model.begin() + static_cast<long>(i));
            gone++;
          }
        }
      }
    } else if (!model.empty()) {
      int64_t i = static_cast<int64_t>(rng() % model.size());
      if (rng() % 2) i = i - static_cast<int64_t>(model.size());
      size_t mi = i < 0 ? static_cast<size_t>(i + static_cast<int64_t>(model.size()))
                        : static_cast<size_t>(i);
      ASSERT_EQ(l.get(l.at(i)).toString(), model[mi]);
    }
    l.updateEncoding(fill, compress);
    ASSERT_EQ(l.size(), model.size());
    if (l.isQuicklist()) {
      if (op % 97 == 0) checkShape(*l.quicklist());
      checkCompression(*l.quicklist(), compressible);
      max_packed = std::max(max_packed, l.quicklist()->packedNodes());
      max_nodes = std::max(max_nodes, l.quicklist()->nodeCount());
    }
  }
  // The compressed runs that had interior nodes really compressed them.
  if (compress > 0 && compressible && max_nodes > 2 * static_cast<size_t>(compress) + 2) {
    EXPECT_GT(max_packed, 0u);
  }
  std::vector<std::string> all;
  for (auto it = l.first(); it.valid(); it = l.next(it)) all.push_back(l.get(it).toString());
  EXPECT_EQ(all, std::vector<std::string>(model.begin(), model.end()));
  std::vector<std::string> back;
  for (auto it = l.last(); it.valid(); it = l.prev(it))
    back.insert(back.begin(), l.get(it).toString());
  EXPECT_EQ(back, all);
  if (l.isQuicklist()) {
    checkShape(*l.quicklist());
    checkCompression(*l.quicklist(), compressible);
    List* copy = static_cast<List*>(l.clone());
    std::vector<std::string> copied;
    for (auto it = copy->first(); it.valid(); it = copy->next(it))
      copied.push_back(copy->get(it).toString());
    EXPECT_EQ(copied, all);
    delete copy;
  }
}

TEST(List, RandomizedAgainstModel) {
  for (int fill : {-1, 0, 2, 5, 128}) fuzzAgainstModel(fill, 0, false, 1234 + fill, 20000);
}

TEST(List, CompressedRandomizedAgainstModel) {
  for (int compress : {1, 2, 3}) {
    for (int fill : {4, 16, -1}) {
      SCOPED_TRACE("compress " + std::to_string(compress) + " fill " + std::to_string(fill));
      fuzzAgainstModel(fill, compress, true, 99 + compress * 7 + fill, 12000);
      fuzzAgainstModel(fill, compress, false, 7 + compress * 3 + fill, 6000);
    }
  }
}

// A long list of compressible elements keeps its interior packed and says
// so in its memory use; walking it expands at most two nodes at a time.
TEST(List, CompressionSavesMemory) {
  List plain, packed;
  for (int i = 0; i < 20000; i++) {
    std::string v = "element-" + std::string(30, 'x') + std::to_string(i % 10);
    plain.push(v, false);
    plain.updateEncoding(16, 0);
    packed.push(v, false);
    packed.updateEncoding(16, 1);
  }
  const Quicklist* q = packed.quicklist();
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->packedNodes(), q->nodeCount() - 2);
  EXPECT_LT(packed.memoryUsage() * 3, plain.memoryUsage());
  size_t n = 0;
  for (auto it = packed.first(); it.valid(); it = packed.next(it), n++) {
    ASSERT_EQ(packed.get(it).toString().substr(0, 8), "element-");
    ASSERT_GE(q->packedNodes() + 4, q->nodeCount());
  }
  EXPECT_EQ(n, 20000u);
}

}  // namespace
}  // namespace server::db
