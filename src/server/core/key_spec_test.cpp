// Key specs: the notation, and finding keys in an argv the way Redis 7.0's
// COMMAND GETKEYS does (index/keyword begins, range/keynum finds).
#include "server/core/key_spec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace server {
namespace {

std::vector<KeySpec> parse(const char* line) {
  std::vector<KeySpec> out;
  std::string err;
  EXPECT_TRUE(parseKeySpecs(line, &out, &err)) << line << ": " << err;
  return out;
}

std::vector<size_t> keys(const KeySpec& k, std::vector<std::string_view> argv) {
  std::vector<size_t> out;
  keysOfSpec(k, argv, &out);
  return out;
}

TEST(KeySpec, ParsesEveryForm) {
  auto specs = parse("OW update; index 1; range 0 1 0 | RO access; index 2; keynum 0 1 1");
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].flags, (std::vector<std::string>{"OW", "update"}));
  EXPECT_EQ(specs[0].begin, KeySpec::Begin::kIndex);
  EXPECT_EQ(specs[1].find, KeySpec::Find::kKeynum);
  auto kw = parse("OW update; keyword STORE -1; range 0 1 0");
  EXPECT_EQ(kw[0].begin, KeySpec::Begin::kKeyword);
  EXPECT_EQ(kw[0].keyword, "STORE");
  EXPECT_EQ(kw[0].startfrom, -1);
  auto unknown = parse("RO access; unknown; unknown");
  EXPECT_EQ(unknown[0].begin, KeySpec::Begin::kUnknown);
  EXPECT_TRUE(parse("").empty());
  std::vector<KeySpec> out;
  std::string err;
  EXPECT_FALSE(parseKeySpecs("RO; index x; range 0 1 0", &out, &err));
  EXPECT_EQ(err, "bad begin_search 'index x'");
  EXPECT_FALSE(parseKeySpecs("RO; index 1; range 0 0 0", &out, &err));
  EXPECT_EQ(err, "keystep must be positive");
  EXPECT_FALSE(parseKeySpecs("RO; index 1", &out, &err));
}

TEST(KeySpec, FindsKeys) {
  // MSET a 1 b 2: every other argument to the end.
  auto mset = parse("OW update; index 1; range -1 2 0")[0];
  EXPECT_EQ(keys(mset, {"MSET", "a", "1", "b", "2"}), (std::vector<size_t>{1, 3}));
  // BLPOP a b 0: all but the last.
  auto blpop = parse("RW; index 1; range -2 1 0")[0];
  EXPECT_EQ(keys(blpop, {"BLPOP", "a", "b", "0"}), (std::vector<size_t>{1, 2}));
  // ZUNIONSTORE d 2 a b WEIGHTS 1 2: the count at index 2.
  auto zu = parse("RO; index 2; keynum 0 1 1")[0];
  EXPECT_EQ(keys(zu, {"ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "2"}),
            (std::vector<size_t>{3, 4}));
  EXPECT_TRUE(keys(zu, {"ZUNIONSTORE", "d", "0", "a"}).empty());
  EXPECT_TRUE(keys(zu, {"ZUNIONSTORE", "d", "x", "a"}).empty());
  // A keyword searched from the end.
  auto store = parse("OW; keyword STORE -1; range 0 1 0")[0];
  EXPECT_EQ(keys(store, {"SORT", "k", "STORE", "d"}), (std::vector<size_t>{3}));
  EXPECT_TRUE(keys(store, {"SORT", "k"}).empty());
  // Past the end: nothing, not a read out of bounds.
  auto second = parse("RO; index 2; range 0 1 0")[0];
  EXPECT_TRUE(keys(second, {"OBJECT", "ENCODING"}).empty());
}

}  // namespace
}  // namespace server
