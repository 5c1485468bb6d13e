#include "server/commands/types/string_algo.h"

#include <memory>

namespace server::stralgo {

bool clampRange(int64_t start, int64_t end, size_t len, size_t* from, size_t* count) {
  // Both negative and inverted ("-1 -5") is empty before any clamping:
  // clamping would otherwise turn it into a one-byte range.
  if (start < 0 && end < 0 && start > end) return false;
  const int64_t n = static_cast<int64_t>(len);
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= n) end = n - 1;
  if (n == 0 || start > end) return false;
  *from = static_cast<size_t>(start);
  *count = static_cast<size_t>(end - start + 1);
  return true;
}

uint64_t lcsTableBytes(size_t alen, size_t blen) {
  const unsigned __int128 cells = static_cast<unsigned __int128>(alen + 1) * (blen + 1);
  const unsigned __int128 bytes = cells * sizeof(uint32_t);
  if (bytes >= UINT64_MAX) return UINT64_MAX;
  return static_cast<uint64_t>(bytes);
}

LcsResult computeLcs(std::string_view a, std::string_view b, bool want_text, bool want_matches) {
  const size_t alen = a.size();
  const size_t blen = b.size();
  const size_t stride = blen + 1;
  // table[i * stride + j] = LCS length of a[0..i) and b[0..j). Row 0 and
  // column 0 stay zero.
  std::unique_ptr<uint32_t[]> table(new uint32_t[(alen + 1) * stride]());
  for (size_t i = 1; i <= alen; i++) {
    uint32_t* row = &table[i * stride];
    const uint32_t* up = &table[(i - 1) * stride];
    for (size_t j = 1; j <= blen; j++) {
      if (a[i - 1] == b[j - 1])
        row[j] = up[j - 1] + 1;
      else
        row[j] = up[j] > row[j - 1] ? up[j] : row[j - 1];
    }
  }
  auto at = [&](size_t i, size_t j) { return table[i * stride + j]; };

  LcsResult out;
  out.length = at(alen, blen);
  if (!want_text && !want_matches) return out;
  if (want_text) out.text.assign(out.length, '\0');

  // Walk back from the corner. Consecutive diagonal steps form one run;
  // a run ends at the first non-diagonal step or at the start of a string.
  size_t i = alen, j = blen, pos = out.length;
  bool in_run = false;
  LcsRange run{};
  while (i > 0 && j > 0) {
    if (a[i - 1] == b[j - 1]) {
      if (want_text) out.text[--pos] = a[i - 1];
      i--;
      j--;
      if (!in_run) {
        run = {static_cast<uint32_t>(i), static_cast<uint32_t>(i), static_cast<uint32_t>(j),
               static_cast<uint32_t>(j)};
        in_run = true;
      } else {
        run.a_start = static_cast<uint32_t>(i);
        run.b_start = static_cast<uint32_t>(j);
      }
      if (i == 0 || j == 0) {
        if (want_matches) out.matches.push_back(run);
        in_run = false;
      }
      continue;
    }
    if (at(i - 1, j) > at(i, j - 1))
      i--;
    else
      j--;
    if (in_run) {
      if (want_matches) out.matches.push_back(run);
      in_run = false;
    }
  }
  return out;
}

}  // namespace server::stralgo
