// The pop core of ZPOPMIN / ZPOPMAX / ZMPOP, shared with the blocking forms
// (BZPOPMIN / BZPOPMAX / BZMPOP) that the blocking infrastructure adds: they
// call zsetPop() once a watched key holds a sorted set.
#pragma once

#include <cstdint>
#include <string_view>

#include "server/db/db.h"

namespace server {

class Client;

// Reply shape of a pop.
enum class ZPopShape {
  kSingle,  // ZPOPMIN key: [member, score] (flat), empty array if none
  kCount,   // ZPOPMIN key count: RESP2 flat member, score...; RESP3 [[m, s]...]
  kKeyed,   // BZPOPMIN: [key, member, score] (count 1)
  kMulti,   // ZMPOP / BZMPOP: [key, [[m, s]...]]
};

// Pops up to `count` (>= 1) elements from the lowest (or, when max, the
// highest) scores of the sorted set in `e` (the entry of `key` in the
// client's db; must be a kZSet), writes the reply in `shape`, deletes the
// key if it became empty and signals the modification. Returns the number
// popped. `e` is invalid afterwards.
size_t zsetPop(Client* c, db::Entry* e, std::string_view key, bool max, int64_t count,
               ZPopShape shape);

}  // namespace server
