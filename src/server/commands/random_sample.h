// Distinct random picks for SRANDMEMBER / HRANDFIELD / SPOP with a positive
// count smaller than the collection. Two strategies, as Redis uses:
//   - copy every element and shuffle the first `count` places (compact
//     encodings, whose random access is O(n), and counts that are a large
//     part of the collection);
//   - otherwise draw random elements and skip repeats (few picks from a big
//     hashtable, where a draw is O(1) and repeats are rare).
#pragma once

#include <cstddef>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/hash.h"

namespace server {

// Above this count/size ratio a draw would often repeat: copy instead.
inline constexpr size_t kSampleCopyRatio = 3;

// T is the element copy (std::string, a field/value pair ...).
//   copy_all: use the copy strategy regardless of the ratio
//   collect(std::vector<T>*): appends every element
//   draw(): one random element as a T
//   key(const T&): the part that identifies an element (for repeats)
template <class T, class Collect, class Draw, class Key>
std::vector<T> sampleDistinct(size_t size, size_t count, bool copy_all, Collect collect, Draw draw,
                              Key key) {
  std::vector<T> picked;
  if (copy_all || count * kSampleCopyRatio > size) {
    picked.reserve(size);
    collect(&picked);
    for (size_t i = 0; i < count; i++) {
      std::swap(picked[i], picked[i + common::randomU64() % (size - i)]);
    }
    picked.resize(count);
    return picked;
  }
  std::unordered_set<std::string> seen;
  while (picked.size() < count) {
    T t = draw();
    if (seen.emplace(key(t)).second) picked.push_back(std::move(t));
  }
  return picked;
}

}  // namespace server
