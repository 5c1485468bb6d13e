// SHA-1 (FIPS 180-4): script names (EVALSHA, redis.sha1hex) and DEBUG DIGEST,
// where Redis uses it; never for anything where collision resistance matters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace common {

class Sha1 {
 public:
  Sha1();
  void update(const void* data, size_t len);
  void final(uint8_t out[20]);

 private:
  void block(const uint8_t* p);
  uint32_t h_[5];
  uint64_t total_ = 0;
  uint8_t buf_[64];
  size_t used_ = 0;
};

// 40 lower-case hex digits of data's SHA-1.
std::string sha1Hex(std::string_view data);

}  // namespace common
