// Tests of common/dict.h against a plain model (a vector of "live" flags):
// correctness with rehashing interleaved, bounded work per operation, shrink,
// the SCAN guarantee under resizes, random sampling, clear and iteration.
#include "common/dict.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

namespace common {
namespace {

struct IntNode {
  uint64_t key = 0;
  IntNode* next = nullptr;
  bool live = false;  // what the model says: linked in the dict
};

// Counts how many keys the table hashes to move nodes, so tests can check
// the work done by one operation.
inline size_t g_rehash_hashes = 0;

struct IntTraits {
  using Node = IntNode;
  using Key = uint64_t;
  static Node*& next(Node* n) { return n->next; }
  static uint64_t hash(const Key& k) { return hashBytes(&k, sizeof k); }
  static bool equal(const Node* n, const Key& k) { return n->key == k; }
  static Key key(const Node* n) {
    g_rehash_hashes++;
    return n->key;
  }
};
using IntDict = Dict<IntTraits>;

// Only 16 distinct hashes: long chains, to test unlinking inside a chain.
struct CollidingTraits : IntTraits {
  static uint64_t hash(const Key& k) { return k & 15; }
};

// String keys with the hash cached in the node: exercises Traits::nodeHash.
struct StrNode {
  std::string key;
  uint64_t hash;
  StrNode* next = nullptr;
};
struct StrTraits {
  using Node = StrNode;
  using Key = std::string_view;
  static Node*& next(Node* n) { return n->next; }
  static uint64_t hash(const Key& k) { return hashBytes(k.data(), k.size()); }
  static bool equal(const Node* n, const Key& k) { return n->key == k; }
  static uint64_t nodeHash(const Node* n) { return n->hash; }
};

std::vector<IntNode> makeNodes(size_t n) {
  std::vector<IntNode> nodes(n);
  for (size_t i = 0; i < n; i++) nodes[i].key = i * 7919 + 13;
  return nodes;
}

void insertNode(IntDict& d, IntNode& n) {
  d.insert(&n);
  n.live = true;
}

// Every live node is found (and is that node), every dead one is not.
void expectMatchesModel(IntDict& d, std::vector<IntNode>& nodes) {
  size_t live = 0;
  for (auto& n : nodes) {
    d.prefetch(IntDict::hashKey(n.key));  // a hint: must be harmless mid-rehash
    IntNode* got = d.find(n.key);
    if (n.live) {
      ASSERT_EQ(got, &n) << n.key;
      live++;
    } else {
      ASSERT_EQ(got, nullptr) << n.key;
    }
  }
  EXPECT_EQ(d.size(), live);
  EXPECT_TRUE(d.checkInvariants());
}

TEST(Dict, EmptyTableAnswersEverything) {
  IntDict d;
  IntNode* out[4];
  EXPECT_EQ(d.find(1), nullptr);
  EXPECT_EQ(d.erase(1), nullptr);
  EXPECT_EQ(d.randomNode(), nullptr);
  EXPECT_EQ(d.sampleNodes(out, 4), 0u);
  EXPECT_EQ(d.scan(0, [](IntNode*) { FAIL(); }), 0u);
  EXPECT_EQ(d.memoryUsage(), 0u);
  EXPECT_FALSE(d.tryShrink());
  EXPECT_TRUE(d.checkInvariants());
}

TEST(Dict, InsertFindEraseSmall) {
  auto nodes = makeNodes(100);
  IntDict d;
  for (auto& n : nodes) insertNode(d, n);
  EXPECT_EQ(d.size(), 100u);
  EXPECT_GE(d.bucketCount(), 100u);
  for (size_t i = 0; i < nodes.size(); i += 2) {
    ASSERT_EQ(d.erase(nodes[i].key), &nodes[i]);
    nodes[i].live = false;
  }
  EXPECT_EQ(d.erase(nodes[0].key), nullptr);  // already gone
  expectMatchesModel(d, nodes);
  EXPECT_EQ(d.memoryUsage(), d.bucketCount() * sizeof(void*));
}

// One million entries; finds, erases and re-inserts are interleaved with the
// inserts, so many of them land while a growth rehash is in progress.
TEST(Dict, MillionEntriesWithInterleavedRehash) {
  constexpr size_t kN = 1000000;
  auto nodes = makeNodes(kN);
  std::mt19937_64 rng(1234);
  IntDict d;
  size_t ops_while_rehashing = 0, rehashes_started = 0;
  bool was_rehashing = false;
  for (size_t i = 0; i < kN; i++) {
    insertNode(d, nodes[i]);
    if (d.isRehashing()) ops_while_rehashing++;
    if (d.isRehashing() && !was_rehashing) {
      rehashes_started++;
      ASSERT_TRUE(d.checkInvariants()) << "at " << i;
    }
    was_rehashing = d.isRehashing();
    IntNode& probe = nodes[rng() % (i + 1)];
    ASSERT_EQ(d.find(probe.key), probe.live ? &probe : nullptr);
    if (rng() % 4 == 0) {  // erase a random earlier node, sometimes put it back
      IntNode& victim = nodes[rng() % (i + 1)];
      ASSERT_EQ(d.erase(victim.key), victim.live ? &victim : nullptr);
      victim.live = false;
      if (rng() % 2 == 0) insertNode(d, victim);
    }
  }
  EXPECT_GE(rehashes_started, 15u);
  EXPECT_GT(ops_while_rehashing, 100000u);
  expectMatchesModel(d, nodes);

  // Erase almost everything with the cron's shrink and rehash calls mixed in.
  std::vector<size_t> order(kN);
  for (size_t i = 0; i < kN; i++) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  size_t shrinks = 0;
  for (size_t j = 0; j < kN - 1000; j++) {
    IntNode& n = nodes[order[j]];
    ASSERT_EQ(d.erase(n.key), n.live ? &n : nullptr);
    n.live = false;
    if (j % 1000 == 0) {
      shrinks += d.tryShrink();
      d.rehashSteps(100);
    }
  }
  EXPECT_GE(shrinks, 1u);
  while (d.rehashSteps(1000)) {
  }
  expectMatchesModel(d, nodes);
}

// Growing a large table must not move it all at once: the insert that starts
// the growth, and each one after it, hash only a bucket's worth of nodes.
TEST(Dict, GrowthIsIncremental) {
  constexpr size_t kN = 1 << 17;
  auto nodes = makeNodes(kN + 64);
  IntDict d;
  for (size_t i = 0; i < kN; i++) insertNode(d, nodes[i]);
  while (d.rehashSteps(1000)) {
  }
  ASSERT_EQ(d.bucketCount(), kN);
  for (size_t i = kN; i < kN + 64; i++) {
    g_rehash_hashes = 0;
    insertNode(d, nodes[i]);
    EXPECT_LE(g_rehash_hashes, 16u) << "insert " << i - kN;  // one bucket's chain
    ASSERT_TRUE(d.isRehashing());
  }
  EXPECT_EQ(d.bucketCount(), kN + 2 * kN);  // both arrays exist
  g_rehash_hashes = 0;
  for (size_t i = 0; i < 64; i++) d.find(nodes[i].key);
  EXPECT_LE(g_rehash_hashes, 64u * 16);
  while (d.rehashMicroseconds(1000) > 0 && d.isRehashing()) {
  }
  EXPECT_FALSE(d.isRehashing());
  EXPECT_EQ(d.bucketCount(), 2 * kN);
  expectMatchesModel(d, nodes);
}

TEST(Dict, ShrinkKeepsEntriesAndFreesMemory) {
  auto nodes = makeNodes(100000);
  IntDict d;
  for (auto& n : nodes) insertNode(d, n);
  while (d.rehashSteps(1000)) {
  }
  EXPECT_FALSE(d.tryShrink());  // full table: nothing to do
  for (size_t i = 1000; i < nodes.size(); i++) {
    ASSERT_EQ(d.erase(nodes[i].key), &nodes[i]);
    nodes[i].live = false;
  }
  EXPECT_TRUE(d.tryShrink());
  EXPECT_TRUE(d.isRehashing());
  g_rehash_hashes = 0;
  for (size_t i = 0; i < 500; i++) {  // operations during the shrink
    ASSERT_EQ(d.erase(nodes[i].key), &nodes[i]);
    nodes[i].live = false;
  }
  EXPECT_EQ(g_rehash_hashes, 0u);  // shrinking splices chains without hashing
  while (d.rehashSteps(10)) {
  }
  EXPECT_EQ(d.bucketCount(), 1024u);  // smallest power of two >= 1000
  expectMatchesModel(d, nodes);
  EXPECT_FALSE(d.tryShrink());  // 500 of 1024 buckets: above 1/8
  for (size_t i = 500; i < 900; i++) {
    ASSERT_EQ(d.erase(nodes[i].key), &nodes[i]);
    nodes[i].live = false;
  }
  EXPECT_TRUE(d.tryShrink());  // 100 of 1024: below 1/8
  while (d.rehashSteps(10)) {
  }
  EXPECT_EQ(d.bucketCount(), 128u);
  expectMatchesModel(d, nodes);
  for (auto& n : nodes) {
    if (n.live) d.erase(n.key);
    n.live = false;
  }
  EXPECT_TRUE(d.tryShrink());  // empty: releases the array
  EXPECT_EQ(d.memoryUsage(), 0u);
  insertNode(d, nodes[0]);  // and is usable again
  expectMatchesModel(d, nodes);
}

// While a forked child runs (g_dict_avoid_resize), a table grows only past
// kForceResizeRatio entries a bucket and never shrinks; afterwards the next
// insert grows it as usual.
TEST(Dict, NoResizeWhileAChildRuns) {
  auto nodes = makeNodes(1024 * (kForceResizeRatio + 2));
  IntDict d;
  for (size_t i = 0; i < 1000; i++) insertNode(d, nodes[i]);
  while (d.rehashSteps(1000)) {
  }
  ASSERT_EQ(d.bucketCount(), 1024u);
  g_dict_avoid_resize = true;
  size_t i = 1000;
  for (; i < 1024 * (kForceResizeRatio + 1); i++) insertNode(d, nodes[i]);
  EXPECT_EQ(d.bucketCount(), 1024u);  // 6 a bucket now; the next insert passes 5
  insertNode(d, nodes[i++]);          // past the ratio: grows all the same
  EXPECT_TRUE(d.isRehashing());
  while (d.rehashSteps(1000)) {
  }
  for (size_t k = 100; k < i; k++) {
    ASSERT_EQ(d.erase(nodes[k].key), &nodes[k]);
    nodes[k].live = false;
  }
  EXPECT_FALSE(d.tryShrink());  // 100 in 2048 buckets: would shrink, but not now
  g_dict_avoid_resize = false;
  EXPECT_TRUE(d.tryShrink());
  while (d.rehashSteps(1000)) {
  }
  expectMatchesModel(d, nodes);
}

// Arrays of 1 MiB and more are unmapped chunk by chunk while rehashing and
// clearing; every operation must keep away from the unmapped part (a read
// there would crash the test).
TEST(Dict, LargeArraysAreReleasedGradually) {
  constexpr size_t kN = 300000, kOld = 1 << 19, kNew = 1 << 20;
  auto nodes = makeNodes(kN);
  IntDict d;
  for (auto& n : nodes) insertNode(d, n);
  while (d.rehashSteps(1000)) {
  }
  ASSERT_EQ(d.bucketCount(), kOld);
  EXPECT_EQ(d.memoryUsage(), kOld * sizeof(void*));
  ASSERT_TRUE(d.expand(kNew));
  EXPECT_EQ(d.memoryUsage(), (kOld + kNew) * sizeof(void*));
  d.rehashSteps(kN / 4);
  ASSERT_TRUE(d.isRehashing());
  size_t mid = d.memoryUsage();
  EXPECT_LT(mid, (kOld + kNew) * sizeof(void*) - kOld * sizeof(void*) / 8);  // some returned
  EXPECT_GE(mid, kNew * sizeof(void*));

  // Everything that walks buckets, mid-rehash.
  std::vector<int> seen(kN);
  uint64_t cursor = 0;
  do {
    cursor = d.scan(cursor, [&](IntNode* n) { seen[n - nodes.data()]++; });
  } while (cursor != 0);
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
  size_t count = 0;
  d.forEach([&](IntNode*) { count++; });
  EXPECT_EQ(count, kN);
  IntNode* out[64];
  for (int i = 0; i < 1000; i++) {
    ASSERT_TRUE(d.randomNode()->live);
    size_t got = d.sampleNodes(out, 64);
    for (size_t j = 0; j < got; j++) ASSERT_TRUE(out[j]->live);
  }
  EXPECT_TRUE(d.checkInvariants());
  expectMatchesModel(d, nodes);

  // An incremental clear gives memory back as it goes, not only at the end.
  ASSERT_FALSE(d.isRehashing());    // the lookups above finished it
  ASSERT_TRUE(d.expand(2 * kNew));  // so the clear below runs over two arrays,
  d.rehashSteps(kN / 4);            // the old one partly unmapped
  ASSERT_TRUE(d.isRehashing());
  size_t before = d.memoryUsage(), cleared = 0;
  while (cleared < kN / 2) {
    ASSERT_FALSE(d.clearSteps([&](IntNode*) { cleared++; }, 1000));
  }
  EXPECT_LT(d.memoryUsage(), before);
  while (!d.clearSteps([&](IntNode*) { cleared++; }, 1000)) {
  }
  EXPECT_EQ(cleared, kN);
  EXPECT_EQ(d.memoryUsage(), 0u);
}

TEST(Dict, ExpandPresizes) {
  auto nodes = makeNodes(5000);
  IntDict d;
  EXPECT_TRUE(d.expand(5000));
  EXPECT_EQ(d.bucketCount(), 8192u);
  EXPECT_FALSE(d.expand(100));
  for (auto& n : nodes) insertNode(d, n);
  EXPECT_FALSE(d.isRehashing());
  EXPECT_EQ(d.bucketCount(), 8192u);
  expectMatchesModel(d, nodes);
}

TEST(Dict, FindOrPrepareInsert) {
  auto nodes = makeNodes(20000);
  IntDict d;
  for (int round = 0; round < 2; round++) {
    for (auto& n : nodes) {
      auto pos = d.findOrPrepareInsert(n.key);
      if (round == 0) {
        ASSERT_EQ(pos.found, nullptr);
        d.insertAt(pos, &n);
        n.live = true;
      } else {
        ASSERT_EQ(pos.found, &n);
      }
    }
  }
  expectMatchesModel(d, nodes);
}

TEST(Dict, UnlinkInsideCollidingChains) {
  auto nodes = makeNodes(200);
  Dict<CollidingTraits> d;
  for (auto& n : nodes) d.insert(&n);
  for (size_t i = 0; i < nodes.size(); i += 3) ASSERT_TRUE(d.unlink(&nodes[i]));
  EXPECT_FALSE(d.unlink(&nodes[0]));  // not in the table any more
  for (size_t i = 0; i < nodes.size(); i++) {
    ASSERT_EQ(d.find(nodes[i].key), i % 3 == 0 ? nullptr : &nodes[i]) << i;
  }
  EXPECT_EQ(d.size(), 200u - 67u);
  EXPECT_TRUE(d.checkInvariants());
}

TEST(Dict, CachedNodeHashTraits) {
  std::vector<std::unique_ptr<StrNode>> nodes;
  Dict<StrTraits> d;
  for (int i = 0; i < 30000; i++) {
    auto n = std::make_unique<StrNode>();
    n->key = "user:" + std::to_string(i);
    n->hash = StrTraits::hash(n->key);
    d.insert(n.get());
    nodes.push_back(std::move(n));
  }
  for (auto& n : nodes) ASSERT_EQ(d.find(n->key), n.get());
  EXPECT_EQ(d.find("user:30000"), nullptr);
  EXPECT_EQ(d.erase("user:7"), nodes[7].get());
  EXPECT_EQ(d.size(), 29999u);
  EXPECT_TRUE(d.checkInvariants());
}

// Builds a table holding `nodes[0..n)` and leaves a rehash half done.
void fillMidRehash(IntDict& d, std::vector<IntNode>& nodes, size_t n) {
  for (size_t i = 0; i < n; i++) insertNode(d, nodes[i]);
  while (d.rehashSteps(1000)) {
  }
  ASSERT_TRUE(d.expand(4 * d.bucketCount()));
  d.rehashSteps(n / 4 + 1);  // at most a quarter of the non-empty buckets
  ASSERT_TRUE(d.isRehashing());
}

TEST(Dict, ScanWithoutChangesVisitsEachNodeOnce) {
  for (bool rehashing : {false, true}) {
    auto nodes = makeNodes(5000);
    IntDict d;
    if (rehashing) {
      fillMidRehash(d, nodes, nodes.size());
    } else {
      for (auto& n : nodes) insertNode(d, n);
      while (d.rehashSteps(1000)) {
      }
    }
    std::vector<int> seen(nodes.size());
    uint64_t cursor = 0;
    size_t calls = 0;
    do {
      cursor = d.scan(cursor, [&](IntNode* n) { seen[n - nodes.data()]++; });
      calls++;
    } while (cursor != 0);
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
    EXPECT_EQ(d.isRehashing(), rehashing);  // scan itself never rehashes
    EXPECT_LE(calls, std::max(d.bucketCount(), size_t{1}));
  }
}

// The SCAN guarantee, randomized: between calls the table grows, shrinks,
// rehashes partly or fully, gains and loses nodes. Nodes present from the
// first call to the last must all be returned.
TEST(Dict, ScanGuaranteeUnderResizes) {
  constexpr size_t kPool = 6000;
  for (uint64_t seed = 1; seed <= 200; seed++) {
    std::mt19937_64 rng(seed);
    auto nodes = makeNodes(kPool);
    IntDict d;
    size_t next_new = 0;
    size_t initial = 1 + rng() % 2000;
    for (; next_new < initial; next_new++) insertNode(d, nodes[next_new]);
    if (rng() % 2) d.rehashSteps(rng() % 64);
    std::vector<char> required(kPool), seen(kPool);
    for (size_t i = 0; i < next_new; i++) required[i] = 1;

    uint64_t cursor = 0;
    size_t calls = 0;
    do {
      cursor = d.scan(cursor, [&](IntNode* n) { seen[n - nodes.data()] = 1; });
      ASSERT_LT(++calls, 100000u) << "seed " << seed << ": scan does not end";
      switch (rng() % 6) {
        case 0: {  // grow: a batch of new nodes
          size_t batch = rng() % 400;
          for (size_t k = 0; k < batch && next_new < kPool; k++) insertNode(d, nodes[next_new++]);
          break;
        }
        case 1: {  // delete a random share of the live nodes
          size_t batch = rng() % 600;
          for (size_t k = 0; k < batch && next_new > 0; k++) {
            IntNode& n = nodes[rng() % next_new];
            if (!n.live) continue;
            ASSERT_EQ(d.erase(n.key), &n);
            n.live = false;
            required[&n - nodes.data()] = 0;
          }
          break;
        }
        case 2:
          d.tryShrink();
          break;
        case 3:
          d.rehashSteps(1 + rng() % 32);
          break;
        case 4:
          while (d.rehashSteps(1000)) {
          }
          break;
        default:
          break;
      }
    } while (cursor != 0);
    for (size_t i = 0; i < kPool; i++) {
      if (required[i]) {
        ASSERT_TRUE(seen[i]) << "seed " << seed << " missed node " << i;
      }
    }
    ASSERT_TRUE(d.checkInvariants());
  }
}

TEST(Dict, ScanCallbackMayEraseItsNode) {
  auto nodes = makeNodes(3000);
  IntDict d;
  fillMidRehash(d, nodes, nodes.size());
  uint64_t cursor = 0;
  do {
    cursor = d.scan(cursor, [&](IntNode* n) {
      if (n->key % 2 == 0) {
        ASSERT_EQ(d.erase(n->key), n);
        n->live = false;
      }
    });
  } while (cursor != 0);
  for (auto& n : nodes) EXPECT_EQ(n.live, n.key % 2 != 0);
  expectMatchesModel(d, nodes);
}

TEST(Dict, RandomNodeReachesEveryNodeFairly) {
  constexpr size_t kN = 300, kDraws = 150000;
  auto nodes = makeNodes(kN);
  IntDict d;
  for (auto& n : nodes) insertNode(d, n);
  std::vector<size_t> hits(kN);
  for (size_t i = 0; i < kDraws; i++) {
    IntNode* n = d.randomNode();
    ASSERT_NE(n, nullptr);
    hits[n - nodes.data()]++;
  }
  double fair = static_cast<double>(kDraws) / kN;
  EXPECT_GT(*std::min_element(hits.begin(), hits.end()), 0u);
  EXPECT_LT(*std::max_element(hits.begin(), hits.end()), 3 * fair);

  // Mid-rehash, answers still come from both arrays and are members.
  auto big = makeNodes(20000);
  IntDict r;
  fillMidRehash(r, big, big.size());
  std::unordered_set<IntNode*> distinct;
  for (int i = 0; i < 2000; i++) {
    IntNode* n = r.randomNode();
    ASSERT_TRUE(n >= big.data() && n < big.data() + big.size() && n->live);
    distinct.insert(n);
  }
  EXPECT_TRUE(r.isRehashing());
  EXPECT_GT(distinct.size(), 1500u);

  // A very sparse table (no shrink called) still answers.
  IntDict sparse;
  auto few = makeNodes(70000);
  for (auto& n : few) insertNode(sparse, n);
  for (size_t i = 1; i < few.size(); i++) sparse.erase(few[i].key);
  while (sparse.rehashSteps(1000)) {
  }
  EXPECT_EQ(sparse.randomNode(), &few[0]);
}

// Pearson's chi-square of draw counts against a uniform expectation.
double chiSquare(const std::vector<size_t>& hits, size_t draws) {
  double expected = static_cast<double>(draws) / static_cast<double>(hits.size());
  double chi = 0;
  for (size_t h : hits)
    chi += (static_cast<double>(h) - expected) * (static_cast<double>(h) - expected) / expected;
  return chi;
}

TEST(Dict, RandomNodeIsUniformWhateverTheChainLengths) {
  // Four keys share one bucket, six have one each: a node must not be four
  // times rarer for sharing its bucket. 9 degrees of freedom: 40 is far
  // beyond the 99.99th percentile (about 33), as Redis's own tests bound it.
  using Colliding = Dict<CollidingTraits>;
  std::vector<IntNode> nodes(10);
  uint64_t keys[] = {0, 16, 32, 48, 1, 2, 3, 4, 5, 6};
  Colliding d;
  for (size_t i = 0; i < nodes.size(); i++) {
    nodes[i].key = keys[i];
    d.insert(&nodes[i]);
  }
  constexpr size_t kDraws = 100000;
  std::vector<size_t> hits(nodes.size());
  for (size_t i = 0; i < kDraws; i++) hits[d.randomNode() - nodes.data()]++;
  EXPECT_LT(chiSquare(hits, kDraws), 40.0);

  // A chain longer than the initial bound (12 > 8) is corrected from then on.
  std::vector<IntNode> more(16);
  Colliding e;
  for (size_t i = 0; i < more.size(); i++) {
    more[i].key = i < 12 ? i * 16 : i * 16 + 1 + i;  // 12 in bucket 0, 4 elsewhere
    e.insert(&more[i]);
  }
  e.randomNode();
  for (int i = 0; i < 64; i++) e.randomNode();  // meets the long chain
  std::vector<size_t> more_hits(more.size());
  for (size_t i = 0; i < kDraws; i++) more_hits[e.randomNode() - more.data()]++;
  EXPECT_LT(chiSquare(more_hits, kDraws), 50.0);  // 15 degrees of freedom
}

TEST(Dict, SampleNodesBounds) {
  std::mt19937_64 rng(5);
  for (size_t n : {0, 1, 5, 100, 10000}) {
    for (bool rehashing : {false, true}) {
      if (rehashing && n < 100) continue;
      auto nodes = makeNodes(n);
      IntDict d;
      if (rehashing) {
        fillMidRehash(d, nodes, n);
      } else {
        for (auto& node : nodes) insertNode(d, node);
        // The last insertions may have started a growth: finish it, or the
        // new table's upper half is still mostly empty (its nodes wait in
        // the old table) and a short walk there finds nothing.
        while (d.rehashSteps(1000)) {
        }
      }
      for (size_t want : {0, 1, 3, 20, 500, 20000}) {
        std::vector<IntNode*> out(want + 1, nullptr);
        size_t span = d.bucketCount();
        size_t got = d.sampleNodes(out.data(), want);
        ASSERT_LE(got, want);
        ASSERT_LE(got, n);
        if (want * Dict<IntTraits>::kSampleVisitsPerNode >= span) {
          ASSERT_EQ(got, std::min(want, n));  // the walk covered every bucket
        }
        if (n == 10000 && !rehashing && want >= 3) {
          ASSERT_GT(got, 0u);  // dense table, 30+ buckets visited
        }
        std::unordered_set<IntNode*> distinct(out.begin(), out.begin() + got);
        ASSERT_EQ(distinct.size(), got) << "duplicates";
        for (IntNode* p : distinct) ASSERT_TRUE(p->live);
        ASSERT_EQ(out[got], nullptr);  // nothing written past the count
      }
    }
  }
  // Over many calls every node is sampled.
  auto nodes = makeNodes(1000);
  IntDict d;
  for (auto& node : nodes) insertNode(d, node);
  std::vector<char> seen(nodes.size());
  IntNode* out[16];
  for (int i = 0; i < 3000; i++) {
    size_t got = d.sampleNodes(out, 16);
    for (size_t j = 0; j < got; j++) seen[out[j] - nodes.data()] = 1;
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](char c) { return c; }));
}

TEST(Dict, ClearCallsFnOnceForEachNode) {
  auto nodes = makeNodes(10000);
  IntDict d;
  fillMidRehash(d, nodes, nodes.size());
  std::vector<int> calls(nodes.size());
  d.clear([&](IntNode* n) { calls[n - nodes.data()]++; });
  EXPECT_TRUE(std::all_of(calls.begin(), calls.end(), [](int c) { return c == 1; }));
  EXPECT_EQ(d.size(), 0u);
  EXPECT_EQ(d.memoryUsage(), 0u);
  EXPECT_FALSE(d.isRehashing());
  for (auto& n : nodes) n.live = false;
  insertNode(d, nodes[3]);
  expectMatchesModel(d, nodes);
}

// Lazy FLUSHDB: move the table out, then free it a little at a time.
TEST(Dict, IncrementalClearOfMovedTable) {
  Dict<StrTraits> d;
  for (int i = 0; i < 10000; i++) {
    auto* n = new StrNode{"k" + std::to_string(i), 0};
    n->hash = StrTraits::hash(n->key);
    d.insert(n);
  }
  Dict<StrTraits> old = std::move(d);
  EXPECT_EQ(d.size(), 0u);
  EXPECT_EQ(d.memoryUsage(), 0u);
  StrNode fresh{"new", StrTraits::hash("new")};
  d.insert(&fresh);  // the live table is usable at once
  EXPECT_EQ(d.find("new"), &fresh);
  EXPECT_EQ(d.find("k1"), nullptr);

  size_t freed = 0, rounds = 0;
  bool done = false;
  while (!done) {
    size_t before = freed;
    done = old.clearSteps(
        [&](StrNode* n) {
          delete n;
          freed++;
        },
        100);
    ASSERT_LE(freed - before, 100u);
    ASSERT_EQ(old.size(), 10000u - freed);
    rounds++;
  }
  EXPECT_EQ(freed, 10000u);
  EXPECT_GT(rounds, 100u);
  EXPECT_EQ(old.memoryUsage(), 0u);
  d.unlink(&fresh);
}

TEST(Dict, ForEachMayEraseCurrentNode) {
  auto nodes = makeNodes(8000);
  IntDict d;
  fillMidRehash(d, nodes, nodes.size());
  std::vector<int> visits(nodes.size());
  d.forEach([&](IntNode* n) {
    visits[n - nodes.data()]++;
    if (n->key % 3 == 0) {
      ASSERT_EQ(d.erase(n->key), n);
      n->live = false;
    }
  });
  EXPECT_TRUE(std::all_of(visits.begin(), visits.end(), [](int c) { return c == 1; }));
  EXPECT_TRUE(d.isRehashing());  // iteration paused rehashing
  expectMatchesModel(d, nodes);

  size_t count = 0;
  d.forEach([&](IntNode*) { return ++count < 10; });  // early stop
  EXPECT_EQ(count, 10u);
}

}  // namespace
}  // namespace common
