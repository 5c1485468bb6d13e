#include "server/acl/users.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "common/log.h"
#include "resp/request_parser.h"
#include "server/acl/acl_log.h"
#include "server/acl/catalog.h"
#include "server/conf/config.h"
#include "server/core/client.h"
#include "server/core/clients.h"
#include "server/pubsub/pubsub.h"

namespace server::acl {
namespace {

using UserMap = std::map<std::string, UserPtr, std::less<>>;

// ACL LOAD / ACL SAVE without an aclfile.
const char kNoAclFile[] =
    "This Redis instance is not configured to use an ACL file. You may want to specify "
    "users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have "
    "a Redis configuration file set) in order to store users in the Redis configuration.";
UserMap g_users;
UserPtr g_default;

UserPtr makeDefaultUser() {
  auto u = std::make_shared<User>("default");
  std::string err;
  for (const char* r : {"+@all", "~*", "&*", "on", "nopass"}) u->setRule(r, &err);
  return u;
}

// Applies "name rule rule ..." words to a map being built: the user is
// created when missing. *err is the reason without any frame.
bool applyUserWords(UserMap* users, const std::vector<std::string>& words, std::string* err) {
  const std::string& name = words[0];
  if (!validUserName(name)) {
    *err = "Usernames can't contain spaces or null characters";
    return false;
  }
  auto it = users->find(name);
  UserPtr u = it != users->end() ? it->second : std::make_shared<User>(name);
  User copy = *u;
  for (size_t i = 1; i < words.size(); i++) {
    std::string why;
    if (!copy.setRule(words[i], &why)) {
      *err = "Error in user declaration '" + words[i] + "': " + why;
      return false;
    }
  }
  *u = std::move(copy);
  (*users)[name] = u;
  return true;
}

// Splits an aclfile or user-line text. Selector groups "(...)" may span
// several words; they are joined back into one rule.
std::vector<std::string> joinSelectors(const std::vector<std::string>& words, bool* unmatched) {
  std::vector<std::string> out;
  *unmatched = false;
  for (size_t i = 0; i < words.size(); i++) {
    if (!words[i].empty() && words[i][0] == '(' && words[i].back() != ')') {
      std::string joined = words[i];
      size_t j = i + 1;
      for (; j < words.size(); j++) {
        joined += " " + words[j];
        if (!words[j].empty() && words[j].back() == ')') break;
      }
      if (j == words.size()) {
        *unmatched = true;
        return out;
      }
      out.push_back(joined);
      i = j;
    } else {
      out.push_back(words[i]);
    }
  }
  return out;
}

// Reads an aclfile into a fresh map that keeps the current default user
// object (its clients stay connected). False with Redis's message.
bool readAclFile(const std::string& path, UserMap* out, std::string* err) {
  std::ifstream f(path);
  if (!f) {
    *err = "Error loading ACLs, opening file '" + path + "': " + strerror(errno);
    return false;
  }
  UserMap users;
  User fresh_default = *makeDefaultUser();
  users["default"] = std::make_shared<User>(fresh_default);
  std::string line;
  int linenum = 0;
  std::string errors;
  std::set<std::string> seen;  // each user once per file, default included
  while (std::getline(f, line)) {
    linenum++;
    size_t b = line.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) continue;
    std::vector<std::string> words;
    std::string where = path + ":" + std::to_string(linenum);
    if (!resp::splitArgs(line, &words)) {
      errors += where + ": unbalanced quotes in acl line. ";
      continue;
    }
    if (words.empty()) continue;
    if (words[0] != "user" || words.size() < 2) {
      errors += where + " should start with user keyword followed by the username. ";
      continue;
    }
    bool unmatched;
    std::vector<std::string> rules =
        joinSelectors(std::vector<std::string>(words.begin() + 1, words.end()), &unmatched);
    if (unmatched) {
      errors += where + ": Unmatched parenthesis in acl selector. ";
      continue;
    }
    if (!seen.insert(rules[0]).second) {
      errors += "WARNING: Duplicate user '" + rules[0] + "' found on line " +
                std::to_string(linenum) + ". ";
      continue;
    }
    std::string why;
    UserMap one;
    one[rules[0]] = std::make_shared<User>(rules[0]);
    if (!applyUserWords(&one, rules, &why)) {
      // Redis reports the reason only ("Syntax error"), not the frame.
      size_t colon = why.find("': ");
      errors += where + ": " + (colon == std::string::npos ? why : why.substr(colon + 3)) + ". ";
      continue;
    }
    users[rules[0]] = one[rules[0]];
  }
  if (!errors.empty()) {
    *err = errors +
           "WARNING: ACL errors detected, no change to the previously active ACL rules "
           "was performed";
    return false;
  }
  *out = std::move(users);
  return true;
}

// After a user's rules changed: its clients subscribed to a channel or
// pattern that no selector allows any more are closed, as Redis 7.0 does.
void closeSubscribersNoLongerAllowed(const User* u, server::Client* caller) {
  server::forEachClient([u, caller](server::Client* c) {
    if (c->acl_user.get() != u || !server::isPubSubClient(c)) return;
    bool allowed = true;
    for (const auto& [name, pattern] : server::pubsubSubscriptions(c)) {
      bool any = false;
      for (const Selector& s : u->selectors()) any = any || s.allowsChannel(name, pattern);
      if (!any) allowed = false;
    }
    if (allowed) return;
    if (c == caller)
      c->flags |= server::kCloseAfterReply;
    else
      server::closeClientAsync(c);
  });
}

void closeClientsOf(const User* u, server::Client* caller) {
  server::forEachClient([u, caller](server::Client* c) {
    if (c->acl_user.get() != u) return;
    if (c == caller)
      c->flags |= server::kCloseAfterReply;
    else
      server::closeClientAsync(c);
  });
}

}  // namespace

bool init(std::string* err) {
  buildCatalog();
  // CONFIG REWRITE writes the users as `user` lines unless an aclfile
  // holds them, as Redis does.
  server::setConfigUserLinesHook([]() {
    std::vector<std::string> lines;
    if (!server::g_config->aclfile.empty()) return lines;
    for (const auto& [name, u] : g_users) lines.push_back(u->describe());
    return lines;
  });
  server::Config& cfg = *server::g_config;
  g_pubsub_default_all = cfg.acl_pubsub_default == "allchannels";
  g_users.clear();
  g_default = makeDefaultUser();
  g_users["default"] = g_default;
  applyRequirepass(cfg.requirepass);
  if (!cfg.acl_users.empty() && !cfg.aclfile.empty()) {
    *err =
        "Configuring Redis with users defined in redis.conf and at the same setting an ACL file "
        "path is invalid. This setup is very likely to lead to configuration errors and security "
        "holes, please define either an ACL file or declare users directly in your redis.conf, "
        "but not both.";
    return false;
  }
  for (const auto& words : cfg.acl_users) {
    bool unmatched;
    std::vector<std::string> rules = joinSelectors(words, &unmatched);
    // A user line describes the whole user: an existing one (default)
    // starts from "reset", as Redis loads it (CONFIG REWRITE writes the
    // default user's line, which must load back).
    if (!rules.empty() && g_users.count(rules[0]) != 0) rules.insert(rules.begin() + 1, "reset");
    std::string why;
    if (unmatched) {
      *err = "Unmatched parenthesis in acl selector";
    } else if (!applyUserWords(&g_users, rules, &why)) {
      *err = why;
    } else {
      continue;
    }
    *err += "\nCritical error while loading ACLs. Exiting.";
    return false;
  }
  g_default = g_users["default"];
  if (!cfg.aclfile.empty()) {
    UserMap loaded;
    if (!readAclFile(cfg.aclfile, &loaded, err)) {
      *err = "Aborting Redis startup because of ACL errors: " + *err;
      return false;
    }
    g_users = std::move(loaded);
    g_default = g_users["default"];
  }
  return true;
}

UserPtr findUser(std::string_view name) {
  auto it = g_users.find(name);
  return it == g_users.end() ? nullptr : it->second;
}

const UserPtr& defaultUser() {
  return g_default;
}

const std::map<std::string, UserPtr, std::less<>>& allUsers() {
  return g_users;
}

bool setUser(std::string_view name, const std::vector<std::string_view>& rules, std::string* err,
             server::Client* caller) {
  if (!validUserName(name)) {
    *err = "Usernames can't contain spaces or null characters";
    return false;
  }
  UserPtr existing = findUser(name);
  User work = existing ? *existing : User(std::string(name));
  for (size_t i = 0; i < rules.size(); i++) {
    std::string why;
    std::string_view r = rules[i];
    std::string joined;
    if (!r.empty() && r[0] == '(' && r.back() != ')') {
      // A selector given as several arguments ("(+get" "~k*)"): joined
      // with spaces up to the argument that closes it, as Redis does.
      joined = r;
      size_t j = i + 1;
      while (j < rules.size() && (rules[j].empty() || rules[j].back() != ')')) j++;
      if (j == rules.size()) {
        *err = "Unmatched parenthesis in acl selector starting at '" + std::string(r) + "'.";
        return false;
      }
      for (size_t k = i + 1; k <= j; k++) joined += " " + std::string(rules[k]);
      r = joined;
      i = j;
    }
    if (!work.setRule(r, &why)) {
      *err = "Error in ACL SETUSER modifier '" + std::string(r) + "': " + why;
      return false;
    }
  }
  if (existing) {
    *existing = std::move(work);  // in place: connected clients see the new rules
    closeSubscribersNoLongerAllowed(existing.get(), caller);
  } else {
    g_users[std::string(name)] = std::make_shared<User>(std::move(work));
  }
  return true;
}

bool deleteUser(std::string_view name, server::Client* caller) {
  auto it = g_users.find(name);
  if (it == g_users.end()) return false;
  UserPtr u = it->second;
  g_users.erase(it);
  closeClientsOf(u.get(), caller);
  return true;
}

UserPtr authenticate(server::Client* c, std::string_view name, std::string_view pass) {
  UserPtr u = findUser(name);
  if (u && u->enabled() && u->checkPassword(pass)) return u;
  // The object is the command as the client typed it (AUTH, hello...), as
  // Redis logs it.
  std::string object = c != nullptr && c->argc() > 0 ? std::string(c->arg(0)) : "auth";
  aclLogAdd(c, LogReason::kAuth, "toplevel", object, name);
  return nullptr;
}

void authenticateClient(server::Client* c, UserPtr user) {
  c->user = user->name();
  c->acl_user = std::move(user);
  c->flags |= server::kAuthenticated;
}

void attachDefaultUser(server::Client* c) {
  c->acl_user = g_default;
  c->user = "default";
  // Without acl::init (unit tests that build a bare Server) requirepass
  // alone decides, as before ACL existed.
  bool open = g_default ? g_default->enabled() && g_default->nopass()
                        : server::g_config->requirepass.empty();
  if (open) c->flags |= server::kAuthenticated;
}

bool defaultUserIsOpen() {
  return g_default ? g_default->nopass() : server::g_config->requirepass.empty();
}

void applyRequirepass(const std::string& pass) {
  if (!g_default) return;
  std::string err;
  g_default->setRule("resetpass", &err);
  if (pass.empty())
    g_default->setRule("nopass", &err);
  else
    g_default->setRule(">" + pass, &err);
}

bool loadAclFile(server::Client* caller, std::string* err) {
  const std::string& path = server::g_config->aclfile;
  if (path.empty()) {
    *err = kNoAclFile;
    return false;
  }
  UserMap loaded;
  if (!readAclFile(path, &loaded, err)) return false;
  // The default user object stays (its clients keep their connection) and
  // takes the file's rules; every other user is replaced, its clients
  // closed.
  *g_default = std::move(*loaded["default"]);
  loaded["default"] = g_default;
  for (auto& [name, u] : g_users) {
    if (u != g_default) closeClientsOf(u.get(), caller);
  }
  g_users = std::move(loaded);
  return true;
}

bool saveAclFile(std::string* err) {
  const std::string& path = server::g_config->aclfile;
  if (path.empty()) {
    *err = kNoAclFile;
    return false;
  }
  std::string text;
  for (const auto& [name, u] : g_users) text += u->describe() + "\n";
  // Written beside the file then renamed over it: a crash never leaves a
  // half-written aclfile.
  std::string tmp = path + ".tmp-" + std::to_string(getpid());
  FILE* f = fopen(tmp.c_str(), "w");
  bool ok = f != nullptr && fwrite(text.data(), 1, text.size(), f) == text.size() &&
            fflush(f) == 0 && fsync(fileno(f)) == 0;
  int saved = errno;
  if (f != nullptr) fclose(f);
  if (ok && rename(tmp.c_str(), path.c_str()) == -1) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    unlink(tmp.c_str());
    LOG_WARNING("Opening ACL file for saving: %s", strerror(saved));
    *err =
        "There was an error trying to save the ACLs. Please check the server logs for more "
        "information";
    return false;
  }
  return true;
}

}  // namespace server::acl
