// Factories of the built-in connection types; only registry.cpp calls them.
// (tls: net/tls/tls_type.cpp; OpenSSL is a required build dependency.)
#pragma once

#include <vector>

#include "net/connection.h"

namespace net {

ConnectionType* makeTcpType();
ConnectionType* makeUnixType();
ConnectionType* makeTlsType();
#ifdef HAVE_RDMA
ConnectionType* makeRdmaType();
#endif
// The rdma type's settings (net/rdma/settings.cpp): built with or without
// RDMA support, so redis.conf files naming them load either way.
const std::vector<SettingSpec>& rdmaSettings();

}  // namespace net
