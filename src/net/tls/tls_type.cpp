// The "tls" ConnectionType: the table glue. Listens like tcp (same bind
// addresses and backlog) on tls-port, builds its contexts from the tls-*
// settings (at start when TLS is in use, again when CONFIG SET changes
// them: new connections get the new context, open ones keep theirs),
// serves the client programs' --tls options (configure) and delivers the
// bytes OpenSSL holds from the before-sleep hook.
#include <openssl/ssl.h>
#include <unistd.h>

#include <csignal>
#include <vector>

#include "common/log.h"
#include "net/socket/socket.h"
#include "net/socket/socket_connection.h"
#include "net/tls/context.h"
#include "net/tls/settings.h"
#include "net/tls/tls_connection.h"
#include "net/transports.h"

namespace net {
namespace tls {
namespace {

constexpr char kUpdateFailed[] = "Unable to update TLS configuration. Check server logs.";

class TlsType : public ConnectionType {
 public:
  const char* name() const override { return "tls"; }
  const char* clientPortSetting() const override { return "tls-port"; }
  // OpenSSL sessions are per connection (its error queue per thread): the
  // server's I/O threads run SSL_read/SSL_write; the loop's events and the
  // pending set wait for afterForeignIo.
  bool ioFromAnyThread() const override { return true; }

  const std::vector<SettingSpec>& settings() const override { return tlsSettings(); }

  // tls-replication: a replica's link to its master; tls-cluster: the
  // cluster bus.
  bool carriesLink(const SettingLookup& get, ServerLink link) const override {
    ServerConfig cfg = ServerConfig::from(get);
    return link == ServerLink::kReplication ? cfg.replication : cfg.cluster;
  }

  // tls-port (0: no listener) on the addresses of `bind`, with tcp-backlog.
  // The contexts are built here at start when anything uses TLS.
  bool listenSpecFrom(const SettingLookup& get, ListenSpec* spec, bool* wanted,
                      std::string* err) override {
    ServerConfig cfg = ServerConfig::from(get);
    applyPerConnection(cfg);
    if (cfg.inUse() && !shared_.server.server) {
      if (!buildServerContexts(cfg, &shared_.server)) {
        *err = "Failed to configure TLS. Check logs for more info.";
        return false;
      }
    }
    tcpListenSpecFrom(get, static_cast<int>(cfg.port), spec, wanted);
    return true;
  }

  bool applySettings(const SettingLookup& get, const std::vector<std::string>& names,
                     std::string* err) override {
    ServerConfig cfg = ServerConfig::from(get);
    applyPerConnection(cfg);
    bool rebuild = !shared_.server.server;
    for (const std::string& n : names) rebuild = rebuild || !isPerConnectionSetting(n);
    if (!rebuild) return true;
    if (!cfg.inUse()) {
      // Built from the new values when something starts using TLS; open
      // connections keep their reference to the old context.
      shared_.server = ServerContexts();
      return true;
    }
    ServerContexts fresh;
    if (!buildServerContexts(cfg, &fresh)) {
      *err = kUpdateFailed;
      return false;
    }
    shared_.server = std::move(fresh);
    return true;
  }

  Listener* listen(event::EventLoop* loop, const ListenSpec& spec, AcceptCallback cb, void* cb_data,
                   std::string* err) override {
    if (!shared_.server.server) {
      *err = "TLS is not configured (tls-cert-file, tls-key-file)";
      return nullptr;
    }
    return listenTcpSpec(this, loop, spec, cb, cb_data, "TLS", err, &TlsType::accepted, this);
  }

  Connection* connect(event::EventLoop* loop, const ConnectAddr& addr, ConnHandler cb,
                      std::string* err) override {
    SSL_CTX* ctx = shared_.client ? shared_.client.get() : shared_.server.client.get();
    if (ctx == nullptr) {
      // A client program that gave no --tls option but the type itself:
      // the system's CA store, as redis-cli without --cacert.
      if (!buildClientContext(client_cfg_, &shared_.client, err)) return nullptr;
      ctx = shared_.client.get();
    }
    // OpenSSL writes to the socket with write(2): a peer gone mid-write
    // must not kill a client program that left SIGPIPE at its default.
    ignoreSigpipe();
    SSL* ssl = SSL_new(ctx);
    if (ssl == nullptr) {
      *err = "SSL_new failed: " + takeSslError();
      return nullptr;
    }
    int fd = sock::connectTcp(addr.host, addr.port, addr.source_addr, err);
    if (fd == -1) {
      SSL_free(ssl);
      return nullptr;
    }
    sock::setNoDelay(fd, true);
    auto* c = new TlsConnection(this, &shared_, loop, fd, ssl, ConnState::kConnecting);
    c->startConnect(cb);
    return c;
  }

  // The client programs' options: cacert, cacertdir, cert, key, sni,
  // ciphers, ciphersuites, insecure (value ignored). The client context is
  // rebuilt after each, so *err names the first option that breaks it.
  bool configure(const std::string& name, const std::string& value, std::string* err) override {
    ClientConfig c = client_cfg_;
    if (name == "cacert") {
      c.cacert = value;
    } else if (name == "cacertdir") {
      c.cacertdir = value;
    } else if (name == "cert") {
      c.cert = value;
    } else if (name == "key") {
      c.key = value;
    } else if (name == "sni") {
      c.sni = value;
    } else if (name == "ciphers") {
      c.ciphers = value;
    } else if (name == "ciphersuites") {
      c.ciphersuites = value;
    } else if (name == "insecure") {
      c.insecure = true;
    } else {
      *err = "unknown tls option '" + name + "'";
      return false;
    }
    CtxPtr ctx;
    if (!buildClientContext(c, &ctx, err)) return false;
    client_cfg_ = c;
    shared_.client = std::move(ctx);
    shared_.sni = c.sni;
    return true;
  }

  bool hasPendingData() const override { return !pendingSet().empty(); }

  int processPendingData() override {
    auto& pending = pendingSet();
    if (pending.empty()) return 0;
    // Handlers may close connections or open new ones: walk a snapshot and
    // skip whoever left the set meanwhile.
    std::vector<TlsConnection*> due(pending.begin(), pending.end());
    int n = 0;
    for (TlsConnection* c : due) {
      if (pending.count(c) == 0) continue;
      n++;
      c->servicePending();
    }
    return n;
  }

 private:
  static Connection* accepted(const ConnectionType* type, event::EventLoop* loop, int fd,
                              void* data) {
    auto* self = static_cast<TlsType*>(data);
    SSL* ssl = SSL_new(self->shared_.server.server.get());
    return new TlsConnection(type, &self->shared_, loop, fd, ssl, ConnState::kAccepting);
  }

  void applyPerConnection(const ServerConfig& cfg) {
    shared_.auth_clients = cfg.auth_clients;
    shared_.handshake_timeout_ms = cfg.handshake_timeout_ms;
  }

  static void ignoreSigpipe() {
    struct sigaction old = {};
    if (sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) {
      signal(SIGPIPE, SIG_IGN);
    }
  }

  Shared shared_;
  ClientConfig client_cfg_;
};

}  // namespace
}  // namespace tls

ConnectionType* makeTlsType() {
  return new tls::TlsType();
}

}  // namespace net
