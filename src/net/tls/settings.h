// The tls type's server settings: every tls-* directive of Redis 7.0.15
// (names, defaults, validation) plus tls-handshake-timeout (ours), and the
// configuration they describe, read back from the server's options table.
// Only this module names them: the server lists them through
// net::allSettings() and hands changes to the type (applySettings).
#pragma once

#include <string>
#include <vector>

#include "net/connection.h"

namespace net::tls {

// tls-auth-clients: whether a client must present a certificate.
enum class AuthClients { kNo, kYes, kOptional };

// A TLS handshake not finished within this many ms is abandoned (the
// default of tls-handshake-timeout; 0 turns the limit off).
constexpr long long kDefaultHandshakeTimeoutMs = 10000;

struct ServerConfig {
  long long port = 0;
  std::string cert_file, key_file, key_file_pass;
  std::string client_cert_file, client_key_file, client_key_file_pass;
  std::string dh_params_file, ca_cert_file, ca_cert_dir;
  std::string protocols, ciphers, ciphersuites;
  bool prefer_server_ciphers = false;
  bool session_caching = true;
  long long session_cache_size = 20 * 1024;
  long long session_cache_timeout = 300;
  bool replication = false;
  bool cluster = false;
  AuthClients auth_clients = AuthClients::kYes;
  long long handshake_timeout_ms = kDefaultHandshakeTimeoutMs;

  static ServerConfig from(const SettingLookup& get);
  // Redis builds its TLS contexts only when something uses them: a TLS
  // port, replication or the cluster bus over TLS.
  bool inUse() const { return port != 0 || replication || cluster; }
};

const std::vector<SettingSpec>& tlsSettings();

// Settings read per connection rather than baked into a context: changing
// only these never rebuilds the contexts (as in Redis, where they have no
// apply step).
bool isPerConnectionSetting(const std::string& name);

}  // namespace net::tls
