#include "server/acl/acl_log.h"

#include <deque>
#include <string>

#include "server/conf/config.h"
#include "server/core/client.h"
#include "server/request/client_info.h"

namespace server::acl {
namespace {

constexpr int64_t kGroupingWindowMs = 60000;

struct Entry {
  int64_t count;
  LogReason reason;
  std::string context, object, username;
  int64_t ctime_ms;
  std::string client_info;
};

std::deque<Entry> g_log;

const char* reasonName(LogReason r) {
  switch (r) {
    case LogReason::kCommand:
      return "command";
    case LogReason::kKey:
      return "key";
    case LogReason::kChannel:
      return "channel";
    case LogReason::kAuth:
      return "auth";
  }
  return "";
}

}  // namespace

void aclLogTrim() {
  size_t max = static_cast<size_t>(server::g_config->acllog_max_len);
  while (g_log.size() > max) g_log.pop_back();
}

void aclLogAdd(server::Client* c, LogReason reason, std::string_view context,
               std::string_view object, std::string_view username) {
  int64_t now = db::Clock::nowMs;
  std::string info;
  if (c != nullptr) {
    server::formatClientLine(server::describeClient(c), &info);
    if (!info.empty() && info.back() == '\n') info.pop_back();
  }
  for (auto it = g_log.begin(); it != g_log.end(); ++it) {
    if (it->reason == reason && it->context == context && it->object == object &&
        it->username == username && now - it->ctime_ms < kGroupingWindowMs) {
      Entry e = std::move(*it);
      g_log.erase(it);
      e.count++;
      e.ctime_ms = now;
      e.client_info = std::move(info);
      g_log.push_front(std::move(e));
      return;
    }
  }
  g_log.push_front(Entry{1, reason, std::string(context), std::string(object),
                         std::string(username), now, std::move(info)});
  aclLogTrim();
}

void aclLogReply(server::Client* c, long count) {
  size_t n = count < 0 ? g_log.size() : std::min(g_log.size(), static_cast<size_t>(count));
  resp::Writer& w = c->reply();
  w.arrayLen(static_cast<int64_t>(n));
  int64_t now = db::Clock::nowMs;
  for (size_t i = 0; i < n; i++) {
    const Entry& e = g_log[i];
    w.mapLen(7);
    w.bulk("count");
    w.integer(e.count);
    w.bulk("reason");
    w.bulk(reasonName(e.reason));
    w.bulk("context");
    w.bulk(e.context);
    w.bulk("object");
    w.bulk(e.object);
    w.bulk("username");
    w.bulk(e.username);
    w.bulk("age-seconds");
    w.doubleValue(static_cast<double>(now - e.ctime_ms) / 1000.0);
    w.bulk("client-info");
    w.bulk(e.client_info);
  }
}

void aclLogReset() {
  g_log.clear();
}

}  // namespace server::acl
