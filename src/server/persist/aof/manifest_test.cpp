#include "server/persist/aof/manifest.h"

#include <gtest/gtest.h>

#include <string>

namespace server::persist::aof {
namespace {

Manifest parsed(const std::string& text) {
  Manifest m;
  std::string err;
  EXPECT_TRUE(Manifest::parse(text, &m, &err)) << err;
  return m;
}

std::string parseError(const std::string& text) {
  Manifest m;
  std::string err;
  EXPECT_FALSE(Manifest::parse(text, &m, &err)) << text;
  return err;
}

TEST(AofManifest, FormatsAs70Orders) {
  Manifest m;
  m.base = FileInfo{"appendonly.aof.3.base.rdb", 3, FileType::kBase};
  m.history = {{"appendonly.aof.2.incr.aof", 2, FileType::kHistory},
               {"appendonly.aof.2.base.rdb", 2, FileType::kHistory}};
  m.incrs = {{"appendonly.aof.3.incr.aof", 3, FileType::kIncr}};
  EXPECT_EQ(m.format(),
            "file appendonly.aof.3.base.rdb seq 3 type b\n"
            "file appendonly.aof.2.incr.aof seq 2 type h\n"
            "file appendonly.aof.2.base.rdb seq 2 type h\n"
            "file appendonly.aof.3.incr.aof seq 3 type i\n");
  Manifest back = parsed(m.format());
  EXPECT_EQ(back.format(), m.format());
  EXPECT_EQ(back.base_seq, 3);
  EXPECT_EQ(back.incr_seq, 3);
}

TEST(AofManifest, QuotesNamesWithSpacesAndQuotes) {
  Manifest m;
  m.base = FileInfo{"my \"file.aof.1.base.rdb", 1, FileType::kBase};
  // Redis 7.0.15 writes this line for appendfilename 'my "file.aof'.
  EXPECT_EQ(m.format(), "file \"my \\\"file.aof.1.base.rdb\" seq 1 type b\n");
  EXPECT_EQ(parsed(m.format()).base->name, "my \"file.aof.1.base.rdb");
}

TEST(AofManifest, SkipsCommentsAndUnknownKeys) {
  Manifest m = parsed(
      "# a comment\n"
      "file a.1.base.aof seq 1 type b extra 7\n"
      "file a.1.incr.aof seq 1 type i\n"
      "file a.2.incr.aof seq 2 type i\n");
  ASSERT_TRUE(m.base.has_value());
  EXPECT_EQ(m.incrs.size(), 2u);
  EXPECT_EQ(m.incr_seq, 2);
}

TEST(AofManifest, RefusesBadManifests) {
  EXPECT_EQ(parseError(""), "Found an empty AOF manifest");
  EXPECT_EQ(parseError("file a seq 1 type b\nfile b seq 2 type b\n"),
            "Found duplicate base file information");
  EXPECT_EQ(parseError("file a seq 2 type i\nfile b seq 1 type i\n"),
            "Found a non-monotonic sequence number");
  EXPECT_EQ(parseError("file a seq 1 type x\n"), "Unknown AOF file type");
  EXPECT_EQ(parseError("file a seq 1\n"), "Invalid AOF manifest file format");
  EXPECT_EQ(parseError("file a seq -1 type b\n"), "Invalid AOF manifest file format");
  EXPECT_EQ(parseError("file ../a seq 1 type b\n"), "Invalid AOF manifest file format");
  EXPECT_EQ(parseError("file a seq 1 type b"), "The AOF manifest file is invalid format");
  EXPECT_EQ(parseError("file " + std::string(2000, 'x') + " seq 1 type b\n"),
            "The AOF manifest file contains too long line");
}

TEST(AofManifest, FileNames) {
  EXPECT_EQ(manifestName("appendonly.aof"), "appendonly.aof.manifest");
  EXPECT_EQ(baseName("appendonly.aof", 4, true), "appendonly.aof.4.base.rdb");
  EXPECT_EQ(baseName("appendonly.aof", 4, false), "appendonly.aof.4.base.aof");
  EXPECT_EQ(incrName("appendonly.aof", 12), "appendonly.aof.12.incr.aof");
}

}  // namespace
}  // namespace server::persist::aof
