#include "server/db/stream.h"

#include <cstring>

#ifdef USE_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

#include "common/strutil.h"

namespace server::db {

// ------------------------------------------------------------ StreamID

bool StreamID::incr() {
  if (seq == UINT64_MAX) {
    if (ms == UINT64_MAX) return false;
    ms++;
    seq = 0;
  } else {
    seq++;
  }
  return true;
}

bool StreamID::decr() {
  if (seq == 0) {
    if (ms == 0) return false;
    ms--;
    seq = UINT64_MAX;
  } else {
    seq--;
  }
  return true;
}

std::string StreamID::toString() const {
  return std::to_string(ms) + "-" + std::to_string(seq);
}

void StreamID::encode(uint8_t* out) const {
  for (int i = 0; i < 8; i++) {
    out[i] = static_cast<uint8_t>(ms >> (56 - 8 * i));
    out[8 + i] = static_cast<uint8_t>(seq >> (56 - 8 * i));
  }
}

StreamID StreamID::decode(const uint8_t* in) {
  StreamID id;
  for (int i = 0; i < 8; i++) {
    id.ms = (id.ms << 8) | in[i];
    id.seq = (id.seq << 8) | in[8 + i];
  }
  return id;
}

// ------------------------------------------------------------ sizes

namespace {

size_t backlenSize(size_t l) {
  if (l <= 127) return 1;
  if (l < 16383) return 2;
  if (l < 2097151) return 3;
  if (l < 268435455) return 4;
  return 5;
}

size_t redisIntSize(int64_t v) {
  size_t e;
  if (v >= 0 && v <= 127)
    e = 1;
  else if (v >= -4096 && v <= 4095)
    e = 2;
  else if (v >= -32768 && v <= 32767)
    e = 3;
  else if (v >= -8388608 && v <= 8388607)
    e = 4;
  else if (v >= INT32_MIN && v <= INT32_MAX)
    e = 5;
  else
    e = 9;
  return e + backlenSize(e);
}

size_t redisStrSize(std::string_view s) {
  int64_t v;
  if (s.size() <= 20 && common::strutil::parseInt64(s, &v)) return redisIntSize(v);
  size_t e = s.size() + (s.size() <= 63 ? 1 : s.size() <= 4095 ? 2 : 5);
  return e + backlenSize(e);
}

constexpr size_t kRedisLpEmpty = 7;  // header and terminator
constexpr size_t kMaxNodeBytes = size_t{1} << 30;

int64_t intAt(const Listpack& lp, Listpack::Pos p) {
  LpValue v = lp.get(p);
  if (v.is_int) return v.ival;
  int64_t x = 0;
  common::strutil::parseInt64(v.str, &x);
  return x;
}

// The position after the entry that starts at p (kNone at the node's end);
// nf: the master entry's number of fields.
Listpack::Pos skipEntry(const Listpack& lp, Listpack::Pos p, int64_t nf) {
  int64_t flags = intAt(lp, p);
  p = lp.next(lp.next(lp.next(p)));  // past flags, ms, seq
  int64_t skip = (flags & kItemSameFields) ? nf : 2 * intAt(lp, p) + 1;
  for (int64_t i = 0; i < skip; i++) p = lp.next(p);
  return lp.next(p);  // past lp-count
}

// The master entry's field positions and the start of each entry of a node
// (entries may be null); returns the first entry's position (kNone if none).
Listpack::Pos walkNode(const Listpack& lp, std::vector<Listpack::Pos>* fields,
                       std::vector<Listpack::Pos>* entries) {
  fields->clear();
  if (entries) entries->clear();
  Listpack::Pos p = lp.next(lp.next(lp.first()));  // num-fields
  int64_t nf = intAt(lp, p);
  p = lp.next(p);
  for (int64_t i = 0; i < nf; i++) {
    fields->push_back(p);
    p = lp.next(p);
  }
  p = lp.next(p);  // past the master terminator
  if (!entries) return p;
  for (Listpack::Pos e = p; e != Listpack::kNone; e = skipEntry(lp, e, nf)) entries->push_back(e);
  return p;
}

StreamID entryId(const Listpack& lp, Listpack::Pos flags_pos, StreamID master) {
  Listpack::Pos p = lp.next(flags_pos);
  StreamID id;
  id.ms = master.ms + static_cast<uint64_t>(intAt(lp, p));
  id.seq = master.seq + static_cast<uint64_t>(intAt(lp, lp.next(p)));
  return id;
}

}  // namespace

size_t redisLpElementSize(const LpValue& v) {
  return v.is_int ? redisIntSize(v.ival) : redisStrSize(v.str);
}

// ------------------------------------------------------------ groups

StreamConsumer* StreamGroup::findConsumer(std::string_view name) const {
  auto it = consumers.find(name);
  return it == consumers.end() ? nullptr : it->second.get();
}

StreamConsumer* StreamGroup::createConsumer(std::string_view name, int64_t now_ms) {
  if (consumers.find(name) != consumers.end()) return nullptr;
  auto c = std::make_unique<StreamConsumer>();
  c->name = std::string(name);
  c->seen_time = now_ms;
  StreamConsumer* raw = c.get();
  consumers.emplace(c->name, std::move(c));
  return raw;
}

StreamNack* StreamGroup::addPending(StreamID id, int64_t now_ms, StreamConsumer* consumer) {
  auto nack = std::make_unique<StreamNack>();
  nack->delivery_time = now_ms;
  StreamNack* raw = nack.get();
  pel.emplace(id, std::move(nack));
  if (consumer) assign(raw, id, consumer);
  return raw;
}

void StreamGroup::assign(StreamNack* nack, StreamID id, StreamConsumer* consumer) {
  if (nack->consumer == consumer) return;
  if (nack->consumer) nack->consumer->pel.erase(id);
  consumer->pel[id] = nack;
  nack->consumer = consumer;
}

void StreamGroup::dropPending(Pel::iterator it) {
  it->second->consumer->pel.erase(it->first);
  pel.erase(it);
}

size_t StreamGroup::deleteConsumer(StreamConsumer* c) {
  size_t n = c->pel.size();
  for (auto& [id, nack] : c->pel) pel.erase(id);
  consumers.erase(c->name);
  return n;
}

StreamGroup* Stream::findGroup(std::string_view name) const {
  auto it = groups.find(name);
  return it == groups.end() ? nullptr : it->second.get();
}

StreamGroup* Stream::createGroup(std::string_view name, StreamID id, int64_t entries_read) {
  if (groups.find(name) != groups.end()) return nullptr;
  auto g = std::make_unique<StreamGroup>();
  g->last_id = id;
  g->entries_read = entries_read;
  StreamGroup* raw = g.get();
  groups.emplace(std::string(name), std::move(g));
  return raw;
}

bool Stream::destroyGroup(std::string_view name) {
  auto it = groups.find(name);
  if (it == groups.end()) return false;
  groups.erase(it);
  return true;
}

// ------------------------------------------------------------ node index

size_t StreamNodeIndex::nextCapacity(size_t need) {
  size_t want = need + need / 8;
#ifdef USE_JEMALLOC
  // Whatever the size class holds beyond want is used, not wasted.
  return nallocx(want * sizeof(Slot), 0) / sizeof(Slot);
#else
  return want;
#endif
}

// ------------------------------------------------------------ stream

Collection* Stream::clone() const {
  auto* s = new Stream();
  for (const auto& [k, n] : nodes) {
    s->nodes.insert(k).lp = n.lp.clone();
  }
  s->length = length;
  s->entries_added = entries_added;
  s->last_id = last_id;
  s->first_id = first_id;
  s->max_deleted_id = max_deleted_id;
  for (const auto& [name, g] : groups) {
    StreamGroup* ng = s->createGroup(name, g->last_id, g->entries_read);
    for (const auto& [cname, c] : g->consumers) {
      StreamConsumer* nc = ng->createConsumer(cname, c->seen_time);
      for (const auto& [id, nack] : c->pel) {
        auto n = std::make_unique<StreamNack>(*nack);
        n->consumer = nc;
        nc->pel[id] = n.get();
        ng->pel[id] = std::move(n);
      }
    }
  }
  return s;
}

size_t Stream::memoryUsage() const {
  size_t total = sizeof(Stream) + nodes.allocatedBytes();
  for (const auto& [k, n] : nodes) total += n.lp.bytes();
  for (const auto& [name, g] : groups) {
    total += sizeof(StreamGroup) + 64 + name.size();
    total += g->pel.size() * (sizeof(StreamNack) + 64);
    for (const auto& [cname, c] : g->consumers)
      total += sizeof(StreamConsumer) + 64 + cname.size() + c->pel.size() * 64;
  }
  return total;
}

void Stream::setNodeInt(StreamNode& n, Listpack::Pos p, int64_t v) {
  bool tail = tail_known_ && &n == &nodes.back().second && nodes.back().first == tail_master_;
  if (tail) tail_redis_bytes_ -= static_cast<uint32_t>(redisLpElementSize(n.lp.get(p)));
  n.lp.replace(p, std::to_string(v));
  if (tail) tail_redis_bytes_ += static_cast<uint32_t>(redisIntSize(v));
}

uint32_t& Stream::tailRedisBytes() {
  const auto& last = nodes.back();
  if (!tail_known_ || last.first != tail_master_) {
    tail_redis_bytes_ = kRedisLpEmpty;
    for (Listpack::Pos p = last.second.lp.first(); p != Listpack::kNone; p = last.second.lp.next(p))
      tail_redis_bytes_ += static_cast<uint32_t>(redisLpElementSize(last.second.lp.get(p)));
    tail_master_ = last.first;
    tail_known_ = true;
  }
  return tail_redis_bytes_;
}

Stream::AddResult Stream::append(const std::string_view* fv, size_t n, const StreamID* use_id,
                                 bool seq_given, const StreamLimits& lim, int64_t now_ms,
                                 StreamID* added) {
  StreamID id;
  if (use_id) {
    if (seq_given) {
      id = *use_id;
    } else if (last_id.ms == use_id->ms) {
      if (last_id.seq == UINT64_MAX) return AddResult::kIdTooSmall;
      id = last_id;
      id.seq++;
    } else {
      id = *use_id;
    }
  } else if (static_cast<uint64_t>(now_ms) > last_id.ms) {
    id = {static_cast<uint64_t>(now_ms), 0};
  } else {
    id = last_id;
    if (!id.incr()) id = {};
  }
  if (id <= last_id) return AddResult::kIdTooSmall;
  size_t totelelen = 0;
  for (size_t i = 0; i < n; i++) totelelen += fv[i].size();
  if (totelelen > kMaxNodeBytes) return AddResult::kTooLarge;
  int64_t numfields = static_cast<int64_t>(n / 2);

  StreamNode* node = nodes.empty() ? nullptr : &nodes.back().second;
  StreamID master;
  if (node) {
    size_t max_bytes = static_cast<size_t>(lim.node_max_bytes);
    if (max_bytes == 0 || max_bytes > kMaxNodeBytes) max_bytes = kMaxNodeBytes;
    Listpack::Pos p = node->lp.first();
    if (tailRedisBytes() + totelelen >= max_bytes) {
      node = nullptr;
    } else if (lim.node_max_entries) {
      int64_t count = intAt(node->lp, p) + intAt(node->lp, node->lp.next(p));
      if (count >= lim.node_max_entries) node = nullptr;
    }
  }
  // The elements to append (a new node's master entry, then the entry),
  // added in one go; the Redis-listpack size of the tail follows them.
  LpValue local[24];
  std::vector<LpValue> big;
  size_t want = 2 * n + 10;
  LpValue* out = local;
  if (want > 24) {
    big.resize(want);
    out = big.data();
  }
  size_t k = 0;
  auto addInt = [&](int64_t v) {
    out[k].is_int = true;
    out[k++].ival = v;
    tail_redis_bytes_ += static_cast<uint32_t>(redisIntSize(v));
  };
  auto addStr = [&](std::string_view s) {
    out[k].is_int = false;
    out[k++].str = s;
    tail_redis_bytes_ += static_cast<uint32_t>(redisStrSize(s));
  };
  uint32_t flags = 0;
  if (node == nullptr) {
    master = id;
    node = &nodes.insert(id);
    tail_master_ = id;
    tail_redis_bytes_ = kRedisLpEmpty;
    tail_known_ = true;
    addInt(1);
    addInt(0);
    addInt(numfields);
    for (int64_t i = 0; i < numfields; i++) addStr(fv[2 * i]);
    addInt(0);
    flags = kItemSameFields;
  } else {
    master = nodes.back().first;
    Listpack::Pos p = node->lp.first();
    setNodeInt(*node, p, intAt(node->lp, p) + 1);
    p = node->lp.next(node->lp.next(node->lp.first()));
    int64_t mcount = intAt(node->lp, p);
    if (mcount == numfields) {
      int64_t i = 0;
      char scratch[24];
      for (p = node->lp.next(p); i < mcount; i++, p = node->lp.next(p))
        if (node->lp.get(p).view(scratch) != fv[2 * i]) break;
      if (i == mcount) flags = kItemSameFields;
    }
  }
  addInt(flags);
  addInt(static_cast<int64_t>(id.ms - master.ms));
  addInt(static_cast<int64_t>(id.seq - master.seq));
  if (!(flags & kItemSameFields)) addInt(numfields);
  for (int64_t i = 0; i < numfields; i++) {
    if (!(flags & kItemSameFields)) addStr(fv[2 * i]);
    addStr(fv[2 * i + 1]);
  }
  int64_t lp_count = numfields + 3;
  if (!(flags & kItemSameFields)) lp_count += numfields + 1;
  addInt(lp_count);
  node->lp.appendBatch(out, k);
  length++;
  entries_added++;
  last_id = id;
  if (length == 1) first_id = id;
  if (added) *added = id;
  return AddResult::kOk;
}

bool Stream::remove(StreamID id) {
  auto it = nodes.upper_bound(id);
  if (it == nodes.begin()) return false;
  --it;
  StreamNode& n = it->second;
  std::vector<Listpack::Pos> fields, entries;
  walkNode(n.lp, &fields, &entries);
  for (Listpack::Pos p : entries) {
    StreamID eid = entryId(n.lp, p, it->first);
    if (eid > id) return false;
    if (eid < id) continue;
    int64_t flags = intAt(n.lp, p);
    if (flags & kItemDeleted) return false;
    Listpack::Pos first = n.lp.first();
    int64_t live = intAt(n.lp, first);
    length--;
    if (live == 1) {
      nodes.erase(it);
      return true;
    }
    setNodeInt(n, p, flags | kItemDeleted);
    first = n.lp.first();
    setNodeInt(n, first, live - 1);
    Listpack::Pos d = n.lp.next(n.lp.first());
    setNodeInt(n, d, intAt(n.lp, d) + 1);
    return true;
  }
  return false;
}

int64_t Stream::trim(const TrimArgs& a) {
  if (a.strategy == TrimStrategy::kNone) return 0;
  int64_t deleted = 0;
  auto it = nodes.begin();
  while (it != nodes.end()) {
    if (a.strategy == TrimStrategy::kMaxLen && length <= static_cast<uint64_t>(a.maxlen)) break;
    StreamNode& n = it->second;
    int64_t entries = intAt(n.lp, n.lp.first());
    if (a.limit && deleted + entries > a.limit) break;
    std::vector<Listpack::Pos> fields, starts;
    walkNode(n.lp, &fields, &starts);
    bool remove_node;
    if (a.strategy == TrimStrategy::kMaxLen) {
      remove_node = length - static_cast<uint64_t>(entries) >= static_cast<uint64_t>(a.maxlen);
    } else {
      // The node's last entry, tombstoned or not.
      remove_node = starts.empty() || entryId(n.lp, starts.back(), it->first) < a.minid;
    }
    if (remove_node) {
      length -= static_cast<uint64_t>(entries);
      deleted += entries;
      it = nodes.erase(it);
      continue;
    }
    if (a.approx) break;
    // Tombstone entries one by one from the start of this node. Positions
    // move as flags are rewritten, so walk again after each change.
    int64_t deleted_here = 0;
    for (size_t i = 0; i < starts.size(); i++) {
      walkNode(n.lp, &fields, &starts);
      Listpack::Pos p = starts[i];
      StreamID eid = entryId(n.lp, p, it->first);
      bool stop = a.strategy == TrimStrategy::kMaxLen ? length <= static_cast<uint64_t>(a.maxlen)
                                                      : eid >= a.minid;
      if (stop) break;
      int64_t flags = intAt(n.lp, p);
      if (!(flags & kItemDeleted)) {
        setNodeInt(n, p, flags | kItemDeleted);
        deleted_here++;
        length--;
      }
    }
    deleted += deleted_here;
    Listpack::Pos p = n.lp.first();
    setNodeInt(n, p, entries - deleted_here);
    p = n.lp.next(n.lp.first());
    setNodeInt(n, p, intAt(n.lp, p) + deleted_here);
    break;
  }
  if (length == 0) {
    first_id = {};
  } else if (deleted) {
    edgeId(true, false, &first_id);
  }
  return deleted;
}

bool Stream::edgeId(bool first, bool with_tombstones, StreamID* out) const {
  StreamIterator it(*this, StreamID{}, StreamID::max(), !first, with_tombstones);
  int64_t nf;
  if (it.next(out, &nf)) return true;
  *out = first ? StreamID::max() : StreamID{};
  return false;
}

bool Stream::exists(StreamID id) const {
  StreamIterator it(*this, id, id, false);
  StreamID got;
  int64_t nf;
  return it.next(&got, &nf);
}

bool Stream::rangeHasTombstones(StreamID start, const StreamID* end) const {
  if (length == 0 || max_deleted_id.isZero()) return false;
  if (first_id > max_deleted_id) return false;
  StreamID e = end ? *end : StreamID::max();
  return start <= max_deleted_id && max_deleted_id <= e;
}

int64_t Stream::estimateDistance(StreamID id) const {
  if (entries_added == 0) return 0;
  if (length == 0 && id <= last_id) return static_cast<int64_t>(entries_added);
  if (id == last_id) return static_cast<int64_t>(entries_added);
  if (id > last_id) return kInvalidEntriesRead;
  if (max_deleted_id.isZero() || max_deleted_id < first_id) {
    if (id < first_id) return static_cast<int64_t>(entries_added - length);
    if (id == first_id) return static_cast<int64_t>(entries_added - length + 1);
  }
  return kInvalidEntriesRead;
}

void Stream::adoptNode(StreamID master, Listpack lp) {
  nodes.insert(master).lp = std::move(lp);
}

// ------------------------------------------------------------ iterator

StreamIterator::StreamIterator(const Stream& s, StreamID start, StreamID end, bool rev,
                               bool with_tombstones)
    : s_(s), start_(start), end_(end), rev_(rev), tombstones_(with_tombstones) {}

bool StreamIterator::enterNode() {
  lp_ = &node_->second.lp;
  master_ = node_->first;
  // Forward, entries are found one by one (a read of a few entries stops
  // early); backward needs them all first.
  fwd_ = walkNode(*lp_, &master_fields_, rev_ ? &entries_ : nullptr);
  idx_ = rev_ ? entries_.size() : 0;
  return true;
}

Listpack::Pos StreamIterator::parseEntry(Listpack::Pos p) {
  cur_flags_ = static_cast<uint32_t>(intAt(*lp_, p));
  p = lp_->next(lp_->next(lp_->next(p)));
  field_idx_ = 0;
  if (!(cur_flags_ & kItemSameFields)) p = lp_->next(p);
  return p;
}

bool StreamIterator::next(StreamID* id, int64_t* numfields) {
  if (!started_) {
    started_ = true;
    if (s_.nodes.empty() || start_ > end_) {
      node_ = s_.nodes.end();
      return false;
    }
    if (!rev_) {
      node_ = s_.nodes.upper_bound(start_);
      if (node_ != s_.nodes.begin()) --node_;
    } else {
      node_ = s_.nodes.upper_bound(end_);
      if (node_ == s_.nodes.begin()) {
        node_ = s_.nodes.end();
        return false;
      }
      --node_;
    }
    enterNode();
  }
  if (node_ == s_.nodes.end()) return false;
  for (;;) {
    if (rev_ ? idx_ == 0 : fwd_ == Listpack::kNone) {
      if (rev_) {
        if (node_ == s_.nodes.begin()) {
          node_ = s_.nodes.end();
          return false;
        }
        --node_;
      } else if (++node_ == s_.nodes.end()) {
        return false;
      }
      enterNode();
      continue;
    }
    Listpack::Pos p;
    if (rev_) {
      p = entries_[--idx_];
    } else {
      p = fwd_;
      fwd_ = skipEntry(*lp_, p, static_cast<int64_t>(master_fields_.size()));
    }
    StreamID eid = entryId(*lp_, p, master_);
    if (!rev_) {
      if (eid > end_) {
        node_ = s_.nodes.end();
        return false;
      }
      if (eid < start_) continue;
    } else {
      if (eid < start_) {
        node_ = s_.nodes.end();
        return false;
      }
      if (eid > end_) continue;
    }
    fpos_ = parseEntry(p);
    if ((cur_flags_ & kItemDeleted) && !tombstones_) continue;
    *id = eid;
    if (cur_flags_ & kItemSameFields) {
      *numfields = static_cast<int64_t>(master_fields_.size());
    } else {
      Listpack::Pos nfp = lp_->next(lp_->next(lp_->next(p)));
      *numfields = intAt(*lp_, nfp);
    }
    return true;
  }
}

void StreamIterator::field(std::string_view* f, std::string_view* v) {
  if (cur_flags_ & kItemSameFields) {
    *f = lp_->get(master_fields_[field_idx_++]).view(fscratch_);
  } else {
    *f = lp_->get(fpos_).view(fscratch_);
    fpos_ = lp_->next(fpos_);
  }
  *v = lp_->get(fpos_).view(vscratch_);
  fpos_ = lp_->next(fpos_);
}

}  // namespace server::db
