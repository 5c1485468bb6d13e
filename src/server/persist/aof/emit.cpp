// The data set as commands (a base with aof-use-rdb-preamble no): the
// function libraries, then per database a SELECT and for every key the
// command rebuilding it (SET, RPUSH, SADD, ZADD, HMSET in batches of 64
// items, as Redis) followed by PEXPIREAT when it has a TTL.
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "server/core/state.h"
#include "server/db/hash.h"
#include "server/db/list.h"
#include "server/db/set.h"
#include "server/db/stream.h"
#include "server/db/zset.h"
#include "server/persist/aof/base.h"
#include "server/persist/snapshot.h"
#include "server/script/functions.h"

namespace server::persist::aof {

namespace {

constexpr size_t kItemsPerCommand = 64;
constexpr size_t kWriteChunk = 64 * 1024;
constexpr size_t kAutoSyncBytes = 4 * 1024 * 1024;  // aof-rewrite-incremental-fsync

class CommandWriter {
 public:
  CommandWriter(int fd, bool incremental_fsync) : fd_(fd), incremental_(incremental_fsync) {}

  void command(std::initializer_list<std::string_view> args) {
    header(args.size());
    for (std::string_view a : args) bulk(a);
  }
  void header(size_t n) {
    buf_ += '*';
    buf_ += std::to_string(n);
    buf_ += "\r\n";
  }
  void bulk(std::string_view a) {
    buf_ += '$';
    buf_ += std::to_string(a.size());
    buf_ += "\r\n";
    buf_.append(a.data(), a.size());
    buf_ += "\r\n";
    if (buf_.size() >= kWriteChunk) flush();
  }
  void raw(std::string_view s) { buf_.append(s.data(), s.size()); }

  bool flush() {
    size_t off = 0;
    while (!failed_ && off < buf_.size()) {
      ssize_t w = write(fd_, buf_.data() + off, buf_.size() - off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        failed_ = true;
        errno_ = w < 0 ? errno : ENOSPC;
        break;
      }
      off += static_cast<size_t>(w);
      since_sync_ += static_cast<size_t>(w);
    }
    buf_.clear();
    if (!failed_ && incremental_ && since_sync_ >= kAutoSyncBytes) {
      fdatasync(fd_);
      since_sync_ = 0;
    }
    return !failed_;
  }
  bool failed() const { return failed_; }
  int error() const { return errno_; }

 private:
  int fd_;
  bool incremental_;
  std::string buf_;
  size_t since_sync_ = 0;
  bool failed_ = false;
  int errno_ = 0;
};

// Items of one collection as batches of `cmd key item...`.
class Batcher {
 public:
  Batcher(CommandWriter& w, const char* cmd, std::string_view key, size_t total, size_t per_item)
      : w_(w), cmd_(cmd), key_(key), left_(total), per_item_(per_item) {}
  // Call before each item's per_item bulks.
  void item() {
    if (in_batch_ == 0) {
      size_t n = std::min(left_, kItemsPerCommand);
      w_.header(2 + n * per_item_);
      w_.bulk(cmd_);
      w_.bulk(key_);
      batch_size_ = n;
    }
    if (++in_batch_ == batch_size_) in_batch_ = 0;
    left_--;
  }

 private:
  CommandWriter& w_;
  const char* cmd_;
  std::string_view key_;
  size_t left_;
  size_t per_item_;
  size_t in_batch_ = 0;
  size_t batch_size_ = 0;
};

// A stream as Redis 7.0 rewrites it: its entries as XADDs (an empty
// stream as "XADD key MAXLEN 0 0-1 x y"), XSETID with the counters, then
// per group XGROUP CREATE and, per consumer, its pending entries as XCLAIM
// (XGROUP CREATECONSUMER for one with none).
void emitStream(CommandWriter& w, std::string_view key, const db::Stream& s) {
  if (s.length) {
    db::StreamIterator it(s, db::StreamID{}, db::StreamID::max(), false);
    db::StreamID id;
    int64_t nf;
    while (it.next(&id, &nf)) {
      w.header(3 + static_cast<size_t>(nf) * 2);
      w.bulk("XADD");
      w.bulk(key);
      w.bulk(id.toString());
      for (int64_t i = 0; i < nf; i++) {
        std::string_view f, v;
        it.field(&f, &v);
        w.bulk(f);
        w.bulk(v);
      }
    }
  } else {
    w.command({"XADD", key, "MAXLEN", "0", "0-1", "x", "y"});
  }
  std::string last = s.last_id.toString(), added = std::to_string(s.entries_added),
              maxdel = s.max_deleted_id.toString();
  w.command({"XSETID", key, last, "ENTRIESADDED", added, "MAXDELETEDID", maxdel});
  for (const auto& [name, g] : s.groups) {
    std::string gid = g->last_id.toString(), read = std::to_string(g->entries_read);
    w.command({"XGROUP", "CREATE", key, name, gid, "ENTRIESREAD", read});
    for (const auto& [cname, c] : g->consumers) {
      if (c->pel.empty()) {
        w.command({"XGROUP", "CREATECONSUMER", key, name, cname});
        continue;
      }
      for (const auto& [id, nack] : c->pel) {
        std::string ids = id.toString(), time = std::to_string(nack->delivery_time),
                    count = std::to_string(nack->delivery_count);
        w.command({"XCLAIM", key, name, cname, "0", ids, "TIME", time, "RETRYCOUNT", count,
                   "JUSTID", "FORCE"});
      }
    }
  }
}

void emitValue(CommandWriter& w, std::string_view key, const db::Value& v) {
  char scratch[64];
  switch (v.kind()) {
    case db::Kind::kList: {
      const auto& l = *static_cast<const db::List*>(v.collection());
      Batcher b(w, "RPUSH", key, l.size(), 1);
      for (auto it = l.first(); it.valid(); it = l.next(it)) {
        b.item();
        w.bulk(l.get(it).view(scratch));
      }
      break;
    }
    case db::Kind::kSet: {
      const db::Set* s = db::asSet(v);
      Batcher b(w, "SADD", key, s->size(), 1);
      s->forEach([&](std::string_view m) {
        b.item();
        w.bulk(m);
      });
      break;
    }
    case db::Kind::kHash: {
      const db::Hash* h = db::asHash(v);
      Batcher b(w, "HMSET", key, h->size(), 2);
      h->forEach([&](std::string_view f, std::string_view val) {
        b.item();
        w.bulk(f);
        w.bulk(val);
      });
      break;
    }
    case db::Kind::kZSet: {
      const auto* z = static_cast<const db::ZSet*>(v.collection());
      Batcher b(w, "ZADD", key, z->size(), 2);
      z->forEach([&](std::string_view m, double score) {
        char buf[64];
        int n = snprintf(buf, sizeof(buf), "%.17g", score);
        b.item();
        w.bulk(std::string_view(buf, static_cast<size_t>(n)));
        w.bulk(m);
        return true;
      });
      break;
    }
    case db::Kind::kStream:
      emitStream(w, key, *db::asStream(v));
      break;
    case db::Kind::kNone:
    case db::Kind::kStrInline:
    case db::Kind::kStrInt:
    case db::Kind::kStrHeap:
      w.command({"SET", key, v.str(scratch)});
      break;
  }
}

}  // namespace

bool writeDatasetAsCommands(int fd, bool incremental_fsync, std::string* err) {
  CommandWriter w(fd, incremental_fsync);
  const server::Config& c = server::g_server->config;
  if (c.aof_timestamp_enabled) w.raw("#TS:" + std::to_string(time(nullptr)) + "\r\n");
  for (const std::string& code : server::script::libraryCodes())
    w.command({"FUNCTION", "LOAD", code});
  int64_t key_delay = c.rdb_key_save_delay;
  for (db::Db* d : serverDbs()) {
    if (d->size() == 0) continue;
    std::string id = std::to_string(d->id());
    w.command({"SELECT", id});
    d->forEach([&](db::Entry* e) {
      if (w.failed()) return;
      if (key_delay > 0) usleep(static_cast<useconds_t>(key_delay));
      emitValue(w, e->keyView(), e->val);
      if (e->hasExpire()) {
        std::string when = std::to_string(d->expireOf(e));
        w.command({"PEXPIREAT", e->keyView(), when});
      }
    });
  }
  if (!w.flush()) {
    *err = strerror(w.error());
    return false;
  }
  return true;
}

}  // namespace server::persist::aof
