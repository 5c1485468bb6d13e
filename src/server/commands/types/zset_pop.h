// The pop core of ZPOPMIN / ZPOPMAX / ZMPOP, shared with the blocking forms
// BZPOPMIN / BZPOPMAX / BZMPOP (commands/zset_blocking.cpp).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

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

// ZMPOP / BZMPOP arguments from argv[numkeys_index]: numkeys, keys,
// MIN|MAX, [COUNT n]. Replies the error and returns false when they do not
// parse.
struct ZMpopArgs {
  std::vector<std::string_view> keys;
  bool max = false;
  int64_t count = 1;
};
bool parseZMpop(Client* c, size_t numkeys_index, ZMpopArgs* a);
// Pops from the first key holding a sorted set (reply in kMulti shape).
// True when it replied (popped, or WRONGTYPE for a key of another kind
// unless quiet, which treats such keys as empty); false, without replying,
// when no key holds a sorted set.
bool serveZMpop(Client* c, const ZMpopArgs& a, bool quiet);

}  // namespace server
