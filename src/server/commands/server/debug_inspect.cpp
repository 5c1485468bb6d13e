// DEBUG subcommands that look into or tune internals, as Redis 7.0 answers
// them: OBJECT (a value's encoding, serialized length, LRU and list node
// figures), HTSTATS and HTSTATS-KEY, LISTPACK and QUICKLIST (printed on
// stdout), STRINGMATCH-TEST, POPULATE, QUICKLIST-PACKED-THRESHOLD,
// PAUSE-CRON, SET-DISABLE-DENY-SCRIPTS, CHANGE-REPL-ID. debug.cpp
// dispatches here.
#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>

#include "common/log.h"
#include "common/strutil.h"
#include "server/cluster/cluster.h"
#include "server/commands/server/introspection.h"
#include "server/commands/subfamilies.h"
#include "server/conf/config.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/db/hash.h"
#include "server/db/list.h"
#include "server/db/quicklist.h"
#include "server/db/zset.h"
#include "server/evict/allocator.h"
#include "server/evict/evict.h"
#include "server/persist/dump_payload.h"
#include "server/propagate/propagate.h"
#include "server/repl/master/replicas.h"

namespace server {

namespace {

// " ql_nodes:... ql_uncompressed_size:..." for a list, as Redis prints
// its quicklist (a list kept in one listpack is a quicklist of one node).
std::string listFigures(const db::List& l) {
  const Config& cfg = g_server->config;
  size_t nodes = 1, bytes = 0;
  bool compressed = false;
  if (const db::Quicklist* q = l.quicklist()) {
    nodes = q->nodeCount();
    for (const db::Quicklist::Node* n = q->head(); n != nullptr; n = n->next) bytes += n->bytes();
    compressed = q->compressDepth() != 0;
  } else {
    bytes = l.listpack().bytes();
    compressed = cfg.list_compress_depth != 0;
  }
  char buf[192];
  snprintf(buf, sizeof(buf),
           " ql_nodes:%zu ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:%d "
           "ql_uncompressed_size:%zu",
           nodes, static_cast<double>(l.size()) / static_cast<double>(nodes),
           static_cast<int>(cfg.list_max_listpack_size), compressed ? 1 : 0, bytes);
  return buf;
}

void debugObject(Client* c) {
  // As Redis: the key as stored, without the expiry check of a lookup.
  db::Entry* e = c->db()->peek(c->arg(2));
  if (e == nullptr) {
    c->addError("no such key");
    return;
  }
  const db::Value& v = e->val;
  // The RDB form of the value: the DUMP payload less its type byte and its
  // 10-byte trailer (version, CRC).
  std::string payload = persist::makeDumpPayload(v, g_server->config.rdbcompression);
  size_t serialized = payload.size() > 11 ? payload.size() - 11 : 0;
  uint32_t idle = (db::Clock::lruSeconds - e->lru) & 0xffffff;
  std::string extra;
  if (v.kind() == db::Kind::kList)
    extra = listFigures(*static_cast<const db::List*>(v.collection()));
  char buf[512];
  snprintf(buf, sizeof(buf),
           "Value at:%p refcount:%d encoding:%s serializedlength:%zu lru:%u "
           "lru_seconds_idle:%u%s",
           static_cast<const void*>(&e->val), evict::reportedRefcount(v), v.encodingName(),
           serialized, static_cast<unsigned>(e->lru), idle, extra.c_str());
  c->addStatus(buf);
}

// DEBUG POPULATE count [prefix] [size]: keys prefix:0 .. prefix:count-1
// holding "value:N" (cut or zero-padded to size bytes when size is given);
// keys that exist are left alone. Not propagated, as in Redis.
void debugPopulate(Client* c) {
  if (c->argc() > 5) {
    c->addSyntaxError();
    return;
  }
  int64_t count, size = 0;
  if (!c->argInt64Msg(2, &count, "value is out of range, must be positive")) return;
  if (count < 0) {
    c->addError("value is out of range, must be positive");
    return;
  }
  std::string prefix = c->argc() >= 4 ? std::string(c->arg(3)) : "key";
  if (c->argc() == 5) {
    if (!c->argInt64Msg(4, &size, "value is out of range, must be positive")) return;
    if (size < 0) {
      c->addError("value is out of range, must be positive");
      return;
    }
  }
  db::Db* d = c->db();
  d->reserve(d->size() + static_cast<size_t>(count));
  std::string key, val;
  for (int64_t j = 0; j < count; j++) {
    key = prefix + ":" + std::to_string(j);
    if (d->peek(key) != nullptr) continue;
    val = "value:" + std::to_string(j);
    if (size > 0) val.resize(static_cast<size_t>(size), '\0');
    d->add(key, db::Value::fromString(val));
  }
  c->addOk();
}

void debugPackedThreshold(Client* c) {
  int64_t sz = 0;
  if (!parseMemoryValue(std::string(c->arg(2)), &sz) || sz < 0 ||
      static_cast<uint64_t>(sz) > (uint64_t{1} << 32) - (uint64_t{1} << 20)) {
    c->addError("argument must be a memory value bigger than 1 and smaller than 4gb");
    return;
  }
  db::Quicklist::packed_threshold =
      sz == 0 ? db::Quicklist::kDefaultPackedThreshold : static_cast<size_t>(sz);
  c->addOk();
}

// DEBUG HTSTATS-KEY <key> [FULL]: the statistics of the hash table that
// holds the key's value (a hashtable hash or set, a skiplist zset's member
// index), as Redis 7.0 prints them; FULL, which later Redis versions need
// for the chain lengths, is accepted and changes nothing.
void debugHtstatsKey(Client* c) {
  // As OBJECT: an expired key is missing, and the lookup touches nothing.
  db::Entry* e = lookupReadNoTouch(c, c->arg(2), false);
  if (e == nullptr) {
    c->addError("no such key");
    return;
  }
  std::string stats;
  if (!e->val.isString() && e->val.collection()->appendTableStats(&stats)) {
    c->reply().verbatim(stats);
  } else {
    c->addError("The value stored at the specified key is not represented using an hash table");
  }
}

// The elements of lp, one line each, after a header line (DEBUG LISTPACK
// and QUICKLIST print to the server's stdout, as Redis does; the layout is
// our own).
void printListpack(FILE* out, const db::Listpack& lp, const char* indent) {
  fprintf(out, "%s{listpack bytes:%zu entries:%zu}\n", indent, lp.bytes(), lp.size());
  size_t i = 0;
  for (db::Listpack::Pos p = lp.first(); p != db::Listpack::kNone; p = lp.next(p), i++) {
    db::LpValue v = lp.get(p);
    if (v.is_int) {
      fprintf(out, "%s  [%zu] int %" PRId64 " (%zu bytes)\n", indent, i, v.ival,
              lp.elementBytes(p));
    } else {
      int shown = static_cast<int>(std::min<size_t>(v.str.size(), 64));
      fprintf(out, "%s  [%zu] str %.*s%s (%zu bytes)\n", indent, i, shown, v.str.data(),
              v.str.size() > 64 ? "..." : "", lp.elementBytes(p));
    }
  }
}

// The value of a listpack-encoded hash or zset (lists report "quicklist",
// as in Redis 7.0), else nullptr.
const db::Listpack* listpackOf(const db::Value& v) {
  if (v.kind() == db::Kind::kHash) return db::asHash(v)->listpack();
  if (v.kind() == db::Kind::kZSet) {
    const auto* z = static_cast<const db::ZSet*>(v.collection());
    if (z->isListpack()) return &static_cast<const db::ListpackZSet*>(z)->listpack();
  }
  return nullptr;
}

// DEBUG LISTPACK <key>: the listpack of a listpack-encoded value, printed.
void debugListpack(Client* c) {
  db::Entry* e = lookupReadNoTouch(c, c->arg(2), false);
  if (e == nullptr) {
    c->addError("no such key");
    return;
  }
  const db::Listpack* lp = listpackOf(e->val);
  if (lp == nullptr) {
    c->addError("Not a listpack encoded object.");
    return;
  }
  printListpack(stdout, *lp, "");
  fflush(stdout);
  c->addStatus("Listpack structure printed on stdout");
}

// DEBUG QUICKLIST <key> [<0|1>]: a list's nodes (a list still kept in one
// listpack is shown as a quicklist of one node); 1 adds every element.
void debugQuicklist(Client* c) {
  db::Entry* e = lookupReadNoTouch(c, c->arg(2), false);
  if (e == nullptr) {
    c->addError("no such key");
    return;
  }
  if (e->val.kind() != db::Kind::kList) {
    c->addError("Not a quicklist encoded object.");
    return;
  }
  bool full = c->argc() == 4 && atoi(std::string(c->arg(3)).c_str()) != 0;
  const auto& l = *static_cast<const db::List*>(e->val.collection());
  const db::Quicklist* q = l.quicklist();
  const Config& cfg = g_server->config;
  fprintf(stdout, "{quicklist count:%zu nodes:%zu fill:%d compress:%d}\n", l.size(),
          q != nullptr ? q->nodeCount() : size_t{1},
          q != nullptr ? q->fill() : static_cast<int>(cfg.list_max_listpack_size),
          q != nullptr ? q->compressDepth() : static_cast<int>(cfg.list_compress_depth));
  if (q == nullptr) {
    fprintf(stdout, "  {node 0 entries:%zu bytes:%zu}\n", l.listpack().size(),
            l.listpack().bytes());
    if (full) printListpack(stdout, l.listpack(), "    ");
  } else {
    size_t i = 0;
    for (const db::Quicklist::Node* n = q->head(); n != nullptr; n = n->next, i++) {
      fprintf(stdout, "  {node %zu entries:%zu bytes:%zu %s}\n", i, n->size(), n->bytes(),
              n->isPacked() ? "compressed" : "raw");
      if (full && !n->isPacked()) printListpack(stdout, n->lp, "    ");
    }
  }
  fflush(stdout);
  c->addStatus("Quicklist structure printed on stdout");
}

// DEBUG STRINGMATCH-TEST: globMatch() on random patterns and subjects, for
// a crash or a runaway (the point of the command is that it returns).
void debugStringmatchTest(Client* c) {
  constexpr int kRounds = 100000;
  constexpr size_t kMaxLen = 32;
  uint64_t state = static_cast<uint64_t>(time(nullptr)) | 1;
  auto next = [&state] {  // xorshift64
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  char pat[kMaxLen], str[kMaxLen];
  for (int r = 0; r < kRounds; r++) {
    size_t plen = next() % kMaxLen, slen = next() % kMaxLen;
    for (size_t i = 0; i < plen; i++) pat[i] = static_cast<char>(next());
    for (size_t i = 0; i < slen; i++) str[i] = static_cast<char>(next());
    common::strutil::globMatch(std::string_view(pat, plen), std::string_view(str, slen),
                               (r & 1) != 0);
  }
  c->addStatus("Apparently Redis did not crash: test passed");
}

}  // namespace

// DEBUG MALLCTL <key> [<int>]: jemalloc's integer setting, written first
// when a value is given (the old value comes back; +OK for a write-only one).
void debugMallctl(Client* c) {
  int64_t val = 0, old = 0;
  if (c->argc() == 4 && !c->argInt64(3, &val)) return;
  bool wrote_only = false;
  int rc =
      evict::mallctlInt(std::string(c->arg(2)), c->argc() == 4 ? &val : nullptr, &old, &wrote_only);
  if (rc != 0) {
    c->addError(strerror(rc));
  } else if (wrote_only) {
    c->addOk();
  } else {
    c->addInteger(old);
  }
}

// DEBUG MALLCTL-STR <key> [<string>|VOID]: the same for a string setting.
void debugMallctlStr(Client* c) {
  std::string val(c->argc() == 4 ? c->arg(3) : std::string_view());
  std::string old;
  bool readable = false;
  int rc =
      evict::mallctlStr(std::string(c->arg(2)), c->argc() == 4 ? &val : nullptr, &old, &readable);
  if (readable) {
    c->addBulk(old);
  } else if (rc != 0) {
    c->addError(strerror(rc));
  } else {
    c->addOk();
  }
}

bool debugInspectSubcommand(Client* c) {
  std::string_view sub = c->arg(1);
  auto is = [&](const char* name, size_t argc) {
    return c->argc() == argc && common::strutil::equalsIgnoreCase(sub, name);
  };
  if (is("OBJECT", 3)) {
    debugObject(c);
  } else if (c->argc() >= 3 && common::strutil::equalsIgnoreCase(sub, "POPULATE")) {
    debugPopulate(c);
  } else if (is("QUICKLIST-PACKED-THRESHOLD", 3)) {
    debugPackedThreshold(c);
  } else if (c->argc() >= 3 && c->argc() <= 4 &&
             common::strutil::equalsIgnoreCase(sub, "MALLCTL")) {
    debugMallctl(c);
  } else if (c->argc() >= 3 && c->argc() <= 4 &&
             common::strutil::equalsIgnoreCase(sub, "MALLCTL-STR")) {
    debugMallctlStr(c);
  } else if (is("HTSTATS", 3)) {
    int64_t id;
    if (!c->argInt64(2, &id)) return true;
    if (id < 0 || id >= static_cast<int64_t>(g_server->dbs.size())) {
      c->addError("Out of range database");
      return true;
    }
    std::string stats;
    g_server->dbs[static_cast<size_t>(id)]->appendTableStats(&stats);
    c->reply().verbatim(stats);
  } else if ((c->argc() == 3 ||
              (c->argc() == 4 && common::strutil::equalsIgnoreCase(c->arg(3), "FULL"))) &&
             common::strutil::equalsIgnoreCase(sub, "HTSTATS-KEY")) {
    debugHtstatsKey(c);
  } else if (is("LISTPACK", 3)) {
    debugListpack(c);
  } else if ((is("QUICKLIST", 3) || is("QUICKLIST", 4))) {
    debugQuicklist(c);
  } else if (is("STRINGMATCH-TEST", 2)) {
    debugStringmatchTest(c);
  } else if (is("CONFIG-REWRITE-FORCE-ALL", 2)) {
    rewriteConfigAndReply(c, true);
  } else if (is("PAUSE-CRON", 3)) {
    g_server->cron_paused = atoi(std::string(c->arg(2)).c_str()) != 0;
    c->addOk();
  } else if (is("REPLYBUFFER", 4)) {
    // PEAK-RESET-TIME <ms | never | reset> and RESIZING <0|1>, as Redis's.
    std::string_view what = c->arg(2), v = c->arg(3);
    if (common::strutil::equalsIgnoreCase(what, "PEAK-RESET-TIME")) {
      int64_t ms = 0;
      if (common::strutil::equalsIgnoreCase(v, "never")) {
        g_server->reply_buffer_peak_reset_ms = -1;
      } else if (common::strutil::equalsIgnoreCase(v, "reset")) {
        g_server->reply_buffer_peak_reset_ms = Server::kReplyBufferPeakResetMs;
      } else if (c->argInt64(3, &ms)) {
        g_server->reply_buffer_peak_reset_ms = ms;
      } else {
        return true;
      }
    } else if (common::strutil::equalsIgnoreCase(what, "RESIZING")) {
      g_server->reply_buffer_resizing = atoi(std::string(v).c_str()) != 0;
    } else {
      c->addError(
          "unknown subcommand or wrong number of arguments for 'replybuffer'. Try DEBUG HELP.");
      return true;
    }
    c->addOk();
  } else if (is("DROP-CLUSTER-PACKET-FILTER", 3)) {
    int64_t type;
    if (!c->argInt64(2, &type)) return true;
    cluster::g_drop_packet_type = type;
    c->addOk();
  } else if (is("CLUSTERLINK", 5) && common::strutil::equalsIgnoreCase(c->arg(2), "KILL")) {
    std::string err = cluster::debugKillLink(c->arg(3), c->arg(4));
    if (err.empty())
      c->addOk();
    else
      c->addError(err);
  } else if (is("SET-DISABLE-DENY-SCRIPTS", 3)) {
    g_server->script_deny_disabled = atoi(std::string(c->arg(2)).c_str()) != 0;
    c->addOk();
  } else if (c->argc() >= 3 && common::strutil::equalsIgnoreCase(sub, "REPLICATE")) {
    // The arguments go to the replicas as a command, unrun here (tests of
    // a replica's divergence, as Redis's DEBUG REPLICATE).
    if (propagate::wanted()) {
      std::vector<std::string_view> args(c->argv().begin() + 2, c->argv().end());
      propagate::rewrite(std::span<const std::string_view>(args));
      propagate::forceCommand(propagate::kToReplicas);
    }
    c->addOk();
  } else if (is("CHANGE-REPL-ID", 2)) {
    LOG_WARNING("Changing replication IDs after receiving DEBUG change-repl-id");
    repl::changeReplId();
    c->addOk();
  } else {
    return false;
  }
  return true;
}

}  // namespace server
