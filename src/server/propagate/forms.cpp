#include "server/propagate/forms.h"

#include <strings.h>

#include <string>
#include <vector>

#include "server/propagate/propagate.h"

namespace server::propagate {

void asSetPxat(std::string_view key, std::string_view value, int64_t when_ms) {
  std::string ms = std::to_string(when_ms);
  rewrite({"SET", key, value, "PXAT", ms});
}

void asPexpireat(std::span<const std::string_view> argv, int64_t when_ms) {
  std::string ms = std::to_string(when_ms);
  std::vector<std::string_view> out = {"PEXPIREAT", argv[1], ms};
  for (size_t i = 3; i < argv.size(); i++) out.push_back(argv[i]);
  rewrite(out);
}

void asDel(std::string_view key, bool unlink) {
  rewrite({unlink ? "UNLINK" : "DEL", key});
}

void asWithout(std::span<const std::string_view> argv, size_t from, std::string_view token) {
  std::vector<std::string_view> out;
  for (size_t i = 0; i < argv.size(); i++) {
    bool drop = i >= from && argv[i].size() == token.size() &&
                strncasecmp(argv[i].data(), token.data(), token.size()) == 0;
    if (!drop) out.push_back(argv[i]);
  }
  rewrite(out);
}

}  // namespace server::propagate
