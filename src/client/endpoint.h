// The connection-type options redis-cli and redis-benchmark share, parsed
// once: -s <path> (unix), --rdma and --rdma-<setting> <value> (the rdma
// type's configure() names). A new connection type adds its flags here, and
// both programs take them. Host and port (-h, -p) stay with each program:
// they check them with their own messages. Part of the client library: may
// include net/ and below; included by cli/ and bench/.
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
  // After every option: the connection type of *ep (unix when -s was given,
  // rdma for --rdma) and the type's settings applied. False with *err set
  // (the message the program prints) when the options do not go together
  // or a setting is refused. `program` names the binary in the messages.
  bool finish(const char* program, Endpoint* ep, std::string* err) const;
  // Whether --rdma was given (the TLS options, client/tls_options.h, refuse
  // to go with it).
  bool rdma() const { return rdma_; }

 private:
  bool rdma_ = false;
  std::string path_;
  // --rdma-<setting> values, as the rdma type's configure() names them.
  std::vector<std::pair<std::string, std::string>> rdma_settings_;
};

}  // namespace client
