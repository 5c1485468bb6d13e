// Whole RDB files: writing every database to a file descriptor and loading
// a file's bytes into a set of databases.
//
// Loading is all-or-nothing: keys go into fresh databases that replace the
// caller's only when the whole file (checksum included) was read without an
// error, so a corrupt file loses nothing that was in memory.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "server/db/db.h"
#include "server/persist/rdb_value.h"

namespace server::persist {

class ChildProgress;

struct SaveOptions {
  bool compression = true;        // rdbcompression
  bool checksum = true;           // rdbchecksum
  size_t fsync_every = 0;         // rdb-save-incremental-fsync: bytes between fsyncs
  int64_t used_mem = 0;           // aux "used-mem"
  bool aof_base = false;          // aux "aof-base"
  int64_t key_save_delay_us = 0;  // rdb-key-save-delay (tests: a slow save)
  // Function libraries' code, written as FUNCTION2 records before the data.
  std::vector<std::string> function_libraries;
  // In a forked child: told of every key written (INFO current_* figures).
  ChildProgress* progress = nullptr;
  // More aux fields, written before "aof-base" (SYNC: repl-stream-db,
  // repl-id, repl-offset, as Redis 7.0 writes them for a replica).
  std::vector<std::pair<std::string, std::string>> extra_aux;
  // rdb-filter-only without the data: a diskless SYNC child writes no keys.
  bool skip_data = false;
};

// Writes the RDB file (header, aux fields, every non-empty db, EOF,
// checksum) to fd. False with *err set on a write error.
bool writeRdb(int fd, const std::vector<db::Db*>& dbs, const SaveOptions& opt, std::string* err);

// The tail every file writer shares: after a write that went well (ok),
// fsync then close fd; when the write, the fsync or the close failed the
// file at path is removed and *werr says what failed ("fsync: ...",
// "close: ...", or the writer's own text). Returns whether all went well.
bool finishWrittenFile(int fd, bool ok, const std::string& path, std::string* werr);

// SAVE's core: writes into "temp-<pid>.rdb" next to path, fsyncs, renames
// over path. False with *err naming the failing step.
bool saveRdbFile(const std::string& path, const std::vector<db::Db*>& dbs, const SaveOptions& opt,
                 std::string* err);

struct LoadStats {
  uint64_t keys = 0;
  uint64_t expired_skipped = 0;
  uint64_t empty_skipped = 0;
  int version = 0;
  bool valkey = false;     // a "VALKEY" magic (Valkey 9 on)
  std::string redis_ver;   // aux "redis-ver" when present
  std::string valkey_ver;  // aux "valkey-ver" when present
  // Hash fields that carried an expiry time (Redis 7.4, Valkey 9): kept
  // without it, or dropped because it had passed.
  uint64_t field_ttls_kept = 0;
  uint64_t field_ttls_expired = 0;
  size_t bytes_read = 0;  // the image's length (an AOF may go on after it)
  int64_t used_mem = 0;   // aux "used-mem"
  // Aux fields of a file written for (or by) a replica: the stream's db,
  // the replication id and offset it corresponds to; -1 / empty if absent.
  int64_t repl_stream_db = -1;
  std::string repl_id;
  int64_t repl_offset = -1;
  // FUNCTION2 records: each library's code, for the caller to load once the
  // whole file has been read.
  std::vector<std::string> function_libraries;
};

// Optional hooks while loading.
struct LoadHooks {
  // Called every few hundred keys with the bytes read so far and the total;
  // returning false abandons the load (shutdown requested meanwhile).
  std::function<bool(size_t loaded, size_t total)> progress;
  int64_t key_delay_us = 0;  // key-load-delay (tests: a slow load)
  // The bytes are a read-only file mapping: the pages already parsed are
  // folded into the checksum and given back (madvise), so a big file does
  // not stay resident beside the data it became. Never for heap memory.
  bool release_behind = false;
  // A key skipped because its TTL had passed (db index, key).
  std::function<void(int db, std::string_view key)> on_expired;
};

// The log line for hash fields whose expiry time was not kept; empty when
// the file had none.
std::string fieldTtlNote(const LoadStats& st);

// Parses a whole RDB image. On success *out holds `ndbs` fresh databases
// with the data (keys whose expiry passed before now_ms are skipped); on
// failure *err says what was wrong and at which byte offset.
bool loadRdbBytes(const uint8_t* data, size_t n, int ndbs, const LoadLimits& lim, bool verify_crc,
                  int64_t now_ms, std::vector<std::unique_ptr<db::Db>>* out, LoadStats* stats,
                  std::string* err, const LoadHooks* hooks = nullptr);

// The same over any reader (a stream's, for a replica's diskless load): n
// is the input's length if known (progress figures), else 0. On success
// the reader is just past the checksum.
bool loadRdb(RdbReader& r, size_t n, int ndbs, const LoadLimits& lim, bool verify_crc,
             int64_t now_ms, std::vector<std::unique_ptr<db::Db>>* out, LoadStats* stats,
             std::string* err, const LoadHooks* hooks = nullptr);

// Reads the file at path and loads it as above. *missing is set (and true
// returned) when the file does not exist.
bool loadRdbFile(const std::string& path, int ndbs, const LoadLimits& lim, bool verify_crc,
                 int64_t now_ms, std::vector<std::unique_ptr<db::Db>>* out, LoadStats* stats,
                 bool* missing, std::string* err, const LoadHooks* hooks = nullptr);

}  // namespace server::persist
