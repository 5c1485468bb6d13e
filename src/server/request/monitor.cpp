#include "server/request/monitor.h"

#include <sys/time.h>

#include <algorithm>
#include <cstdio>

#include "server/core/client.h"
#include "server/request/cmdlog.h"
#include "server/core/command.h"
#include "server/core/state.h"

namespace server::monitor {

namespace {
// Few monitors and frequent feeds: a vector beats a list here.
std::vector<Client*> g_monitors;
}  // namespace

void add(Client* c) {
  if (c->flags & kMonitor) return;
  c->flags |= kMonitor;
  g_monitors.push_back(c);
}

void remove(Client* c) {
  g_monitors.erase(std::remove(g_monitors.begin(), g_monitors.end(), c), g_monitors.end());
}

size_t count() {
  return g_monitors.size();
}

void appendQuoted(std::string* out, std::string_view arg) {
  out->push_back('"');
  for (unsigned char ch : arg) {
    switch (ch) {
      case '\\':
        *out += "\\\\";
        break;
      case '"':
        *out += "\\\"";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\a':
        *out += "\\a";
        break;
      case '\b':
        *out += "\\b";
        break;
      default:
        if (ch >= 0x20 && ch < 0x7f) {
          out->push_back(static_cast<char>(ch));
        } else {
          char buf[5];
          snprintf(buf, sizeof(buf), "\\x%02x", ch);
          *out += buf;
        }
    }
  }
  out->push_back('"');
}

std::string formatLine(int64_t unix_us, int db, std::string_view addr,
                       const std::vector<std::string_view>& argv,
                       const std::vector<bool>& redacted) {
  char head[64];
  snprintf(head, sizeof(head), "%lld.%06lld [%d ", static_cast<long long>(unix_us / 1000000),
           static_cast<long long>(unix_us % 1000000), db);
  std::string line = head;
  line += addr;
  line += ']';
  for (size_t i = 0; i < argv.size(); i++) {
    line += ' ';
    appendQuoted(&line, i < redacted.size() && redacted[i] ? kRedacted : argv[i]);
  }
  return line;
}

void feed(Client* c, const Command& cmd) {
  if (g_monitors.empty() || (cmd.flags & (kAdmin | kSkipMonitor)) || !commandIsLogged(cmd)) return;
  feedAlways(c, cmd);
}

void feedAlways(Client* c, const Command& cmd) {
  if (g_monitors.empty()) return;
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  std::string addr;
  if (c->flags & kScriptClient) {
    addr = "lua";
  } else if (c->conn() == nullptr) {
    addr = "internal";
  } else {
    // A unix peer is unnamed: Redis names the listening socket, which the
    // connection does for us ("unix:/path").
    addr = c->conn()->peerLabel();
  }
  std::string line = formatLine(static_cast<int64_t>(tv.tv_sec) * 1000000 + tv.tv_usec,
                                c->dbIndex(), addr, c->argv(), redactedArgs(cmd, c->argv()));
  for (Client* m : g_monitors) {
    if (m->flags & kCloseAsap) continue;
    m->addStatus(line);
    if (!(m->flags & kPendingWrite)) g_server->queueWrite(m);
  }
}

}  // namespace server::monitor
