// The LATENCY command family (latency_cmd.cpp).
#pragma once

#include "server/core/command.h"

namespace server::latency {

void registerLatencyCommand(CommandTable& t);

}  // namespace server::latency
