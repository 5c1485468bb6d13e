// The "tcp" connection type: IPv4/IPv6 stream sockets.
#include <unistd.h>

#include <cerrno>

#include "common/log.h"
#include "net/socket/socket.h"
#include "net/socket/socket_connection.h"
#include "net/transports.h"

namespace net {
namespace {

class TcpType : public ConnectionType {
 public:
  const char* name() const override { return "tcp"; }
  const char* clientPortSetting() const override { return "port"; }
  // A read or write is one system call on the connection's own socket.
  bool ioFromAnyThread() const override { return true; }

  // Settings: port (0: no listener), bind, tcp-backlog.
  bool listenSpecFrom(const SettingLookup& get, ListenSpec* spec, bool* wanted,
                      std::string* err) override {
    long long port = 0;
    if (!settingInt(get("port"), &port) || port < 0 || port > 65535) {
      *err = "tcp: bad port '" + get("port") + "'";
      return false;
    }
    tcpListenSpecFrom(get, static_cast<int>(port), spec, wanted);
    return true;
  }

  Listener* listen(event::EventLoop* loop, const ListenSpec& spec, AcceptCallback cb, void* cb_data,
                   std::string* err) override {
    return listenTcpSpec(this, loop, spec, cb, cb_data, "TCP", err);
  }

  Connection* connect(event::EventLoop* loop, const ConnectAddr& addr, ConnHandler cb,
                      std::string* err) override {
    int fd = sock::connectTcp(addr.host, addr.port, addr.source_addr, err);
    if (fd == -1) return nullptr;
    sock::setNoDelay(fd, true);
    auto* c = new SocketConnection(this, loop, fd, ConnState::kConnecting);
    c->startConnect(cb);
    return c;
  }
};

}  // namespace

void tcpListenSpecFrom(const SettingLookup& get, int port, ListenSpec* spec, bool* wanted) {
  long long backlog = 511;
  spec->port = port;
  spec->addrs = settingWords(get("bind"));
  // An empty bind list listens on no address at all, as in Redis.
  *wanted = port != 0 && !spec->addrs.empty();
  if (settingInt(get("tcp-backlog"), &backlog)) spec->backlog = static_cast<int>(backlog);
}

Listener* listenTcpSpec(const ConnectionType* type, event::EventLoop* loop, const ListenSpec& spec,
                        AcceptCallback cb, void* cb_data, const char* what, std::string* err,
                        SocketConnFactory factory, void* factory_data) {
  std::vector<int> fds;
  std::string desc;
  for (const auto& a : spec.addrs) {
    std::string e;
    int fd = sock::listenTcp(a, spec.port, spec.backlog, &e);
    if (fd == -1) {
      int why = errno;
      bool optional = !a.empty() && a[0] == '-';
      std::string shown = optional ? a.substr(1) : a;
      LOG_WARNING("Warning: Could not create server %s listening socket %s:%d: %s", what,
                  shown.c_str(), spec.port, e.c_str());
      // As Redis: an optional ("-addr") address the host lacks is skipped,
      // and so is any address of a protocol or family the host lacks (IPv6
      // turned off). Every other failure fails the whole listener.
      if (why == EADDRNOTAVAIL && optional) continue;
      if (why == ENOPROTOOPT || why == EPROTONOSUPPORT || why == ESOCKTNOSUPPORT ||
          why == EPFNOSUPPORT || why == EAFNOSUPPORT)
        continue;
      for (int f : fds) ::close(f);
      *err = std::string("Could not create server ") + what + " listening socket " + e;
      return nullptr;
    }
    fds.push_back(fd);
    if (!desc.empty()) desc += " ";
    desc += (a[0] == '-' ? a.substr(1) : a) + ":" + std::to_string(spec.port);
  }
  // Every address skipped: a listener on nothing, as Redis allows.
  return new SocketListener(type, loop, std::move(fds), desc, cb, cb_data, true, factory,
                            factory_data);
}

ConnectionType* makeTcpType() {
  return new TcpType();
}

}  // namespace net
