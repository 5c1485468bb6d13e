// Consumer groups: XGROUP (CREATE SETID DESTROY CREATECONSUMER DELCONSUMER
// HELP), XACK, XPENDING, XCLAIM, XAUTOCLAIM. XCLAIM and XAUTOCLAIM feed one
// "XCLAIM ... FORCE JUSTID LASTID" per entry they touched (and XGROUP SETID
// when only the group's ID moved) instead of themselves, as Redis 7.0.
#include <array>
#include <climits>
#include <string>
#include <vector>

#include "common/strutil.h"
#include "server/commands/types/stream_common.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/reply_helpers.h"
#include "server/core/state.h"
#include "server/propagate/propagate.h"
#include "server/request/blocking.h"
#include "server/request/keyspace.h"

namespace server {
namespace {

void subcommandSyntaxError(Client* c) {
  std::string_view sub = c->arg(1);
  c->addErrorFormat("unknown subcommand or wrong number of arguments for '%.*s'. Try XGROUP HELP.",
                    static_cast<int>(sub.size()), sub.data());
}

void xgroupHelp(Client* c) {
  static constexpr std::array<const char*, 17> kHelp = {
      "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CREATE <key> <groupname> <id|$> [option]",
      "    Create a new consumer group. Options are:",
      "    * MKSTREAM",
      "      Create the empty stream if it does not exist.",
      "    * ENTRIESREAD entries_read",
      "      Set the group's entries_read counter (internal use).",
      "CREATECONSUMER <key> <groupname> <consumer>",
      "    Create a new consumer in the specified group.",
      "DELCONSUMER <key> <groupname> <consumer>",
      "    Remove the specified consumer.",
      "DESTROY <key> <groupname>",
      "    Remove the specified group.",
      "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
      "    Set the current group ID and entries_read counter.",
      "HELP",
      "    Print this help.",
  };
  replyHelp(c, kHelp);
}

void xgroupCommand(Client* c) {
  std::string_view opt = c->arg(1);
  if (common::strutil::equalsIgnoreCase(opt, "HELP")) {
    xgroupHelp(c);
    return;
  }
  bool create = common::strutil::equalsIgnoreCase(opt, "CREATE");
  bool setid = common::strutil::equalsIgnoreCase(opt, "SETID");
  bool mkstream = false;
  int64_t entries_read = db::kInvalidEntriesRead;
  for (size_t i = 5; i < c->argc();) {
    if (create && common::strutil::equalsIgnoreCase(c->arg(i), "MKSTREAM")) {
      mkstream = true;
      i++;
    } else if ((create || setid) && common::strutil::equalsIgnoreCase(c->arg(i), "ENTRIESREAD") &&
               i + 1 < c->argc()) {
      if (!c->argInt64(i + 1, &entries_read)) return;
      if (entries_read < 0 && entries_read != db::kInvalidEntriesRead) {
        c->addError("value for ENTRIESREAD must be positive or -1");
        return;
      }
      i += 2;
    } else {
      subcommandSyntaxError(c);
      return;
    }
  }
  std::string_view key = c->arg(2);
  std::string_view grpname = c->arg(3);
  bool wrongtype;
  db::Entry* e = lookupWriteKind(c, key, db::Kind::kStream, &wrongtype);
  if (wrongtype) return;
  db::Stream* s = e ? db::asStream(e->val) : nullptr;
  db::StreamGroup* cg = nullptr;
  if (!mkstream) {
    if (s == nullptr) {
      c->addError(
          "The XGROUP subcommand requires the key to exist. Note that for CREATE you may want "
          "to use the MKSTREAM option to create an empty stream automatically.");
      return;
    }
    cg = s->findGroup(grpname);
    if (cg == nullptr && !create && !common::strutil::equalsIgnoreCase(opt, "DESTROY")) {
      c->addErrorFormat("-NOGROUP No such consumer group '%.*s' for key name '%.*s'",
                        static_cast<int>(grpname.size()), grpname.data(),
                        static_cast<int>(key.size()), key.data());
      return;
    }
  }
  if (create && c->argc() <= 8) {
    db::StreamID id;
    if (c->arg(4) == "$") {
      id = s ? s->last_id : db::StreamID{};
    } else if (!parseStreamIdOrReply(c, c->arg(4), &id, 0, true)) {
      return;
    }
    if (s == nullptr) {
      e = c->db()->add(key, db::Value::fromCollection(db::Kind::kStream, new db::Stream()));
      s = db::asStream(e->val);
      keyModified(c, key);
      g_server->dirty--;  // counted below with the group
    }
    if (s->createGroup(grpname, id, entries_read)) {
      c->addOk();
      g_server->dirty++;
      notify::keyEvent(c, notify::kStream, "xgroup-create", key);
    } else {
      c->addError("-BUSYGROUP Consumer Group name already exists");
    }
  } else if (setid && (c->argc() == 5 || c->argc() == 7)) {
    db::StreamID id;
    if (c->arg(4) == "$") {
      id = s->last_id;
    } else if (!parseStreamIdOrReply(c, c->arg(4), &id, 0, false)) {
      return;
    }
    cg->last_id = id;
    cg->entries_read = entries_read;
    c->addOk();
    g_server->dirty++;
    notify::keyEvent(c, notify::kStream, "xgroup-setid", key);
  } else if (common::strutil::equalsIgnoreCase(opt, "DESTROY") && c->argc() == 4) {
    if (cg) {
      s->destroyGroup(grpname);
      c->addInteger(1);
      g_server->dirty++;
      notify::keyEvent(c, notify::kStream, "xgroup-destroy", key);
      // Readers blocked on the group get their -NOGROUP now.
      blocking::signalKey(c->db(), key);
    } else {
      c->addInteger(0);
    }
  } else if (common::strutil::equalsIgnoreCase(opt, "CREATECONSUMER") && c->argc() == 5) {
    db::StreamConsumer* created = cg->createConsumer(c->arg(4), streamNowMs());
    if (created) {
      g_server->dirty++;
      notify::keyEvent(c, notify::kStream, "xgroup-createconsumer", key);
    }
    c->addInteger(created ? 1 : 0);
  } else if (common::strutil::equalsIgnoreCase(opt, "DELCONSUMER") && c->argc() == 5) {
    int64_t pending = 0;
    if (db::StreamConsumer* consumer = cg->findConsumer(c->arg(4))) {
      pending = static_cast<int64_t>(cg->deleteConsumer(consumer));
      g_server->dirty++;
      notify::keyEvent(c, notify::kStream, "xgroup-delconsumer", key);
    }
    c->addInteger(pending);
  } else {
    subcommandSyntaxError(c);
  }
}

// The stream and group a group command names; replies -NOGROUP (with
// Redis's text for each command) or WRONGTYPE and returns false otherwise.
bool streamAndGroup(Client* c, db::Stream** s, db::StreamGroup** g) {
  bool wrongtype;
  db::Entry* e = lookupReadKind(c, c->arg(1), db::Kind::kStream, &wrongtype);
  if (wrongtype) return false;
  *s = e ? db::asStream(e->val) : nullptr;
  *g = *s ? (*s)->findGroup(c->arg(2)) : nullptr;
  if (*g == nullptr) {
    c->addErrorFormat("-NOGROUP No such key '%.*s' or consumer group '%.*s'",
                      static_cast<int>(c->arg(1).size()), c->arg(1).data(),
                      static_cast<int>(c->arg(2).size()), c->arg(2).data());
    return false;
  }
  return true;
}

void xackCommand(Client* c) {
  bool wrongtype;
  db::Entry* e = lookupReadKind(c, c->arg(1), db::Kind::kStream, &wrongtype);
  if (wrongtype) return;
  db::StreamGroup* g = e ? db::asStream(e->val)->findGroup(c->arg(2)) : nullptr;
  if (g == nullptr) {
    c->addInteger(0);
    return;
  }
  std::vector<db::StreamID> ids(c->argc() - 3);
  for (size_t j = 3; j < c->argc(); j++)
    if (!parseStreamIdOrReply(c, c->arg(j), &ids[j - 3], 0, true)) return;
  int64_t acked = 0;
  for (const db::StreamID& id : ids) {
    auto it = g->pel.find(id);
    if (it == g->pel.end()) continue;
    g->dropPending(it);
    acked++;
    g_server->dirty++;
  }
  c->addInteger(acked);
}

void xpendingCommand(Client* c) {
  bool justinfo = c->argc() == 3;
  if (c->argc() != 3 && (c->argc() < 6 || c->argc() > 9)) {
    c->addSyntaxError();
    return;
  }
  db::StreamID start, end;
  int64_t count = 0, minidle = 0;
  std::string_view consumername;
  bool has_consumer = false;
  if (c->argc() >= 6) {
    size_t startidx = 3;
    if (common::strutil::equalsIgnoreCase(c->arg(3), "IDLE")) {
      if (!c->argInt64(4, &minidle)) return;
      if (c->argc() < 8) {
        c->addSyntaxError();
        return;
      }
      startidx += 2;
    }
    if (!c->argInt64(startidx + 2, &count)) return;
    if (count < 0) count = 0;
    if (!parseRangeBoundOrReply(c, c->arg(startidx), false, &start) ||
        !parseRangeBoundOrReply(c, c->arg(startidx + 1), true, &end))
      return;
    if (startidx + 3 < c->argc()) {
      consumername = c->arg(startidx + 3);
      has_consumer = true;
    }
  }
  db::Stream* s;
  db::StreamGroup* g;
  if (!streamAndGroup(c, &s, &g)) return;
  if (justinfo) {
    c->addArrayLen(4);
    c->addInteger(static_cast<int64_t>(g->pel.size()));
    if (g->pel.empty()) {
      c->addNull();
      c->addNull();
      c->reply().nullArray();
      return;
    }
    replyStreamId(c, g->pel.begin()->first);
    replyStreamId(c, g->pel.rbegin()->first);
    void* slot = c->reply().beginDeferred();
    int64_t n = 0;
    for (const auto& [name, consumer] : g->consumers) {
      if (consumer->pel.empty()) continue;
      c->addArrayLen(2);
      c->addBulk(name);
      c->reply().bulkInt(static_cast<int64_t>(consumer->pel.size()));
      n++;
    }
    c->reply().endDeferredArray(slot, n);
    return;
  }
  db::StreamConsumer* consumer = nullptr;
  if (has_consumer) {
    consumer = g->findConsumer(consumername);
    if (consumer == nullptr) {
      c->addArrayLen(0);
      return;
    }
  }
  int64_t now = streamNowMs();
  void* slot = c->reply().beginDeferred();
  int64_t n = 0;
  auto emit = [&](const db::StreamID& id, const db::StreamNack* nack) {
    if (minidle && now - nack->delivery_time < minidle) return;
    n++;
    count--;
    c->addArrayLen(4);
    replyStreamId(c, id);
    c->addBulk(nack->consumer->name);
    int64_t elapsed = now - nack->delivery_time;
    c->addInteger(elapsed < 0 ? 0 : elapsed);
    c->addInteger(static_cast<int64_t>(nack->delivery_count));
  };
  if (consumer) {
    for (auto it = consumer->pel.lower_bound(start); count && it != consumer->pel.end(); ++it) {
      if (it->first > end) break;
      emit(it->first, it->second);
    }
  } else {
    for (auto it = g->pel.lower_bound(start); count && it != g->pel.end(); ++it) {
      if (it->first > end) break;
      emit(it->first, it->second.get());
    }
  }
  c->reply().endDeferredArray(slot, n);
}

// What XCLAIM and XAUTOCLAIM (key, group and consumer at argv 1..3) do
// with each pending entry they touch, each fed as its XCLAIM form: one
// gone from the stream leaves the PEL; one claimed moves to the consumer
// (created at the first claim) and is replied.
struct Claimer {
  Client* c;
  db::Stream* s;
  db::StreamGroup* g;
  bool justid;
  db::StreamConsumer* consumer = nullptr;

  void drop(db::StreamGroup::Pel::iterator it, std::string_view idarg) {
    propagateXclaim(c, c->arg(1), c->arg(2), g, idarg, it->second.get());
    g_server->dirty++;
    g->dropPending(it);
  }
  // retrycount < 0: the delivery count goes up by one (not with JUSTID).
  void claim(const db::StreamID& id, db::StreamNack* nack, std::string_view idarg,
             int64_t delivery_time, int64_t retrycount) {
    if (consumer == nullptr) {
      bool created;
      consumer = lookupOrCreateConsumer(c, c->arg(1), g, c->arg(3), &created);
    }
    nack->delivery_time = delivery_time;
    if (retrycount >= 0)
      nack->delivery_count = static_cast<uint64_t>(retrycount);
    else if (!justid)
      nack->delivery_count++;
    g->assign(nack, id, consumer);
    if (justid)
      replyStreamId(c, id);
    else
      streamReplyRange(c, s, id, &id, 1, false, nullptr, nullptr, kRangeRaw, nullptr);
    propagateXclaim(c, c->arg(1), c->arg(2), g, idarg, nack);
    g_server->dirty++;
  }
};

void xclaimCommand(Client* c) {
  propagate::preventCommand();
  db::Stream* s;
  db::StreamGroup* g;
  if (!streamAndGroup(c, &s, &g)) return;
  std::string_view key = c->arg(1), grp = c->arg(2);
  int64_t minidle;
  if (!c->argInt64Msg(4, &minidle, "Invalid min-idle-time argument for XCLAIM")) return;
  if (minidle < 0) minidle = 0;
  std::vector<db::StreamID> ids;
  size_t j = 5;
  for (; j < c->argc(); j++) {
    db::StreamID id;
    if (!parseStreamId(c->arg(j), &id, 0, true, nullptr)) break;
    ids.push_back(id);
  }
  int64_t now = streamNowMs();
  int64_t retrycount = -1, deliverytime = -1;
  bool force = false, justid = false;
  db::StreamID last_id;
  for (; j < c->argc(); j++) {
    size_t more = c->argc() - 1 - j;
    std::string_view opt = c->arg(j);
    if (common::strutil::equalsIgnoreCase(opt, "FORCE")) {
      force = true;
    } else if (common::strutil::equalsIgnoreCase(opt, "JUSTID")) {
      justid = true;
    } else if (common::strutil::equalsIgnoreCase(opt, "IDLE") && more) {
      if (!c->argInt64Msg(++j, &deliverytime, "Invalid IDLE option argument for XCLAIM")) return;
      deliverytime = now - deliverytime;
    } else if (common::strutil::equalsIgnoreCase(opt, "TIME") && more) {
      if (!c->argInt64Msg(++j, &deliverytime, "Invalid TIME option argument for XCLAIM")) return;
    } else if (common::strutil::equalsIgnoreCase(opt, "RETRYCOUNT") && more) {
      if (!c->argInt64Msg(++j, &retrycount, "Invalid RETRYCOUNT option argument for XCLAIM"))
        return;
    } else if (common::strutil::equalsIgnoreCase(opt, "LASTID") && more) {
      if (!parseStreamIdOrReply(c, c->arg(++j), &last_id, 0, true)) return;
    } else {
      c->addErrorFormat("Unrecognized XCLAIM option '%.*s'", static_cast<int>(opt.size()),
                        opt.data());
      return;
    }
  }
  bool propagate_last_id = false;
  if (last_id > g->last_id) {
    g->last_id = last_id;
    propagate_last_id = true;
  }
  if (deliverytime != -1) {
    if (deliverytime < 0 || deliverytime > now) deliverytime = now;
  } else {
    deliverytime = now;
  }
  Claimer cl{c, s, g, justid};
  void* slot = c->reply().beginDeferred();
  int64_t n = 0;
  for (size_t k = 0; k < ids.size(); k++) {
    const db::StreamID& id = ids[k];
    std::string_view idarg = c->arg(5 + k);
    auto it = g->pel.find(id);
    db::StreamNack* nack = it == g->pel.end() ? nullptr : it->second.get();
    if (!s->exists(id)) {
      // Gone from the stream: it leaves the PEL too.
      if (nack) {
        cl.drop(it, idarg);
        propagate_last_id = false;
      }
      continue;
    }
    if (force && nack == nullptr) nack = g->addPending(id, now, nullptr);
    if (nack == nullptr) continue;
    if (nack->consumer && minidle && now - nack->delivery_time < minidle) continue;
    cl.claim(id, nack, idarg, deliverytime, retrycount);
    n++;
    propagate_last_id = false;
  }
  if (propagate_last_id) {
    propagateGroupId(c, key, grp, g);
    g_server->dirty++;
  }
  c->reply().endDeferredArray(slot, n);
}

void xautoclaimCommand(Client* c) {
  propagate::preventCommand();
  int64_t minidle;
  if (!c->argInt64Msg(4, &minidle, "Invalid min-idle-time argument for XAUTOCLAIM")) return;
  if (minidle < 0) minidle = 0;
  db::StreamID start;
  if (!parseRangeBoundOrReply(c, c->arg(5), false, &start)) return;
  constexpr int64_t kAttemptsFactor = 10;
  int64_t count = 100;
  bool justid = false;
  for (size_t j = 6; j < c->argc(); j++) {
    size_t more = c->argc() - 1 - j;
    if (common::strutil::equalsIgnoreCase(c->arg(j), "COUNT") && more) {
      int64_t v;
      if (!common::strutil::parseInt64(c->arg(j + 1), &v) || v < 1 || v > LONG_MAX / 16) {
        c->addError("COUNT must be > 0");
        return;
      }
      count = v;
      j++;
    } else if (common::strutil::equalsIgnoreCase(c->arg(j), "JUSTID")) {
      justid = true;
    } else {
      c->addSyntaxError();
      return;
    }
  }
  db::Stream* s;
  db::StreamGroup* g;
  if (!streamAndGroup(c, &s, &g)) return;
  // First decide (without changing anything) which entries are dropped
  // and which claimed, so that the cursor, which comes first in the
  // reply, is known before the entries are written.
  int64_t attempts = count * kAttemptsFactor;
  int64_t now = streamNowMs();
  std::vector<std::pair<db::StreamID, bool>> work;  // id, still in the stream
  auto it = g->pel.lower_bound(start);
  while (attempts-- && count && it != g->pel.end()) {
    const db::StreamID& id = it->first;
    if (!s->exists(id)) {
      work.emplace_back(id, false);
      count--;
    } else if (!minidle || now - it->second->delivery_time >= minidle) {
      work.emplace_back(id, true);
      count--;
    }
    ++it;
  }
  db::StreamID cursor = it == g->pel.end() ? db::StreamID{} : it->first;
  c->addArrayLen(3);
  replyStreamId(c, cursor);
  void* slot = c->reply().beginDeferred();
  int64_t n = 0;
  Claimer cl{c, s, g, justid};
  std::vector<db::StreamID> deleted;
  for (const auto& [id, live] : work) {
    auto pit = g->pel.find(id);
    std::string idstr = id.toString();
    if (!live) {
      cl.drop(pit, idstr);
      deleted.push_back(id);
      continue;
    }
    cl.claim(id, pit->second.get(), idstr, now, -1);
    n++;
  }
  c->reply().endDeferredArray(slot, n);
  c->addArrayLen(static_cast<int64_t>(deleted.size()));
  for (const db::StreamID& id : deleted) replyStreamId(c, id);
}

}  // namespace

void registerStreamGroupCommands(CommandTable& t) {
  Command xgroup{"xgroup",
                 -2,
                 0,
                 xgroupCommand,
                 0,
                 0,
                 0,
                 "stream",
                 "A container for consumer groups commands",
                 "5.0.0",
                 "Depends on subcommand.",
                 "slow"};
  auto sub = [](const char* name, int arity, uint32_t flags, const char* summary, const char* since,
                const char* complexity, const char* acl, int key) {
    return Command{name,        arity,    flags,   xgroupCommand, key,        key,
                   key ? 1 : 0, "stream", summary, since,         complexity, acl};
  };
  xgroup.subcommands = {
      sub("xgroup|create", -5, kWrite | kDenyOom, "Create a consumer group.", "5.0.0", "O(1)",
          "write stream slow", 2),
      sub("xgroup|createconsumer", 5, kWrite | kDenyOom, "Create a consumer in a consumer group.",
          "6.2.0", "O(1)", "write stream slow", 2),
      sub("xgroup|delconsumer", 5, kWrite, "Delete a consumer from a consumer group.", "5.0.0",
          "O(1)", "write stream slow", 2),
      sub("xgroup|destroy", 4, kWrite, "Destroy a consumer group.", "5.0.0",
          "O(N) where N is the number of entries in the group's pending entries list (PEL).",
          "write stream slow", 2),
      sub("xgroup|help", 2, kLoading | kStale, "Show helpful text about the different subcommands",
          "5.0.0", "O(1)", "stream slow", 0),
      sub("xgroup|setid", -5, kWrite,
          "Set a consumer group to an arbitrary last delivered ID value.", "5.0.0", "O(1)",
          "write stream slow", 2),
  };
  t.add(std::move(xgroup));
  t.add({"xack", -4, kWrite | kFast, xackCommand, 1, 1, 1, "stream",
         "Marks a pending message as correctly processed, effectively removing it from the "
         "pending entries list of the consumer group. Return value of the command is the number "
         "of messages successfully acknowledged, that is, the IDs we were actually able to "
         "resolve in the PEL.",
         "5.0.0", "O(1) for each message ID processed.", "write stream fast"});
  t.add({"xpending", -3, kReadOnly, xpendingCommand, 1, 1, 1, "stream",
         "Return information and entries from a stream consumer group pending entries list, "
         "that are messages fetched but never acknowledged.",
         "5.0.0",
         "O(N) with N being the number of elements returned, so asking for a small fixed "
         "number of entries per call is O(1). O(M), where M is the total number of entries "
         "scanned when used with the IDLE filter. When the command returns just the summary "
         "and the list of consumers is small, it runs in O(1) time; otherwise, an additional "
         "O(N) time for iterating every consumer.",
         "read stream slow"});
  t.add({"xclaim", -6, kWrite | kFast, xclaimCommand, 1, 1, 1, "stream",
         "Changes (or acquires) ownership of a message in a consumer group, as if the message "
         "was delivered to the specified consumer.",
         "5.0.0", "O(log N) with N being the number of messages in the PEL of the consumer group.",
         "write stream fast"});
  t.add({"xautoclaim", -6, kWrite | kFast, xautoclaimCommand, 1, 1, 1, "stream",
         "Changes (or acquires) ownership of messages in a consumer group, as if the messages "
         "were delivered to the specified consumer.",
         "6.2.0", "O(1) if COUNT is small.", "write stream fast"});
}

}  // namespace server
