// Pure string algorithms behind GETRANGE/SUBSTR and LCS, kept apart from
// the command code so they can be unit-tested without a server.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace server::stralgo {

// GETRANGE's index rules: negative indexes count from the end, both ends are
// inclusive and clamped to the string. Returns false when the range is
// empty; otherwise *from and *count select the bytes.
bool clampRange(int64_t start, int64_t end, size_t len, size_t* from, size_t* count);

// One run of consecutive matching bytes of the LCS: a[a_start..a_end] equals
// b[b_start..b_end] (inclusive, both of length a_end - a_start + 1).
struct LcsRange {
  uint32_t a_start, a_end, b_start, b_end;
  uint32_t length() const { return a_end - a_start + 1; }
};

struct LcsResult {
  uint32_t length = 0;            // length of the longest common subsequence
  std::string text;               // the subsequence itself (when asked for)
  std::vector<LcsRange> matches;  // every run, last run of a first (when asked for)
};

// Bytes of the dynamic-programming table LCS needs for strings of these
// lengths; the caller compares it with its memory limit before calling
// computeLcs. UINT64_MAX when it cannot even be represented.
uint64_t lcsTableBytes(size_t alen, size_t blen);

// Longest common subsequence of a and b. The walk back from the table's
// corner steps back in a only when that keeps a strictly longer
// subsequence than stepping back in b, and reports runs from the end of the
// strings towards the start: the same choices and order Redis's LCS reply
// shows, so IDX output matches it range for range.
LcsResult computeLcs(std::string_view a, std::string_view b, bool want_text, bool want_matches);

}  // namespace server::stralgo
