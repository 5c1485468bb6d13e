// Factories of the built-in connection types; only registry.cpp calls them.
#pragma once

#include "net/connection.h"

namespace net {

ConnectionType* makeTcpType();
ConnectionType* makeUnixType();
#ifdef HAVE_RDMA
ConnectionType* makeRdmaType();
#endif

}  // namespace net
