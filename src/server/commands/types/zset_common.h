// Helpers shared by the sorted-set command files (zset*.cpp, geo.cpp):
// lookups, argument parsing with Redis's error texts, encoding choice by
// the zset-max-listpack-* options, and the reply shapes of scores and
// member/score lists.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/core/command.h"
#include "server/db/db.h"
#include "server/db/zset.h"

namespace server {

class Client;

// Registration of the command files of the sorted-set family; the family's
// registerSortedSetCommands (families.h) calls them.
void registerZsetRangeCommands(CommandTable& t);  // ZRANGE... ZREMRANGEBY*
void registerZsetSetOpCommands(CommandTable& t);  // ZUNION ZINTER ZDIFF (STORE) ZINTERCARD
void registerZsetPopCommands(CommandTable& t);    // ZPOPMIN ZPOPMAX ZMPOP

using ZElements = std::vector<std::pair<std::string, double>>;

// The sorted set a kZSet entry holds.
inline db::ZSet* zsetOf(db::Entry* e) {
  return static_cast<db::ZSet*>(e->val.collection());
}

// Read lookup of a sorted set; replies WRONGTYPE and returns false on a
// value of another kind. *z is null when the key is absent.
bool readZSet(Client* c, std::string_view key, db::ZSet** z);
// A new, empty sorted set for about `size_hint` members of which the
// longest has `max_len` bytes: listpack when both fit the options.
db::ZSet* newZSet(size_t size_hint, size_t max_len);
// Converts the entry's listpack to a skiplist if adding `new_members`
// members, the longest `max_len` bytes, would pass the options. Returns the
// (possibly new) sorted set.
db::ZSet* zsetMakeRoom(db::Entry* e, size_t new_members, size_t max_len);
// Stores elements (sorted by score, then member) at key, replacing any
// value, with the encoding the options choose; deletes the key when
// elements is empty. Calls keyModified when something changed and
// publishes `event` (zunionstore ...), or "del" for a deleted key.
void zsetStoreResult(Client* c, std::string_view key, const ZElements& elements, const char* event);
// Deletes the key if its sorted set became empty (a collection is never
// left empty), then signals the modification and publishes `event` (and
// "del" when the key went).
void zsetAfterRemove(Client* c, db::Entry* e, std::string_view key, const char* event);

// Score of an argument: "inf", "-inf", decimals; NaN and garbage reply
// "value is not a valid float".
bool argScore(Client* c, size_t i, double* out);
// ZRANGEBYSCORE-style bounds; "min or max is not a float" on error.
bool parseScoreRange(std::string_view min, std::string_view max, db::ScoreRange* r);
// ZRANGEBYLEX-style bounds; "min or max not valid string range item".
bool parseLexRange(std::string_view min, std::string_view max, db::LexRange* r);

// Score reply: RESP3 double, RESP2 bulk string (%.17g, inf, -inf).
void replyScore(Client* c, double score);
// Member list reply: members only, or with scores (RESP2 flat
// member, score...; RESP3 an array of [member, score] pairs).
void replyElements(Client* c, const ZElements& elements, bool withscores);
// Same, for a list whose length is only known at the end: begin, add each
// element, end.
class ZElementsReply {
 public:
  ZElementsReply(Client* c, bool withscores);
  void add(std::string_view member, double score);
  void end();
  size_t count() const { return n_; }

 private:
  Client* c_;
  bool withscores_;
  void* slot_;
  size_t n_ = 0;
};

}  // namespace server
