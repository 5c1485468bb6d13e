// ACL users as Redis 7.0 has them: a name, on/off, passwords kept as
// SHA-256 hex digests (or nopass), and a root selector plus any number of
// extra selectors "(...)". A selector holds what a command may do: a
// bitmap of allowed commands (acl/catalog.h ids) with first-argument
// exceptions ("+select|0"), key patterns with read/write permissions and
// channel patterns. A command is allowed when any one selector allows all
// of it.
//
// setRule() applies one ACL SETUSER word; on error the user is left as it
// was before that word and *err holds Redis's reason (the caller adds the
// "Error in ACL SETUSER modifier '...'" frame).
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace server::acl {

struct KeyPattern {
  std::string pattern;
  uint8_t perms;  // kPermRead | kPermWrite (catalog.h)
  // How to match without the general glob: the usual "prefix*" and exact
  // names compare bytes (the check runs on every command).
  enum class Kind : uint8_t { kGlob, kExact, kPrefix } kind = Kind::kGlob;
  // kPrefix of at most 8 bytes: the prefix as a little-endian word and the
  // mask of its bytes, so a key of 8 bytes or more is checked with one load.
  uint64_t prefix_word = 0, prefix_mask = 0;
};

class Selector {
 public:
  Selector();
  // Applies one selector rule (commands, keys, channels). False with *err.
  bool setRule(std::string_view rule, std::string* err);
  // The rules that rebuild this selector, in ACL LIST order (keys,
  // channels, commands), and each part alone for ACL GETUSER.
  std::string describe() const;
  std::string describeCommands() const;
  std::string describeKeys() const;
  std::string describeChannels() const;

  bool allowsCommand(int id) const { return (allowed_[id >> 6] >> (id & 63)) & 1; }
  // argv1: the first argument when the command has no subcommands.
  bool allowsFirstArg(int id, std::string_view argv1) const;
  bool allKeys() const { return all_keys_; }
  bool allChannels() const { return all_channels_; }
  bool allCommands() const { return all_commands_; }
  bool hasFirstArgs() const { return !first_args_.empty(); }
  const std::vector<KeyPattern>& keys() const { return keys_; }
  const std::vector<std::string>& channels() const { return channels_; }
  // Whether the key (with the permissions it needs) matches a pattern.
  // Inline: it runs for every key of every command a restricted user sends.
  bool allowsKey(std::string_view key, uint8_t perms) const {
    if (all_keys_) return true;
    for (const KeyPattern& p : keys_) {
      if ((p.perms & perms) != perms) continue;
      const char* pat = p.pattern.data();
      size_t plen = p.pattern.size();
      switch (p.kind) {
        case KeyPattern::Kind::kExact:
          if (key.size() == plen && std::char_traits<char>::compare(key.data(), pat, plen) == 0)
            return true;
          break;
        case KeyPattern::Kind::kPrefix: {
          // Short prefixes are the rule ("app:*"): one masked word compare,
          // else a byte loop; no call either way.
          size_t n = plen - 1;
          if (key.size() < n) break;
          const char* k = key.data();
          if (p.prefix_mask != 0 && key.size() >= 8) {
            uint64_t w;
            memcpy(&w, k, 8);
            if ((w & p.prefix_mask) == p.prefix_word) return true;
            break;
          }
          size_t i = 0;
          while (i < n && k[i] == pat[i]) i++;
          if (i == n) return true;
          break;
        }
        case KeyPattern::Kind::kGlob:
          if (allowsKeyGlob(p, key)) return true;
          break;
      }
    }
    return false;
  }
  // A channel name (literal=false: matched against the patterns) or a
  // PSUBSCRIBE pattern (literal=true: must equal a pattern).
  bool allowsChannel(std::string_view channel, bool literal) const;

  void resetChannels(bool all);

 private:
  static bool allowsKeyGlob(const KeyPattern& p, std::string_view key);
  void setCommandBit(int id, bool on);
  void changeCommand(int id, bool on);  // with its subcommands
  void changeCategory(int cat, bool on);
  bool setKeyRule(std::string_view rule, std::string* err);

  std::vector<uint64_t> allowed_;
  bool all_commands_ = false;  // +@all: future commands too
  std::map<int, std::vector<std::string>> first_args_;
  bool all_keys_ = false;
  std::vector<KeyPattern> keys_;
  bool all_channels_ = false;
  std::vector<std::string> channels_;
};

class User {
 public:
  explicit User(std::string name);
  // Applies one ACL SETUSER word (user flags, passwords, selectors or a
  // root-selector rule).
  bool setRule(std::string_view rule, std::string* err);
  // "user <name> on nopass #... ~* &* +@all (...)" as ACL LIST prints it.
  std::string describe() const;

  bool checkPassword(std::string_view pass) const;
  const std::string& name() const { return name_; }
  bool enabled() const { return enabled_; }
  bool nopass() const { return nopass_; }
  const std::vector<std::string>& passwordHashes() const { return passwords_; }
  // "sanitize-payload", "skip-sanitize-payload" or "".
  const char* sanitizeFlag() const;
  // selectors()[0] is the root selector.
  const std::vector<Selector>& selectors() const { return selectors_; }
  // True when the root selector allows every command, key and channel:
  // the check can be skipped.
  bool unrestricted() const { return unrestricted_; }

 private:
  void refresh();
  std::string name_;
  bool enabled_ = false;
  bool nopass_ = false;
  int sanitize_ = 0;  // 0 none, 1 sanitize-payload, 2 skip-sanitize-payload
  std::vector<std::string> passwords_;
  std::vector<Selector> selectors_;
  bool unrestricted_ = false;
};

// True when every word of a selector "(...)" parses; used by config lines.
bool validUserName(std::string_view name);

// acl-pubsub-default: whether new users and `reset` start with allchannels.
extern bool g_pubsub_default_all;

}  // namespace server::acl
