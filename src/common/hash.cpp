// Secret and seed generation for common/hash.h. Kept out of the header so the
// getrandom() call and its fallback live in one place.
#include "common/hash.h"

#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <atomic>

namespace common {

namespace {

// One step of a 64-bit counter-based mixer (splitmix finaliser constants):
// turns consecutive counters into unrelated words.
uint64_t splitMix(uint64_t& state) {
  uint64_t z = (state += hash_detail::kC0);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Reads 8 random bytes from the kernel. If getrandom() is unavailable (very
// old kernel, seccomp) fall back to clock, pid and an address: weaker, but
// the hash still works, it only loses flooding resistance.
uint64_t kernelRandom() {
  uint64_t v = 0;
  if (getrandom(&v, sizeof v, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof v)) return v;
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t mix = static_cast<uint64_t>(ts.tv_nsec) ^ (static_cast<uint64_t>(ts.tv_sec) << 32) ^
                 (static_cast<uint64_t>(getpid()) << 16) ^ reinterpret_cast<uintptr_t>(&v);
  return splitMix(mix);
}

}  // namespace

HashSecret makeHashSecret(uint64_t seed) {
  HashSecret s;
  for (auto& word : s.k) word = splitMix(seed) | 1;  // odd words never zero a product
  return s;
}

namespace hash_detail {
HashSecret g_secret;
std::atomic<bool> g_secret_ready{false};

const HashSecret& makeProcessHashSecret() {
  // A function-local static makes it once, whichever thread comes first.
  static const bool made = [] {
    g_secret = makeHashSecret(kernelRandom());
    g_secret_ready.store(true, std::memory_order_release);
    return true;
  }();
  (void)made;
  return g_secret;
}
}  // namespace hash_detail

uint64_t randomSeedForThread() {
  static std::atomic<uint64_t> counter{0};
  uint64_t state = kernelRandom() ^ counter.fetch_add(1, std::memory_order_relaxed);
  return splitMix(state);
}

}  // namespace common
