#include "server/core/key_spec.h"

#include <charconv>

#include "common/strutil.h"

namespace server {

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (;;) {
    size_t at = s.find(sep);
    parts.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return parts;
    s.remove_prefix(at + 1);
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  for (std::string_view w : split(trim(s), ' '))
    if (!w.empty()) out.push_back(w);
  return out;
}

bool toInt(std::string_view w, int* v) {
  auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), *v);
  return ec == std::errc() && p == w.data() + w.size();
}

bool parseOne(std::string_view text, KeySpec* k, std::string* err) {
  std::vector<std::string_view> parts = split(text, ';');
  if (parts.size() != 3) {
    *err = "a spec needs 'flags; begin; find'";
    return false;
  }
  for (std::string_view f : words(parts[0])) k->flags.emplace_back(f);
  std::vector<std::string_view> b = words(parts[1]);
  if (b.size() == 2 && b[0] == "index" && toInt(b[1], &k->index)) {
    k->begin = KeySpec::Begin::kIndex;
  } else if (b.size() == 3 && b[0] == "keyword" && toInt(b[2], &k->startfrom)) {
    k->begin = KeySpec::Begin::kKeyword;
    k->keyword = std::string(b[1]);
  } else if (b.size() == 1 && b[0] == "unknown") {
    k->begin = KeySpec::Begin::kUnknown;
  } else {
    *err = "bad begin_search '" + std::string(trim(parts[1])) + "'";
    return false;
  }
  std::vector<std::string_view> f = words(parts[2]);
  if (f.size() == 4 && f[0] == "range" && toInt(f[1], &k->lastkey) && toInt(f[2], &k->keystep) &&
      toInt(f[3], &k->limit)) {
    k->find = KeySpec::Find::kRange;
  } else if (f.size() == 4 && f[0] == "keynum" && toInt(f[1], &k->keynumidx) &&
             toInt(f[2], &k->firstkey) && toInt(f[3], &k->keystep)) {
    k->find = KeySpec::Find::kKeynum;
  } else if (f.size() == 1 && f[0] == "unknown") {
    k->find = KeySpec::Find::kUnknown;
  } else {
    *err = "bad find_keys '" + std::string(trim(parts[2])) + "'";
    return false;
  }
  if (k->keystep <= 0) {
    *err = "keystep must be positive";
    return false;
  }
  return true;
}

}  // namespace

bool parseKeySpecs(std::string_view line, std::vector<KeySpec>* out, std::string* err) {
  out->clear();
  if (trim(line).empty()) return true;
  for (std::string_view text : split(line, '|')) {
    KeySpec k;
    if (!parseOne(text, &k, err)) return false;
    out->push_back(std::move(k));
  }
  return true;
}

void keysOfSpec(const KeySpec& spec, const std::vector<std::string_view>& argv,
                std::vector<size_t>* out) {
  const int argc = static_cast<int>(argv.size());
  int first = 0;
  switch (spec.begin) {
    case KeySpec::Begin::kIndex:
      first = spec.index;
      break;
    case KeySpec::Begin::kKeyword: {
      // The key follows the keyword; the search never looks at argv[0].
      first = -1;
      int from = spec.startfrom >= 0 ? spec.startfrom : argc + spec.startfrom;
      int step = spec.startfrom >= 0 ? 1 : -1;
      for (int i = from; i >= 1 && i < argc; i += step) {
        if (common::strutil::equalsIgnoreCase(argv[static_cast<size_t>(i)], spec.keyword)) {
          first = i + 1;
          break;
        }
      }
      if (first < 0) return;
      break;
    }
    case KeySpec::Begin::kUnknown:
      return;
  }
  if (first <= 0 || first >= argc) return;
  int last = 0;
  int step = spec.keystep;
  switch (spec.find) {
    case KeySpec::Find::kRange:
      if (spec.lastkey >= 0)
        last = first + spec.lastkey;
      else if (spec.limit == 0)
        last = argc + spec.lastkey;
      else
        last = first + (argc - first) / spec.limit + spec.lastkey;
      break;
    case KeySpec::Find::kKeynum: {
      int at = first + spec.keynumidx;
      int64_t n;
      if (at >= argc || !common::strutil::parseInt64(argv[static_cast<size_t>(at)], &n) || n <= 0 ||
          n > argc)
        return;
      first += spec.firstkey;
      last = first + (static_cast<int>(n) - 1) * step;
      break;
    }
    case KeySpec::Find::kUnknown:
      return;
  }
  for (int i = first; i <= last && i < argc; i += step) out->push_back(static_cast<size_t>(i));
}

}  // namespace server
