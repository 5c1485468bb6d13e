// Stream commands that write or range over entries: XADD XRANGE XREVRANGE
// XLEN XDEL XTRIM XSETID, and the registration of every X command. The
// value and its layout are in db/stream.h; reads (XREAD/XREADGROUP) are in
// stream_read.cpp, consumer groups in stream_groups.cpp, XINFO in
// stream_info.cpp.
#include <string>
#include <vector>

#include "common/strutil.h"
#include "server/commands/families.h"
#include "server/commands/types/stream_common.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/propagate/propagate.h"
#include "server/request/keyspace.h"

namespace server {
namespace {

struct AddTrimArgs {
  db::TrimArgs trim;
  db::StreamID id;
  bool id_given = false;
  bool seq_given = true;
  bool no_mkstream = false;
  size_t trim_arg_idx = 0;  // argv index of the MAXLEN/MINID threshold
};

// Redis's streamParseAddOrTrimArgsOrReply: the index of the ID for XADD
// (argc for XTRIM), or 0 after replying an error.
size_t parseAddOrTrim(Client* c, AddTrimArgs* a, bool xadd) {
  size_t i = 2;
  bool limit_given = false;
  size_t argc = c->argc();
  for (; i < argc; i++) {
    size_t more = argc - 1 - i;
    std::string_view opt = c->arg(i);
    bool maxlen = common::strutil::equalsIgnoreCase(opt, "maxlen");
    if (xadd && opt == "*") {
      break;
    } else if ((maxlen || common::strutil::equalsIgnoreCase(opt, "minid")) && more) {
      if (a->trim.strategy != db::TrimStrategy::kNone) {
        c->addError("syntax error, MAXLEN and MINID options at the same time are not compatible");
        return 0;
      }
      a->trim.approx = false;
      std::string_view next = c->arg(i + 1);
      if (more >= 2 && next == "~") {
        a->trim.approx = true;
        i++;
      } else if (more >= 2 && next == "=") {
        i++;
      }
      if (maxlen) {
        if (!c->argInt64(i + 1, &a->trim.maxlen)) return 0;
        if (a->trim.maxlen < 0) {
          c->addError("The MAXLEN argument must be >= 0.");
          return 0;
        }
      } else if (!parseStreamIdOrReply(c, c->arg(i + 1), &a->trim.minid, 0, true)) {
        return 0;
      }
      i++;
      a->trim.strategy = maxlen ? db::TrimStrategy::kMaxLen : db::TrimStrategy::kMinId;
      a->trim_arg_idx = i;
    } else if (common::strutil::equalsIgnoreCase(opt, "limit") && more) {
      if (!c->argInt64(i + 1, &a->trim.limit)) return 0;
      if (a->trim.limit < 0) {
        c->addError("The LIMIT argument must be >= 0.");
        return 0;
      }
      limit_given = true;
      i++;
    } else if (xadd && common::strutil::equalsIgnoreCase(opt, "nomkstream")) {
      a->no_mkstream = true;
    } else if (xadd) {
      if (!parseStreamIdOrReply(c, opt, &a->id, 0, true, &a->seq_given)) return 0;
      a->id_given = true;
      break;
    } else {
      c->addSyntaxError();
      return 0;
    }
  }
  if (a->trim.limit && a->trim.strategy == db::TrimStrategy::kNone) {
    c->addError("syntax error, LIMIT cannot be used without specifying a trimming strategy");
    return 0;
  }
  if (!xadd && a->trim.strategy == db::TrimStrategy::kNone) {
    c->addError("syntax error, XTRIM must be called with a trimming strategy");
    return 0;
  }
  if (c->flags & kMustObey) {
    a->trim.limit = 0;
  } else if (limit_given) {
    if (!a->trim.approx) {
      c->addError("syntax error, LIMIT cannot be used without the special ~ option");
      return 0;
    }
  } else if (a->trim.approx) {
    int64_t lim = 100 * g_server->config.stream_node_max_entries;
    if (lim <= 0) lim = 10000;
    if (lim > 1000000) lim = 1000000;
    a->trim.limit = lim;
  } else {
    a->trim.limit = 0;
  }
  return i;
}

// What a ~ trim actually did, as the deterministic form for the AOF and
// replicas: "= <length>" or "= <first id>".
void rewriteApproxTrim(const db::Stream* s, const AddTrimArgs& a, std::vector<std::string>* argv) {
  (*argv)[a.trim_arg_idx - 1] = "=";
  if (a.trim.strategy == db::TrimStrategy::kMaxLen) {
    (*argv)[a.trim_arg_idx] = std::to_string(s->length);
  } else {
    db::StreamID first;
    s->edgeId(true, true, &first);
    (*argv)[a.trim_arg_idx] = first.toString();
  }
}

void feedRewritten(const std::vector<std::string>& argv) {
  std::vector<std::string_view> v(argv.begin(), argv.end());
  propagate::rewrite(std::span<const std::string_view>(v));
}

void xaddCommand(Client* c) {
  AddTrimArgs a;
  size_t idpos = parseAddOrTrim(c, &a, true);
  if (idpos == 0) return;
  size_t field_pos = idpos + 1;
  if (c->argc() < field_pos + 2 || (c->argc() - field_pos) % 2 == 1) {
    c->addWrongArity();
    return;
  }
  if (a.id_given && a.seq_given && a.id.isZero()) {
    c->addError("The ID specified in XADD must be greater than 0-0");
    return;
  }
  std::string_view key = c->arg(1);
  bool wrongtype;
  db::Entry* e = lookupWriteKind(c, key, db::Kind::kStream, &wrongtype);
  if (wrongtype) return;
  if (e == nullptr) {
    if (a.no_mkstream) {
      c->addNull();
      return;
    }
    e = c->db()->add(key, db::Value::fromCollection(db::Kind::kStream, new db::Stream()));
  }
  db::Stream* s = db::asStream(e->val);
  if (s->last_id == db::StreamID::max()) {
    c->addError("The stream has exhausted the last possible ID, unable to add more items");
    return;
  }
  db::StreamID id;
  auto r = s->append(&c->argv()[field_pos], c->argc() - field_pos, a.id_given ? &a.id : nullptr,
                     a.seq_given, streamLimits(), streamNowMs(), &id);
  if (r != db::Stream::AddResult::kOk) {
    if (r == db::Stream::AddResult::kIdTooSmall)
      c->addError("The ID specified in XADD is equal or smaller than the target stream top item");
    else
      c->addError("Elements are too large to be stored");
    return;
  }
  std::string idstr = id.toString();
  c->addBulk(idstr);
  keyModified(c, key);
  notify::keyEvent(c, notify::kStream, "xadd", key);
  bool prop = propagate::wanted();
  std::vector<std::string> argv;
  if (prop) argv.assign(c->argv().begin(), c->argv().end());
  if (a.trim.strategy != db::TrimStrategy::kNone) {
    if (s->trim(a.trim)) notify::keyEvent(c, notify::kStream, "xtrim", key);
    if (a.trim.approx && prop) rewriteApproxTrim(s, a, &argv);
  }
  if (prop) {
    if (!a.id_given || !a.seq_given) argv[idpos] = idstr;
    feedRewritten(argv);
  }
}

void xtrimCommand(Client* c) {
  AddTrimArgs a;
  if (parseAddOrTrim(c, &a, false) == 0) return;
  std::string_view key = c->arg(1);
  bool wrongtype;
  db::Entry* e = lookupWriteKind(c, key, db::Kind::kStream, &wrongtype);
  if (wrongtype) return;
  if (e == nullptr) {
    c->addInteger(0);
    return;
  }
  db::Stream* s = db::asStream(e->val);
  int64_t deleted = s->trim(a.trim);
  if (deleted) {
    notify::keyEvent(c, notify::kStream, "xtrim", key);
    if (a.trim.approx && propagate::wanted()) {
      std::vector<std::string> argv(c->argv().begin(), c->argv().end());
      rewriteApproxTrim(s, a, &argv);
      feedRewritten(argv);
    }
    keyModified(c, key);
    g_server->dirty += deleted - 1;
  }
  c->addInteger(deleted);
}

void xrangeGeneric(Client* c, bool rev) {
  std::string_view startarg = rev ? c->arg(3) : c->arg(2);
  std::string_view endarg = rev ? c->arg(2) : c->arg(3);
  db::StreamID start, end;
  if (!parseRangeBoundOrReply(c, startarg, false, &start) ||
      !parseRangeBoundOrReply(c, endarg, true, &end))
    return;
  int64_t count = -1;
  for (size_t j = 4; j < c->argc(); j++) {
    if (common::strutil::equalsIgnoreCase(c->arg(j), "COUNT") && j + 1 < c->argc()) {
      if (!c->argInt64(j + 1, &count)) return;
      if (count < 0) count = 0;
      j++;
    } else {
      c->addSyntaxError();
      return;
    }
  }
  bool wrongtype;
  db::Entry* e = lookupReadKind(c, c->arg(1), db::Kind::kStream, &wrongtype);
  if (wrongtype) return;
  if (e == nullptr) {
    c->addArrayLen(0);
    return;
  }
  if (count == 0) {
    c->reply().nullArray();
    return;
  }
  streamReplyRange(c, db::asStream(e->val), start, &end,
                   count == -1 ? 0 : static_cast<size_t>(count), rev, nullptr, nullptr, 0, nullptr);
}

void xrangeCommand(Client* c) {
  xrangeGeneric(c, false);
}
void xrevrangeCommand(Client* c) {
  xrangeGeneric(c, true);
}

void xlenCommand(Client* c) {
  bool wrongtype;
  db::Entry* e = lookupReadKind(c, c->arg(1), db::Kind::kStream, &wrongtype);
  if (wrongtype) return;
  c->addInteger(e ? static_cast<int64_t>(db::asStream(e->val)->length) : 0);
}

void xdelCommand(Client* c) {
  std::string_view key = c->arg(1);
  bool wrongtype;
  db::Entry* e = lookupWriteKind(c, key, db::Kind::kStream, &wrongtype);
  if (wrongtype) return;
  if (e == nullptr) {
    c->addInteger(0);
    return;
  }
  std::vector<db::StreamID> ids(c->argc() - 2);
  for (size_t j = 2; j < c->argc(); j++)
    if (!parseStreamIdOrReply(c, c->arg(j), &ids[j - 2], 0, true)) return;
  db::Stream* s = db::asStream(e->val);
  int64_t deleted = 0;
  bool first_entry = false;
  for (const db::StreamID& id : ids) {
    if (!s->remove(id)) continue;
    if (id == s->first_id) first_entry = true;
    if (id > s->max_deleted_id) s->max_deleted_id = id;
    deleted++;
  }
  if (deleted) {
    if (s->length == 0)
      s->first_id = {};
    else if (first_entry)
      s->edgeId(true, false, &s->first_id);
    keyModified(c, key);
    notify::keyEvent(c, notify::kStream, "xdel", key);
    g_server->dirty += deleted - 1;
  }
  c->addInteger(deleted);
}

void xsetidCommand(Client* c) {
  db::StreamID id, max_xdel;
  int64_t entries_added = -1;
  if (!parseStreamIdOrReply(c, c->arg(2), &id, 0, true)) return;
  for (size_t i = 3; i < c->argc();) {
    size_t more = c->argc() - 1 - i;
    std::string_view opt = c->arg(i);
    if (common::strutil::equalsIgnoreCase(opt, "ENTRIESADDED") && more) {
      if (!c->argInt64(i + 1, &entries_added)) return;
      if (entries_added < 0) {
        c->addError("entries_added must be positive");
        return;
      }
      i += 2;
    } else if (common::strutil::equalsIgnoreCase(opt, "MAXDELETEDID") && more) {
      if (!parseStreamIdOrReply(c, c->arg(i + 1), &max_xdel, 0, true)) return;
      if (id < max_xdel) {
        c->addError("The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
        return;
      }
      i += 2;
    } else {
      c->addSyntaxError();
      return;
    }
  }
  std::string_view key = c->arg(1);
  bool wrongtype;
  db::Entry* e = lookupWriteKind(c, key, db::Kind::kStream, &wrongtype);
  if (wrongtype) return;
  if (e == nullptr) {
    c->addError("no such key");
    return;
  }
  db::Stream* s = db::asStream(e->val);
  if (s->length > 0) {
    db::StreamID maxid;
    s->edgeId(false, false, &maxid);
    if (id < maxid) {
      c->addError("The ID specified in XSETID is smaller than the target stream top item");
      return;
    }
    if (entries_added != -1 && s->length > static_cast<uint64_t>(entries_added)) {
      c->addError("The entries_added specified in XSETID is smaller than the target stream length");
      return;
    }
  }
  s->last_id = id;
  if (entries_added != -1) s->entries_added = static_cast<uint64_t>(entries_added);
  if (!max_xdel.isZero()) s->max_deleted_id = max_xdel;
  c->addOk();
  g_server->dirty++;
  notify::keyEvent(c, notify::kStream, "xsetid", key);
}

}  // namespace

void registerStreamCommands(CommandTable& t) {
  t.add({"xadd", -5, kWrite | kDenyOom | kFast, xaddCommand, 1, 1, 1, "stream",
         "Appends a new entry to a stream", "5.0.0",
         "O(1) when adding a new entry, O(N) when trimming where N being the number of entries "
         "evicted.",
         "write stream fast"});
  t.add({"xrange", -4, kReadOnly, xrangeCommand, 1, 1, 1, "stream",
         "Return a range of elements in a stream, with IDs matching the specified IDs interval",
         "5.0.0",
         "O(N) with N being the number of elements being returned. If N is constant (e.g. always "
         "asking for the first 10 elements with COUNT), you can consider it O(1).",
         "read stream slow"});
  t.add({"xrevrange", -4, kReadOnly, xrevrangeCommand, 1, 1, 1, "stream",
         "Return a range of elements in a stream, with IDs matching the specified IDs interval, "
         "in reverse order (from greater to smaller IDs) compared to XRANGE",
         "5.0.0",
         "O(N) with N being the number of elements returned. If N is constant (e.g. always "
         "asking for the first 10 elements with COUNT), you can consider it O(1).",
         "read stream slow"});
  t.add({"xlen", 2, kReadOnly | kFast, xlenCommand, 1, 1, 1, "stream",
         "Return the number of entries in a stream", "5.0.0", "O(1)", "read stream fast"});
  t.add({"xdel", -3, kWrite | kFast, xdelCommand, 1, 1, 1, "stream",
         "Removes the specified entries from the stream. Returns the number of items actually "
         "deleted, that may be different from the number of IDs passed in case certain IDs do "
         "not exist.",
         "5.0.0",
         "O(1) for each single item to delete in the stream, regardless of the stream size.",
         "write stream fast"});
  t.add({"xtrim", -4, kWrite, xtrimCommand, 1, 1, 1, "stream",
         "Trims the stream to (approximately if '~' is passed) a certain size", "5.0.0",
         "O(N), with N being the number of evicted entries. Constant times are very small "
         "however, since entries are organized in macro nodes containing multiple entries that "
         "can be released with a single deallocation.",
         "write stream slow"});
  t.add({"xsetid", -3, kWrite | kDenyOom | kFast, xsetidCommand, 1, 1, 1, "stream",
         "An internal command for replicating stream values", "5.0.0", "O(1)",
         "write stream fast"});
  registerStreamReadCommands(t);
  registerStreamGroupCommands(t);
  registerStreamInfoCommand(t);
}

}  // namespace server
