// BZPOPMIN BZPOPMAX BZMPOP: the pops of zset_pop.cpp that wait, through
// the blocking machinery (server/request/blocking.h), for a sorted set to pop from.
#include <vector>

#include "server/request/blocking.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/commands/families.h"
#include "server/commands/types/zset_pop.h"
#include "server/request/keyspace.h"

namespace server {
namespace {

// BZPOPMIN key [key ...] timeout
void bzpopGeneric(Client* c, bool max) {
  blocking::popFirstOrBlock(c, db::Kind::kZSet, [&](db::Entry* e, std::string_view key) {
    zsetPop(c, e, key, max, 1, ZPopShape::kKeyed);
  });
}

void bzpopminCommand(Client* c) {
  bzpopGeneric(c, false);
}
void bzpopmaxCommand(Client* c) {
  bzpopGeneric(c, true);
}

// BZMPOP timeout numkeys key... MIN|MAX [COUNT count]
void bzmpopCommand(Client* c) {
  int64_t timeout;
  if (!blocking::parseBlockTimeout(c, 1, &timeout)) return;
  ZMpopArgs a;
  if (!parseZMpop(c, 2, &a)) return;
  if (serveZMpop(c, a, blocking::isRetryingBlocked(c))) return;
  if (!blocking::blockForKeys(c, a.keys, timeout)) c->reply().nullArray();
}

bool bzmpopKeys(const std::vector<std::string_view>& argv, std::vector<size_t>* out) {
  return keysAfterCount(argv, 2, out);
}

}  // namespace

void registerZsetBlockingCommands(CommandTable& t) {
  t.add({"bzpopmin", -3, kWrite | kNoScript | kFast | kBlocking, bzpopminCommand, 1, -2, 1,
         "sorted_set",
         "Remove and return the member with the lowest score from one or more sorted sets, or "
         "block until one is available",
         "5.0.0", "O(log(N)) with N being the number of elements in the sorted set.",
         "write sortedset fast blocking"});
  t.add({"bzpopmax", -3, kWrite | kNoScript | kFast | kBlocking, bzpopmaxCommand, 1, -2, 1,
         "sorted_set",
         "Remove and return the member with the highest score from one or more sorted sets, or "
         "block until one is available",
         "5.0.0", "O(log(N)) with N being the number of elements in the sorted set.",
         "write sortedset fast blocking"});
  t.add({"bzmpop", -5, kWrite | kBlocking, bzmpopCommand, 0, 0, 0, "sorted_set",
         "Remove and return members with scores in a sorted set or block until one is available",
         "7.0.0",
         "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of "
         "elements in the sorted set, and M being the number of elements popped.",
         "write sortedset slow blocking"});
  t.setKeysProc("bzmpop", bzmpopKeys);
}

}  // namespace server
