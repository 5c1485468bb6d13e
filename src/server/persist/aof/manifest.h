// The multi-part AOF manifest (Redis 7.0): which files of appenddirname make
// up the data set and in which order. One line per file:
//
//   file <name> seq <n> type <b|h|i>
//
// b: the base (an RDB image or commands), i: incremental files of commands
// appended in seq order after the base, h: history files left from earlier
// rewrites and deleted once the manifest no longer needs them. Names with
// spaces or special bytes are written quoted, as Redis's sdscatrepr.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace server::persist::aof {

enum class FileType : char { kBase = 'b', kHistory = 'h', kIncr = 'i' };

struct FileInfo {
  std::string name;
  int64_t seq = 0;
  FileType type = FileType::kBase;
};

struct Manifest {
  std::optional<FileInfo> base;
  std::vector<FileInfo> incrs;    // in seq order: replayed after the base
  std::vector<FileInfo> history;  // most recently retired first
  int64_t base_seq = 0;           // highest base seq handed out
  int64_t incr_seq = 0;           // highest incr seq handed out

  // The text of the manifest file: base, history, then incrs (as 7.0).
  std::string format() const;
  // Parses a manifest file's text. False with *err (Redis's wording).
  static bool parse(const std::string& text, Manifest* out, std::string* err);
  // Reads the manifest file at `path` and parses it. False when the file
  // cannot be opened (*err left empty) or does not parse (*err set).
  static bool readFile(const std::string& path, Manifest* out, std::string* err);
};

// "<appendfilename>.manifest", "<appendfilename>.<seq>.base.rdb" ...
std::string manifestName(const std::string& appendfilename);
std::string baseName(const std::string& appendfilename, int64_t seq, bool rdb);
std::string incrName(const std::string& appendfilename, int64_t seq);
std::string tempIncrName(const std::string& appendfilename);

// Writes text to dir/name through a temp file, fsync, rename and an fsync of
// the directory, so a crash leaves either the old or the new manifest.
bool writeFileAtomically(const std::string& dir, const std::string& name, const std::string& text,
                         std::string* err);
// fsyncs a directory (after renames in it).
bool fsyncDir(const std::string& dir);

}  // namespace server::persist::aof
