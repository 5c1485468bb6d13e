// XINFO STREAM [FULL [COUNT n]] / GROUPS / CONSUMERS / HELP, with the
// fields and order of Redis 7.0 (lag and entries-read included).
#include <array>
#include <string>

#include "common/strutil.h"
#include "server/commands/types/stream_common.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/reply_helpers.h"
#include "server/request/keyspace.h"

namespace server {
namespace {

void syntaxError(Client* c) {
  std::string_view sub = c->arg(1);
  c->addErrorFormat("unknown subcommand or wrong number of arguments for '%.*s'. Try XINFO HELP.",
                    static_cast<int>(sub.size()), sub.data());
}

void replyEntriesRead(Client* c, const db::StreamGroup* g) {
  if (g->entries_read != db::kInvalidEntriesRead)
    c->addInteger(g->entries_read);
  else
    c->addNull();
}

void replyStreamInfo(Client* c, db::Stream* s) {
  bool full = c->argc() > 3;
  int64_t count = 10;
  if (full) {
    size_t optc = c->argc() - 3;
    if ((optc != 1 && optc != 3) || !common::strutil::equalsIgnoreCase(c->arg(3), "full")) {
      syntaxError(c);
      return;
    }
    if (optc == 3) {
      if (!common::strutil::equalsIgnoreCase(c->arg(4), "count")) {
        syntaxError(c);
        return;
      }
      if (!c->argInt64(5, &count)) return;
      if (count < 0) count = 10;
    }
  }
  resp::Writer& w = c->reply();
  w.mapLen(full ? 9 : 10);
  c->addBulk("length");
  c->addInteger(static_cast<int64_t>(s->length));
  c->addBulk("radix-tree-keys");
  c->addInteger(static_cast<int64_t>(s->nodes.size()));
  // Nodes of Redis's radix tree: an estimate, as our index is not one.
  c->addBulk("radix-tree-nodes");
  c->addInteger(static_cast<int64_t>(s->nodes.empty() ? 1 : 2 * s->nodes.size()));
  c->addBulk("last-generated-id");
  replyStreamId(c, s->last_id);
  c->addBulk("max-deleted-entry-id");
  replyStreamId(c, s->max_deleted_id);
  c->addBulk("entries-added");
  c->addInteger(static_cast<int64_t>(s->entries_added));
  c->addBulk("recorded-first-entry-id");
  replyStreamId(c, s->first_id);
  if (!full) {
    c->addBulk("groups");
    c->addInteger(static_cast<int64_t>(s->groups.size()));
    db::StreamID end = db::StreamID::max();
    c->addBulk("first-entry");
    if (!streamReplyRange(c, s, {}, &end, 1, false, nullptr, nullptr, kRangeRaw, nullptr))
      c->addNull();
    c->addBulk("last-entry");
    if (!streamReplyRange(c, s, {}, &end, 1, true, nullptr, nullptr, kRangeRaw, nullptr))
      c->addNull();
    return;
  }
  size_t limit = static_cast<size_t>(count);
  c->addBulk("entries");
  streamReplyRange(c, s, {}, nullptr, limit, false, nullptr, nullptr, 0, nullptr);
  c->addBulk("groups");
  c->addArrayLen(static_cast<int64_t>(s->groups.size()));
  for (const auto& [name, g] : s->groups) {
    w.mapLen(7);
    c->addBulk("name");
    c->addBulk(name);
    c->addBulk("last-delivered-id");
    replyStreamId(c, g->last_id);
    c->addBulk("entries-read");
    replyEntriesRead(c, g.get());
    c->addBulk("lag");
    replyGroupLag(c, s, g.get());
    c->addBulk("pel-count");
    c->addInteger(static_cast<int64_t>(g->pel.size()));
    c->addBulk("pending");
    size_t n = 0;
    void* slot = w.beginDeferred();
    for (const auto& [id, nack] : g->pel) {
      if (limit && n >= limit) break;
      c->addArrayLen(4);
      replyStreamId(c, id);
      c->addBulk(nack->consumer->name);
      c->addInteger(nack->delivery_time);
      c->addInteger(static_cast<int64_t>(nack->delivery_count));
      n++;
    }
    w.endDeferredArray(slot, static_cast<int64_t>(n));
    c->addBulk("consumers");
    c->addArrayLen(static_cast<int64_t>(g->consumers.size()));
    for (const auto& [cname, consumer] : g->consumers) {
      w.mapLen(4);
      c->addBulk("name");
      c->addBulk(cname);
      c->addBulk("seen-time");
      c->addInteger(consumer->seen_time);
      c->addBulk("pel-count");
      c->addInteger(static_cast<int64_t>(consumer->pel.size()));
      c->addBulk("pending");
      size_t k = 0;
      void* cslot = w.beginDeferred();
      for (const auto& [id, nack] : consumer->pel) {
        if (limit && k >= limit) break;
        c->addArrayLen(3);
        replyStreamId(c, id);
        c->addInteger(nack->delivery_time);
        c->addInteger(static_cast<int64_t>(nack->delivery_count));
        k++;
      }
      w.endDeferredArray(cslot, static_cast<int64_t>(k));
    }
  }
}

void xinfoCommand(Client* c) {
  std::string_view opt = c->arg(1);
  if (common::strutil::equalsIgnoreCase(opt, "HELP")) {
    if (c->argc() != 2) {
      syntaxError(c);
      return;
    }
    static constexpr std::array<const char*, 9> kHelp = {
        "XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CONSUMERS <key> <groupname>",
        "    Show consumers of <groupname>.",
        "GROUPS <key>",
        "    Show the stream consumer groups.",
        "STREAM <key> [FULL [COUNT <count>]",
        "    Show information about the stream.",
        "HELP",
        "    Print this help.",
    };
    replyHelp(c, kHelp);
    return;
  }
  if (c->argc() < 3) {
    syntaxError(c);
    return;
  }
  std::string_view key = c->arg(2);
  bool wrongtype;
  db::Entry* e = lookupReadKind(c, key, db::Kind::kStream, &wrongtype);
  if (wrongtype) return;
  if (e == nullptr) {
    c->addError("no such key");
    return;
  }
  db::Stream* s = db::asStream(e->val);
  if (common::strutil::equalsIgnoreCase(opt, "CONSUMERS") && c->argc() == 4) {
    db::StreamGroup* g = s->findGroup(c->arg(3));
    if (g == nullptr) {
      c->addErrorFormat("-NOGROUP No such consumer group '%.*s' for key name '%.*s'",
                        static_cast<int>(c->arg(3).size()), c->arg(3).data(),
                        static_cast<int>(key.size()), key.data());
      return;
    }
    c->addArrayLen(static_cast<int64_t>(g->consumers.size()));
    int64_t now = streamNowMs();
    for (const auto& [name, consumer] : g->consumers) {
      int64_t idle = now - consumer->seen_time;
      c->reply().mapLen(3);
      c->addBulk("name");
      c->addBulk(name);
      c->addBulk("pending");
      c->addInteger(static_cast<int64_t>(consumer->pel.size()));
      c->addBulk("idle");
      c->addInteger(idle < 0 ? 0 : idle);
    }
  } else if (common::strutil::equalsIgnoreCase(opt, "GROUPS") && c->argc() == 3) {
    c->addArrayLen(static_cast<int64_t>(s->groups.size()));
    for (const auto& [name, g] : s->groups) {
      c->reply().mapLen(6);
      c->addBulk("name");
      c->addBulk(name);
      c->addBulk("consumers");
      c->addInteger(static_cast<int64_t>(g->consumers.size()));
      c->addBulk("pending");
      c->addInteger(static_cast<int64_t>(g->pel.size()));
      c->addBulk("last-delivered-id");
      replyStreamId(c, g->last_id);
      c->addBulk("entries-read");
      replyEntriesRead(c, g.get());
      c->addBulk("lag");
      replyGroupLag(c, s, g.get());
    }
  } else if (common::strutil::equalsIgnoreCase(opt, "STREAM")) {
    replyStreamInfo(c, s);
  } else {
    syntaxError(c);
  }
}

}  // namespace

void registerStreamInfoCommand(CommandTable& t) {
  Command xinfo{"xinfo",
                -2,
                0,
                xinfoCommand,
                0,
                0,
                0,
                "stream",
                "A container for stream introspection commands",
                "5.0.0",
                "Depends on subcommand.",
                "slow"};
  xinfo.subcommands = {
      Command{"xinfo|consumers", 4, kReadOnly, xinfoCommand, 2, 2, 1, "stream",
              "List the consumers in a consumer group", "5.0.0", "O(1)", "read stream slow"},
      Command{"xinfo|groups", 3, kReadOnly, xinfoCommand, 2, 2, 1, "stream",
              "List the consumer groups of a stream", "5.0.0", "O(1)", "read stream slow"},
      Command{"xinfo|help", 2, kLoading | kStale, xinfoCommand, 0, 0, 0, "stream",
              "Show helpful text about the different subcommands", "5.0.0", "O(1)", "stream slow"},
      Command{"xinfo|stream", -3, kReadOnly, xinfoCommand, 2, 2, 1, "stream",
              "Get information about a stream", "5.0.0", "O(1)", "read stream slow"},
  };
  t.add(std::move(xinfo));
}

}  // namespace server
