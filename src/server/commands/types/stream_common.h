// Helpers shared by the stream command files (streams.cpp, stream_read.cpp,
// stream_groups.cpp, stream_info.cpp): ID parsing with Redis 7.0's errors,
// the entry replies, and the effects XREADGROUP/XCLAIM/XAUTOCLAIM feed to
// the AOF and replicas instead of themselves.
#pragma once

#include <cstdint>
#include <string_view>

#include "server/db/stream.h"

namespace server {

class Client;
class CommandTable;

// Registration of the other stream files (streams.cpp's
// registerStreamCommands calls them).
void registerStreamReadCommands(CommandTable& t);   // XREAD XREADGROUP
void registerStreamGroupCommands(CommandTable& t);  // XGROUP XACK XPENDING XCLAIM XAUTOCLAIM
void registerStreamInfoCommand(CommandTable& t);    // XINFO

// Real time in ms (stream IDs, delivery times), as Redis's mstime().
int64_t streamNowMs();
db::StreamLimits streamLimits();

// "ms-seq", "ms" (seq = missing_seq), "-" and "+" (unless strict), and
// with seq_given non-null "ms-*" (*seq_given false). No reply.
bool parseStreamId(std::string_view s, db::StreamID* id, uint64_t missing_seq, bool strict,
                   bool* seq_given);
// The same, replying "Invalid stream ID ..." on failure.
bool parseStreamIdOrReply(Client* c, std::string_view s, db::StreamID* id, uint64_t missing_seq,
                          bool strict, bool* seq_given = nullptr);
// A bound of an XRANGE / XPENDING / XAUTOCLAIM interval (end: the upper
// one, whose missing seq is the largest): "(" before the ID excludes it,
// and the bound moves to the next (previous) ID; replies "invalid start
// (end) ID for the interval" when there is none.
bool parseRangeBoundOrReply(Client* c, std::string_view s, bool end, db::StreamID* id);

void replyStreamId(Client* c, const db::StreamID& id);
// [id, [field, value, ...]] for the entry the iterator is on.
void replyEntry(Client* c, db::StreamIterator& it, const db::StreamID& id, int64_t numfields);

// Where a group read propagates its effects (key and group name).
struct StreamPropInfo {
  std::string_view key;
  std::string_view group;
};

enum RangeFlags : unsigned { kRangeNoAck = 1, kRangeRaw = 2, kRangeHistory = 4 };

// Redis's streamReplyWithRange: the entries of [start, end] (end null: to
// the last), at most count (0: all); with a group, delivers them to the
// consumer (PEL, last-delivered ID, entries-read) and, with spi, feeds
// XCLAIM / XGROUP SETID for each. kRangeRaw omits the array header.
size_t streamReplyRange(Client* c, db::Stream* s, db::StreamID start, const db::StreamID* end,
                        size_t count, bool rev, db::StreamGroup* group,
                        db::StreamConsumer* consumer, unsigned flags, const StreamPropInfo* spi);

// The lag of a group as XINFO reports it (null when it cannot be known).
void replyGroupLag(Client* c, const db::Stream* s, const db::StreamGroup* g);

// Effects fed instead of the command (each a no-op when nothing listens).
void propagateXclaim(Client* c, std::string_view key, std::string_view group,
                     const db::StreamGroup* g, std::string_view id, const db::StreamNack* nack);
void propagateGroupId(Client* c, std::string_view key, std::string_view group,
                      const db::StreamGroup* g);
void propagateConsumerCreation(Client* c, std::string_view key, std::string_view group,
                               std::string_view consumer);

// A consumer of g by name (refreshing its seen-time), created when absent
// (an "xgroup-createconsumer" event, dirty); *created tells which.
db::StreamConsumer* lookupOrCreateConsumer(Client* c, std::string_view key, db::StreamGroup* g,
                                           std::string_view name, bool* created);

}  // namespace server
