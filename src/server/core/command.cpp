#include "server/core/command.h"

#include <cctype>
#include <cstring>

#include "common/hash.h"
#include "common/strutil.h"

namespace server {

CommandTable* g_commands = nullptr;

std::string Command::fullName() const {
  return name;
}

CommandTable::~CommandTable() {
  for (Command* c : cmds_) delete c;
}

void CommandTable::add(Command cmd) {
  cmds_.push_back(new Command(std::move(cmd)));
  names_.emplace_back(cmds_.back()->name, cmds_.back());
  rebuildIndex();
}

namespace {

// A name of up to 16 bytes as two little-endian words, ASCII lower-cased
// (equalsIgnoreCase folds A-Z only, as lowerAscii8 does) and zero-padded.
// Reads only [p, p+n): overlapping loads, shifted.
struct NameKey {
  uint64_t w0 = 0, w1 = 0;
};
inline uint64_t load8(const char* p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}
inline uint64_t load4(const char* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
inline NameKey shortKey(const char* p, size_t n) {
  NameKey k;
  if (n > 8) {
    k.w0 = load8(p);
    k.w1 = load8(p + n - 8) >> (8 * (16 - n));
  } else if (n == 8) {
    k.w0 = load8(p);
  } else if (n >= 4) {
    k.w0 = load4(p) | ((load4(p + n - 4) >> (8 * (8 - n))) << 32);
  } else if (n > 0) {
    const auto* u = reinterpret_cast<const unsigned char*>(p);
    k.w0 = static_cast<uint64_t>(u[0]) | (static_cast<uint64_t>(u[n / 2]) << (8 * (n / 2))) |
           (static_cast<uint64_t>(u[n - 1]) << (8 * (n - 1)));
  }
  k.w0 = common::hash_detail::lowerAscii8(k.w0);
  k.w1 = common::hash_detail::lowerAscii8(k.w1);
  return k;
}
// No secret is needed: the table's names are fixed, so a request can only
// choose which probe sequence it walks, never make one longer.
inline size_t shortHash(const NameKey& k, size_t n) {
  uint64_t h = (k.w0 ^ n) * 0x9E3779B97F4A7C15ull + k.w1 * 0xD1B54A32D192ED03ull;
  return static_cast<size_t>(h ^ (h >> 29));
}
constexpr size_t kShortName = 16;
inline size_t nameHash(const char* p, size_t n, NameKey* key) {
  if (n <= kShortName) {
    *key = shortKey(p, n);
    return shortHash(*key, n);
  }
  return common::hashBytesNoCase(p, n);
}

}  // namespace

void CommandTable::rebuildIndex() {
  size_t size = 16;
  while (size < names_.size() * 4) size *= 2;
  index_.assign(size, Slot{});
  for (size_t k = 0; k < names_.size(); k++) {
    const std::string& n = names_[k].first;
    NameKey key;
    size_t i = nameHash(n.data(), n.size(), &key) & (size - 1);
    while (index_[i].idx != -1) i = (i + 1) & (size - 1);
    index_[i] = Slot{static_cast<int32_t>(k), static_cast<uint32_t>(n.size()), key.w0, key.w1};
  }
}

bool CommandTable::rename(std::string_view from, std::string_view to, std::string* err) {
  auto it = names_.begin();
  while (it != names_.end() && !common::strutil::equalsIgnoreCase(it->first, from)) ++it;
  if (it == names_.end()) {
    *err = "No such command in rename-command";
    return false;
  }
  Command* cmd = it->second;
  names_.erase(it);
  rebuildIndex();
  if (!to.empty()) {
    if (find(to) != nullptr) {
      // As in Redis, the old name is gone even though the rename failed;
      // start-up stops anyway.
      *err = "Target command name already exists";
      return false;
    }
    names_.emplace_back(std::string(to), cmd);
  }
  rebuildIndex();
  return true;
}

std::vector<Command*> CommandTable::reachable() {
  std::vector<Command*> out;
  for (Command* c : cmds_) {
    for (const auto& n : names_) {
      if (n.second == c) {
        out.push_back(c);
        break;
      }
    }
  }
  return out;
}

bool keysAfterCount(const std::vector<std::string_view>& argv, size_t count_index,
                    std::vector<size_t>* out) {
  int64_t n;
  if (count_index >= argv.size() || !common::strutil::parseInt64(argv[count_index], &n) || n <= 0 ||
      static_cast<uint64_t>(n) > argv.size() - count_index - 1)
    return false;
  for (size_t i = 0; i < static_cast<size_t>(n); i++) out->push_back(count_index + 1 + i);
  return true;
}

void CommandTable::setKeysProc(std::string_view name, KeysProc proc) {
  Command* cmd = find(name);
  if (cmd == nullptr) abort();
  cmd->keys_proc = proc;
}

void CommandTable::setKeyFlagsProc(std::string_view name, KeyFlagsProc proc) {
  Command* cmd = find(name);
  if (cmd == nullptr) abort();
  cmd->key_flags_proc = proc;
}

Command* CommandTable::find(std::string_view name) {
  if (index_.empty()) return nullptr;
  size_t mask = index_.size() - 1;
  NameKey key;
  size_t i = nameHash(name.data(), name.size(), &key) & mask;
  const bool is_short = name.size() <= kShortName;
  while (index_[i].idx != -1) {
    const Slot& s = index_[i];
    if (s.len == name.size()) {
      const auto& entry = names_[static_cast<size_t>(s.idx)];
      if (is_short ? (s.w0 == key.w0 && s.w1 == key.w1)
                   : common::strutil::equalsIgnoreCase(entry.first, name))
        return entry.second;
    }
    i = (i + 1) & mask;
  }
  return nullptr;
}

Command* CommandTable::findSub(Command* parent, std::string_view sub) {
  std::string_view pname(parent->name);
  for (Command& s : parent->subcommands) {
    std::string_view sn(s.name);
    // Subcommand names are stored as "parent|sub".
    if (sn.size() == pname.size() + 1 + sub.size() &&
        common::strutil::equalsIgnoreCase(sn.substr(pname.size() + 1), sub))
      return &s;
  }
  return nullptr;
}

std::vector<Command*> CommandTable::all() {
  return cmds_;
}

std::vector<const char*> commandFlagNames(uint32_t flags) {
  static const struct {
    uint32_t flag;
    const char* name;
  } names[] = {
      {kWrite, "write"},
      {kReadOnly, "readonly"},
      {kDenyOom, "denyoom"},
      {kAdmin, "admin"},
      {kPubSub, "pubsub"},
      {kNoScript, "noscript"},
      {kBlocking, "blocking"},
      {kLoading, "loading"},
      {kStale, "stale"},
      {kSkipMonitor, "skip_monitor"},
      {kSkipSlowlog, "skip_slowlog"},
      {kAsking, "asking"},
      {kFast, "fast"},
      {kNoAuth, "no_auth"},
      // may_replicate is not shown: Redis 7.0 hides it on purpose.
      {kNoAsyncLoading, "no_async_loading"},
      {kNoMulti, "no_multi"},
      {kAllowBusy, "allow_busy"},
      {kNoMandatoryKeys, "no_mandatory_keys"},
  };
  std::vector<const char*> out;
  for (const auto& n : names) {
    if (flags & n.flag) out.push_back(n.name);
  }
  return out;
}

}  // namespace server
