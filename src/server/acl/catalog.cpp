#include "server/acl/catalog.h"

#include "common/strutil.h"
#include "server/core/command.h"

namespace server::acl {

namespace detail {
std::vector<CommandInfo> g_catalog;
}  // namespace detail

namespace {

using detail::g_catalog;

template <typename Fn>
void forEachWord(std::string_view s, Fn fn) {
  while (!s.empty()) {
    size_t sp = s.find(' ');
    std::string_view w = s.substr(0, sp);
    if (!w.empty()) fn(w);
    if (sp == std::string_view::npos) break;
    s.remove_prefix(sp + 1);
  }
}

void addCommand(server::Command* cmd, server::Command* parent) {
  CommandInfo info;
  info.cmd = cmd;
  info.parent = parent;
  forEachWord(cmd->acl_categories ? cmd->acl_categories : "", [&](std::string_view w) {
    int i = categoryIndex(w);
    if (i >= 0) info.categories |= 1u << i;
  });
  info.full_name = cmd->name;
  for (const server::KeySpec& k : cmd->key_specs) {
    std::string joined;
    bool is_key = true;
    for (const std::string& f : k.flags) {
      joined += f + " ";
      if (f == "not_key") is_key = false;
    }
    info.spec_perms.push_back(permsOfFlags(joined));
    info.spec_is_key.push_back(is_key);
  }
  info.all_fixed = cmd->keys_proc == nullptr;
  for (size_t i = 0; i < cmd->key_specs.size() && info.all_fixed; i++) {
    const server::KeySpec& k = cmd->key_specs[i];
    if (!info.spec_is_key[i]) continue;
    if (k.begin != server::KeySpec::Begin::kIndex || k.find != server::KeySpec::Find::kRange ||
        (k.lastkey < 0 && k.limit != 0) || k.keystep <= 0) {
      info.all_fixed = false;
      break;
    }
    info.fixed.push_back({k.index, k.lastkey, k.keystep, info.spec_perms[i]});
  }
  if (!info.all_fixed) info.fixed.clear();
  if (info.all_fixed && info.fixed.size() == 1 && info.fixed[0].first > 0 &&
      info.fixed[0].lastkey == 0) {
    info.single_key = info.fixed[0].first;
    info.single_key_perms = info.fixed[0].perms;
  }
  std::string_view n = cmd->name;
  if (n == "publish" || n == "spublish")
    info.channels = ChannelArgs::kFirst;
  else if (n == "subscribe" || n == "ssubscribe")
    info.channels = ChannelArgs::kAll;
  else if (n == "psubscribe")
    info.channels = ChannelArgs::kPatterns;
  if (info.channels != ChannelArgs::kNone) info.single_key = 0;
  cmd->acl_id = static_cast<int>(g_catalog.size());
  g_catalog.push_back(std::move(info));
}

}  // namespace

uint8_t permsOfFlags(std::string_view flags) {
  uint8_t p = 0;
  forEachWord(flags, [&](std::string_view f) {
    if (f == "access") p |= kPermRead;
    if (f == "insert" || f == "delete" || f == "update") p |= kPermWrite;
  });
  return p;
}

void buildCatalog() {
  g_catalog.clear();
  for (server::Command* cmd : server::g_commands->all()) {
    addCommand(cmd, nullptr);
    for (server::Command& sub : cmd->subcommands) addCommand(&sub, cmd);
  }
}

int categoryIndex(std::string_view name) {
  for (int i = 0; i < kCategoryCount; i++) {
    if (common::strutil::equalsIgnoreCase(name, kCategoryNames[i])) return i;
  }
  return -1;
}

server::Command* lookupRuleCommand(std::string_view name, std::string* first_arg, bool* bad_sub) {
  *bad_sub = false;
  first_arg->clear();
  size_t bar = name.find('|');
  server::Command* cmd = server::g_commands->find(name.substr(0, bar));
  if (cmd == nullptr || bar == std::string_view::npos) return cmd;
  std::string_view rest = name.substr(bar + 1);
  size_t bar2 = rest.find('|');
  if (cmd->subcommands.empty()) {
    // "select|0": a first argument; "get|a|b" names no command at all.
    if (rest.empty() || bar2 != std::string_view::npos) return nullptr;
    first_arg->assign(rest);
    return cmd;
  }
  if (bar2 != std::string_view::npos) {
    // "config|get|x": a first argument of a subcommand, which Redis
    // refuses; "config|nosuch|x" is an unknown name.
    *bad_sub = server::g_commands->findSub(cmd, rest.substr(0, bar2)) != nullptr;
    return nullptr;
  }
  return server::g_commands->findSub(cmd, rest);
}

}  // namespace server::acl
