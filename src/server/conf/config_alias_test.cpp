// Old option names kept as aliases (zset-max-ziplist-*): one value behind
// both names, and CONFIG REWRITE writes only the current name.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "server/conf/config.h"

namespace server {
namespace {

TEST(ConfigAlias, ZsetZiplistNamesShareTheListpackValues) {
  Config c;
  std::string err;
  bool unknown, immutable;
  EXPECT_EQ(c.zset_max_listpack_entries, 128);
  EXPECT_EQ(c.zset_max_listpack_value, 64);
  EXPECT_TRUE(configSet(&c, "zset-max-ziplist-entries", {"5"}, &err, &unknown, &immutable));
  EXPECT_EQ(c.zset_max_listpack_entries, 5);
  EXPECT_TRUE(configSet(&c, "zset-max-listpack-value", {"1kb"}, &err, &unknown, &immutable));
  auto got = configGet(c, "zset-max-ziplist-value");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].second, "1024");
  EXPECT_FALSE(configSet(&c, "zset-max-listpack-entries", {"-1"}, &err, &unknown, &immutable));
  EXPECT_EQ(err, "argument must be between 0 and 9223372036854775807 inclusive");
  EXPECT_EQ(configGet(c, "zset-*").size(), 4u);
}

TEST(ConfigAlias, RewriteAppendsOnlyTheCurrentName) {
  char path[] = "/tmp/config_alias_testXXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  Config c;
  c.zset_max_listpack_entries = 7;
  std::string err;
  ASSERT_TRUE(rewriteConfigFile(c, path, &err)) << err;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  unlink(path);
  EXPECT_NE(text.str().find("zset-max-listpack-entries 7\n"), std::string::npos);
  EXPECT_EQ(text.str().find("ziplist"), std::string::npos);
}

}  // namespace
}  // namespace server
