// Registry of connection types, looked up by name ("tcp", "unix", "rdma").
// Transports are registered once at start-up by registerBuiltinTypes(); the
// only #ifdef for optional transports lives in registry.cpp.
#pragma once

#include <functional>

#include "net/connection.h"

namespace net {

// Registers every transport compiled in. Idempotent.
void registerBuiltinTypes();
// nullptr if no such type is compiled in.
ConnectionType* findType(const char* name);
void forEachType(const std::function<void(ConnectionType*)>& fn);
// Before-sleep hook: true if any transport holds undelivered received data.
bool anyPendingData();
// Calls processPendingData() on each type; returns the number of handlers run.
int processPendingData();

}  // namespace net
