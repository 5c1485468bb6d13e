#include "server/core/command.h"

#include <cctype>

#include "common/hash.h"
#include "common/strutil.h"

namespace server {

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

void CommandTable::rebuildIndex() {
  size_t size = 16;
  while (size < names_.size() * 4) size *= 2;
  index_.assign(size, -1);
  for (size_t k = 0; k < names_.size(); k++) {
    const std::string& n = names_[k].first;
    size_t i = common::hashBytesNoCase(n.data(), n.size()) & (size - 1);
    while (index_[i] != -1) i = (i + 1) & (size - 1);
    index_[i] = static_cast<int32_t>(k);
  }
}

bool CommandTable::rename(std::string_view from, std::string_view to, std::string* err) {
  auto it = names_.begin();
  while (it != names_.end() && !strutil::equalsIgnoreCase(it->first, from)) ++it;
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
  if (count_index >= argv.size() || !strutil::parseInt64(argv[count_index], &n) || n <= 0 ||
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
  size_t i = common::hashBytesNoCase(name.data(), name.size()) & mask;
  while (index_[i] != -1) {
    const auto& entry = names_[static_cast<size_t>(index_[i])];
    if (strutil::equalsIgnoreCase(entry.first, name)) return entry.second;
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
        strutil::equalsIgnoreCase(sn.substr(pname.size() + 1), sub))
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
