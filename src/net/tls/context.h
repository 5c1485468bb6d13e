// TLS set-up on OpenSSL 3, apart from the datapath: the server's contexts
// built from its tls-* settings as Redis 7.0 builds them (same checks, same
// log lines), and the client programs' context from their --tls options as
// redis-cli 7.0 builds it (same error sentences). No I/O happens here.
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string>

#include "net/tls/settings.h"

namespace net::tls {

struct CtxFree {
  void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};
// Connections hold their own reference (SSL_new), so a context replaced by
// CONFIG SET stays alive until its last connection closes.
using CtxPtr = std::unique_ptr<SSL_CTX, CtxFree>;

// What the server's settings give: the context accepted connections use,
// and the one its own outbound connections use (replication, cluster):
// from tls-client-cert-file/-key-file, or the server's own when unset.
struct ServerContexts {
  CtxPtr server;
  CtxPtr client;
};
// False after logging every problem at warning level as Redis does
// ("Failed to load certificate: <file>: <reason>", ...).
bool buildServerContexts(const ServerConfig& cfg, ServerContexts* out);

// redis-cli / redis-benchmark: --cacert, --cacertdir, --cert, --key,
// --insecure, --tls-ciphers, --tls-ciphersuites (--sni is per connection).
struct ClientConfig {
  std::string cacert, cacertdir, cert, key, sni, ciphers, ciphersuites;
  bool insecure = false;
};
// False with *err, the sentence redis-cli 7.0 prints after "Could not
// negotiate a TLS connection: " ("Invalid CA Certificate File/Directory").
bool buildClientContext(const ClientConfig& cfg, CtxPtr* out, std::string* err);

// OpenSSL's reason for the last failure, e.g. "error:0A00010B:SSL
// routines::wrong version number"; empties the thread's error queue.
std::string takeSslError();

}  // namespace net::tls
