// Streams: the value behind db::Kind::kStream, laid out as Redis 7.0 lays
// it out so that RDB files, DUMP payloads and the ~ trimming points match.
//
// Entries live in nodes, each a listpack keyed (in a sorted array,
// stream_nodes.h; Redis's radix tree) by the ID of the first entry ever
// added to it, the master ID.
// A node's listpack starts with the master entry
//   count deleted num-fields field_1 .. field_N 0
// (live and tombstoned entries, and the field names the entries are
// compared with), then one element group per entry:
//   flags ms-delta seq-delta [num-fields] [field] value ... lp-count
// where flags has kItemSameFields when the fields equal the master's (the
// names are then omitted) and kItemDeleted once XDEL/XTRIM tombstoned it,
// the deltas are relative to the master ID, and lp-count is the number of
// elements before it in the group. A node takes entries until it holds
// stream-node-max-entries (live and deleted) or its Redis listpack size
// plus the new fields reach stream-node-max-bytes; it is freed when its
// last live entry goes.
//
// Consumer groups keep a last-delivered ID, an entries-read counter (-1 when
// unknown), a PEL (IDs delivered and not acknowledged) shared with the PELs
// of its consumers. Groups and consumers are ordered by name bytes.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/db/listpack.h"
#include "server/db/stream_nodes.h"
#include "server/db/value.h"

namespace server::db {

constexpr int64_t kInvalidEntriesRead = -1;
constexpr uint32_t kItemDeleted = 1;
constexpr uint32_t kItemSameFields = 2;

struct StreamConsumer;

// A delivered, not yet acknowledged entry of a group.
struct StreamNack {
  int64_t delivery_time = 0;  // ms
  uint64_t delivery_count = 1;
  StreamConsumer* consumer = nullptr;
};

struct StreamConsumer {
  std::string name;
  int64_t seen_time = 0;
  std::map<StreamID, StreamNack*> pel;  // owned by the group's pel
};

struct StreamGroup {
  using Pel = std::map<StreamID, std::unique_ptr<StreamNack>>;
  StreamID last_id;
  int64_t entries_read = kInvalidEntriesRead;
  Pel pel;
  std::map<std::string, std::unique_ptr<StreamConsumer>, std::less<>> consumers;

  // A new pending entry delivered at now_ms, in consumer's PEL too (null:
  // no owner yet, give it one with assign()).
  StreamNack* addPending(StreamID id, int64_t now_ms, StreamConsumer* consumer);
  // Moves a pending entry to consumer's PEL, out of its former owner's.
  void assign(StreamNack* nack, StreamID id, StreamConsumer* consumer);
  // Drops a pending entry from the group's PEL and its consumer's.
  void dropPending(Pel::iterator it);

  StreamConsumer* findConsumer(std::string_view name) const;
  // nullptr when the name exists.
  StreamConsumer* createConsumer(std::string_view name, int64_t now_ms);
  // Drops the consumer and its pending entries; returns how many were pending.
  size_t deleteConsumer(StreamConsumer* c);
};

struct StreamLimits {
  int64_t node_max_bytes = 4096;
  int64_t node_max_entries = 100;
};

enum class TrimStrategy { kNone, kMaxLen, kMinId };

struct TrimArgs {
  TrimStrategy strategy = TrimStrategy::kNone;
  bool approx = false;
  int64_t limit = 0;  // 0: unlimited
  int64_t maxlen = 0;
  StreamID minid;
};

class Stream : public Collection {
 public:
  Stream() = default;
  Collection* clone() const override;
  const char* encodingName() const override { return "stream"; }
  size_t memoryUsage() const override;

  enum class AddResult { kOk, kIdTooSmall, kTooLarge };
  // fv: field, value, field, value ... (non-empty, even). use_id: an
  // explicit ID (with seq_given false only its ms part counts).
  AddResult append(const std::string_view* fv, size_t n, const StreamID* use_id, bool seq_given,
                   const StreamLimits& lim, int64_t now_ms, StreamID* added);
  // Tombstones one entry; false when it is not there (or already deleted).
  bool remove(StreamID id);
  // Entries removed (Redis's streamTrim).
  int64_t trim(const TrimArgs& a);
  // First or last entry (live only unless with_tombstones); false if none.
  bool edgeId(bool first, bool with_tombstones, StreamID* out) const;
  bool exists(StreamID id) const;

  // Lag and entries-read bookkeeping (XINFO, XREADGROUP), as Redis 7.0.
  bool rangeHasTombstones(StreamID start, const StreamID* end) const;
  int64_t estimateDistance(StreamID id) const;

  StreamGroup* findGroup(std::string_view name) const;
  StreamGroup* createGroup(std::string_view name, StreamID id, int64_t entries_read);
  bool destroyGroup(std::string_view name);

  // Builds a node from already validated listpack content (RDB loading).
  void adoptNode(StreamID master, Listpack lp);

  uint64_t length = 0;
  uint64_t entries_added = 0;
  StreamID last_id, first_id, max_deleted_id;
  StreamNodeIndex nodes;
  std::map<std::string, std::unique_ptr<StreamGroup>, std::less<>> groups;

 private:
  void setNodeInt(StreamNode& n, Listpack::Pos p, int64_t v);
  // The last node's size as Redis's listpack encodes it (what
  // stream-node-max-bytes is checked against), counted again from the
  // listpack when the last node changed since it was known.
  uint32_t& tailRedisBytes();

  StreamID tail_master_;
  uint32_t tail_redis_bytes_ = 0;
  bool tail_known_ = false;
};

// Walks the entries of [start, end] forward or backward. Read only: the
// stream must not change while it is used.
class StreamIterator {
 public:
  StreamIterator(const Stream& s, StreamID start, StreamID end, bool rev,
                 bool with_tombstones = false);
  // The next entry: its ID and number of fields; then field() numfields
  // times gives its fields in order.
  bool next(StreamID* id, int64_t* numfields);
  void field(std::string_view* f, std::string_view* v);
  bool currentDeleted() const { return cur_flags_ & kItemDeleted; }

 private:
  bool enterNode();
  // Parses the entry at p into the current entry; returns the position
  // after its lp-count.
  Listpack::Pos parseEntry(Listpack::Pos p);

  const Stream& s_;
  StreamID start_, end_;
  bool rev_, tombstones_;
  bool started_ = false;
  StreamNodeIndex::const_iterator node_ = nullptr;
  const Listpack* lp_ = nullptr;
  StreamID master_;
  std::vector<Listpack::Pos> master_fields_;
  std::vector<Listpack::Pos> entries_;  // backward: entry starts of the node, walked by idx_
  size_t idx_ = 0;
  Listpack::Pos fwd_ = Listpack::kNone;  // forward: the next entry's start
  // current entry
  uint32_t cur_flags_ = 0;
  Listpack::Pos fpos_ = Listpack::kNone;  // next field/value position
  size_t field_idx_ = 0;
  char fscratch_[24], vscratch_[24];
};

// Size of an element as Redis's listpack stores it (encoding, payload and
// back-length).
size_t redisLpElementSize(const LpValue& v);

inline Stream* asStream(const Value& v) {
  return static_cast<Stream*>(v.collection());
}

}  // namespace server::db
