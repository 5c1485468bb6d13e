#include "server/core/arg_syntax.h"

#include <cctype>
#include <utility>

namespace server {

namespace {

// The line is first read into a plain tree of words and groups, then
// repeats are folded ("X [X ...]"), and only then turned into ArgSpecs:
// whether a token starts a block or tags one argument depends on what
// follows it, which the plain tree makes easy to look at.
struct Node {
  enum Kind { kWord, kGroup, kRepeat } kind = kWord;
  std::string text;   // kWord
  std::string label;  // kGroup / kRepeat
  bool optional = false;
  std::vector<std::vector<Node>> alts;  // kGroup
  std::vector<Node> inner;              // kRepeat
};

bool isToken(const Node& n) {
  if (n.kind != Node::kWord || n.text == "...") return false;
  for (char ch : n.text)
    if (islower(static_cast<unsigned char>(ch))) return false;
  return true;
}

bool sameSeq(const std::vector<Node>& a, const std::vector<Node>& b);

bool sameNode(const Node& a, const Node& b) {
  if (a.kind != b.kind || a.text != b.text || a.optional != b.optional) return false;
  if (a.kind == Node::kRepeat) return sameSeq(a.inner, b.inner);
  if (a.alts.size() != b.alts.size()) return false;
  for (size_t i = 0; i < a.alts.size(); i++)
    if (!sameSeq(a.alts[i], b.alts[i])) return false;
  return true;
}

bool sameSeq(const std::vector<Node>& a, const std::vector<Node>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++)
    if (!sameNode(a[i], b[i])) return false;
  return true;
}

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  // Alternatives up to `close` (0 = end of line).
  bool alternatives(char close, std::vector<std::vector<Node>>* alts, std::string* err) {
    alts->emplace_back();
    for (;;) {
      while (pos_ < s_.size() && s_[pos_] == ' ') pos_++;
      if (pos_ == s_.size()) {
        if (close == 0) return true;
        *err = std::string("missing '") + close + "'";
        return false;
      }
      char ch = s_[pos_];
      if (ch == ']' || ch == '>') {
        if (ch != close) {
          *err = std::string("unexpected '") + ch + "'";
          return false;
        }
        pos_++;
        return true;
      }
      if (ch == '|') {
        pos_++;
        alts->emplace_back();
        continue;
      }
      Node n;
      size_t start = pos_;
      while (pos_ < s_.size() &&
             std::string_view(" []<>|").find(s_[pos_]) == std::string_view::npos)
        pos_++;
      std::string_view word = s_.substr(start, pos_ - start);
      bool group = pos_ < s_.size() && (s_[pos_] == '[' || s_[pos_] == '<');
      if (group) {
        if (!word.empty() && word.back() != '=') {
          *err = "a group must follow a space or a label=";
          return false;
        }
        if (!word.empty()) word.remove_suffix(1);
        n.kind = Node::kGroup;
        n.label = std::string(word);
        n.optional = s_[pos_] == '[';
        pos_++;
        if (!alternatives(n.optional ? ']' : '>', &n.alts, err)) return false;
        for (const auto& alt : n.alts) {
          if (alt.empty()) {
            *err = "empty alternative";
            return false;
          }
        }
      } else {
        n.text = std::string(word);
      }
      alts->back().push_back(std::move(n));
    }
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

Node repeatOf(std::vector<Node> inner, std::string label) {
  Node r;
  r.kind = Node::kRepeat;
  r.label = std::move(label);
  r.inner = std::move(inner);
  return r;
}

// Folds repeats, recursively: "X [X ...]" and "X ..." become one repeat of
// X; "[X ...]" with no X before it is an optional repeat.
bool foldRepeats(std::vector<Node>* seq, std::string* err) {
  std::vector<Node> out;
  for (Node& n : *seq) {
    if (n.kind == Node::kWord && n.text == "...") {
      if (out.empty()) {
        *err = "'...' with nothing before it";
        return false;
      }
      Node last = std::move(out.back());
      out.back() = repeatOf({std::move(last)}, "");
      continue;
    }
    if (n.kind != Node::kGroup) {
      out.push_back(std::move(n));
      continue;
    }
    bool repeat = n.optional && n.alts.size() == 1 && n.alts[0].back().kind == Node::kWord &&
                  n.alts[0].back().text == "...";
    if (!repeat) {
      for (auto& alt : n.alts)
        if (!foldRepeats(&alt, err)) return false;
      out.push_back(std::move(n));
      continue;
    }
    std::vector<Node> inner(n.alts[0].begin(), n.alts[0].end() - 1);
    if (inner.empty()) {
      *err = "'...' with nothing before it";
      return false;
    }
    if (!foldRepeats(&inner, err)) return false;
    size_t k = inner.size();
    if (out.size() >= k &&
        sameSeq(inner, std::vector<Node>(out.end() - static_cast<long>(k), out.end()))) {
      out.resize(out.size() - k);
      out.push_back(repeatOf(std::move(inner), n.label));
      continue;
    }
    // Zero or more: an optional group holding the repeat.
    Node opt;
    opt.kind = Node::kGroup;
    opt.optional = true;
    opt.alts.push_back({repeatOf(std::move(inner), n.label)});
    out.push_back(std::move(opt));
  }
  *seq = std::move(out);
  return true;
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& ch : r) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
  return r;
}

// Names left empty (unlabelled groups) are filled in once the token, if
// any, is known.
void nameGroup(ArgSpec* a) {
  if (!a->name.empty()) return;
  if (!a->token.empty()) {
    a->name = lower(a->token);
    return;
  }
  for (const ArgSpec& sub : a->args) {
    if (!a->name.empty()) a->name += '-';
    a->name += sub.name;
  }
}

ArgSpec placeholder(std::string word) {
  static const std::pair<const char*, ArgType> kTypes[] = {{"integer", ArgType::kInteger},
                                                           {"double", ArgType::kDouble},
                                                           {"key", ArgType::kKey},
                                                           {"pattern", ArgType::kPattern},
                                                           {"unix-time", ArgType::kUnixTime},
                                                           {"string", ArgType::kString}};
  ArgSpec a;
  size_t hash = word.rfind('#');
  if (hash != std::string::npos && hash + 1 < word.size() &&
      word.find_first_not_of("0123456789", hash + 1) == std::string::npos) {
    a.key_spec_index = std::stoi(word.substr(hash + 1));
    word.resize(hash);
  }
  a.name = word;
  size_t colon = word.rfind(':');
  if (colon != std::string::npos) {
    std::string_view suffix = std::string_view(word).substr(colon + 1);
    for (const auto& [name, type] : kTypes) {
      if (suffix == name) {
        a.name = word.substr(0, colon);
        a.type = type;
        return a;
      }
    }
  }
  // "ip:port" has no type suffix: the whole word is the name.
  if (a.name == "key") a.type = ArgType::kKey;
  return a;
}

std::vector<ArgSpec> buildSeq(const std::vector<Node>& seq);

ArgSpec buildAlt(const std::vector<Node>& alt) {
  if (alt.size() >= 3 && isToken(alt[0])) {
    ArgSpec block;
    block.type = ArgType::kBlock;
    block.token = alt[0].text;
    block.args = buildSeq(std::vector<Node>(alt.begin() + 1, alt.end()));
    nameGroup(&block);
    return block;
  }
  std::vector<ArgSpec> args = buildSeq(alt);
  if (args.size() == 1) return std::move(args[0]);
  ArgSpec block;
  block.type = ArgType::kBlock;
  block.args = std::move(args);
  nameGroup(&block);
  return block;
}

ArgSpec buildNode(const Node& n) {
  if (n.kind == Node::kWord) {
    if (!isToken(n)) return placeholder(n.text);
    ArgSpec a;
    a.type = ArgType::kPureToken;
    if (n.text == "\"\"") {
      a.name = "empty_string";  // the token is the empty argument itself
      return a;
    }
    a.name = lower(n.text);
    a.token = n.text;
    return a;
  }
  if (n.kind == Node::kRepeat) {
    ArgSpec a = buildAlt(n.inner);
    if (!n.label.empty()) a.name = n.label;
    a.multiple = true;
    a.multiple_token = !a.token.empty();
    return a;
  }
  ArgSpec a;
  if (n.alts.size() > 1) {
    a.type = ArgType::kOneOf;
    for (const auto& alt : n.alts) a.args.push_back(buildAlt(alt));
  } else {
    a = buildAlt(n.alts[0]);
  }
  if (!n.label.empty()) a.name = n.label;
  a.optional = n.optional;
  return a;
}

std::vector<ArgSpec> buildSeq(const std::vector<Node>& seq) {
  std::vector<ArgSpec> out;
  for (size_t i = 0; i < seq.size(); i++) {
    // A token directly before a placeholder, group or repeat introduces it.
    if (isToken(seq[i]) && i + 1 < seq.size() && !isToken(seq[i + 1])) {
      ArgSpec a = buildNode(seq[i + 1]);
      bool unnamed_group =
          (a.type == ArgType::kOneOf || a.type == ArgType::kBlock) && seq[i + 1].label.empty();
      a.token = seq[i].text;
      if (unnamed_group) {
        a.name.clear();
        nameGroup(&a);
      }
      out.push_back(std::move(a));
      i++;
      continue;
    }
    ArgSpec a = buildNode(seq[i]);
    if (a.type == ArgType::kOneOf || a.type == ArgType::kBlock) nameGroup(&a);
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

bool parseArgSyntax(std::string_view syntax, std::vector<ArgSpec>* out, std::string* err) {
  std::vector<std::vector<Node>> top;
  Reader r(syntax);
  if (!r.alternatives(0, &top, err)) return false;
  if (top.size() != 1) {
    *err = "'|' outside a group";
    return false;
  }
  if (!foldRepeats(&top[0], err)) return false;
  *out = buildSeq(top[0]);
  return true;
}

const char* argTypeName(ArgType t) {
  switch (t) {
    case ArgType::kString:
      return "string";
    case ArgType::kInteger:
      return "integer";
    case ArgType::kDouble:
      return "double";
    case ArgType::kKey:
      return "key";
    case ArgType::kPattern:
      return "pattern";
    case ArgType::kUnixTime:
      return "unix-time";
    case ArgType::kPureToken:
      return "pure-token";
    case ArgType::kOneOf:
      return "oneof";
    case ArgType::kBlock:
      return "block";
  }
  return "string";
}

}  // namespace server
