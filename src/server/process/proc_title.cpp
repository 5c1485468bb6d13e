#include "server/process/proc_title.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

extern char** environ;

namespace server::process {

namespace {

// The writable span that held argv (and the environment strings after it).
char* g_area = nullptr;
size_t g_area_len = 0;
// The copies of the environment strings, listed apart from environ:
// unsetenv() drops a string from environ (supervised upstart unsets
// UPSTART_JOB), and the copy must stay reachable (it lives as long as the
// process, as the original would; LeakSanitizer reported it lost).
char** g_env_copies = nullptr;

bool lookup(const std::string& name, const TitleVars& v, std::string* out) {
  if (name == "title") {
    *out = v.title;
  } else if (name == "listen-addr") {
    *out = v.listen_addr;
  } else if (name == "server-mode") {
    *out = v.server_mode;
  } else if (name == "port") {
    *out = v.port;
  } else if (name == "tls-port") {
    *out = v.tls_port;
  } else if (name == "unixsocket") {
    *out = v.unixsocket;
  } else if (name == "config-file") {
    *out = v.config_file;
  } else {
    return false;
  }
  return true;
}

}  // namespace

void initProcTitle(int argc, char** argv) {
  if (argc <= 0 || argv[0] == nullptr) return;
  // The kernel lays argv then environ strings out back to back; the title
  // may use every byte of the contiguous run.
  char* start = argv[0];
  char* end = argv[0] + strlen(argv[0]) + 1;
  for (int i = 1; i < argc; i++) {
    if (argv[i] == end) end = argv[i] + strlen(argv[i]) + 1;
  }
  size_t envc = 0;
  while (environ != nullptr && environ[envc] != nullptr) envc++;
  for (size_t i = 0; i < envc; i++) {
    if (environ[i] == end) end = environ[i] + strlen(environ[i]) + 1;
  }
  // Copies, so nothing still points into the area we will overwrite. They
  // live as long as the process (as the originals would).
  char** env = static_cast<char**>(calloc(envc + 1, sizeof(char*)));
  g_env_copies = static_cast<char**>(calloc(envc + 1, sizeof(char*)));
  if (env == nullptr || g_env_copies == nullptr) {
    free(env);
    free(g_env_copies);
    g_env_copies = nullptr;
    return;
  }
  for (size_t i = 0; i < envc; i++) env[i] = g_env_copies[i] = strdup(environ[i]);
  environ = env;
  for (int i = 0; i < argc; i++) argv[i] = strdup(argv[i]);
  g_area = start;
  g_area_len = static_cast<size_t>(end - start);
}

bool expandProcTitle(const std::string& tmpl, const TitleVars& vars, std::string* out) {
  std::string res;
  size_t i = 0;
  while (i < tmpl.size()) {
    size_t open = tmpl.find('{', i);
    if (open == std::string::npos) {
      res.append(tmpl, i, std::string::npos);
      break;
    }
    res.append(tmpl, i, open - i);
    if (open + 1 >= tmpl.size()) return false;  // a '{' ends the template
    if (tmpl[open + 1] == '{') {                // "{{" is a literal brace
      res += '{';
      i = open + 2;
      continue;
    }
    size_t close = tmpl.find('}', open + 1);
    if (close == std::string::npos) return false;
    std::string value;
    if (!lookup(tmpl.substr(open + 1, close - open - 1), vars, &value)) return false;
    res += value;
    i = close + 1;
  }
  size_t b = res.find_first_not_of(' ');
  if (b == std::string::npos) return false;
  size_t e = res.find_last_not_of(' ');
  *out = res.substr(b, e - b + 1);
  return true;
}

void setProcTitle(const std::string& title) {
  if (g_area == nullptr || g_area_len < 2) return;
  size_t n = title.size() < g_area_len - 1 ? title.size() : g_area_len - 1;
  memcpy(g_area, title.data(), n);
  memset(g_area + n, 0, g_area_len - n);
}

}  // namespace server::process
