// Helpers shared by the list commands (lists.cpp) and the blocking list
// commands (list_blocking.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/db/list.h"

namespace server {

class Client;

namespace listops {

enum class Found { kList, kMissing, kWrongType };

// Looks up a list for writing. A key of another kind answers WRONGTYPE
// unless quiet (a blocked client's re-run treats it as empty).
Found findList(Client* c, std::string_view key, bool quiet, db::List** out);
// Pops up to n elements from the head or tail of the list at key (which
// must hold one), deleting the key when it empties; signals the change.
std::vector<std::string> pop(Client* c, std::string_view key, db::List* l, bool head, size_t n);

// LMOVE's core, shared with BLMOVE/RPOPLPUSH/BRPOPLPUSH. The source must
// hold a list. Replies the moved element, or WRONGTYPE for a destination
// of another kind.
void move(Client* c, std::string_view src, db::List* from, std::string_view dst, bool from_head,
          bool to_head);
// LEFT / RIGHT (case-insensitive); false when neither.
bool parseSide(std::string_view s, bool* head);

// LMPOP/BLMPOP arguments from argv[numkeys_index]: numkeys, keys, side,
// [COUNT n]. Replies the error and returns false when they do not parse.
struct MpopArgs {
  std::vector<std::string_view> keys;
  bool head = true;
  size_t count = 1;
};
bool parseMpop(Client* c, size_t numkeys_index, MpopArgs* out);
// Serves LMPOP from the first non-empty list among the keys. Returns true
// when it replied (served, or WRONGTYPE for a key of another kind unless
// quiet), false without replying when every list is empty.
bool serveMpop(Client* c, const MpopArgs& a, bool quiet);

}  // namespace listops
}  // namespace server
