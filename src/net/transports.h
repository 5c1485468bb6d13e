// The built-in connection types: the one list that names them, for the
// registry (registry.cpp) to register. A type's folder (net/socket/,
// net/rdma/, net/tls/) defines its factory; a type that a build may leave
// out is listed under its #ifdef here and answers for its absence through
// the two functions below (rdma: net/rdma/settings.cpp, built either way).
// (tls: net/tls/tls_type.cpp; OpenSSL is a required build dependency.)
#pragma once

#include <string>
#include <vector>

#include "net/connection.h"

namespace net {

ConnectionType* makeTcpType();
ConnectionType* makeUnixType();
ConnectionType* makeTlsType();
#ifdef HAVE_RDMA
ConnectionType* makeRdmaType();
#endif

// In registration order.
inline std::vector<ConnectionType*> makeBuiltinTypes() {
  return {
      makeTcpType(),
      makeUnixType(),
      makeTlsType(),
#ifdef HAVE_RDMA
      makeRdmaType(),
#endif
  };
}

// The settings of the types this build leaves out: still read from
// redis.conf, so a file written for a build with them loads.
const std::vector<SettingSpec>& absentTypeSettings();
// False with *err when the settings ask a type this build leaves out to
// listen (its port set).
bool absentTypesAllowListen(const SettingLookup& get, std::string* err);

}  // namespace net
