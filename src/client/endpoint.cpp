#include "client/endpoint.h"

#include <cstring>

#include "net/registry.h"

namespace client {

namespace {

// --rdma-<setting> flags and the names the rdma type's configure() takes.
struct SettingFlag {
  const char* flag;
  const char* setting;
};
constexpr SettingFlag kRdmaFlags[] = {
    {"--rdma-dialect", "dialect"},
    {"--rdma-keepalive-interval", "keepalive-interval"},
    {"--rdma-flow-control", "flow-control"},
};

// --tls and its options, with their usage text.
struct TlsFlag {
  const char* option;
  const char* setting;  // the tls type's configure() name; nullptr for --tls
  bool has_value;       // without a value the setting is given "yes"
  const char* help;
};
constexpr TlsFlag kTlsFlags[] = {
    {"--tls", nullptr, false, "Connect over TLS (the 'tls' connection type)."},
    {"--sni", "sni", true, "<host>  Server name indication for TLS."},
    {"--cacert", "cacert", true, "<file>  CA certificate file to verify the server with."},
    {"--cacertdir", "cacertdir", true,
     "<dir>  Directory of trusted CA certificates (c_rehash layout). Without\n"
     "                     --cacert or --cacertdir the system's store is used."},
    {"--insecure", "insecure", false, "Skip the verification of the server's certificate."},
    {"--cert", "cert", true, "<file>  Client certificate to authenticate with."},
    {"--key", "key", true, "<file>  Private key of the client certificate."},
    {"--tls-ciphers", "ciphers", true,
     "<list>  Ciphers to offer for TLSv1.2 and below (OpenSSL cipher list)."},
    {"--tls-ciphersuites", "ciphersuites", true,
     "<list>  Ciphersuites to offer for TLSv1.3 (OpenSSL format)."},
};

// Hands each setting to the type's configure(); on a refusal, false with
// the refused setting's name in *name and the type's reason in *why.
bool configureAll(net::ConnectionType* t,
                  const std::vector<std::pair<std::string, std::string>>& settings,
                  std::string* name, std::string* why) {
  for (const auto& [n, value] : settings) {
    if (!t->configure(n, value, why)) {
      *name = n;
      return false;
    }
  }
  return true;
}

}  // namespace

EndpointOptions::Match EndpointOptions::take(int argc, char** argv, int* i) {
  const char* a = argv[*i];
  bool has_value = *i + 1 < argc;
  if (strcmp(a, "--rdma") == 0) {
    rdma_ = true;
    return Match::kTaken;
  }
  if (strcmp(a, "-s") == 0) {
    if (!has_value) return Match::kMissingValue;
    path_ = argv[++*i];
    return Match::kTaken;
  }
  for (const SettingFlag& f : kRdmaFlags) {
    if (strcmp(a, f.flag) != 0) continue;
    if (!has_value) return Match::kMissingValue;
    rdma_settings_.emplace_back(f.setting, argv[++*i]);
    return Match::kTaken;
  }
  for (const TlsFlag& f : kTlsFlags) {
    if (strcmp(a, f.option) != 0) continue;
    if (f.setting == nullptr) {
      tls_ = true;
    } else if (!f.has_value) {
      tls_settings_.emplace_back(f.setting, "yes");
    } else if (!has_value) {
      return Match::kMissingValue;
    } else {
      tls_settings_.emplace_back(f.setting, argv[++*i]);
    }
    return Match::kTaken;
  }
  return Match::kNo;
}

bool EndpointOptions::finish(const char* program, Endpoint* ep, std::string* err) const {
  if (!path_.empty()) {
    ep->path = path_;
    ep->type = "unix";
  }
  if (rdma_) {
    if (!path_.empty()) {
      *err = "Options --rdma and -s cannot be used together.";
      return false;
    }
    ep->type = "rdma";
  }
  if (!rdma_ && !rdma_settings_.empty()) {
    *err = "Option --rdma-" + rdma_settings_.front().first + " needs --rdma.";
    return false;
  }
  std::string name, why;
  if (rdma_) {
    net::ConnectionType* t = net::findType("rdma");
    if (t == nullptr) {
      *err = std::string("RDMA support is not compiled in this ") + program;
      return false;
    }
    if (!configureAll(t, rdma_settings_, &name, &why)) {
      *err = "Invalid --rdma-" + name + ": " + why;
      return false;
    }
  }
  if (!tls_) return true;
  if (rdma_ || !path_.empty()) {
    *err = std::string("Option --tls cannot be used with ") + (rdma_ ? "--rdma" : "-s") + ".";
    return false;
  }
  net::ConnectionType* t = net::findType("tls");
  if (t == nullptr) {
    *err = "TLS support is not compiled in";
    return false;
  }
  if (!configureAll(t, tls_settings_, &name, &why)) {
    *err = "Could not negotiate a TLS connection: " + why;
    return false;
  }
  ep->type = "tls";
  return true;
}

std::string tlsUsage(const char* indent) {
  std::string out;
  for (const TlsFlag& f : kTlsFlags) {
    std::string line = std::string(indent) + f.option;
    const char* help = f.help;
    if (f.has_value) {
      // "<arg>  text": the argument follows the option name.
      const char* sp = strstr(help, "  ");
      line += " " + std::string(help, static_cast<size_t>(sp - help));
      help = sp + 2;
    }
    // The help text starts in the programs' column (indent + 19).
    size_t column = strlen(indent) + 18;
    if (line.size() < column) line.resize(column, ' ');
    std::string text = help;
    const std::string wrap = "\n" + std::string(21, ' ');
    for (size_t at = text.find(wrap); at != std::string::npos; at = text.find(wrap, at + 1)) {
      text.replace(at, wrap.size(), "\n" + std::string(column + 1, ' '));
    }
    out += line + " " + text + "\n";
  }
  return out;
}

}  // namespace client
