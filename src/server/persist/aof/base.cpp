#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "server/core/state.h"
#include "server/persist/aof/base.h"
#include "server/persist/rdb_file.h"
#include "server/persist/snapshot.h"

namespace server::persist::aof {

bool writeBaseFile(const std::string& path, bool rdb, std::string* err) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *err = "Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): " +
           std::string(strerror(errno));
    return false;
  }
  bool incremental = server::g_server->config.aof_rewrite_incremental_fsync;
  std::string werr;
  bool ok;
  if (rdb) {
    SaveOptions o = saveOptions();
    o.aof_base = true;
    o.fsync_every = incremental ? 4u << 20 : 0;
    ok = writeRdb(fd, serverDbs(), o, &werr);
  } else {
    ok = writeDatasetAsCommands(fd, incremental, &werr);
  }
  ok = finishWrittenFile(fd, ok, path, &werr);
  if (!ok) {
    *err = "Write error writing append only file on disk: " + werr;
  }
  return ok;
}

}  // namespace server::persist::aof
