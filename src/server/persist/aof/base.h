// Writing a base file: the whole data set, either as an RDB image
// (aof-use-rdb-preamble yes: ".base.rdb") or as commands (".base.aof").
// Called in the rewrite child and, at start with no AOF yet, in the server.
#pragma once

#include <string>

namespace server::persist::aof {

// Writes the data set to `path` (truncated), fsyncs and closes it. False
// with *err naming the failing step.
bool writeBaseFile(const std::string& path, bool rdb, std::string* err);

// The command form of the data set into fd (emit.cpp).
bool writeDatasetAsCommands(int fd, bool incremental_fsync, std::string* err);

}  // namespace server::persist::aof
