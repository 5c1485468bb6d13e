// SHA-1 (FIPS 180-4), for DEBUG DIGEST only: not used for anything where
// collision resistance matters.
#pragma once

#include <cstddef>
#include <cstdint>

namespace persist {

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

}  // namespace persist
