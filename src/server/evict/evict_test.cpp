#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "server/db/db.h"
#include "server/db/set.h"
#include "server/evict/allocator.h"
#include "server/evict/lazyfree.h"

namespace server {
namespace {

db::Value bigSet(size_t n) {
  db::Set* s = db::Set::createTable();
  for (size_t i = 0; i < n; i++) s->add("member:" + std::to_string(i));
  return db::Value::fromCollection(db::Kind::kSet, s);
}

TEST(Allocator, UsedMemoryFollowsAllocations) {
  evict::registerThread();
  size_t before = evict::usedMemory();
  void* volatile p = malloc(4 << 20);
  static_cast<char*>(p)[0] = 1;
  size_t during = evict::usedMemory();
  free(p);
  size_t after = evict::usedMemory();
  EXPECT_GE(during, before + (4 << 20));
  EXPECT_LT(after, during - (3 << 20));
}

TEST(Lazyfree, FreeEffortFollowsRedis) {
  EXPECT_EQ(evict::lazyfree::freeEffort(db::Value::fromString(std::string(100000, 'x'))), 1u);
  EXPECT_EQ(evict::lazyfree::freeEffort(bigSet(10)), 10u);
  db::Value small = bigSet(evict::lazyfree::kThreshold);
  EXPECT_FALSE(evict::lazyfree::freeValueAsync(small));  // at the threshold: freed here
  EXPECT_FALSE(small.empty());
}

TEST(Lazyfree, BigValueAndDetachedDbAreFreedOnTheThread) {
  evict::registerThread();
  evict::lazyfree::start();
  uint64_t freed = evict::lazyfree::freedObjects();
  db::Value v = bigSet(1000);
  size_t with_set = evict::usedMemory();
  ASSERT_TRUE(evict::lazyfree::freeValueAsync(v));
  EXPECT_TRUE(v.empty());
  evict::lazyfree::waitIdle(2000000);
  EXPECT_EQ(evict::lazyfree::freedObjects(), freed + 1);
  EXPECT_EQ(evict::lazyfree::pendingObjects(), 0u);
  // The thread's frees count in used_memory.
  EXPECT_LT(evict::usedMemory(), with_set - 20000);

  db::Db d(0);
  for (int i = 0; i < 500; i++) d.add("key:" + std::to_string(i), db::Value::fromString("v"));
  std::unique_ptr<db::Db::Detached> keys = d.detachAll();
  EXPECT_EQ(d.size(), 0u);
  EXPECT_EQ(keys->size(), 500u);
  evict::lazyfree::freeDbAsync(std::move(keys));
  evict::lazyfree::waitIdle(2000000);
  EXPECT_EQ(evict::lazyfree::freedObjects(), freed + 501);
  evict::lazyfree::stop();
  db::Db::lazy_free_value = nullptr;
}

}  // namespace
}  // namespace server
