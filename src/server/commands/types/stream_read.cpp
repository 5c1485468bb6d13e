// XREAD and XREADGROUP, with BLOCK through the blocking machinery
// (server/blocking.h): a blocked read runs again whenever one of its keys
// is written. The IDs a client waits after are fixed when it blocks ("$"
// becomes the stream's last ID then, in the saved copy of its request), so
// a re-run serves only what arrived later, as Redis does. A re-run answers
// for one stream, the first in the request with new entries, as Redis
// serves a blocked client from the key that woke it.
#include <string>
#include <vector>

#include "common/strutil.h"
#include "server/commands/types/stream_common.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/propagate/propagate.h"
#include "server/request/blocking.h"
#include "server/request/keyspace.h"

namespace server {
namespace {

constexpr int64_t kBlockedDefaultCount = 1000;

struct ReadArgs {
  int64_t timeout = -1;  // ms, -1: no BLOCK
  int64_t count = 0;
  size_t streams_arg = 0;
  size_t nstreams = 0;
  bool noack = false;
  std::string_view group, consumer;
  bool has_group = false;
};

bool parseReadArgs(Client* c, bool xreadgroup, ReadArgs* a) {
  for (size_t i = 1; i < c->argc(); i++) {
    size_t more = c->argc() - i - 1;
    std::string_view o = c->arg(i);
    if (common::strutil::equalsIgnoreCase(o, "BLOCK") && more) {
      if (c->flags & kScriptClient) {
        c->addErrorFormat("%.*s command is not allowed with BLOCK option from scripts",
                          static_cast<int>(c->arg(0).size()), c->arg(0).data());
        return false;
      }
      i++;
      int64_t t;
      if (!c->argInt64Msg(i, &t, "timeout is not an integer or out of range")) return false;
      if (t < 0) {
        c->addError("timeout is negative");
        return false;
      }
      a->timeout = t;
    } else if (common::strutil::equalsIgnoreCase(o, "COUNT") && more) {
      i++;
      if (!c->argInt64(i, &a->count)) return false;
      if (a->count < 0) a->count = 0;
    } else if (common::strutil::equalsIgnoreCase(o, "STREAMS") && more) {
      a->streams_arg = i + 1;
      size_t n = c->argc() - a->streams_arg;
      if (n % 2 != 0) {
        c->addError(
            "Unbalanced XREAD list of streams: for each stream key an ID or '$' must be "
            "specified.");
        return false;
      }
      a->nstreams = n / 2;
      break;
    } else if (common::strutil::equalsIgnoreCase(o, "GROUP") && more >= 2) {
      if (!xreadgroup) {
        c->addError("The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
        return false;
      }
      a->group = c->arg(i + 1);
      a->consumer = c->arg(i + 2);
      a->has_group = true;
      i += 2;
    } else if (common::strutil::equalsIgnoreCase(o, "NOACK")) {
      if (!xreadgroup) {
        c->addError("The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
        return false;
      }
      a->noack = true;
    } else {
      c->addSyntaxError();
      return false;
    }
  }
  if (a->streams_arg == 0) {
    c->addSyntaxError();
    return false;
  }
  if (xreadgroup && !a->has_group) {
    c->addError("Missing GROUP option for XREADGROUP");
    return false;
  }
  return true;
}

void xreadGeneric(Client* c, bool xreadgroup) {
  // XREAD/XREADGROUP are never fed as such: a group read feeds the
  // XCLAIM / XGROUP forms it produced.
  propagate::preventCommand();
  ReadArgs a;
  if (!parseReadArgs(c, xreadgroup, &a)) return;
  bool retry = blocking::isRetryingBlocked(c);
  size_t n = a.nstreams;
  std::vector<db::StreamID> ids(n);
  std::vector<db::StreamGroup*> groups(n, nullptr);
  std::vector<db::Stream*> streams(n, nullptr);
  // Arguments rewritten in the saved request when the client blocks.
  std::vector<std::pair<size_t, std::string>> fixed;
  for (size_t i = 0; i < n; i++) {
    std::string_view key = c->arg(a.streams_arg + i);
    size_t idarg = a.streams_arg + n + i;
    db::Entry* e = lookupRead(c, key);
    if (e && e->val.kind() != db::Kind::kStream) {
      if (retry) {
        if (a.has_group) {
          c->addError("-UNBLOCKED the stream key no longer exists");
          return;
        }
        e = nullptr;  // XREAD keeps waiting on a key of another type
      } else {
        c->addWrongType();
        return;
      }
    }
    db::Stream* s = e ? db::asStream(e->val) : nullptr;
    streams[i] = s;
    if (a.has_group) {
      if (s == nullptr && retry) {
        c->addError("-UNBLOCKED the stream key no longer exists");
        return;
      }
      groups[i] = s ? s->findGroup(a.group) : nullptr;
      if (groups[i] == nullptr) {
        if (retry)
          c->addError("-NOGROUP the consumer group this client was blocked on no longer exists");
        else
          c->addErrorFormat(
              "-NOGROUP No such key '%.*s' or consumer group '%.*s' in XREADGROUP with GROUP "
              "option",
              static_cast<int>(key.size()), key.data(), static_cast<int>(a.group.size()),
              a.group.data());
        return;
      }
    }
    std::string_view idtext = c->arg(idarg);
    if (idtext == "$") {
      if (xreadgroup) {
        c->addError(
            "The $ ID is meaningless in the context of XREADGROUP: you want to read the history "
            "of this consumer by specifying a proper ID, or use the > ID to get new messages. "
            "The $ ID would just return an empty result set.");
        return;
      }
      ids[i] = s ? s->last_id : db::StreamID{};
      fixed.emplace_back(idarg, ids[i].toString());
      continue;
    }
    if (idtext == ">") {
      if (!xreadgroup) {
        c->addError(
            "The > ID can be specified only when calling XREADGROUP using the GROUP <group> "
            "<consumer> option.");
        return;
      }
      ids[i] = db::StreamID::max();
      continue;
    }
    if (!parseStreamIdOrReply(c, idtext, &ids[i], 0, true)) return;
  }

  int64_t count = a.count;
  if (retry && count == 0) count = kBlockedDefaultCount;
  size_t served = 0;
  void* slot = nullptr;
  std::string_view woke = retry ? blocking::retryKey(c) : std::string_view{};
  for (size_t i = 0; i < n; i++) {
    db::Stream* s = streams[i];
    if (s == nullptr) continue;
    std::string_view key = c->arg(a.streams_arg + i);
    if (retry) {
      // The key whose write woke the client, alone, as Redis serves it;
      // any key with data when the run has another cause.
      if (!woke.empty() && key != woke) continue;
      // One key per reply, and a repeated key only once.
      bool dup = false;
      for (size_t k = 0; k < i; k++) dup = dup || c->arg(a.streams_arg + k) == key;
      if (dup) continue;
    }
    db::StreamID gt = ids[i];
    bool sync = false, history = false;
    if (groups[i]) {
      if (gt != db::StreamID::max()) {
        sync = history = true;
      } else if (s->length) {
        db::StreamID maxid;
        s->edgeId(false, false, &maxid);
        sync = maxid > groups[i]->last_id;
        gt = groups[i]->last_id;
      }
    } else if (s->length) {
      db::StreamID maxid;
      s->edgeId(false, false, &maxid);
      sync = maxid > gt;
    }
    if (!sync) continue;
    if (served++ == 0) {
      slot = c->reply().beginDeferred();
    }
    db::StreamID start = gt;
    start.incr();
    if (c->proto() == 2) c->addArrayLen(2);
    c->addBulk(key);
    db::StreamConsumer* consumer = nullptr;
    StreamPropInfo spi{key, a.group};
    if (groups[i]) {
      bool created;
      consumer = lookupOrCreateConsumer(c, key, groups[i], a.consumer, &created);
      if (created && a.noack) propagateConsumerCreation(c, key, a.group, a.consumer);
    }
    unsigned flags =
        (a.noack ? unsigned{kRangeNoAck} : 0u) | (history ? unsigned{kRangeHistory} : 0u);
    streamReplyRange(c, s, start, nullptr, static_cast<size_t>(count), false, groups[i], consumer,
                     flags, &spi);
    if (groups[i]) g_server->dirty++;
    if (retry) break;
  }
  if (served) {
    if (c->proto() == 2)
      c->reply().endDeferredArray(slot, static_cast<int64_t>(served));
    else
      c->reply().endDeferredMap(slot, static_cast<int64_t>(served));
    return;
  }
  if (a.timeout != -1) {
    int64_t until = a.timeout == 0 ? 0 : streamNowMs() + a.timeout;
    if (retry) until = 0;  // the machinery keeps the first deadline
    std::vector<std::string_view> keys;
    for (size_t i = 0; i < n; i++) keys.push_back(c->arg(a.streams_arg + i));
    if (blocking::blockForKeys(c, keys, until)) {
      if (!retry)
        for (auto& [idx, text] : fixed) blocking::setBlockedArg(c, idx, text);
      return;
    }
  }
  c->reply().nullArray();
}

void xreadCommand(Client* c) {
  xreadGeneric(c, false);
}
void xreadgroupCommand(Client* c) {
  xreadGeneric(c, true);
}

// Keys of XREAD/XREADGROUP: the first half of what follows STREAMS.
bool xreadKeys(const std::vector<std::string_view>& argv, std::vector<size_t>* out) {
  for (size_t i = 1; i < argv.size(); i++) {
    if (common::strutil::equalsIgnoreCase(argv[i], "STREAMS")) {
      size_t n = argv.size() - i - 1;
      if (n == 0 || n % 2 != 0) return false;
      for (size_t k = 0; k < n / 2; k++) out->push_back(i + 1 + k);
      return true;
    }
  }
  return false;
}

}  // namespace

void registerStreamReadCommands(CommandTable& t) {
  t.add({"xread", -4, kReadOnly | kBlocking, xreadCommand, 0, 0, 0, "stream",
         "Return never seen elements in multiple streams, with IDs greater than the ones "
         "reported by the caller for each stream. Can block.",
         "5.0.0",
         "For each stream mentioned: O(N) with N being the number of elements being returned, "
         "it means that XREAD-ing with a fixed COUNT is O(1). Note that when the BLOCK option "
         "is used, XADD will pay O(M) time in order to serve the M clients blocked on the "
         "stream getting new data.",
         "read stream slow blocking"});
  t.add({"xreadgroup", -7, kWrite | kBlocking, xreadgroupCommand, 0, 0, 0, "stream",
         "Return new entries from a stream using a consumer group, or access the history of "
         "the pending entries for a given consumer. Can block.",
         "5.0.0",
         "For each stream mentioned: O(M) with M being the number of elements returned. If M "
         "is constant (e.g. always asking for the first 10 elements with COUNT), you can "
         "consider it O(1). On the other side when XREADGROUP blocks, XADD will pay the O(N) "
         "time in order to serve the N clients blocked on the stream getting new data.",
         "write stream slow blocking"});
  t.setKeysProc("xread", xreadKeys);
  t.setKeysProc("xreadgroup", xreadKeys);
}

}  // namespace server
