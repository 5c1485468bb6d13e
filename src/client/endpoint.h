// The connection-type options redis-cli and redis-benchmark share, parsed
// once: -s <path> (unix), --rdma and --rdma-<setting> <value> (the rdma
// type's configure() names), --tls and its options spelled as redis-cli 7.0
// spells them (--sni, --cacert, --cacertdir, --insecure, --cert, --key,
// --tls-ciphers, --tls-ciphersuites; the tls type's configure() names). A
// new connection type adds its flags here, and both programs take them.
// Host and port (-h, -p) stay with each program: they check them with their
// own messages. Part of the client library: may include net/ and below;
// included by cli/ and bench/.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "client/client.h"

namespace client {

class EndpointOptions {
 public:
  enum class Match {
    kNo,            // not one of these options
    kTaken,         // taken, with its value (the index moved past it)
    kMissingValue,  // one of these options, but its value is missing
  };
  // Looks at argv[*i]; takes it (and its value, advancing *i) when it is
  // one of these options.
  Match take(int argc, char** argv, int* i);
  // As --tls (a rediss:// URI).
  void useTls() { tls_ = true; }
  // After every option: the connection type of *ep (unix when -s was given,
  // rdma for --rdma, tls for --tls) and the type's settings applied. False
  // with *err set (the message the program prints) when the options do not
  // go together or a setting is refused ("Could not negotiate a TLS
  // connection: Invalid CA Certificate File/Directory"). Without --tls the
  // TLS options are ignored, as redis-cli 7.0 does. `program` names the
  // binary in the messages.
  bool finish(const char* program, Endpoint* ep, std::string* err) const;

 private:
  using Settings = std::vector<std::pair<std::string, std::string>>;

  bool rdma_ = false;
  bool tls_ = false;
  std::string path_;
  // --rdma-<setting> and TLS option values, as the types' configure() name them.
  Settings rdma_settings_;
  Settings tls_settings_;
};

// The usage lines of the TLS options (indent: the programs' column of
// option names).
std::string tlsUsage(const char* indent);

}  // namespace client
