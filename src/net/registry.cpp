#include "net/registry.h"

#include <cstring>
#include <memory>
#include <vector>

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

}  // namespace net
