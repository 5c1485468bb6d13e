#include "server/persist/rdb_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "server/core/version.h"
#include "server/persist/child_info.h"
#include "server/persist/rdb_foreign_load.h"
#include "server/persist/rdb_format.h"
#include "server/persist/rdb_io.h"

namespace server::persist {

namespace {

void aux(RdbWriter& w, std::string_view k, std::string_view v) {
  w.byte(kOpAux);
  w.string(k);
  w.string(v);
}

}  // namespace

bool writeRdb(int fd, const std::vector<db::Db*>& dbs, const SaveOptions& opt, std::string* err) {
  RdbWriter w(fd, opt.fsync_every);
  w.setCompression(opt.compression);
  w.setChecksum(opt.checksum);
  char magic[16];
  snprintf(magic, sizeof(magic), "REDIS%04d", kRdbVersion);
  w.raw(magic, 9);
  aux(w, "redis-ver", server::kRedisVersion);
  aux(w, "redis-bits", "64");
  aux(w, "ctime", std::to_string(time(nullptr)));
  aux(w, "used-mem", std::to_string(opt.used_mem));
  for (const auto& [k, v] : opt.extra_aux) aux(w, k, v);
  aux(w, "aof-base", opt.aof_base ? "1" : "0");
  if (opt.progress != nullptr && opt.key_save_delay_us > 0) opt.progress->setEveryKey(true);
  // Function libraries come before the data, as Redis 7.0 writes them.
  for (const std::string& code : opt.function_libraries) {
    w.byte(kOpFunction2);
    w.string(code);
  }
  for (db::Db* d : dbs) {
    if (d->size() == 0) continue;
    w.byte(kOpSelectDb);
    w.length(static_cast<uint64_t>(d->id()));
    w.byte(kOpResizeDb);
    w.length(d->size());
    w.length(d->expiresSize());
    // peek-style walk: nothing is expired or touched while saving (a forked
    // child must leave the pages alone; keys already past their TTL are
    // written and the loader drops them).
    d->forEach([&](db::Entry* e) {
      if (w.failed()) return;
      if (opt.key_save_delay_us > 0) usleep(static_cast<useconds_t>(opt.key_save_delay_us));
      int64_t when = e->hasExpire() ? d->expireOf(e) : -1;
      if (when >= 0) {
        w.byte(kOpExpireTimeMs);
        w.millis(when);
      }
      w.byte(rdbTypeOf(e->val));
      w.string(e->keyView());
      saveValue(w, e->val);
      if (opt.progress != nullptr) opt.progress->keyDone();
    });
  }
  w.byte(kOpEof);
  w.flush();  // folds everything into the checksum
  uint64_t crc = opt.checksum ? w.crc() : 0;
  uint8_t b[8];
  for (int i = 0; i < 8; i++) b[i] = static_cast<uint8_t>(crc >> (8 * i));
  w.raw(b, 8);
  if (!w.flush()) {
    *err = strerror(errno);
    return false;
  }
  return true;
}

bool finishWrittenFile(int fd, bool ok, const std::string& path, std::string* werr) {
  if (ok && fsync(fd) != 0) {
    ok = false;
    *werr = std::string("fsync: ") + strerror(errno);
  }
  if (close(fd) != 0 && ok) {
    ok = false;
    *werr = std::string("close: ") + strerror(errno);
  }
  if (!ok) unlink(path.c_str());
  return ok;
}

bool saveRdbFile(const std::string& path, const std::vector<db::Db*>& dbs, const SaveOptions& opt,
                 std::string* err) {
  std::string dir;
  size_t slash = path.rfind('/');
  if (slash != std::string::npos) dir = path.substr(0, slash + 1);
  std::string tmp = dir + "temp-" + std::to_string(getpid()) + ".rdb";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    char cwd[4096];
    *err = "Failed opening the .rdb for saving (" + tmp + " in server root dir " +
           (getcwd(cwd, sizeof(cwd)) ? cwd : "?") + "): " + strerror(errno);
    return false;
  }
  std::string werr;
  bool ok = finishWrittenFile(fd, writeRdb(fd, dbs, opt, &werr), tmp, &werr);
  if (!ok) {
    *err = "Write error saving DB on disk: " + werr;
    return false;
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    *err = "Error moving temp DB file " + tmp + " on the final destination " + path + ": " +
           strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

namespace {

constexpr const char* kSignature = "Wrong signature trying to load DB from file";

// The loader proper, over one bounded reader (n: the input's length, 0 for
// a stream of unknown length).
class Loader {
 public:
  Loader(RdbReader& r, size_t n, int ndbs, const LoadLimits& lim, bool verify_crc, int64_t now_ms,
         LoadStats* st, const LoadHooks* hooks)
      : n_(n),
        r_(r),
        ndbs_(ndbs),
        lim_(lim),
        verify_crc_(verify_crc),
        now_ms_(now_ms),
        st_(st),
        hooks_(hooks) {
    if (verify_crc_) r_.keepChecksum();
  }

  bool run(std::vector<std::unique_ptr<db::Db>>* out) {
    for (int i = 0; i < ndbs_; i++) out->push_back(std::make_unique<db::Db>(i));
    if (!header()) return false;
    db::Db* cur = (*out)[0].get();
    int64_t expire = -1;
    std::string key;
    for (;;) {
      uint8_t t;
      if (!r_.byte(&t)) return false;
      switch (t) {
        case kOpEof:
          if (!trailer()) return false;
          st_->bytes_read = r_.offset();
          st_->field_ttls_kept = r_.fieldTtlNotes().kept_without_ttl;
          st_->field_ttls_expired = r_.fieldTtlNotes().dropped_expired;
          return true;
        case kOpSelectDb: {
          uint64_t id;
          if (!r_.length(&id)) return false;
          if (id >= static_cast<uint64_t>(ndbs_))
            return r_.fail("the file has data for DB " + std::to_string(id) +
                           " but this server is configured with " + std::to_string(ndbs_) +
                           " databases");
          cur = (*out)[id].get();
          continue;
        }
        case kOpResizeDb: {
          uint64_t a, b;
          if (!r_.length(&a) || !r_.length(&b)) return false;
          // A hint only: bounded by what the rest of the file could hold.
          if (cur->size() == 0 && a <= r_.remaining() / 3) cur->reserve(r_.reserveHint(a));
          continue;
        }
        case kOpExpireTimeMs:
          if (!r_.millis(&expire)) return false;
          continue;
        case kOpExpireTime: {
          int32_t s;
          if (!r_.seconds(&s)) return false;
          expire = int64_t{s} * 1000;
          continue;
        }
        case kOpIdle: {
          uint64_t idle;
          if (!r_.length(&idle)) return false;
          continue;  // access times are not restored from files
        }
        case kOpFreq: {
          uint8_t f;
          if (!r_.byte(&f)) return false;
          continue;
        }
        case kOpAux: {
          std::string k, v;
          if (!r_.string(&k) || !r_.string(&v)) return false;
          if (k == "redis-ver") st_->redis_ver = v;
          if (k == "valkey-ver") st_->valkey_ver = v;
          if (k == "used-mem") st_->used_mem = strtoll(v.c_str(), nullptr, 10);
          if (k == "repl-stream-db") st_->repl_stream_db = strtoll(v.c_str(), nullptr, 10);
          if (k == "repl-id") st_->repl_id = v;
          if (k == "repl-offset") st_->repl_offset = strtoll(v.c_str(), nullptr, 10);
          continue;
        }
        case kOpModuleAux: {
          uint64_t id;
          if (!r_.length(&id)) return false;
          return r_.fail(
              "The RDB file contains AUX module data I can't load: no matching module '" +
              moduleTypeName(id) + "' (this server loads no modules)");
        }
        case kOpSlotInfo: {
          // Redis 7.4 in cluster mode: slot id, keys, keys with expiry.
          uint64_t a, b, c;
          if (!r_.length(&a) || !r_.length(&b) || !r_.length(&c)) return false;
          continue;  // size hints only
        }
        case kOpSlotImport:
          if (!st_->valkey) break;  // an unknown type byte elsewhere
          return r_.fail(
              "the file holds a cluster slot import in progress (Valkey opcode 243), which this "
              "server (no cluster mode) cannot take over");
        case kOpFunction2: {
          std::string code;
          if (!r_.string(&code)) return false;
          st_->function_libraries.push_back(std::move(code));
          continue;
        }
        case kOpFunction:
          // The format of Redis 7.0's release candidates, which 7.0 itself
          // no longer loads either.
          return r_.fail("the file holds pre-GA function data (opcode 246), which is not loaded");
        default:
          break;
      }
      // A key/value pair of type t.
      size_t item_at = r_.offset() - 1;
      if (!r_.string(&key)) return false;
      db::Value v;
      if (!loadValue(r_, t, lim_, &v))
        return r_.annotate(" [the value of key '" + key + "', type " + std::to_string(t) +
                           " at offset " + std::to_string(item_at) + "]");
      if (v.empty()) {
        st_->empty_skipped++;
      } else if (expire >= 0 && expire < now_ms_) {
        st_->expired_skipped++;
        if (hooks_ != nullptr && hooks_->on_expired) hooks_->on_expired(cur->id(), key);
      } else {
        // One hash per key: set() inserts, and a size that did not grow
        // means the key was already there.
        size_t before = cur->size();
        db::Entry* e = cur->set(key, std::move(v), false);
        if (cur->size() == before) return r_.fail("duplicate key '" + key + "'");
        if (expire >= 0) cur->setExpire(e, expire, true);
        st_->keys++;
      }
      expire = -1;
      r_.release(hooks_ != nullptr && hooks_->release_behind);
      if (hooks_ != nullptr) {
        if (hooks_->key_delay_us > 0) usleep(static_cast<useconds_t>(hooks_->key_delay_us));
        if (hooks_->progress && (++since_progress_ >= 256 || hooks_->key_delay_us > 0)) {
          since_progress_ = 0;
          if (!hooks_->progress(r_.offset(), n_)) return r_.fail("loading abandoned");
        }
      }
    }
  }

  // Redis's wording for the three kinds of failure, with our reason and
  // what wrote the file.
  std::string error() const {
    const std::string& e = r_.error();
    if (e == kSignature) return e;
    if (e == RdbReader::kShortRead && !r_.streaming())
      return "Short read or OOM loading DB. Unrecoverable error, aborting now. (file ends at "
             "byte " +
             std::to_string(n_) + origin() + ")";
    return "Internal error in RDB reading offset " + std::to_string(r_.offset()) + ": " + e +
           (st_->version > 0 ? " (" + origin().substr(2) + ")" : std::string());
  }

  // ", RDB version 9 written by Redis 5.0.7" (what is known of it).
  std::string origin() const {
    if (st_->version == 0) return {};
    std::string s = ", RDB version " + std::to_string(st_->version);
    if (!st_->valkey_ver.empty())
      s += " written by Valkey " + st_->valkey_ver;
    else if (!st_->redis_ver.empty())
      s += std::string(" written by ") + (st_->valkey ? "Valkey " : "Redis ") + st_->redis_ver;
    return s;
  }

 private:
  // "REDIS" and four digits (Redis, Valkey up to 8), or "VALKEY" and three
  // (Valkey 9 on).
  bool header() {
    const uint8_t* p;
    if (!r_.raw(9, &p)) return false;
    size_t digits;
    bool valkey;
    if (memcmp(p, "REDIS", 5) == 0) {
      digits = 5;
      valkey = false;
    } else if (memcmp(p, "VALKEY", 6) == 0) {
      digits = 6;
      valkey = true;
    } else {
      return r_.fail(kSignature);
    }
    int v = 0;
    for (size_t i = digits; i < 9; i++) {
      if (p[i] < '0' || p[i] > '9') return r_.fail("bad RDB version field");
      v = v * 10 + (p[i] - '0');
    }
    if (!rdbVersionKnown(v) || rdbVersionIsValkey(v) != valkey)
      return r_.fail("can't handle RDB format version " + std::to_string(v) + " (magic " +
                     std::string(reinterpret_cast<const char*>(p), 9) +
                     "): this server loads REDIS0001 to REDIS00" +
                     std::to_string(kRdbMaxRedisVersion) + " and VALKEY0" +
                     std::to_string(kRdbMinValkeyVersion) + " to VALKEY0" +
                     std::to_string(kRdbMaxValkeyVersion));
    st_->version = v;
    st_->valkey = valkey;
    r_.setOrigin(v, valkey, now_ms_);
    return true;
  }

  bool trailer() {
    if (st_->version < 5) return true;  // no checksum before version 5
    uint64_t crc = verify_crc_ ? r_.checksum() : 0;
    int64_t stored;
    if (!r_.millis(&stored)) return r_.fail("file ends before its checksum");
    if (!verify_crc_ || stored == 0) return true;  // written with rdbchecksum no
    if (crc != static_cast<uint64_t>(stored)) {
      // Redis's words: "expected" is what the bytes give, "got" the trailer.
      char buf[128];
      snprintf(buf, sizeof(buf),
               "RDB CRC error (wrong RDB checksum expected: (%llx) but got (%llx))",
               static_cast<unsigned long long>(crc), static_cast<unsigned long long>(stored));
      return r_.fail(buf);
    }
    return true;
  }

  size_t n_;
  RdbReader& r_;
  int ndbs_;
  const LoadLimits& lim_;
  bool verify_crc_;
  int64_t now_ms_;
  LoadStats* st_;
  const LoadHooks* hooks_;
  int since_progress_ = 0;
};

}  // namespace

std::string fieldTtlNote(const LoadStats& st) {
  if (st.field_ttls_kept == 0 && st.field_ttls_expired == 0) return {};
  return std::to_string(st.field_ttls_kept) +
         " hash fields with an expiry time were loaded without it (this server has no field "
         "expiry; they now live until deleted), " +
         std::to_string(st.field_ttls_expired) + " whose time had passed were dropped";
}

bool loadRdb(RdbReader& r, size_t n, int ndbs, const LoadLimits& lim, bool verify_crc,
             int64_t now_ms, std::vector<std::unique_ptr<db::Db>>* out, LoadStats* stats,
             std::string* err, const LoadHooks* hooks) {
  Loader l(r, n, ndbs, lim, verify_crc, now_ms, stats, hooks);
  if (l.run(out)) return true;
  out->clear();
  *err = l.error();
  return false;
}

bool loadRdbBytes(const uint8_t* data, size_t n, int ndbs, const LoadLimits& lim, bool verify_crc,
                  int64_t now_ms, std::vector<std::unique_ptr<db::Db>>* out, LoadStats* stats,
                  std::string* err, const LoadHooks* hooks) {
  RdbReader r(data, n);
  return loadRdb(r, n, ndbs, lim, verify_crc, now_ms, out, stats, err, hooks);
}

bool loadRdbFile(const std::string& path, int ndbs, const LoadLimits& lim, bool verify_crc,
                 int64_t now_ms, std::vector<std::unique_ptr<db::Db>>* out, LoadStats* stats,
                 bool* missing, std::string* err, const LoadHooks* hooks) {
  *missing = false;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      *missing = true;
      return true;
    }
    *err = "can't open " + path + ": " + strerror(errno);
    return false;
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    *err = "can't stat " + path + ": " + strerror(errno);
    close(fd);
    return false;
  }
  size_t n = static_cast<size_t>(sb.st_size);
  if (n == 0) {
    close(fd);
    *err = "file is empty";
    return false;
  }
  void* m = mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) {
    *err = "can't map " + path + ": " + strerror(errno);
    return false;
  }
  madvise(m, n, MADV_SEQUENTIAL);
  LoadHooks mapped;
  if (hooks != nullptr) mapped = *hooks;
  mapped.release_behind = true;
  bool ok = loadRdbBytes(static_cast<const uint8_t*>(m), n, ndbs, lim, verify_crc, now_ms, out,
                         stats, err, &mapped);
  munmap(m, n);
  return ok;
}

}  // namespace server::persist
