// Blocking list commands: BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP, on the
// generic machinery of server/blocking.h. Each one first tries to serve
// like its non-blocking form; when every key is empty it blocks (or, when
// it may not, answers as on timeout). On a re-run for a blocked client a
// key of another kind counts as empty, so the client keeps waiting.
#include <string>

#include "server/request/blocking.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/commands/families.h"
#include "server/commands/types/list_ops.h"
#include "server/request/keyspace.h"
#include "server/propagate/propagate.h"

namespace server {
namespace {

using listops::Found;

// The reply when nothing came: a null array, as Redis 7.0 sends on
// timeout for every blocking list command.
void replyTimeout(Client* c) {
  c->reply().nullArray();
}

void bpopGeneric(Client* c, bool head) {
  blocking::popFirstOrBlock(c, db::Kind::kList, [&](db::Entry* e, std::string_view key) {
    std::vector<std::string> v =
        listops::pop(c, key, static_cast<db::List*>(e->val.collection()), head, 1);
    if (propagate::wanted()) propagate::rewrite({head ? "LPOP" : "RPOP", key});
    c->addArrayLen(2);
    c->addBulk(key);
    c->addBulk(v[0]);
  });
}

void blpopCommand(Client* c) {
  bpopGeneric(c, true);
}
void brpopCommand(Client* c) {
  bpopGeneric(c, false);
}

void bmoveGeneric(Client* c, bool from_head, bool to_head, size_t timeout_arg) {
  int64_t timeout;
  if (!blocking::parseBlockTimeout(c, timeout_arg, &timeout)) return;
  std::string_view src = c->arg(1);
  bool quiet = blocking::isRetryingBlocked(c);
  db::List* from = nullptr;
  Found f = listops::findList(c, src, quiet, &from);
  if (f == Found::kWrongType && !quiet) return;
  if (f == Found::kList) {
    listops::move(c, src, from, c->arg(2), from_head, to_head);
    // Fed as the non-blocking form, its arguments as typed.
    if (propagate::wanted()) {
      if (timeout_arg == 5)
        propagate::rewrite({"LMOVE", src, c->arg(2), c->arg(3), c->arg(4)});
      else
        propagate::rewrite({"RPOPLPUSH", src, c->arg(2)});
    }
    return;
  }
  if (blocking::blockForKeys(c, {src}, timeout)) return;
  // Inside MULTI Redis answers a plain null; on timeout a null array.
  if ((c->flags & kDenyBlocking) && !blocking::isRetryingBlocked(c))
    c->addNull();
  else
    replyTimeout(c);
}

void blmoveCommand(Client* c) {
  bool from_head, to_head;
  if (!listops::parseSide(c->arg(3), &from_head) || !listops::parseSide(c->arg(4), &to_head)) {
    c->addSyntaxError();
    return;
  }
  bmoveGeneric(c, from_head, to_head, 5);
}

void brpoplpushCommand(Client* c) {
  bmoveGeneric(c, false, true, 3);
}

void blmpopCommand(Client* c) {
  int64_t timeout;
  if (!blocking::parseBlockTimeout(c, 1, &timeout)) return;
  listops::MpopArgs a;
  if (!listops::parseMpop(c, 2, &a)) return;
  if (listops::serveMpop(c, a, blocking::isRetryingBlocked(c))) return;
  if (!blocking::blockForKeys(c, a.keys, timeout)) replyTimeout(c);
}

}  // namespace

void registerListBlockingCommands(CommandTable& t) {
  t.add({"blpop", -3, kWrite | kNoScript | kBlocking, blpopCommand, 1, -2, 1, "list",
         "Remove and get the first element in a list, or block until one is available", "2.0.0",
         "O(N) where N is the number of provided keys.", "write list slow blocking"});
  t.add({"brpop", -3, kWrite | kNoScript | kBlocking, brpopCommand, 1, -2, 1, "list",
         "Remove and get the last element in a list, or block until one is available", "2.0.0",
         "O(N) where N is the number of provided keys.", "write list slow blocking"});
  t.add({"blmove", 6, kWrite | kDenyOom | kNoScript | kBlocking, blmoveCommand, 1, 2, 1, "list",
         "Pop an element from a list, push it to another list and return it; or block until one "
         "is available",
         "6.2.0", "O(1)", "write list slow blocking"});
  t.add({"brpoplpush", 4, kWrite | kDenyOom | kNoScript | kBlocking, brpoplpushCommand, 1, 2, 1,
         "list",
         "Pop an element from a list, push it to another list and return it; or block until one "
         "is available",
         "2.2.0", "O(1)", "write list slow blocking"});
  t.add({"blmpop", -5, kWrite | kBlocking, blmpopCommand, 0, 0, 0, "list",
         "Pop elements from a list, or block until one is available", "7.0.0",
         "O(N+M) where N is the number of provided keys and M is the number of elements "
         "returned.",
         "write list slow blocking"});
  t.setKeysProc("blmpop", [](const std::vector<std::string_view>& argv, std::vector<size_t>* out) {
    return keysAfterCount(argv, 2, out);
  });
}

}  // namespace server
