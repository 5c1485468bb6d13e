// The "unix" connection type: Unix domain stream sockets.
#include "net/socket.h"
#include "net/socket_connection.h"
#include "net/transports.h"

namespace net {
namespace {

class UnixType : public ConnectionType {
 public:
  const char* name() const override { return "unix"; }

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
