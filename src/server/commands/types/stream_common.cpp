#include "server/commands/types/stream_common.h"

#include <time.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "common/strutil.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/propagate/propagate.h"
#include "server/pubsub/notify.h"

namespace server {

int64_t streamNowMs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

db::StreamLimits streamLimits() {
  const Config& cf = g_server->config;
  return {cf.stream_node_max_bytes, cf.stream_node_max_entries};
}

namespace {

// Redis's string2ull: a canonical non-negative integer, or what strtoull
// takes whole.
bool parseUll(const std::string& s, uint64_t* out) {
  int64_t v;
  if (common::strutil::parseInt64(s, &v)) {
    if (v < 0) return false;
    *out = static_cast<uint64_t>(v);
    return true;
  }
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long x = strtoull(s.c_str(), &end, 10);
  if (errno == EINVAL || errno == ERANGE || *end != '\0') return false;
  *out = x;
  return true;
}

}  // namespace

bool parseStreamId(std::string_view s, db::StreamID* id, uint64_t missing_seq, bool strict,
                   bool* seq_given) {
  if (s.size() > 127) return false;
  if (strict && s.size() == 1 && (s[0] == '-' || s[0] == '+')) return false;
  if (seq_given) *seq_given = true;
  if (s == "-") {
    *id = {};
    return true;
  }
  if (s == "+") {
    *id = db::StreamID::max();
    return true;
  }
  // C string semantics: stop at an embedded NUL, as Redis does.
  std::string buf(s.substr(0, s.find('\0')));
  size_t dot = buf.find('-');
  uint64_t ms, seq;
  if (!parseUll(buf.substr(0, dot), &ms)) return false;
  if (dot != std::string::npos) {
    std::string rest = buf.substr(dot + 1);
    if (seq_given && rest == "*") {
      seq = 0;
      *seq_given = false;
    } else if (!parseUll(rest, &seq)) {
      return false;
    }
  } else {
    seq = missing_seq;
  }
  id->ms = ms;
  id->seq = seq;
  return true;
}

bool parseStreamIdOrReply(Client* c, std::string_view s, db::StreamID* id, uint64_t missing_seq,
                          bool strict, bool* seq_given) {
  if (parseStreamId(s, id, missing_seq, strict, seq_given)) return true;
  c->addError("Invalid stream ID specified as stream command argument");
  return false;
}

bool parseRangeBoundOrReply(Client* c, std::string_view s, bool end, db::StreamID* id) {
  uint64_t missing_seq = end ? UINT64_MAX : 0;
  if (s.size() < 2 || s[0] != '(') return parseStreamIdOrReply(c, s, id, missing_seq, false);
  if (!parseStreamIdOrReply(c, s.substr(1), id, missing_seq, true)) return false;
  if (end ? id->decr() : id->incr()) return true;
  c->addError(end ? "invalid end ID for the interval" : "invalid start ID for the interval");
  return false;
}

void replyStreamId(Client* c, const db::StreamID& id) {
  c->addBulk(id.toString());
}

void replyEntry(Client* c, db::StreamIterator& it, const db::StreamID& id, int64_t numfields) {
  c->addArrayLen(2);
  replyStreamId(c, id);
  c->addArrayLen(numfields * 2);
  for (int64_t i = 0; i < numfields; i++) {
    std::string_view f, v;
    it.field(&f, &v);
    c->addBulk(f);
    c->addBulk(v);
  }
}

void propagateXclaim(Client* c, std::string_view key, std::string_view group,
                     const db::StreamGroup* g, std::string_view id, const db::StreamNack* nack) {
  if (!propagate::wanted()) return;
  std::string time = std::to_string(nack->delivery_time);
  std::string count = std::to_string(nack->delivery_count);
  std::string last = g->last_id.toString();
  propagate::also(c->dbIndex(), {"XCLAIM", key, group, nack->consumer->name, "0", id, "TIME", time,
                                 "RETRYCOUNT", count, "FORCE", "JUSTID", "LASTID", last});
}

void propagateGroupId(Client* c, std::string_view key, std::string_view group,
                      const db::StreamGroup* g) {
  if (!propagate::wanted()) return;
  std::string last = g->last_id.toString();
  std::string read = std::to_string(g->entries_read);
  propagate::also(c->dbIndex(), {"XGROUP", "SETID", key, group, last, "ENTRIESREAD", read});
}

void propagateConsumerCreation(Client* c, std::string_view key, std::string_view group,
                               std::string_view consumer) {
  if (!propagate::wanted()) return;
  propagate::also(c->dbIndex(), {"XGROUP", "CREATECONSUMER", key, group, consumer});
}

db::StreamConsumer* lookupOrCreateConsumer(Client* c, std::string_view key, db::StreamGroup* g,
                                           std::string_view name, bool* created) {
  int64_t now = streamNowMs();
  *created = false;
  if (db::StreamConsumer* sc = g->findConsumer(name)) {
    sc->seen_time = now;
    return sc;
  }
  db::StreamConsumer* sc = g->createConsumer(name, now);
  *created = true;
  g_server->dirty++;
  notify::keyEvent(c, notify::kStream, "xgroup-createconsumer", key);
  return sc;
}

size_t streamReplyRange(Client* c, db::Stream* s, db::StreamID start, const db::StreamID* end,
                        size_t count, bool rev, db::StreamGroup* group,
                        db::StreamConsumer* consumer, unsigned flags, const StreamPropInfo* spi) {
  if (group && (flags & kRangeHistory)) {
    // The consumer's own pending entries from start on.
    void* slot = c->reply().beginDeferred();
    size_t n = 0;
    int64_t now = streamNowMs();
    for (auto it = consumer->pel.lower_bound(start); it != consumer->pel.end(); ++it) {
      if (count && n >= count) break;
      if (end && it->first > *end) break;
      db::StreamIterator si(*s, it->first, it->first, false);
      db::StreamID id;
      int64_t nf;
      if (si.next(&id, &nf)) {
        replyEntry(c, si, id, nf);
        it->second->delivery_time = now;
        it->second->delivery_count++;
      } else {
        c->addArrayLen(2);
        replyStreamId(c, it->first);
        c->reply().nullArray();
      }
      n++;
    }
    c->reply().endDeferredArray(slot, static_cast<int64_t>(n));
    return n;
  }
  void* slot = (flags & kRangeRaw) ? nullptr : c->reply().beginDeferred();
  bool noack = flags & kRangeNoAck;
  bool propagate_last_id = false;
  size_t n = 0;
  db::StreamIterator it(*s, start, end ? *end : db::StreamID::max(), rev);
  db::StreamID id;
  int64_t nf;
  while (it.next(&id, &nf)) {
    if (group && id > group->last_id) {
      if (group->entries_read != db::kInvalidEntriesRead && !s->rangeHasTombstones(id, nullptr)) {
        group->entries_read++;
      } else if (s->entries_added) {
        group->entries_read = s->estimateDistance(id);
      }
      group->last_id = id;
      if (noack) propagate_last_id = true;
    }
    replyEntry(c, it, id, nf);
    if (group && !noack) {
      int64_t now = streamNowMs();
      db::StreamNack* nack;
      auto g = group->pel.find(id);
      if (g == group->pel.end()) {
        nack = group->addPending(id, now, consumer);
      } else {
        // Delivered again (the group's ID moved back): the entry changes
        // hands and its delivery history starts over.
        nack = g->second.get();
        group->assign(nack, id, consumer);
        nack->delivery_time = now;
        nack->delivery_count = 1;
      }
      if (spi) propagateXclaim(c, spi->key, spi->group, group, id.toString(), nack);
    }
    n++;
    if (count && count == n) break;
  }
  if (spi && propagate_last_id) propagateGroupId(c, spi->key, spi->group, group);
  if (slot) c->reply().endDeferredArray(slot, static_cast<int64_t>(n));
  return n;
}

void replyGroupLag(Client* c, const db::Stream* s, const db::StreamGroup* g) {
  if (!s->entries_added) {
    c->addInteger(0);
    return;
  }
  if (g->entries_read != db::kInvalidEntriesRead && !s->rangeHasTombstones(g->last_id, nullptr)) {
    c->addInteger(static_cast<int64_t>(s->entries_added) - g->entries_read);
    return;
  }
  int64_t read = s->estimateDistance(g->last_id);
  if (read != db::kInvalidEntriesRead)
    c->addInteger(static_cast<int64_t>(s->entries_added) - read);
  else
    c->addNull();
}

}  // namespace server
