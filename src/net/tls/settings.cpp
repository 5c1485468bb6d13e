// The tls-* settings table (see settings.h). Validation and error texts
// are Redis 7.0's: file names, protocols and cipher lists are free strings
// checked only when the contexts are built (CONFIG SET then answers
// "Unable to update TLS configuration. Check server logs.").
#include "net/tls/settings.h"

#include <strings.h>

#include <climits>
#include <cstring>

#include "common/strutil.h"

namespace net::tls {
namespace {

using Words = std::vector<std::string>;

bool parseRange(const std::string& v, long long hi, std::string* canonical, std::string* err) {
  int64_t n = 0;
  if (!common::strutil::parseInt64(v, &n)) {
    *err = "argument couldn't be parsed into an integer";
    return false;
  }
  if (n < 0 || n > hi) {
    *err = "argument must be between 0 and " + std::to_string(hi) + " inclusive";
    return false;
  }
  *canonical = std::to_string(n);
  return true;
}

bool parsePort(const Words& w, std::string* canonical, std::string* err) {
  return parseRange(w[0], 65535, canonical, err);
}

bool parseIntMax(const Words& w, std::string* canonical, std::string* err) {
  return parseRange(w[0], INT_MAX, canonical, err);
}

bool parseString(const Words& w, std::string* canonical, std::string*) {
  *canonical = w[0];
  return true;
}

bool parseBool(const Words& w, std::string* canonical, std::string* err) {
  bool v = false;
  if (!settingYesNo(w[0], &v)) {
    *err = "argument must be 'yes' or 'no'";
    return false;
  }
  *canonical = v ? "yes" : "no";
  return true;
}

bool parseAuthClients(const Words& w, std::string* canonical, std::string* err) {
  for (const char* v : {"no", "yes", "optional"}) {
    if (strcasecmp(w[0].c_str(), v) == 0) {
      *canonical = v;
      return true;
    }
  }
  *err = "argument(s) must be one of the following: no, yes, optional";
  return false;
}

SettingSpec spec(const char* name, const char* def,
                 bool (*parse)(const Words&, std::string*, std::string*)) {
  return SettingSpec{name, def, true, false, parse};
}

// A file whose content CONFIG SET reloads even under the same name.
SettingSpec fileSpec(const char* name) {
  SettingSpec s = spec(name, "", parseString);
  s.reapply_unchanged = true;
  return s;
}

SettingSpec secretSpec(const char* name) {
  SettingSpec s = spec(name, "", parseString);
  s.sensitive = true;
  return s;
}

long long intOf(const SettingLookup& get, const char* name, long long def) {
  int64_t n = 0;
  return common::strutil::parseInt64(get(name), &n) ? n : def;
}

}  // namespace

const std::vector<SettingSpec>& tlsSettings() {
  static const std::vector<SettingSpec> kSettings = [] {
    SettingSpec port = spec("tls-port", "0", parsePort);
    port.reopens_listeners = true;
    return std::vector<SettingSpec>{
        port,
        fileSpec("tls-cert-file"),
        fileSpec("tls-key-file"),
        secretSpec("tls-key-file-pass"),
        fileSpec("tls-client-cert-file"),
        fileSpec("tls-client-key-file"),
        secretSpec("tls-client-key-file-pass"),
        fileSpec("tls-dh-params-file"),
        fileSpec("tls-ca-cert-file"),
        fileSpec("tls-ca-cert-dir"),
        spec("tls-auth-clients", "yes", parseAuthClients),
        spec("tls-replication", "no", parseBool),
        spec("tls-cluster", "no", parseBool),
        spec("tls-protocols", "", parseString),
        spec("tls-ciphers", "", parseString),
        spec("tls-ciphersuites", "", parseString),
        spec("tls-prefer-server-ciphers", "no", parseBool),
        spec("tls-session-caching", "yes", parseBool),
        spec("tls-session-cache-size", "20480", parseIntMax),
        spec("tls-session-cache-timeout", "300", parseIntMax),
        spec("tls-handshake-timeout", "10000", parseIntMax),
    };
  }();
  return kSettings;
}

bool isPerConnectionSetting(const std::string& name) {
  return name == "tls-auth-clients" || name == "tls-handshake-timeout" || name == "tls-port";
}

ServerConfig ServerConfig::from(const SettingLookup& get) {
  ServerConfig c;
  c.port = intOf(get, "tls-port", 0);
  c.cert_file = get("tls-cert-file");
  c.key_file = get("tls-key-file");
  c.key_file_pass = get("tls-key-file-pass");
  c.client_cert_file = get("tls-client-cert-file");
  c.client_key_file = get("tls-client-key-file");
  c.client_key_file_pass = get("tls-client-key-file-pass");
  c.dh_params_file = get("tls-dh-params-file");
  c.ca_cert_file = get("tls-ca-cert-file");
  c.ca_cert_dir = get("tls-ca-cert-dir");
  c.protocols = get("tls-protocols");
  c.ciphers = get("tls-ciphers");
  c.ciphersuites = get("tls-ciphersuites");
  c.prefer_server_ciphers = get("tls-prefer-server-ciphers") == "yes";
  c.session_caching = get("tls-session-caching") != "no";
  c.session_cache_size = intOf(get, "tls-session-cache-size", 20 * 1024);
  c.session_cache_timeout = intOf(get, "tls-session-cache-timeout", 300);
  c.replication = get("tls-replication") == "yes";
  c.cluster = get("tls-cluster") == "yes";
  std::string auth = get("tls-auth-clients");
  c.auth_clients = auth == "no"         ? AuthClients::kNo
                   : auth == "optional" ? AuthClients::kOptional
                                        : AuthClients::kYes;
  c.handshake_timeout_ms = intOf(get, "tls-handshake-timeout", kDefaultHandshakeTimeoutMs);
  return c;
}

}  // namespace net::tls
