#include "common/log.h"

#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "common/syslog_sink.h"

namespace common::logging {

namespace {
Level g_level = kNotice;
FILE* g_file = nullptr;  // nullptr = stdout
std::string g_path;
char g_role = 'M';
bool g_syslog = false;
}  // namespace

void enableSyslog(const std::string& ident, const std::string& facility) {
  syslog_sink::open(ident, facility);
  g_syslog = true;
}

bool parseLevel(const std::string& name, Level* out) {
  static const char* names[] = {"debug", "verbose", "notice", "warning", "nothing"};
  for (int i = 0; i <= kNothing; i++) {
    if (strcasecmp(name.c_str(), names[i]) == 0) {
      *out = static_cast<Level>(i);
      return true;
    }
  }
  return false;
}

const char* levelName(Level l) {
  static const char* names[] = {"debug", "verbose", "notice", "warning", "nothing"};
  return names[l];
}

void setLevel(Level l) {
  g_level = l;
}
Level level() {
  return g_level;
}
void setRole(char role) {
  g_role = role;
}
char role() {
  return g_role;
}
int outputFd() {
  return g_file ? fileno(g_file) : STDOUT_FILENO;
}

bool setFile(const std::string& path, std::string* err) {
  if (path.empty()) {
    if (g_file) fclose(g_file);
    g_file = nullptr;
    g_path.clear();
    return true;
  }
  FILE* f = fopen(path.c_str(), "a");
  if (f == nullptr) {
    *err = "Can't open the log file: " + std::string(strerror(errno));
    return false;
  }
  if (g_file) fclose(g_file);
  g_file = f;
  g_path = path;
  return true;
}

void raw(Level l, const std::string& text) {
  if (l < g_level) return;
  FILE* out = g_file ? g_file : stdout;
  fwrite(text.data(), 1, text.size(), out);
  fflush(out);
}

void logf(Level l, const char* fmt, ...) {
  if (l < g_level) return;
  static const char marks[] = ".-*#";
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);

  struct timeval tv;
  gettimeofday(&tv, nullptr);
  struct tm tm;
  localtime_r(&tv.tv_sec, &tm);
  char when[64];
  size_t off = strftime(when, sizeof(when), "%d %b %Y %H:%M:%S.", &tm);
  snprintf(when + off, sizeof(when) - off, "%03d", static_cast<int>(tv.tv_usec / 1000));
  if (g_syslog) {
    syslog_sink::write(l, msg);
  }
  FILE* out = g_file ? g_file : stdout;
  fprintf(out, "%d:%c %s %c %s\n", static_cast<int>(getpid()), g_role, when, marks[l], msg);
  fflush(out);
}

}  // namespace common::logging
