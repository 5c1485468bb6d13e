#include "common/crc64.h"

#include <gtest/gtest.h>

#include <string>

namespace common {

TEST(Crc64, KnownValues) {
  EXPECT_EQ(crc64(0, "123456789", 9), 0xe9c6d914c4b8d9caULL);
  EXPECT_EQ(crc64(0, "", 0), 0u);
  // Continuing over pieces equals one pass.
  EXPECT_EQ(crc64(crc64(0, "1234", 4), "56789", 5), 0xe9c6d914c4b8d9caULL);
}

TEST(Crc64, IncrementalEqualsWhole) {
  std::string s;
  for (int i = 0; i < 1000; i++) s.push_back(static_cast<char>(i * 7));
  uint64_t whole = crc64(0, s.data(), s.size());
  for (size_t cut : {1u, 7u, 8u, 9u, 500u}) {
    uint64_t c = crc64(0, s.data(), cut);
    EXPECT_EQ(crc64(c, s.data() + cut, s.size() - cut), whole) << cut;
  }
}

}  // namespace common
