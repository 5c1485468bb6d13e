#include "server/pubsub/notify.h"

#include "server/core/client.h"
#include "server/pubsub/pubsub.h"
#include "server/conf/config.h"

namespace server::notify {

namespace {

struct Letter {
  char ch;
  int flag;
};
// Class letters in the order CONFIG GET prints them.
constexpr Letter kClassLetters[] = {
    {'g', kGeneric}, {'$', kString},  {'l', kList},   {'s', kSet},    {'h', kHash}, {'z', kZset},
    {'x', kExpired}, {'e', kEvicted}, {'t', kStream}, {'d', kModule}, {'n', kNew},
};

}  // namespace

bool parseFlags(std::string_view s, int* out) {
  int flags = 0;
  for (char ch : s) {
    switch (ch) {
      case 'A':
        flags |= kAll;
        break;
      case 'K':
        flags |= kKeyspace;
        break;
      case 'E':
        flags |= kKeyevent;
        break;
      case 'm':
        flags |= kKeyMiss;
        break;
      default: {
        bool known = false;
        for (const Letter& l : kClassLetters) {
          if (l.ch == ch) {
            flags |= l.flag;
            known = true;
          }
        }
        if (!known) return false;
      }
    }
  }
  *out = flags;
  return true;
}

std::string flagsToString(int flags) {
  std::string s;
  if ((flags & kAll) == kAll) {
    s += 'A';
  } else {
    for (const Letter& l : kClassLetters)
      if (flags & l.flag) s += l.ch;
  }
  if (flags & kKeyspace) s += 'K';
  if (flags & kKeyevent) s += 'E';
  if (flags & kKeyMiss) s += 'm';
  return s;
}

int enabledFlags() {
  return static_cast<int>(g_config->notify_keyspace_events);
}

[[gnu::noinline]] static void publishKeyspaceEvent(int flags, std::string_view event,
                                                   std::string_view key, int dbid);

void keyspaceEvent(int type, std::string_view event, std::string_view key, int dbid) {
  int flags = enabledFlags();
  if (!(flags & type) || !(flags & (kKeyspace | kKeyevent))) return;
  publishKeyspaceEvent(flags, event, key, dbid);
}

static void publishKeyspaceEvent(int flags, std::string_view event, std::string_view key,
                                 int dbid) {
  std::string channel;
  std::string db = std::to_string(dbid);
  if (flags & kKeyspace) {
    channel.reserve(16 + db.size() + key.size());
    channel.append("__keyspace@").append(db).append("__:").append(key);
    pubsubPublish(channel, event);
  }
  if (flags & kKeyevent) {
    channel.clear();
    channel.append("__keyevent@").append(db).append("__:").append(event);
    pubsubPublish(channel, key);
  }
}

void keyEvent(Client* c, int type, std::string_view event, std::string_view key) {
  int flags = enabledFlags();
  if (!(flags & type) || !(flags & (kKeyspace | kKeyevent))) return;
  publishKeyspaceEvent(flags, event, key, c->dbIndex());
}

}  // namespace server::notify
