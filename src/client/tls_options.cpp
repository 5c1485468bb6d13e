#include "client/tls_options.h"

#include <cstring>

#include "net/registry.h"

namespace client {
namespace {

struct Flag {
  const char* option;
  const char* setting;  // the tls type's configure() name
  bool has_value;
  const char* help;
};

constexpr Flag kFlags[] = {
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

}  // namespace

bool parseTlsOption(int argc, char** argv, int* i, TlsOptions* opts, bool* missing) {
  *missing = false;
  for (const Flag& f : kFlags) {
    if (strcmp(argv[*i], f.option) != 0) continue;
    if (f.setting == nullptr) {
      opts->enabled = true;
      return true;
    }
    if (!f.has_value) {
      opts->settings.emplace_back(f.setting, "yes");
      return true;
    }
    if (*i + 1 >= argc) {
      *missing = true;
      return true;
    }
    opts->settings.emplace_back(f.setting, argv[++*i]);
    return true;
  }
  return false;
}

std::string tlsUsage(const char* indent) {
  std::string out;
  for (const Flag& f : kFlags) {
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

bool applyTlsOptions(const TlsOptions& opts, Endpoint* ep, std::string* err) {
  if (!opts.enabled) return true;
  net::ConnectionType* t = net::findType("tls");
  if (t == nullptr) {
    *err = "TLS support is not compiled in";
    return false;
  }
  for (const auto& [name, value] : opts.settings) {
    std::string why;
    if (!t->configure(name, value, &why)) {
      *err = "Could not negotiate a TLS connection: " + why;
      return false;
    }
  }
  ep->type = "tls";
  return true;
}

}  // namespace client
