// The "unix" connection type: Unix domain stream sockets.
#include <cstdlib>

#include "net/socket/socket.h"
#include "net/socket/socket_connection.h"
#include "net/transports.h"

namespace net {
namespace {

class UnixType : public ConnectionType {
 public:
  const char* name() const override { return "unix"; }
  // A read or write is one system call on the connection's own socket.
  bool ioFromAnyThread() const override { return true; }

  // Settings: unixsocket (empty: no listener), unixsocketperm (octal),
  // tcp-backlog.
  bool listenSpecFrom(const SettingLookup& get, ListenSpec* spec, bool* wanted,
                      std::string* err) override {
    spec->path = get("unixsocket");
    *wanted = !spec->path.empty();
    std::string perm = get("unixsocketperm");
    char* end = nullptr;
    long p = strtol(perm.c_str(), &end, 8);
    if (!perm.empty() && (*end != '\0' || p < 0 || p > 0777)) {
      *err = "unix: bad unixsocketperm '" + perm + "'";
      return false;
    }
    spec->perm = static_cast<unsigned>(p);
    long long backlog = 511;
    if (settingInt(get("tcp-backlog"), &backlog)) spec->backlog = static_cast<int>(backlog);
    return true;
  }

  std::string announce(const Listener& l) const override {
    return "The server is now ready to accept connections at " + l.describe();
  }

  Listener* listen(event::EventLoop* loop, const ListenSpec& spec, AcceptCallback cb, void* cb_data,
                   std::string* err) override {
    std::string e;
    int fd = sock::listenUnix(spec.path, spec.perm, spec.backlog, &e);
    if (fd == -1) {
      *err = "Failed opening Unix socket: " + e;
      return nullptr;
    }
    return new SocketListener(this, loop, {fd}, spec.path, cb, cb_data, false);
  }

  Connection* connect(event::EventLoop* loop, const ConnectAddr& addr, ConnHandler cb,
                      std::string* err) override {
    int fd = sock::connectUnix(addr.path, err);
    if (fd == -1) return nullptr;
    auto* c = new SocketConnection(this, loop, fd, ConnState::kConnecting);
    c->startConnect(cb);
    return c;
  }
};

}  // namespace

ConnectionType* makeUnixType() {
  return new UnixType();
}

}  // namespace net
