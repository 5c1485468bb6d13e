#include "server/persist/rdb_stream.h"

#include <memory>
#include <string>
#include <vector>

#include "common/strutil.h"
#include "server/persist/rdb_format.h"
#include "server/persist/redis_listpack.h"

namespace server::persist {

namespace {

void savePelIds(RdbWriter& w, const db::StreamID& id) {
  uint8_t raw[16];
  id.encode(raw);
  w.raw(raw, 16);
}

bool asInt(const db::LpValue& v, int64_t* out) {
  if (v.is_int) {
    *out = v.ival;
    return true;
  }
  return v.str.size() <= 20 && common::strutil::parseInt64(v.str, out);
}

// Checks one node's elements against the stream layout (db/stream.h);
// *live gets its count of live entries.
bool validNode(const std::vector<db::LpValue>& e, db::StreamID master, uint64_t* live,
               std::string* why) {
  size_t i = 0, n = e.size();
  auto intAt = [&](int64_t* v) { return i < n && asInt(e[i++], v); };
  int64_t count, deleted, nf, zero;
  if (!intAt(&count) || !intAt(&deleted) || !intAt(&nf) || count < 0 || deleted < 0 || nf < 0 ||
      static_cast<uint64_t>(nf) > n) {
    *why = "bad stream master entry";
    return false;
  }
  i += static_cast<size_t>(nf);
  if (!intAt(&zero) || zero != 0) {
    *why = "bad stream master entry terminator";
    return false;
  }
  int64_t seen_live = 0, seen_deleted = 0;
  db::StreamID prev;
  bool first = true;
  while (i < n) {
    int64_t flags, ms, seq, fields, lp_count;
    if (!intAt(&flags) || !intAt(&ms) || !intAt(&seq)) {
      *why = "bad stream entry header";
      return false;
    }
    db::StreamID id{master.ms + static_cast<uint64_t>(ms), master.seq + static_cast<uint64_t>(seq)};
    if (!first && id <= prev) {
      *why = "stream entries out of order";
      return false;
    }
    first = false;
    prev = id;
    int64_t expect;
    if (flags & db::kItemSameFields) {
      fields = nf;
      expect = nf + 3;
    } else {
      if (!intAt(&fields) || fields < 0 || static_cast<uint64_t>(fields) > n) {
        *why = "bad stream entry field count";
        return false;
      }
      fields *= 2;
      expect = fields + 4;
    }
    if (static_cast<uint64_t>(fields) > n - i) {
      *why = "stream entry runs past its listpack";
      return false;
    }
    i += static_cast<size_t>(fields);
    if (!intAt(&lp_count) || lp_count != expect) {
      *why = "bad stream entry lp-count";
      return false;
    }
    if (flags & db::kItemDeleted)
      seen_deleted++;
    else
      seen_live++;
  }
  if (seen_live != count || seen_deleted != deleted) {
    *why = "stream node counts do not match its entries";
    return false;
  }
  *live = static_cast<uint64_t>(count);
  return true;
}

bool readId(RdbReader& r, db::StreamID* id) {
  return r.length(&id->ms) && r.length(&id->seq);
}

}  // namespace

void saveStream(RdbWriter& w, const db::Stream& s) {
  w.length(s.nodes.size());
  for (const auto& [master, node] : s.nodes) {
    uint8_t key[16];
    master.encode(key);
    w.string(std::string_view(reinterpret_cast<const char*>(key), 16));
    RedisListpackBuilder b(node.lp.bytes() + 16);
    b.addAll(node.lp);
    w.string(b.finish());
  }
  w.length(s.length);
  w.length(s.last_id.ms);
  w.length(s.last_id.seq);
  w.length(s.first_id.ms);
  w.length(s.first_id.seq);
  w.length(s.max_deleted_id.ms);
  w.length(s.max_deleted_id.seq);
  w.length(s.entries_added);
  w.length(s.groups.size());
  for (const auto& [name, g] : s.groups) {
    w.string(name);
    w.length(g->last_id.ms);
    w.length(g->last_id.seq);
    w.length(static_cast<uint64_t>(g->entries_read));
    w.length(g->pel.size());
    for (const auto& [id, nack] : g->pel) {
      savePelIds(w, id);
      w.millis(nack->delivery_time);
      w.length(nack->delivery_count);
    }
    w.length(g->consumers.size());
    for (const auto& [cname, c] : g->consumers) {
      w.string(cname);
      w.millis(c->seen_time);
      w.length(c->pel.size());
      for (const auto& [id, nack] : c->pel) savePelIds(w, id);
    }
  }
}

bool loadStream(RdbReader& r, uint8_t type, db::Value* out) {
  auto s = std::make_unique<db::Stream>();
  uint64_t nodes;
  if (!r.count(&nodes, r.remaining())) return false;
  std::string key, blob;
  std::vector<db::LpValue> elems;
  uint64_t live_total = 0;
  while (nodes--) {
    if (!r.string(&key)) return false;
    if (key.size() != 16) return r.fail("Stream node key entry is not the size of a stream ID");
    db::StreamID master = db::StreamID::decode(reinterpret_cast<const uint8_t*>(key.data()));
    if (!r.string(&blob)) return false;
    std::string why;
    elems.clear();
    if (!parseRedisListpack(blob, &elems, &why)) return r.fail("stream listpack: " + why);
    if (elems.empty()) return r.fail("Empty listpack inside stream");
    uint64_t live;
    if (!validNode(elems, master, &live, &why)) return r.fail(why);
    if (s->nodes.contains(master)) return r.fail("Listpack re-added with existing key");
    if (!s->nodes.empty() && master < s->nodes.back().first)
      return r.fail("stream nodes out of order");
    db::ListpackBuilder lb(blob.size());
    for (const db::LpValue& v : elems) lb.append(v);
    s->adoptNode(master, lb.finish());
    live_total += live;
  }
  if (!r.length(&s->length) || !readId(r, &s->last_id)) return false;
  // Types 19 and 21 (Redis 7.2) carry the 7.0 metadata; 15 (Redis 5/6)
  // does not, so it is derived as Redis 7.0 derives it.
  const bool has_meta = type != kTypeStreamListpacks;
  if (has_meta) {
    if (!readId(r, &s->first_id) || !readId(r, &s->max_deleted_id) || !r.length(&s->entries_added))
      return false;
  } else {
    s->entries_added = s->length;
    s->edgeId(true, false, &s->first_id);
  }
  if (s->length != live_total) return r.fail("Stream length inconsistent with rax entries");
  uint64_t ngroups;
  if (!r.count(&ngroups, r.remaining())) return false;
  std::string gname, cname;
  while (ngroups--) {
    db::StreamID gid;
    if (!r.string(&gname) || !readId(r, &gid)) return false;
    int64_t entries_read;
    if (has_meta) {
      uint64_t v;
      if (!r.length(&v)) return false;
      entries_read = static_cast<int64_t>(v);
    } else {
      entries_read = s->estimateDistance(gid);
    }
    db::StreamGroup* g = s->createGroup(gname, gid, entries_read);
    if (g == nullptr) return r.fail("Duplicated consumer group name " + gname);
    uint64_t pel;
    if (!r.count(&pel, r.remaining() / 16)) return false;
    while (pel--) {
      const uint8_t* raw;
      if (!r.raw(16, &raw)) return false;
      auto nack = std::make_unique<db::StreamNack>();
      uint64_t dc;
      if (!r.millis(&nack->delivery_time) || !r.length(&dc)) return false;
      nack->delivery_count = dc;
      nack->consumer = nullptr;
      if (!g->pel.emplace(db::StreamID::decode(raw), std::move(nack)).second)
        return r.fail("Duplicated global PEL entry loading stream consumer group");
    }
    uint64_t nconsumers;
    if (!r.count(&nconsumers, r.remaining())) return false;
    while (nconsumers--) {
      if (!r.string(&cname)) return false;
      db::StreamConsumer* c = g->createConsumer(cname, 0);
      if (c == nullptr) return r.fail("Duplicate stream consumer detected.");
      if (!r.millis(&c->seen_time)) return false;
      // Redis 7.2 adds the consumer's last successful read time; 7.0 (and
      // this server) keep only seen-time, so it is read and dropped.
      int64_t active_time;
      if (type == kTypeStreamListpacks3 && !r.millis(&active_time)) return false;
      uint64_t cpel;
      if (!r.count(&cpel, r.remaining() / 16)) return false;
      while (cpel--) {
        const uint8_t* raw;
        if (!r.raw(16, &raw)) return false;
        db::StreamID id = db::StreamID::decode(raw);
        auto it = g->pel.find(id);
        if (it == g->pel.end()) return r.fail("Consumer entry not found in group global PEL");
        if (it->second->consumer != nullptr || !c->pel.emplace(id, it->second.get()).second)
          return r.fail("Duplicated consumer PEL entry loading a stream consumer group");
        it->second->consumer = c;
      }
    }
    for (const auto& [id, nack] : g->pel)
      if (nack->consumer == nullptr) return r.fail("Stream CG PEL entry without consumer");
  }
  *out = db::Value::fromCollection(db::Kind::kStream, s.release());
  return true;
}

}  // namespace server::persist
