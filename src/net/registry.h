// Registry of connection types, looked up by name ("tcp", "unix", "rdma").
// Transports are registered once at start-up by registerBuiltinTypes(); the
// only #ifdef for optional transports lives in registry.cpp.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "net/connection.h"

namespace net {

// Registers every transport compiled in. Idempotent.
void registerBuiltinTypes();
// nullptr if no such type is compiled in.
ConnectionType* findType(const char* name);

void forEachType(const std::function<void(ConnectionType*)>& fn);
// The type the server opens `link` with: the first in registration order
// whose settings ask to carry it (ConnectionType::carriesLink; a warning is
// logged when several do), else tcp.
ConnectionType* typeForLink(const SettingLookup& get, ServerLink link);
// Before-sleep hook: true if any transport holds undelivered received data.
bool anyPendingData();
// Calls processPendingData() on each type; returns the number of handlers run.
int processPendingData();
// The before-sleep service every event loop using connections installs
// (the server's and the client library's): runs the handlers of data that
// transports hold in user space (no fd event announces it), then keeps the
// loop from blocking in its next wait while a handler ran (it may have
// completed what a caller waits for, or left data behind) or data remains.
// Returns the number of handlers run.
int servicePendingData(event::EventLoop* loop);

// Every server setting the connection types own (ConnectionType::settings),
// in registration order. A transport that may be compiled out still lists
// its settings, so a redis.conf written for a build with it keeps loading
// (openListeners refuses to start a listener it cannot open).
const std::vector<SettingSpec>& allSettings();
// The spec of a setting a connection type owns; nullptr if none is named so.
const SettingSpec* findSetting(const std::string& name);
// CONFIG SET changed these settings (names as allSettings() spells them):
// each owning type applies its own (ConnectionType::applySettings). False
// with *err and *failed (the first name of the type that refused). Sets
// *reopen when a changed setting moves a listener.
bool applySettings(const SettingLookup& get, const std::vector<std::string>& names, bool* reopen,
                   std::string* err, std::string* failed);

struct OpenedListener {
  std::string type;
  std::string announcement;  // the log line ("Listening on tcp ...")
  std::unique_ptr<Listener> listener;
};
// Opens the listener of every connection type the settings ask for (and
// reports settings naming a type that is not compiled in). On failure
// nothing stays open and *err says why.
bool openListeners(event::EventLoop* loop, const SettingLookup& get, AcceptCallback cb,
                   void* cb_data, std::vector<OpenedListener>* out, std::string* err);

}  // namespace net
