#include "net/registry.h"

#include <cstring>
#include <memory>
#include <vector>

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
  types().emplace_back(makeTcpType());
  types().emplace_back(makeUnixType());
  types().emplace_back(makeTlsType());
#ifdef HAVE_RDMA
  types().emplace_back(makeRdmaType());
#endif
}

ConnectionType* findType(const char* name) {
  registerBuiltinTypes();
  for (auto& t : types()) {
    if (strcmp(t->name(), name) == 0) return t.get();
  }
  return nullptr;
}

bool applyRdmaClientOptions(bool rdma, const ClientTypeOptions& opts, const char* program,
                            std::string* err) {
  if (!rdma) {
    if (opts.empty()) return true;
    *err = std::string("Option --rdma-") + opts.front().first + " needs --rdma.";
    return false;
  }
  ConnectionType* t = findType("rdma");
  if (t == nullptr) {
    *err = std::string("RDMA support is not compiled in this ") + program;
    return false;
  }
  for (const auto& [name, value] : opts) {
    std::string why;
    if (!t->configure(name, value, &why)) {
      *err = std::string("Invalid --rdma-") + name + ": " + why;
      return false;
    }
  }
  return true;
}

void forEachType(const std::function<void(ConnectionType*)>& fn) {
  registerBuiltinTypes();
  for (auto& t : types()) fn(t.get());
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
#ifndef HAVE_RDMA
    for (const SettingSpec& s : rdmaSettings()) v.push_back(s);
#endif
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
#ifndef HAVE_RDMA
  // The one transport that may be compiled out: its port set is an error,
  // not a silently missing listener.
  std::string port = get("rdma-port");
  if (!port.empty() && port != "0") {
    *err =
        "rdma-port is set but RDMA support is not compiled in (build with BUILD_RDMA=yes "
        "and the libibverbs/librdmacm development packages)";
    return false;
  }
#endif
  std::vector<OpenedListener> opened;
  for (auto& t : types()) {
    ListenSpec spec;
    bool wanted = false;
    if (!t->listenSpecFrom(get, &spec, &wanted, err)) return false;
    if (!wanted) continue;
    Listener* l = t->listen(loop, spec, cb, cb_data, err);
    if (l == nullptr) return false;  // `opened` closes the others
    opened.push_back({t->name(), t->announce(*l), std::unique_ptr<Listener>(l)});
  }
  *out = std::move(opened);
  return true;
}

}  // namespace net
