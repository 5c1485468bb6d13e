// Reading configuration: redis.conf lines (with include), the command
// line's extra lines, the hooks the server installs to apply a value.
#include "server/conf/options.h"

#include <glob.h>
#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>

#include "resp/request_parser.h"
#include "server/conf/unimplemented.h"
#include "server/core/version.h"

namespace server::conf {

ConfigApplyHook g_apply_hook = nullptr;
ConfigUserLinesHook g_user_lines_hook = nullptr;

// The whole file in *out; false (errno set) when it cannot be opened.
bool readWholeFile(const std::string& path, std::string* out) {
  std::ifstream f(path);
  if (!f) return false;
  std::stringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return true;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

}  // namespace server::conf

namespace server {

using namespace conf;

void setConfigUserLinesHook(ConfigUserLinesHook hook) {
  g_user_lines_hook = hook;
}

void setConfigApplyHook(ConfigApplyHook hook) {
  g_apply_hook = hook;
}

namespace {

constexpr int kMaxIncludeDepth = 16;

bool loadText(Config* cfg, const std::string& text, int depth, std::string* err);

// include <path>: the file's lines are read in place of the directive. A
// path with glob characters names every matching file (in sorted order;
// none is fine); a plain path must open.
bool includeFiles(Config* cfg, const std::string& pattern, int depth, std::string* err) {
  if (depth >= kMaxIncludeDepth) {
    *err = "include nesting is deeper than " + std::to_string(kMaxIncludeDepth) + " levels";
    return false;
  }
  std::vector<std::string> paths;
  if (pattern.find_first_of("*?[") == std::string::npos) {
    paths.push_back(pattern);
  } else {
    glob_t g;
    if (glob(pattern.c_str(), 0, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; i++) paths.emplace_back(g.gl_pathv[i]);
    }
    globfree(&g);
  }
  for (const std::string& path : paths) {
    std::string text;
    if (!readWholeFile(path, &text)) {
      *err = "Fatal error, can't open config file '" + path + "': " + strerror(errno);
      return false;
    }
    if (!loadText(cfg, text, depth + 1, err)) return false;
  }
  return true;
}

bool loadText(Config* cfg, const std::string& text, int depth, std::string* err) {
  std::istringstream in(text);
  std::string raw;
  int linenum = 0;
  while (std::getline(in, raw)) {
    linenum++;
    std::string line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> argv;
    std::string reason;
    if (!resp::splitArgs(line, &argv)) {
      reason = "Unbalanced quotes in configuration line";
    } else if (argv.size() == 3 && strcasecmp(argv[0].c_str(), "rename-command") == 0) {
      cfg->rename_commands.push_back({argv[1], argv[2], linenum, line});
    } else if (!argv.empty() && strcasecmp(argv[0].c_str(), "user") == 0) {
      // `user <name> <rules...>` may repeat; applied by acl::init.
      auto same_name = [&argv](const std::vector<std::string>& u) { return u[0] == argv[1]; };
      if (argv.size() < 2) {
        reason = "wrong number of arguments";
      } else if (std::any_of(cfg->acl_users.begin(), cfg->acl_users.end(), same_name)) {
        // Redis refuses to start.
        reason = "Error in user declaration '" + argv[1] +
                 "': Duplicate user found. A user can only be defined once in config files";
      } else {
        cfg->acl_users.emplace_back(argv.begin() + 1, argv.end());
      }
    } else if (!argv.empty()) {
      const Option* o = findOption(argv[0]);
      const conf::UnimplementedOption* u =
          o == nullptr ? conf::findUnimplemented(argv[0]) : nullptr;
      int nvals = static_cast<int>(argv.size()) - 1;
      Args vals(argv.begin() + 1, argv.end());
      if (strcasecmp(argv[0].c_str(), "include") == 0 && nvals == 1) {
        // Its own errors name the included file: passed on as they are.
        if (!includeFiles(cfg, vals[0], depth, err)) return false;
      } else if (u != nullptr) {
        if (!conf::unimplementedArity(*u, vals.size())) {
          reason = "wrong number of arguments";
        } else {
          conf::setUnimplemented(cfg, *u, vals, &reason);
        }
      } else if (o == nullptr) {
        reason = "Bad directive or wrong number of arguments";
      } else if (nvals < o->min_args || (o->max_args != -1 && nvals > o->max_args)) {
        reason = "wrong number of arguments";
      } else {
        o->set(*cfg, vals, &reason);
      }
    }
    if (!reason.empty()) {
      *err = "\n*** FATAL CONFIG FILE ERROR (Redis " + std::string(kRedisVersion) +
             ") ***\nReading the configuration file, at line " + std::to_string(linenum) +
             "\n>>> '" + line + "'\n" + reason;
      return false;
    }
  }
  return true;
}

}  // namespace

bool loadConfigText(Config* cfg, const std::string& text, std::string* err) {
  cfg->loading_file = true;
  struct Done {
    Config* c;
    ~Done() { c->loading_file = false; }
  } done{cfg};
  return loadText(cfg, text, 0, err);
}

bool loadConfig(Config* cfg, const std::string& path, const std::string& extra, std::string* err) {
  std::string text;
  if (!path.empty()) {
    if (path == "-") {
      std::stringstream ss;
      ss << std::cin.rdbuf();
      text = ss.str();
    } else if (!readWholeFile(path, &text)) {
      *err = "Fatal error, can't open config file '" + path + "': " + strerror(errno);
      return false;
    }
  }
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += extra;
  return loadConfigText(cfg, text, err);
}

}  // namespace server
