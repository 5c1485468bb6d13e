#include "cli/hints.h"

#include <cctype>

#include "cli/help.h"
#include "cli/split.h"

namespace cli {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
  return s;
}

// A field of a COMMAND DOCS entry, in RESP2 (flat pairs) or RESP3 (map) form.
const resp::Reply* docField(const resp::Reply& doc, const char* name) {
  for (size_t i = 0; i + 1 < doc.elements.size(); i += 2) {
    if (doc.elements[i].str == name) return &doc.elements[i + 1];
  }
  return nullptr;
}

void addDocs(const resp::Reply& docs, const std::string& prefix,
             std::unordered_map<std::string, std::string>* out) {
  for (size_t i = 0; i + 1 < docs.elements.size(); i += 2) {
    const resp::Reply& doc = docs.elements[i + 1];
    std::string name = lower(docs.elements[i].str);
    // Subcommands are named "container|sub": hints match "container sub".
    for (char& c : name) {
      if (c == '|') c = ' ';
    }
    std::string syntax;
    if (const resp::Reply* args = docField(doc, "arguments")) syntax = renderArguments(*args);
    (*out)[prefix + name] = syntax;
    if (const resp::Reply* subs = docField(doc, "subcommands")) addDocs(*subs, "", out);
  }
}

}  // namespace

void Hints::load(Session* session) {
  if (loaded_) return;
  resp::Reply r;
  if (!session->query({"COMMAND", "DOCS"}, &r) || r.isError()) return;
  addDocs(r, "", &syntax_);
  loaded_ = true;
}

std::string Hints::hintFor(const std::string& line) const {
  if (line.empty()) return "";
  auto argv = splitArgs(line);
  if (!argv || argv->empty()) return "";
  bool end_space = isspace(static_cast<unsigned char>(line.back())) != 0;
  // "container subcommand ..." first, then the command alone.
  size_t words = 2;
  auto it = syntax_.end();
  if (argv->size() >= 2) it = syntax_.find(lower((*argv)[0] + " " + (*argv)[1]));
  if (it == syntax_.end()) {
    words = 1;
    it = syntax_.find(lower((*argv)[0]));
    if (it == syntax_.end()) return "";
  }
  const std::string& syntax = it->second;
  // Drop one word per typed argument, but never past an optional part.
  size_t to_remove = argv->size() - words;
  size_t pos = 0;
  while (to_remove > 0 && pos < syntax.size() && syntax[pos] != '[') {
    if (syntax[pos] == ' ') to_remove--;
    pos++;
  }
  std::string hint = syntax.substr(pos);
  return end_space ? hint : " " + hint;
}

}  // namespace cli
