#include "net/registry.h"

#include <cstring>
#include <memory>
#include <vector>

#include "common/log.h"
#include "event/event_loop.h"
#include "net/transports.h"

namespace net {
namespace {
std::vector<std::unique_ptr<ConnectionType>>& types() {
  static std::vector<std::unique_ptr<ConnectionType>> all;
  return all;
}
}  // namespace

void registerBuiltinTypes() {
  if (!types().empty()) return;
  for (ConnectionType* t : makeBuiltinTypes()) types().emplace_back(t);
}

ConnectionType* findType(const char* name) {
  registerBuiltinTypes();
  for (auto& t : types()) {
    if (strcmp(t->name(), name) == 0) return t.get();
  }
  return nullptr;
}

void forEachType(const std::function<void(ConnectionType*)>& fn) {
  registerBuiltinTypes();
  for (auto& t : types()) fn(t.get());
}

ConnectionType* typeForLink(const SettingLookup& get, ServerLink link) {
  registerBuiltinTypes();
  ConnectionType* chosen = nullptr;
  for (auto& t : types()) {
    if (!t->carriesLink(get, link)) continue;
    if (chosen == nullptr) {
      chosen = t.get();
    } else {
      LOG_WARNING("The %s and %s connection types are both set to carry this link; using %s",
                  chosen->name(), t->name(), chosen->name());
    }
  }
  return chosen != nullptr ? chosen : findType("tcp");
}

bool anyPendingData() {
  for (auto& t : types()) {
    if (t->hasPendingData()) return true;
  }
  return false;
}

int processPendingData() {
  int n = 0;
  for (auto& t : types()) n += t->processPendingData();
  return n;
}

int servicePendingData(event::EventLoop* loop) {
  int ran = processPendingData();
  if (ran > 0 || anyPendingData()) loop->setDontWait(true);
  return ran;
}

const std::vector<SettingSpec>& allSettings() {
  static const std::vector<SettingSpec> all = [] {
    std::vector<SettingSpec> v;
    forEachType([&v](ConnectionType* t) {
      for (const SettingSpec& s : t->settings()) v.push_back(s);
    });
    for (const SettingSpec& s : absentTypeSettings()) v.push_back(s);
    return v;
  }();
  return all;
}

const SettingSpec* findSetting(const std::string& name) {
  for (const SettingSpec& s : allSettings()) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

bool applySettings(const SettingLookup& get, const std::vector<std::string>& names, bool* reopen,
                   std::string* err, std::string* failed) {
  registerBuiltinTypes();
  *reopen = false;
  for (auto& t : types()) {
    std::vector<std::string> mine;
    for (const SettingSpec& s : t->settings()) {
      for (const std::string& n : names) {
        if (n != s.name) continue;
        mine.push_back(n);
        if (s.reopens_listeners) *reopen = true;
        break;
      }
    }
    if (mine.empty()) continue;
    if (!t->applySettings(get, mine, err)) {
      *failed = mine.front();
      return false;
    }
  }
  return true;
}

bool openListeners(event::EventLoop* loop, const SettingLookup& get, AcceptCallback cb,
                   void* cb_data, std::vector<OpenedListener>* out, std::string* err) {
  registerBuiltinTypes();
  // A type compiled out that the settings ask to listen is an error, not a
  // silently missing listener.
  if (!absentTypesAllowListen(get, err)) return false;
  std::vector<OpenedListener> opened;
  for (auto& t : types()) {
    ListenSpec spec;
    bool wanted = false;
    if (!t->listenSpecFrom(get, &spec, &wanted, err)) return false;
    if (!wanted) continue;
    Listener* l = t->listen(loop, spec, cb, cb_data, err);
    if (l == nullptr) return false;  // `opened` closes the others
    if (l->describe().empty()) {     // every address skipped: not listening
      delete l;
      continue;
    }
    opened.push_back({t->name(), t->announce(*l), std::unique_ptr<Listener>(l)});
  }
  *out = std::move(opened);
  return true;
}

}  // namespace net
