#include "server/pubsub/pubsub.h"
#include "server/propagate/propagate.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/strutil.h"
#include "server/core/client.h"
#include "server/core/clients.h"
#include "server/core/reply_helpers.h"
#include "server/request/obuf_limits.h"

namespace server {

namespace {

// Transparent hashing: PUBLISH looks channels up by the argument view.
struct ViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};
using Subscribers =
    std::unordered_map<std::string, std::vector<Client*>, ViewHash, std::equal_to<>>;
using NameSet = std::unordered_set<std::string, ViewHash, std::equal_to<>>;

// The three server-wide indexes: channel -> subscribers, shard channel ->
// subscribers, pattern -> subscribers.
Subscribers& channelIndex() {
  static Subscribers s;
  return s;
}
Subscribers& shardIndex() {
  static Subscribers s;
  return s;
}
Subscribers& patternIndex() {
  static Subscribers s;
  return s;
}

}  // namespace

struct PubSubState {
  NameSet channels;
  NameSet shard_channels;
  // Patterns in subscription order: PUNSUBSCRIBE without arguments answers
  // in this order.
  std::vector<std::string> patterns;
  size_t total() const { return channels.size() + shard_channels.size() + patterns.size(); }
};

namespace {

// What differs between plain channels, shard channels and patterns.
struct Flavor {
  const char* subscribe;
  const char* unsubscribe;
  Subscribers& (*index)();
};
const Flavor kChannels = {"subscribe", "unsubscribe", channelIndex};
const Flavor kShard = {"ssubscribe", "sunsubscribe", shardIndex};
const Flavor kPatterns = {"psubscribe", "punsubscribe", patternIndex};

PubSubState* stateOf(Client* c) {
  if (c->pubsub_state == nullptr) c->pubsub_state = new PubSubState();
  return c->pubsub_state;
}

void releaseIfEmpty(Client* c) {
  if (c->pubsub_state != nullptr && c->pubsub_state->total() == 0) {
    delete c->pubsub_state;
    c->pubsub_state = nullptr;
  }
}

// The count in a confirmation: shard subscriptions are counted apart from
// channels and patterns, as Redis does.
size_t replyCount(const Client* c, const Flavor& f) {
  if (&f == &kShard) return pubsubShardChannelCount(c);
  return pubsubChannelCount(c) + pubsubPatternCount(c);
}

void replyConfirmation(Client* c, const char* kind, const std::string_view* name, size_t count) {
  auto write = [&](resp::Writer& w) {
    w.pushLen(3);
    w.bulk(kind);
    if (name != nullptr)
      w.bulk(*name);
    else
      w.null();
    w.integer(static_cast<int64_t>(count));
  };
  // Confirmations are pushed like messages: CLIENT REPLY OFF|SKIP does not
  // silence them, in RESP2 as in RESP3 (Redis 7.0).
  c->writeUnmuted(write);
}

// Adds to the client's own set (or pattern list); false if already there.
bool addToClient(PubSubState* s, const Flavor& f, std::string_view name) {
  if (&f == &kPatterns) {
    if (std::find(s->patterns.begin(), s->patterns.end(), name) != s->patterns.end()) return false;
    s->patterns.emplace_back(name);
    return true;
  }
  NameSet& set = &f == &kShard ? s->shard_channels : s->channels;
  return set.emplace(name).second;
}

bool removeFromClient(PubSubState* s, const Flavor& f, std::string_view name) {
  if (&f == &kPatterns) {
    auto it = std::find(s->patterns.begin(), s->patterns.end(), name);
    if (it == s->patterns.end()) return false;
    s->patterns.erase(it);
    return true;
  }
  NameSet& set = &f == &kShard ? s->shard_channels : s->channels;
  auto it = set.find(name);
  if (it == set.end()) return false;
  set.erase(it);
  return true;
}

void subscribe(Client* c, const Flavor& f, std::string_view name) {
  if (addToClient(stateOf(c), f, name)) {
    Subscribers& idx = f.index();
    auto it = idx.find(name);
    if (it == idx.end()) it = idx.emplace(std::string(name), std::vector<Client*>()).first;
    it->second.push_back(c);
  }
}

// Returns false when the client was not subscribed to name.
bool unsubscribe(Client* c, const Flavor& f, std::string_view name) {
  if (c->pubsub_state == nullptr || !removeFromClient(c->pubsub_state, f, name)) return false;
  Subscribers& idx = f.index();
  auto it = idx.find(name);
  if (it != idx.end()) {
    std::vector<Client*>& v = it->second;
    v.erase(std::remove(v.begin(), v.end(), c), v.end());
    if (v.empty()) idx.erase(it);
  }
  return true;
}

// Every name the client holds in one flavor (copied: unsubscribing edits
// the containers).
std::vector<std::string> namesOf(const Client* c, const Flavor& f) {
  std::vector<std::string> out;
  const PubSubState* s = c->pubsub_state;
  if (s == nullptr) return out;
  if (&f == &kPatterns) return s->patterns;
  const NameSet& set = &f == &kShard ? s->shard_channels : s->channels;
  out.assign(set.begin(), set.end());
  return out;
}

void subscribeGeneric(Client* c, const Flavor& f) {
  for (size_t i = 1; i < c->argc(); i++) {
    std::string_view name = c->arg(i);
    subscribe(c, f, name);
    replyConfirmation(c, f.subscribe, &name, replyCount(c, f));
  }
}

void unsubscribeGeneric(Client* c, const Flavor& f) {
  if (c->argc() > 1) {
    for (size_t i = 1; i < c->argc(); i++) {
      std::string_view name = c->arg(i);
      unsubscribe(c, f, name);
      replyConfirmation(c, f.unsubscribe, &name, replyCount(c, f));
    }
  } else {
    std::vector<std::string> names = namesOf(c, f);
    for (const std::string& n : names) {
      unsubscribe(c, f, n);
      std::string_view v = n;
      replyConfirmation(c, f.unsubscribe, &v, replyCount(c, f));
    }
    // Nothing to leave: one confirmation with a null name.
    if (names.empty()) replyConfirmation(c, f.unsubscribe, nullptr, replyCount(c, f));
  }
  releaseIfEmpty(c);
}

// Queues one message on a subscriber (not the publisher's own reply: it
// must be flushed before sleep like any other pending output).
void deliver(Client* r, const char* kind, const std::string* pattern, std::string_view channel,
             std::string_view message) {
  // Even to the publishing client itself while CLIENT REPLY OFF mutes its
  // PUBLISH reply: messages are pushes (Redis 7.0).
  r->writeUnmuted([&](resp::Writer& w) {
    w.pushLen(pattern != nullptr ? 4 : 3);
    w.bulk(kind);
    if (pattern != nullptr) w.bulk(*pattern);
    w.bulk(channel);
    w.bulk(message);
  });
  if (!(r->flags & kPendingWrite)) queueClientWrite(r);
  enforceOutputBufferLimits(r);
}

int64_t publish(std::string_view channel, std::string_view message, bool shard) {
  int64_t receivers = 0;
  Subscribers& idx = shard ? shardIndex() : channelIndex();
  auto it = idx.find(channel);
  if (it != idx.end()) {
    for (Client* r : it->second) {
      if (r->flags & kCloseAsap) continue;
      deliver(r, shard ? "smessage" : "message", nullptr, channel, message);
      receivers++;
    }
  }
  if (shard) return receivers;
  for (const auto& [pattern, clients] : patternIndex()) {
    if (!common::strutil::globMatch(pattern, channel)) continue;
    for (Client* r : clients) {
      if (r->flags & kCloseAsap) continue;
      deliver(r, "pmessage", &pattern, channel, message);
      receivers++;
    }
  }
  return receivers;
}

void subscribeCommand(Client* c) {
  subscribeGeneric(c, kChannels);
}
void unsubscribeCommand(Client* c) {
  unsubscribeGeneric(c, kChannels);
}
void psubscribeCommand(Client* c) {
  subscribeGeneric(c, kPatterns);
}
void punsubscribeCommand(Client* c) {
  unsubscribeGeneric(c, kPatterns);
}
void ssubscribeCommand(Client* c) {
  subscribeGeneric(c, kShard);
}
void sunsubscribeCommand(Client* c) {
  unsubscribeGeneric(c, kShard);
}
ClusterPublishHook g_cluster_publish = nullptr;

// Messages reach replicas (not the AOF), as in Redis 7.0; in cluster mode
// every node (PUBLISH) or the shard's nodes (SPUBLISH) through the bus.
void publishGeneric(Client* c, bool shard) {
  if (g_cluster_publish != nullptr)
    g_cluster_publish(c->arg(1), c->arg(2), shard);
  else if (propagate::wanted())
    propagate::forceCommand(propagate::kToReplicas);
  c->addInteger(publish(c->arg(1), c->arg(2), shard));
}
void publishCommand(Client* c) {
  publishGeneric(c, false);
}
void spublishCommand(Client* c) {
  publishGeneric(c, true);
}

// PUBSUB CHANNELS / SHARDCHANNELS [pattern].
void listChannels(Client* c, const Subscribers& idx) {
  if (c->argc() > 3) {
    std::string_view sub = c->arg(1);
    c->addErrorFormat(
        "unknown subcommand or wrong number of arguments for '%.*s'. Try PUBSUB HELP.",
        static_cast<int>(std::min<size_t>(sub.size(), 128)), sub.data());
    return;
  }
  std::string_view pattern = c->argc() == 3 ? c->arg(2) : std::string_view("*");
  std::vector<const std::string*> names;
  for (const auto& [name, clients] : idx) {
    if (common::strutil::globMatch(pattern, name)) names.push_back(&name);
  }
  c->addArrayLen(static_cast<int64_t>(names.size()));
  for (const std::string* n : names) c->addBulk(*n);
}

// PUBSUB NUMSUB / SHARDNUMSUB channel...: flat name, count pairs.
void countSubscribers(Client* c, const Subscribers& idx) {
  c->addArrayLen(static_cast<int64_t>((c->argc() - 2) * 2));
  for (size_t i = 2; i < c->argc(); i++) {
    auto it = idx.find(c->arg(i));
    c->addBulk(c->arg(i));
    c->addInteger(it == idx.end() ? 0 : static_cast<int64_t>(it->second.size()));
  }
}

void pubsubChannelsCommand(Client* c) {
  listChannels(c, channelIndex());
}
void pubsubShardChannelsCommand(Client* c) {
  listChannels(c, shardIndex());
}
void pubsubNumsubCommand(Client* c) {
  countSubscribers(c, channelIndex());
}
void pubsubShardNumsubCommand(Client* c) {
  countSubscribers(c, shardIndex());
}
void pubsubNumpatCommand(Client* c) {
  c->addInteger(static_cast<int64_t>(patternIndex().size()));
}

void pubsubHelpCommand(Client* c) {
  static const char* const kLines[] = {
      "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CHANNELS [<pattern>]",
      "    Return the currently active channels matching a <pattern> (default: '*').",
      "NUMPAT",
      "    Return number of subscriptions to patterns.",
      "NUMSUB [<channel> ...]",
      "    Return the number of subscribers for the specified channels, excluding",
      "    pattern subscriptions(default: no channels).",
      "SHARDCHANNELS [<pattern>]",
      "    Return the currently active shard level channels matching a <pattern> (default: "
      "'*').",
      "SHARDNUMSUB [<shardchannel> ...]",
      "    Return the number of subscribers for the specified shard level channel(s)",
      "HELP",
      "    Prints this help.",
  };
  replyHelp(c, kLines);
}

void pubsubCommand(Client* c) {
  // Reached only without a subcommand, which the arity check refuses.
  c->addWrongArity();
}

constexpr SubcommandMaker sub{"pubsub"};

}  // namespace

size_t pubsubShardDropChannels(const std::function<bool(std::string_view)>& pick) {
  std::vector<std::string> names;
  for (const auto& [name, clients] : shardIndex())
    if (pick(name)) names.push_back(name);
  for (const std::string& name : names) {
    auto it = shardIndex().find(name);
    if (it == shardIndex().end()) continue;
    std::vector<Client*> subs = it->second;
    std::string_view v = name;
    for (Client* c : subs) {
      unsubscribe(c, kShard, name);
      replyConfirmation(c, kShard.unsubscribe, &v, replyCount(c, kShard));
      releaseIfEmpty(c);
      if (!(c->flags & kPendingWrite)) queueClientWrite(c);
    }
  }
  return names.size();
}

int64_t pubsubDeliver(std::string_view channel, std::string_view message, bool shard) {
  return publish(channel, message, shard);
}

void setClusterPublishHook(ClusterPublishHook h) {
  g_cluster_publish = h;
}

int64_t pubsubPublish(std::string_view channel, std::string_view message) {
  return publish(channel, message, false);
}

size_t pubsubChannelCount(const Client* c) {
  return c->pubsub_state != nullptr ? c->pubsub_state->channels.size() : 0;
}

size_t pubsubPatternCount(const Client* c) {
  return c->pubsub_state != nullptr ? c->pubsub_state->patterns.size() : 0;
}

std::vector<std::pair<std::string, bool>> pubsubSubscriptions(const Client* c) {
  std::vector<std::pair<std::string, bool>> out;
  const PubSubState* s = c->pubsub_state;
  if (s == nullptr) return out;
  for (const std::string& ch : s->channels) out.emplace_back(ch, false);
  for (const std::string& ch : s->shard_channels) out.emplace_back(ch, false);
  for (const std::string& p : s->patterns) out.emplace_back(p, true);
  return out;
}

size_t pubsubStateMemory(const Client* c) {
  const PubSubState* s = c->pubsub_state;
  if (s == nullptr) return 0;
  // A node of an unordered_set: the name, the next pointer, the cached hash.
  constexpr size_t kNode = sizeof(std::string) + 2 * sizeof(void*);
  auto set_bytes = [](const NameSet& set) {
    return set.size() * kNode + set.bucket_count() * sizeof(void*);
  };
  return sizeof(PubSubState) + set_bytes(s->channels) + set_bytes(s->shard_channels) +
         s->patterns.capacity() * sizeof(std::string);
}

size_t pubsubShardChannelCount(const Client* c) {
  return c->pubsub_state != nullptr ? c->pubsub_state->shard_channels.size() : 0;
}

size_t pubsubChannelsTotal() {
  return channelIndex().size();
}

size_t pubsubPatternsTotal() {
  return patternIndex().size();
}

size_t pubsubShardChannelsTotal() {
  return shardIndex().size();
}

bool isPubSubClient(const Client* c) {
  return c->pubsub_state != nullptr && c->pubsub_state->total() > 0;
}

bool pubsubAllowsCommand(Client* c, const Command* cmd) {
  if (c->proto() != 2 || !isPubSubClient(c)) return true;
  static const char* const kAllowed[] = {"ping",         "subscribe",    "ssubscribe",
                                         "unsubscribe",  "sunsubscribe", "psubscribe",
                                         "punsubscribe", "quit",         "reset"};
  for (const char* n : kAllowed) {
    if (strcmp(cmd->name, n) == 0) return true;
  }
  c->addErrorFormat(
      "Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are "
      "allowed in this context",
      cmd->name);
  return false;
}

void resetPubSubState(Client* c) {
  if (c->pubsub_state == nullptr) return;
  for (const Flavor* f : {&kChannels, &kShard, &kPatterns}) {
    for (const std::string& n : namesOf(c, *f)) unsubscribe(c, *f, n);
  }
  delete c->pubsub_state;
  c->pubsub_state = nullptr;
}

void registerPubSubCommands(CommandTable& t) {
  const uint32_t kSub = kPubSub | kNoScript | kLoading | kStale;
  const char* kSubComplexity = "O(N) where N is the number of channels to subscribe to.";
  t.add({"subscribe", -2, kSub, subscribeCommand, 0, 0, 0, "pubsub",
         "Listen for messages published to the given channels", "2.0.0", kSubComplexity,
         "pubsub slow"});
  t.add({"unsubscribe", -1, kSub, unsubscribeCommand, 0, 0, 0, "pubsub",
         "Stop listening for messages posted to the given channels", "2.0.0",
         "O(N) where N is the number of clients already subscribed to a channel.", "pubsub slow"});
  t.add({"psubscribe", -2, kSub, psubscribeCommand, 0, 0, 0, "pubsub",
         "Listen for messages published to channels matching the given patterns", "2.0.0",
         "O(N) where N is the number of patterns the client is already subscribed to.",
         "pubsub slow"});
  t.add({"punsubscribe", -1, kSub, punsubscribeCommand, 0, 0, 0, "pubsub",
         "Stop listening for messages posted to channels matching the given patterns", "2.0.0",
         "O(N+M) where N is the number of patterns the client is already subscribed and M is "
         "the number of total patterns subscribed in the system (by any client).",
         "pubsub slow"});
  t.add({"publish", 3, kPubSub | kLoading | kStale | kFast | kMayReplicate, publishCommand, 0, 0, 0,
         "pubsub", "Post a message to a channel", "2.0.0",
         "O(N+M) where N is the number of clients subscribed to the receiving channel and M is "
         "the total number of subscribed patterns (by any client).",
         "pubsub fast"});
  t.add({"ssubscribe", -2, kSub, ssubscribeCommand, 1, -1, 1, "pubsub",
         "Listen for messages published to the given shard channels", "7.0.0",
         "O(N) where N is the number of shard channels to subscribe to.", "pubsub slow"});
  t.add({"sunsubscribe", -1, kSub, sunsubscribeCommand, 1, -1, 1, "pubsub",
         "Stop listening for messages posted to the given shard channels", "7.0.0",
         "O(N) where N is the number of clients already subscribed to a shard channel.",
         "pubsub slow"});
  t.add({"spublish", 3, kPubSub | kLoading | kStale | kFast | kMayReplicate, spublishCommand, 1, 1,
         1, "pubsub", "Post a message to a shard channel", "7.0.0",
         "O(N) where N is the number of clients subscribed to the receiving shard channel.",
         "pubsub fast"});

  const uint32_t kInfo = kPubSub | kLoading | kStale;
  Command pubsub{"pubsub",
                 -2,
                 0,
                 pubsubCommand,
                 0,
                 0,
                 0,
                 "pubsub",
                 "A container for Pub/Sub commands",
                 "2.8.0",
                 "Depends on subcommand.",
                 "slow"};
  const char* kListComplexity =
      "O(N) where N is the number of active channels, and assuming constant time pattern "
      "matching (relatively short channels and patterns)";
  pubsub.subcommands = {
      sub("pubsub|channels", -2, kInfo, pubsubChannelsCommand, "List active channels", "2.8.0",
          kListComplexity, "pubsub slow"),
      sub("pubsub|numsub", -2, kInfo, pubsubNumsubCommand,
          "Get the count of subscribers for channels", "2.8.0",
          "O(N) for the NUMSUB subcommand, where N is the number of requested channels",
          "pubsub slow"),
      sub("pubsub|numpat", 2, kInfo, pubsubNumpatCommand,
          "Get the count of unique patterns pattern subscriptions", "2.8.0", "O(1)", "pubsub slow"),
      sub("pubsub|shardchannels", -2, kInfo, pubsubShardChannelsCommand,
          "List active shard channels", "7.0.0",
          "O(N) where N is the number of active shard channels, and assuming constant time "
          "pattern matching (relatively short shard channels).",
          "pubsub slow"),
      sub("pubsub|shardnumsub", -2, kInfo, pubsubShardNumsubCommand,
          "Get the count of subscribers for shard channels", "7.0.0",
          "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard "
          "channels",
          "pubsub slow"),
      sub("pubsub|help", 2, kLoading | kStale, pubsubHelpCommand,
          "Show helpful text about the different subcommands", "6.2.0", "O(1)", "slow"),
  };
  t.add(std::move(pubsub));
}

}  // namespace server
