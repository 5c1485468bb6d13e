#include "server/acl/user.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "common/strutil.h"
#include "server/acl/catalog.h"
#include "server/acl/sha256.h"

namespace server::acl {

bool g_pubsub_default_all = false;

namespace {

const char kUnknownName[] = "Unknown command or category name in ACL";
const char kSyntax[] = "Syntax error";

bool validHash(std::string_view h) {
  if (h.size() != 64) return false;
  for (char ch : h) {
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) return false;
  }
  return true;
}

// The digest a password rule names: the SHA-256 of the clear text after a
// `clear` marker ('>' or '<'), else the 64 hex digits after '#' or '!'.
// False, with the error, when those are not a valid digest.
bool ruleDigest(std::string_view rule, char clear, std::string* h, std::string* err) {
  std::string_view rest = rule.substr(1);
  if (rule[0] == clear) {
    *h = sha256Hex(rest);
  } else if (validHash(rest)) {
    *h = std::string(rest);
  } else {
    *err =
        "The password hash must be exactly 64 characters and contain only lowercase "
        "hexadecimal characters";
    return false;
  }
  return true;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
  return out;
}

// Constant-time equality of two hex digests: how long a comparison takes
// must not tell how much of a guess was right.
bool sameDigest(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned diff = 0;
  for (size_t i = 0; i < a.size(); i++) diff |= static_cast<unsigned>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

// ---------------------------------------------------------------- Selector

Selector::Selector() : allowed_((commandCount() + 63) / 64, 0) {
  all_channels_ = g_pubsub_default_all;
}

void Selector::setCommandBit(int id, bool on) {
  uint64_t bit = uint64_t{1} << (id & 63);
  if (on)
    allowed_[id >> 6] |= bit;
  else
    allowed_[id >> 6] &= ~bit;
  first_args_.erase(id);
}

void Selector::changeCommand(int id, bool on) {
  setCommandBit(id, on);
  for (server::Command& sub : commandInfo(id).cmd->subcommands) setCommandBit(sub.acl_id, on);
}

void Selector::changeCategory(int cat, bool on) {
  for (size_t id = 0; id < commandCount(); id++) {
    if (commandInfo(static_cast<int>(id)).categories & (1u << cat))
      setCommandBit(static_cast<int>(id), on);
  }
}

bool Selector::allowsFirstArg(int id, std::string_view argv1) const {
  auto it = first_args_.find(id);
  if (it == first_args_.end()) return false;
  for (const std::string& a : it->second) {
    if (common::strutil::equalsIgnoreCase(a, argv1)) return true;
  }
  return false;
}

bool Selector::allowsKeyGlob(const KeyPattern& p, std::string_view key) {
  return common::strutil::globMatch(p.pattern, key);
}

bool Selector::allowsChannel(std::string_view channel, bool literal) const {
  if (all_channels_) return true;
  for (const std::string& p : channels_) {
    if (literal ? p == channel : common::strutil::globMatch(p, channel)) return true;
  }
  return false;
}

void Selector::resetChannels(bool all) {
  channels_.clear();
  all_channels_ = all;
}

bool Selector::setKeyRule(std::string_view rule, std::string* err) {
  uint8_t perms = 0;
  std::string_view pattern;
  if (rule[0] == '~') {
    perms = kPermRead | kPermWrite;
    pattern = rule.substr(1);
  } else {
    size_t tilde = rule.find('~');
    if (tilde == std::string_view::npos || tilde == 1) {
      *err = kSyntax;
      return false;
    }
    for (char ch : rule.substr(1, tilde - 1)) {
      if (ch == 'R' || ch == 'r')
        perms |= kPermRead;
      else if (ch == 'W' || ch == 'w')
        perms |= kPermWrite;
      else {
        *err = kSyntax;
        return false;
      }
    }
    pattern = rule.substr(tilde + 1);
  }
  if (all_keys_) {
    *err =
        "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not "
        "have any effect. Try 'resetkeys' to start with an empty list of patterns";
    return false;
  }
  if (pattern == "*" && perms == (kPermRead | kPermWrite)) {
    all_keys_ = true;
    keys_.clear();
    return true;
  }
  for (KeyPattern& k : keys_) {
    if (k.pattern == pattern) {
      k.perms |= perms;
      return true;
    }
  }
  KeyPattern kp{std::string(pattern), perms};
  // Glob specials: * ? [ and \ (escape). Only a single trailing '*' or none
  // at all gets the byte-compare path.
  size_t special = pattern.find_first_of("*?[\\");
  if (special == std::string_view::npos)
    kp.kind = KeyPattern::Kind::kExact;
  else if (special == pattern.size() - 1 && pattern.back() == '*')
    kp.kind = KeyPattern::Kind::kPrefix;
  size_t n = pattern.size() - 1;
  if (kp.kind == KeyPattern::Kind::kPrefix && n <= 8 && n > 0) {
    // Little-endian: the prefix's bytes are the word's low bytes.
    static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "prefix words assume little-endian");
    char buf[8] = {};
    memcpy(buf, pattern.data(), n);
    memcpy(&kp.prefix_word, buf, 8);
    kp.prefix_mask = n == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1;
  }
  keys_.push_back(std::move(kp));
  return true;
}

bool Selector::setRule(std::string_view rule, std::string* err) {
  if (rule.empty()) {
    *err = kSyntax;
    return false;
  }
  std::string low = lower(rule);
  if (low == "allkeys") {
    all_keys_ = true;
    keys_.clear();
    return true;
  }
  if (low == "resetkeys") {
    all_keys_ = false;
    keys_.clear();
    return true;
  }
  if (low == "allchannels" || rule == "&*") {
    all_channels_ = true;
    channels_.clear();
    return true;
  }
  if (low == "resetchannels") {
    resetChannels(false);
    return true;
  }
  if (rule[0] == '~' || rule[0] == '%') return setKeyRule(rule, err);
  if (rule[0] == '&') {
    if (all_channels_) {
      *err =
          "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and "
          "does not have any effect. Try 'resetchannels' to start with an empty list of channels";
      return false;
    }
    std::string ch(rule.substr(1));
    if (std::find(channels_.begin(), channels_.end(), ch) == channels_.end())
      channels_.push_back(ch);
    return true;
  }
  if (low == "allcommands" || low == "+@all") {
    std::fill(allowed_.begin(), allowed_.end(), ~uint64_t{0});
    all_commands_ = true;
    first_args_.clear();
    return true;
  }
  if (low == "nocommands" || low == "-@all") {
    std::fill(allowed_.begin(), allowed_.end(), 0);
    all_commands_ = false;
    first_args_.clear();
    return true;
  }
  if (rule[0] != '+' && rule[0] != '-') {
    *err = kSyntax;
    return false;
  }
  bool on = rule[0] == '+';
  if (rule.size() > 1 && rule[1] == '@') {
    int cat = categoryIndex(rule.substr(2));
    if (cat < 0) {
      *err = kUnknownName;
      return false;
    }
    changeCategory(cat, on);
  } else {
    std::string first_arg;
    bool bad_sub = false;
    server::Command* cmd = lookupRuleCommand(rule.substr(1), &first_arg, &bad_sub);
    if (bad_sub && on) {
      *err = "Allowing first-arg of a subcommand is not supported";
      return false;
    }
    if (cmd == nullptr || (!first_arg.empty() && !on)) {
      *err = kUnknownName;
      return false;
    }
    int id = cmd->acl_id;
    if (!first_arg.empty()) {
      // A first argument only matters while the whole command is denied.
      if (allowsCommand(id)) return true;
      auto& args = first_args_[id];
      std::string la = lower(first_arg);
      if (std::find(args.begin(), args.end(), la) == args.end()) args.push_back(la);
    } else if (commandInfo(id).parent == nullptr) {
      changeCommand(id, on);
    } else {
      setCommandBit(id, on);
    }
  }
  return true;
}

// Redis 7.0 keeps no rule text: it rebuilds a description from the bitmap.
// Start from +@all (when future commands are allowed) or -@all; then, while
// some category has more commands agreeing with the selector than not,
// name the one with the fewest commands that disagree (ties: the most that
// agree, then the first in category order). The counting runs on a scratch
// bitmap in which every named category counts as settled (its commands take
// the value opposite to the rule, so they agree no more). Last, name each
// single command (then its subcommands, then its first arguments) whose
// bit still differs from what the named rules give. Redis walks its
// commands in hash-table order, which changes from run to run; we walk
// ours in table order.
std::string Selector::describeCommands() const {
  const bool additive = !all_commands_;
  std::string out = additive ? "-@all" : "+@all";
  const size_t n = commandCount();
  auto bit = [](const std::vector<uint64_t>& map, size_t id) {
    return ((map[id >> 6] >> (id & 63)) & 1) != 0;
  };
  auto set = [](std::vector<uint64_t>& map, size_t id, bool on) {
    uint64_t b = uint64_t{1} << (id & 63);
    if (on)
      map[id >> 6] |= b;
    else
      map[id >> 6] &= ~b;
  };
  // shown: what the rules printed so far give; scratch: the selector's
  // bitmap with the named categories settled.
  std::vector<uint64_t> shown(allowed_.size(), additive ? 0 : ~uint64_t{0});
  std::vector<uint64_t> scratch = allowed_;
  bool named[kCategoryCount] = {};
  for (;;) {
    int best = -1;
    size_t min_diff = SIZE_MAX, max_same = 0;
    for (int cat = 0; cat < kCategoryCount; cat++) {
      if (named[cat]) continue;
      const uint32_t mask = 1u << cat;
      size_t on = 0, off = 0;
      for (size_t id = 0; id < n; id++) {
        if (commandInfo(static_cast<int>(id)).categories & mask) (bit(scratch, id) ? on : off)++;
      }
      size_t diff = additive ? off : on, same = additive ? on : off;
      if (same > diff && (diff < min_diff || (diff == min_diff && same > max_same))) {
        best = cat;
        min_diff = diff;
        max_same = same;
      }
    }
    if (best < 0) break;
    named[best] = true;
    out += additive ? " +@" : " -@";
    out += kCategoryNames[best];
    for (size_t id = 0; id < n; id++) {
      if (!(commandInfo(static_cast<int>(id)).categories & (1u << best))) continue;
      set(shown, id, additive);
      set(scratch, id, !additive);
    }
  }
  auto single = [&](size_t id) {
    const bool mine = bit(allowed_, id);
    const CommandInfo& info = commandInfo(static_cast<int>(id));
    if (mine != bit(shown, id)) {
      out += mine ? " +" : " -";
      out += info.full_name;
      set(shown, id, mine);
      if (info.parent == nullptr) {
        for (const server::Command& sub : info.cmd->subcommands)
          set(shown, static_cast<size_t>(sub.acl_id), mine);
      }
    }
    return mine;
  };
  for (size_t id = 0; id < n; id++) {
    const CommandInfo& info = commandInfo(static_cast<int>(id));
    if (info.parent != nullptr) continue;
    const bool mine = single(id);
    for (const server::Command& sub : info.cmd->subcommands)
      single(static_cast<size_t>(sub.acl_id));
    auto it = first_args_.find(static_cast<int>(id));
    if (mine || it == first_args_.end()) continue;
    for (const std::string& a : it->second) out += " +" + info.full_name + "|" + a;
  }
  return out;
}

std::string Selector::describeKeys() const {
  if (all_keys_) return "~*";
  std::string out;
  for (const KeyPattern& k : keys_) {
    if (!out.empty()) out += ' ';
    if (k.perms == kPermRead)
      out += "%R";
    else if (k.perms == kPermWrite)
      out += "%W";
    out += "~" + k.pattern;
  }
  return out;
}

std::string Selector::describeChannels() const {
  if (all_channels_) return "&*";
  std::string out;
  for (const std::string& ch : channels_) {
    if (!out.empty()) out += ' ';
    out += "&" + ch;
  }
  return out;
}

std::string Selector::describe() const {
  std::string out = describeKeys();
  if (!out.empty()) out += ' ';
  if (all_channels_) {
    out += "&* ";
  } else {
    out += "resetchannels ";
    std::string ch = describeChannels();
    if (!ch.empty()) out += ch + " ";
  }
  return out + describeCommands();
}

// -------------------------------------------------------------------- User

User::User(std::string name) : name_(std::move(name)) {
  selectors_.emplace_back();
  refresh();
}

const char* User::sanitizeFlag() const {
  return sanitize_ == 1 ? "sanitize-payload" : sanitize_ == 2 ? "skip-sanitize-payload" : "";
}

bool User::checkPassword(std::string_view pass) const {
  if (nopass_) return true;
  std::string h = sha256Hex(pass);
  bool ok = false;
  for (const std::string& p : passwords_) ok |= sameDigest(p, h);
  return ok;
}

void User::refresh() {
  const Selector& root = selectors_[0];
  bool all = root.allCommands() && root.allKeys() && root.allChannels();
  for (size_t id = 0; all && id < commandCount(); id++) {
    if (!root.allowsCommand(static_cast<int>(id))) all = false;
  }
  unrestricted_ = all;
}

bool User::setRule(std::string_view rule, std::string* err) {
  bool ok = true;
  std::string low = lower(rule);
  if (low == "on") {
    enabled_ = true;
  } else if (low == "off") {
    enabled_ = false;
  } else if (low == "nopass") {
    nopass_ = true;
    passwords_.clear();
  } else if (low == "resetpass") {
    nopass_ = false;
    passwords_.clear();
  } else if (low == "skip-sanitize-payload") {
    sanitize_ = 2;
  } else if (low == "sanitize-payload") {
    sanitize_ = 1;
  } else if (low == "clearselectors") {
    selectors_.resize(1);
  } else if (low == "reset") {
    nopass_ = false;
    passwords_.clear();
    enabled_ = false;
    sanitize_ = 1;  // Redis 7.0's reset includes sanitize-payload
    selectors_.clear();
    selectors_.emplace_back();
    selectors_[0].resetChannels(g_pubsub_default_all);
  } else if (!rule.empty() && (rule[0] == '>' || rule[0] == '#')) {
    std::string h;
    if (!ruleDigest(rule, '>', &h, err)) return false;
    if (std::find(passwords_.begin(), passwords_.end(), h) == passwords_.end())
      passwords_.push_back(h);
    nopass_ = false;
  } else if (!rule.empty() && (rule[0] == '<' || rule[0] == '!')) {
    std::string h;
    if (!ruleDigest(rule, '<', &h, err)) return false;
    auto it = std::find(passwords_.begin(), passwords_.end(), h);
    if (it == passwords_.end()) {
      *err = "The password you are trying to remove from the user does not exist";
      return false;
    }
    passwords_.erase(it);
  } else if (!rule.empty() && rule[0] == '(' && rule.back() == ')') {
    Selector sel;
    std::string_view body = rule.substr(1, rule.size() - 2);
    std::vector<std::string> words;
    size_t i = 0;
    while (i < body.size()) {
      size_t sp = body.find(' ', i);
      if (sp == std::string_view::npos) sp = body.size();
      if (sp > i) words.emplace_back(body.substr(i, sp - i));
      i = sp + 1;
    }
    for (const std::string& w : words) {
      if (!sel.setRule(w, err)) return false;
    }
    selectors_.push_back(std::move(sel));
  } else {
    // Root-selector rules are applied on a copy: a failed rule leaves
    // the user untouched.
    Selector copy = selectors_[0];
    ok = copy.setRule(rule, err);
    if (ok) selectors_[0] = std::move(copy);
  }
  refresh();
  return ok;
}

std::string User::describe() const {
  std::string out = "user " + name_ + (enabled_ ? " on" : " off");
  if (nopass_) out += " nopass";
  if (sanitize_ != 0) out += std::string(" ") + sanitizeFlag();
  for (const std::string& p : passwords_) out += " #" + p;
  out += " " + selectors_[0].describe();
  for (size_t i = 1; i < selectors_.size(); i++) out += " (" + selectors_[i].describe() + ")";
  return out;
}

bool validUserName(std::string_view name) {
  for (char ch : name) {
    if (ch == ' ' || ch == '\0') return false;
  }
  return !name.empty();
}

}  // namespace server::acl
