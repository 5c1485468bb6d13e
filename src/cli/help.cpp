#include "cli/help.h"

#include <strings.h>

#include <algorithm>
#include <cstdio>
#include <utility>

namespace cli {

using resp::Reply;
using resp::ReplyType;

namespace {

// A field of a map-shaped reply (RESP3 map or RESP2 flat array); nullptr
// when absent.
const Reply* field(const Reply& map, const char* name) {
  for (size_t i = 0; i + 1 < map.elements.size(); i += 2) {
    if (map.elements[i].str == name) return &map.elements[i + 1];
  }
  return nullptr;
}

std::string fieldText(const Reply& map, const char* name) {
  const Reply* f = field(map, name);
  return f != nullptr ? f->str : std::string();
}

bool hasFlag(const Reply& arg, const char* flag) {
  const Reply* flags = field(arg, "flags");
  if (flags == nullptr) return false;
  for (const Reply& f : flags->elements)
    if (f.str == flag) return true;
  return false;
}

std::string renderArg(const Reply& arg);

std::string renderList(const Reply* args, const char* sep) {
  std::string s;
  if (args == nullptr) return s;
  for (const Reply& a : args->elements) {
    if (!s.empty()) s += sep;
    s += renderArg(a);
  }
  return s;
}

std::string renderArg(const Reply& arg) {
  std::string type = fieldText(arg, "type");
  std::string token = fieldText(arg, "token");
  std::string value;
  if (type == "oneof")
    value = renderList(field(arg, "arguments"), "|");
  else if (type == "block")
    value = renderList(field(arg, "arguments"), " ");
  else if (type != "pure-token")
    value = fieldText(arg, "name");
  std::string one = token;
  if (!value.empty()) one += (one.empty() ? "" : " ") + value;
  std::string s = one;
  if (hasFlag(arg, "multiple")) {
    // The token repeats with each value only under multiple_token.
    std::string again = hasFlag(arg, "multiple_token") || token.empty() ? one : value;
    s += " [" + again + " ...]";
  }
  if (hasFlag(arg, "optional")) s = "[" + s + "]";
  return s;
}

std::string upper(std::string s) {
  for (char& ch : s) ch = static_cast<char>(toupper(static_cast<unsigned char>(ch)));
  return s;
}

// One command's block, the layout redis-cli uses.
void printEntry(const std::string& name, const Reply& doc, bool show_group, bool color) {
  std::string title = name;
  std::replace(title.begin(), title.end(), '|', ' ');
  title = upper(title);
  std::string syntax;
  if (const Reply* args = field(doc, "arguments")) syntax = renderArguments(*args);
  const char* bold = color ? "\x1b[1m" : "";
  const char* grey = color ? "\x1b[90m" : "";
  const char* yellow = color ? "\x1b[33m" : "";
  const char* reset = color ? "\x1b[0m" : "";
  printf("\n  %s%s%s %s%s%s\n", bold, title.c_str(), reset, grey, syntax.c_str(), reset);
  printf("  %ssummary:%s %s\n", yellow, reset, fieldText(doc, "summary").c_str());
  printf("  %ssince:%s %s\n", yellow, reset, fieldText(doc, "since").c_str());
  if (show_group) printf("  %sgroup:%s %s\n", yellow, reset, fieldText(doc, "group").c_str());
}

void printHelpUsage() {
  printf(
      "To get help about Redis commands type:\n"
      "      \"help @<group>\" to get a list of commands in <group>\n"
      "      \"help <command>\" for help on <command>\n"
      "      \"quit\" to exit\n");
}

}  // namespace

std::string renderArguments(const Reply& arguments) {
  return renderList(&arguments, " ");
}

bool printHelp(Session* session, const std::vector<std::string>& topics, bool color) {
  if (topics.empty()) {
    printHelpUsage();
    return true;
  }
  bool group = topics[0].size() > 1 && topics[0][0] == '@';
  std::vector<std::string> argv = {"COMMAND", "DOCS"};
  if (!group) {
    // "help client list" asks for the subcommand "client|list".
    std::string name = topics[0];
    if (topics.size() > 1) name += "|" + topics[1];
    for (char& ch : name) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
    argv.push_back(name);
  }
  Reply r;
  if (!session->query(argv, &r)) return false;
  if (r.isError()) {
    printf("(error) %s\n", r.str.c_str());
    return true;
  }
  // Subcommands stand in for their container ("help @server" lists
  // CONFIG GET, CONFIG SET, ... rather than a bare CONFIG).
  std::vector<std::pair<std::string, const Reply*>> entries;
  std::string want = group ? topics[0].substr(1) : "";
  for (size_t i = 0; i + 1 < r.elements.size(); i += 2) {
    const Reply& doc = r.elements[i + 1];
    const Reply* subs = field(doc, "subcommands");
    if (!group || subs == nullptr || subs->elements.empty()) {
      entries.emplace_back(r.elements[i].str, &doc);
      continue;
    }
    for (size_t j = 0; j + 1 < subs->elements.size(); j += 2)
      entries.emplace_back(subs->elements[j].str, &subs->elements[j + 1]);
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t shown = 0;
  for (const auto& [name, doc] : entries) {
    if (group && strcasecmp(fieldText(*doc, "group").c_str(), want.c_str()) != 0) continue;
    printEntry(name, *doc, !group, color);
    shown++;
  }
  if (shown == 0) {
    // Nothing known under that name: the usage, as redis-cli prints it.
    printHelpUsage();
    return true;
  }
  printf("\n");
  return true;
}

}  // namespace cli
