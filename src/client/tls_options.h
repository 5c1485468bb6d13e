// The TLS options of redis-cli and redis-benchmark, spelled as redis-cli
// 7.0 spells them (--tls, --sni, --cacert, --cacertdir, --insecure, --cert,
// --key, --tls-ciphers, --tls-ciphersuites), and their hand-over to the
// "tls" connection type. Both programs' option parsers call these.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "client/client.h"

namespace client {

struct TlsOptions {
  bool enabled = false;  // --tls (or a rediss:// URI)
  // Each given option as the tls type's configure() names it.
  std::vector<std::pair<std::string, std::string>> settings;
};

// If argv[*i] is one of the options above, takes it (and its value,
// advancing *i) and returns true; *missing is set when its value is absent.
bool parseTlsOption(int argc, char** argv, int* i, TlsOptions* opts, bool* missing);

// The usage lines of the options (indent: the programs' column of option names).
std::string tlsUsage(const char* indent);

// With --tls: the endpoint goes over "tls" and the type gets the options.
// False with *err, the line to print ("Could not negotiate a TLS
// connection: Invalid CA Certificate File/Directory"). Without --tls the
// other options are ignored, as redis-cli 7.0 does.
bool applyTlsOptions(const TlsOptions& opts, Endpoint* ep, std::string* err);

}  // namespace client
