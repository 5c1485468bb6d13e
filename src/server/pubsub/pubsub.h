// Pub/Sub: SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE PUBLISH, the shard
// variants SSUBSCRIBE SUNSUBSCRIBE SPUBLISH (a separate set of channels, as
// in a non-cluster Redis 7.0) and PUBSUB CHANNELS / NUMSUB / NUMPAT /
// SHARDCHANNELS / SHARDNUMSUB / HELP.
//
// Messages and (un)subscribe confirmations are arrays in RESP2 and push
// (>) messages in RESP3. A RESP2 client with any subscription is in the
// subscribed state: only (P|S)SUBSCRIBE, (P|S)UNSUBSCRIBE, PING, QUIT and
// RESET run there (pubsubAllowsCommand); RESP3 clients may run anything.
// Patterns match with common::strutil::globMatch. A closing client or RESET drops
// every subscription (resetPubSubState).
//
// Module pubsub/: Pub/Sub (pubsub.cpp), keyspace notifications
// (notify.cpp) and client-side caching (tracking*.cpp): the messages the
// server pushes to clients. May include core/ (not state.h: clients.h),
// conf/, db/ and below; its includes of request/ (output buffer limits,
// WATCH) and script/ run up (utils/layering.sh lists them). Included by
// request/ and above.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

#include "server/core/command.h"

namespace server {

class Client;

// Per-client subscriptions, created on the first subscribe and freed when
// the last one goes.
struct PubSubState;

void registerPubSubCommands(CommandTable& t);

// PUBLISH from inside the server (keyspace notifications): delivers to
// channel and pattern subscribers; returns the number of receivers.
int64_t pubsubPublish(std::string_view channel, std::string_view message);

// Delivers to this node's subscribers only (shard: SSUBSCRIBE's); the
// number of receivers. Cluster mode calls it for messages from the bus.
int64_t pubsubDeliver(std::string_view channel, std::string_view message, bool shard);
// Cluster mode, a slot lost: every shard channel `pick` selects loses its
// subscribers, each told with an sunsubscribe message (as Redis 7.0).
// Returns the number of channels.
size_t pubsubShardDropChannels(const std::function<bool(std::string_view)>& pick);
// Cluster mode: PUBLISH and SPUBLISH reach the other nodes through this
// hook (the cluster bus) instead of the replication stream, as Redis 7.0.
using ClusterPublishHook = void (*)(std::string_view channel, std::string_view message,
                                   bool shard);
void setClusterPublishHook(ClusterPublishHook h);

// Subscription counts of one client (CLIENT LIST sub= psub= ssub=).
size_t pubsubChannelCount(const Client* c);
size_t pubsubPatternCount(const Client* c);
size_t pubsubShardChannelCount(const Client* c);
// Bytes the client's subscription sets take (their entries and buckets;
// the names' own heap bytes are left out, as Redis leaves them out): part
// of the client's memory (CLIENT LIST tot-mem, maxmemory-clients).
size_t pubsubStateMemory(const Client* c);
// Subscribed to anything: CLIENT LIST flag 'P', client type "pubsub" for
// output-buffer limits and CLIENT LIST/KILL TYPE.
bool isPubSubClient(const Client* c);
// Every subscription of c: (name, is_pattern); shard channels count as
// channels (ACL checks them alike).
std::vector<std::pair<std::string, bool>> pubsubSubscriptions(const Client* c);

// Server-wide counts for INFO stats: channels with subscribers, distinct
// patterns, shard channels with subscribers.
size_t pubsubChannelsTotal();
size_t pubsubPatternsTotal();
size_t pubsubShardChannelsTotal();

// Dispatch hook: false (after replying Redis's error) when c is a RESP2
// client in the subscribed state and cmd is not allowed there.
bool pubsubAllowsCommand(Client* c, const Command* cmd);

// RESET and connection close: drops every subscription without replying.
void resetPubSubState(Client* c);

}  // namespace server
