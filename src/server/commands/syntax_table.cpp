// The facts here are the argument lists of the Redis 7.0 command reference
// (https://redis.io/commands), written in our notation; the compatibility
// suite checks them against Redis 7.0's own COMMAND DOCS.
#include "server/commands/syntax_table.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>

namespace server {

namespace {

struct Entry {
  const char* name;
  const char* syntax;  // or the tips, in kTips
};

// Sorted by name (checked by a unit test), looked up by binary search.
constexpr Entry kSyntax[] = {
    {"append", "key value"},
    {"auth", "[username] password"},
    {"bgsave", "[SCHEDULE]"},
    {"bitcount", "key [start:integer end:integer [BYTE | BIT]]"},
    {"bitfield",
     "key [<GET encoding offset:integer | [OVERFLOW <WRAP | SAT | FAIL>] <SET encoding "
     "offset:integer value:integer | INCRBY encoding offset:integer increment:integer>> ...]"},
    {"bitfield_ro", "key [GET encoding offset:integer [GET encoding offset:integer ...]]"},
    {"bitop", "operation destkey:key key [key ...]"},
    {"bitpos", "key bit:integer [start:integer [end:integer [BYTE | BIT]]]"},
    {"blmove", "source:key destination:key <LEFT | RIGHT> <LEFT | RIGHT> timeout:double"},
    {"blmpop", "timeout:double numkeys:integer key [key ...] <LEFT | RIGHT> [COUNT count:integer]"},
    {"blpop", "key [key ...] timeout:double"},
    {"brpop", "key [key ...] timeout:double"},
    {"brpoplpush", "source:key destination:key timeout:double"},
    {"bzmpop", "timeout:double numkeys:integer key [key ...] <MIN | MAX> [COUNT count:integer]"},
    {"bzpopmax", "key [key ...] timeout:double"},
    {"bzpopmin", "key [key ...] timeout:double"},
    {"client", ""},
    {"client|getname", ""},
    {"client|help", ""},
    {"client|id", ""},
    {"client|info", ""},
    {"client|kill",
     "<ip:port | <[ID client-id:integer] | [TYPE <NORMAL | MASTER | SLAVE | REPLICA | PUBSUB>] | "
     "[USER username] | [ADDR ip:port] | [LADDR ip:port] | [SKIPME yes/no]> ...>"},
    {"client|list",
     "[TYPE <NORMAL | MASTER | REPLICA | PUBSUB>] [ID client-id:integer [client-id:integer ...]]"},
    {"client|no-evict", "<ON | OFF>"},
    {"client|pause", "timeout:integer [WRITE | ALL]"},
    {"client|reply", "<ON | OFF | SKIP>"},
    {"client|setname", "connection-name"},
    {"client|unblock", "client-id:integer [TIMEOUT | ERROR]"},
    {"client|unpause", ""},
    {"command", ""},
    {"command|count", ""},
    {"command|docs", "[command-name [command-name ...]]"},
    {"command|getkeys", ""},
    {"command|getkeysandflags", ""},
    {"command|help", ""},
    {"command|info", "[command-name [command-name ...]]"},
    {"command|list", "[FILTERBY <MODULE module-name | ACLCAT category | PATTERN pattern:pattern>]"},
    {"config", ""},
    {"config|get", "parameter [parameter ...]"},
    {"config|help", ""},
    {"config|resetstat", ""},
    {"config|rewrite", ""},
    {"config|set", "parameter value [parameter value ...]"},
    {"copy", "source:key destination:key [DB destination-db:integer] [REPLACE]"},
    {"dbsize", ""},
    {"debug", ""},
    {"decr", "key"},
    {"decrby", "key decrement:integer"},
    {"del", "key [key ...]"},
    {"discard", ""},
    {"echo", "message"},
    {"exec", ""},
    {"exists", "key [key ...]"},
    {"expire", "key seconds:integer [NX | XX | GT | LT]"},
    {"expireat", "key unix-time-seconds:unix-time [NX | XX | GT | LT]"},
    {"expiretime", "key"},
    {"flushall", "[ASYNC | SYNC]"},
    {"flushdb", "[ASYNC | SYNC]"},
    {"get", "key"},
    {"getbit", "key offset:integer"},
    {"getdel", "key"},
    {"getex",
     "key [EX seconds:integer | PX milliseconds:integer | EXAT unix-time-seconds:unix-time | "
     "PXAT unix-time-milliseconds:unix-time | PERSIST]"},
    {"getrange", "key start:integer end:integer"},
    {"getset", "key value"},
    {"hdel", "key field [field ...]"},
    {"hello", "[protover:integer [AUTH username password] [SETNAME clientname]]"},
    {"hexists", "key field"},
    {"hget", "key field"},
    {"hgetall", "key"},
    {"hincrby", "key field increment:integer"},
    {"hincrbyfloat", "key field increment:double"},
    {"hkeys", "key"},
    {"hlen", "key"},
    {"hmget", "key field [field ...]"},
    {"hmset", "key field value [field value ...]"},
    {"hrandfield", "key [count:integer [WITHVALUES]]"},
    {"hscan", "key cursor:integer [MATCH pattern:pattern] [COUNT count:integer]"},
    {"hset", "key field value [field value ...]"},
    {"hsetnx", "key field value"},
    {"hstrlen", "key field"},
    {"hvals", "key"},
    {"incr", "key"},
    {"incrby", "key increment:integer"},
    {"incrbyfloat", "key increment:double"},
    {"info", "[section [section ...]]"},
    {"keys", "pattern:pattern"},
    {"lastsave", ""},
    {"lcs", "key1:key key2:key [LEN] [IDX] [MINMATCHLEN len:integer] [WITHMATCHLEN]"},
    {"lindex", "key index:integer"},
    {"linsert", "key <BEFORE | AFTER> pivot element"},
    {"llen", "key"},
    {"lmove", "source:key destination:key <LEFT | RIGHT> <LEFT | RIGHT>"},
    {"lmpop", "numkeys:integer key [key ...] <LEFT | RIGHT> [COUNT count:integer]"},
    {"lpop", "key [count:integer]"},
    {"lpos", "key element [RANK rank:integer] [COUNT num-matches:integer] [MAXLEN len:integer]"},
    {"lpush", "key element [element ...]"},
    {"lpushx", "key element [element ...]"},
    {"lrange", "key start:integer stop:integer"},
    {"lrem", "key count:integer element"},
    {"lset", "key index:integer element"},
    {"ltrim", "key start:integer stop:integer"},
    {"memory", ""},
    {"memory|doctor", ""},
    {"memory|help", ""},
    {"memory|malloc-stats", ""},
    {"memory|purge", ""},
    {"memory|stats", ""},
    {"memory|usage", "key [SAMPLES count:integer]"},
    {"mget", "key [key ...]"},
    {"monitor", ""},
    {"move", "key db:integer"},
    {"mset", "key value [key value ...]"},
    {"msetnx", "key value [key value ...]"},
    {"multi", ""},
    {"object", ""},
    {"object|encoding", "key"},
    {"object|freq", "key"},
    {"object|help", ""},
    {"object|idletime", "key"},
    {"object|refcount", "key"},
    {"persist", "key"},
    {"pexpire", "key milliseconds:integer [NX | XX | GT | LT]"},
    {"pexpireat", "key unix-time-milliseconds:unix-time [NX | XX | GT | LT]"},
    {"pexpiretime", "key"},
    {"pfadd", "key [element [element ...]]"},
    {"pfcount", "key [key ...]"},
    {"pfdebug", "subcommand key"},
    {"pfmerge", "destkey:key sourcekey:key [sourcekey:key ...]"},
    {"pfselftest", ""},
    {"ping", "[message]"},
    {"psetex", "key milliseconds:integer value"},
    {"psubscribe", "pattern:pattern [pattern:pattern ...]"},
    {"pttl", "key"},
    {"publish", "channel message"},
    {"pubsub", ""},
    {"pubsub|channels", "[pattern:pattern]"},
    {"pubsub|help", ""},
    {"pubsub|numpat", ""},
    {"pubsub|numsub", "[channel [channel ...]]"},
    {"pubsub|shardchannels", "[pattern:pattern]"},
    {"pubsub|shardnumsub", "[shardchannel [shardchannel ...]]"},
    {"punsubscribe", "[pattern:pattern [pattern:pattern ...]]"},
    {"quit", ""},
    {"randomkey", ""},
    {"rename", "key newkey:key"},
    {"renamenx", "key newkey:key"},
    {"reset", ""},
    {"role", ""},
    {"rpop", "key [count:integer]"},
    {"rpoplpush", "source:key destination:key"},
    {"rpush", "key element [element ...]"},
    {"rpushx", "key element [element ...]"},
    {"sadd", "key member [member ...]"},
    {"save", ""},
    {"scan", "cursor:integer [MATCH pattern:pattern] [COUNT count:integer] [TYPE type]"},
    {"scard", "key"},
    {"sdiff", "key [key ...]"},
    {"sdiffstore", "destination:key key [key ...]"},
    {"select", "index:integer"},
    {"set",
     "key value [NX | XX] [GET] [EX seconds:integer | PX milliseconds:integer | EXAT "
     "unix-time-seconds:unix-time | PXAT unix-time-milliseconds:unix-time | KEEPTTL]"},
    {"setbit", "key offset:integer value:integer"},
    {"setex", "key seconds:integer value"},
    {"setnx", "key value"},
    {"setrange", "key offset:integer value"},
    {"shutdown", "[NOSAVE | SAVE] [NOW] [FORCE] [ABORT]"},
    {"sinter", "key [key ...]"},
    {"sintercard", "numkeys:integer key [key ...] [LIMIT limit:integer]"},
    {"sinterstore", "destination:key key [key ...]"},
    {"sismember", "key member"},
    {"slowlog", ""},
    {"slowlog|get", "[count:integer]"},
    {"slowlog|help", ""},
    {"slowlog|len", ""},
    {"slowlog|reset", ""},
    {"smembers", "key"},
    {"smismember", "key member [member ...]"},
    {"smove", "source:key destination:key member"},
    {"sort",
     "key [BY pattern:pattern] [LIMIT offset:integer count:integer] [GET pattern:pattern [GET "
     "pattern:pattern ...]] [ASC | DESC] [ALPHA] [STORE destination:key]"},
    {"sort_ro",
     "key [BY pattern:pattern] [LIMIT offset:integer count:integer] [GET pattern:pattern [GET "
     "pattern:pattern ...]] [ASC | DESC] [ALPHA]"},
    {"spop", "key [count:integer]"},
    {"spublish", "shardchannel message"},
    {"srandmember", "key [count:integer]"},
    {"srem", "key member [member ...]"},
    {"sscan", "key cursor:integer [MATCH pattern:pattern] [COUNT count:integer]"},
    {"ssubscribe", "shardchannel [shardchannel ...]"},
    {"strlen", "key"},
    {"subscribe", "channel [channel ...]"},
    {"substr", "key start:integer end:integer"},
    {"sunion", "key [key ...]"},
    {"sunionstore", "destination:key key [key ...]"},
    {"sunsubscribe", "[shardchannel [shardchannel ...]]"},
    {"swapdb", "index1:integer index2:integer"},
    {"time", ""},
    {"touch", "key [key ...]"},
    {"ttl", "key"},
    {"type", "key"},
    {"unlink", "key [key ...]"},
    {"unsubscribe", "[channel [channel ...]]"},
    {"unwatch", ""},
    {"watch", "key [key ...]"},
    {"zadd",
     "key [NX | XX] [GT | LT] [CH] [INCR] score:double member data=[score:double member ...]"},
    {"zcard", "key"},
    {"zcount", "key min:double max:double"},
    {"zdiff", "numkeys:integer key [key ...] [WITHSCORES]"},
    {"zdiffstore", "destination:key numkeys:integer key [key ...]"},
    {"zincrby", "key increment:integer member"},
    {"zinter",
     "numkeys:integer key [key ...] [WEIGHTS weight:integer [weight:integer ...]] [AGGREGATE "
     "<SUM | MIN | MAX>] [WITHSCORES]"},
    {"zintercard", "numkeys:integer key [key ...] [LIMIT limit:integer]"},
    {"zinterstore",
     "destination:key numkeys:integer key [key ...] [WEIGHTS weight:integer [weight:integer ...]] "
     "[AGGREGATE <SUM | MIN | MAX>]"},
    {"zlexcount", "key min max"},
    {"zmpop", "numkeys:integer key [key ...] <MIN | MAX> [COUNT count:integer]"},
    {"zmscore", "key member [member ...]"},
    {"zpopmax", "key [count:integer]"},
    {"zpopmin", "key [count:integer]"},
    {"zrandmember", "key [count:integer [WITHSCORES]]"},
    {"zrange",
     "key start stop [BYSCORE | BYLEX] [REV] [LIMIT offset:integer count:integer] [WITHSCORES]"},
    {"zrangebylex", "key min max [LIMIT offset:integer count:integer]"},
    {"zrangebyscore",
     "key min:double max:double [WITHSCORES] [LIMIT offset:integer count:integer]"},
    {"zrangestore",
     "dst:key src:key min max [BYSCORE | BYLEX] [REV] [LIMIT offset:integer count:integer]"},
    {"zrank", "key member"},
    {"zrem", "key member [member ...]"},
    {"zremrangebylex", "key min max"},
    {"zremrangebyrank", "key start:integer stop:integer"},
    {"zremrangebyscore", "key min:double max:double"},
    {"zrevrange", "key start:integer stop:integer [WITHSCORES]"},
    {"zrevrangebylex", "key max min [LIMIT offset:integer count:integer]"},
    {"zrevrangebyscore",
     "key max:double min:double [WITHSCORES] [LIMIT offset:integer count:integer]"},
    {"zrevrank", "key member"},
    {"zscan", "key cursor:integer [MATCH pattern:pattern] [COUNT count:integer]"},
    {"zscore", "key member"},
    {"zunion",
     "numkeys:integer key [key ...] [WEIGHTS weight:integer [weight:integer ...]] [AGGREGATE "
     "<SUM | MIN | MAX>] [WITHSCORES]"},
    {"zunionstore",
     "destination:key numkeys:integer key [key ...] [WEIGHTS weight:integer [weight:integer ...]] "
     "[AGGREGATE <SUM | MIN | MAX>]"},
};

// COMMAND INFO's tips (space separated), for the commands that have any.
constexpr Entry kTips[] = {
    {"client|info", "nondeterministic_output"},
    {"client|list", "nondeterministic_output"},
    {"command", "nondeterministic_output_order"},
    {"command|docs", "nondeterministic_output_order"},
    {"command|info", "nondeterministic_output_order"},
    {"command|list", "nondeterministic_output_order"},
    {"config|set", "request_policy:all_nodes response_policy:all_succeeded"},
    {"dbsize", "request_policy:all_shards response_policy:agg_sum"},
    {"del", "request_policy:multi_shard response_policy:agg_sum"},
    {"exists", "request_policy:multi_shard response_policy:agg_sum"},
    {"flushall", "request_policy:all_shards response_policy:all_succeeded"},
    {"flushdb", "request_policy:all_shards response_policy:all_succeeded"},
    {"hgetall", "nondeterministic_output_order"},
    {"hkeys", "nondeterministic_output_order"},
    {"hrandfield", "nondeterministic_output"},
    {"hscan", "nondeterministic_output"},
    {"hvals", "nondeterministic_output_order"},
    {"info", "nondeterministic_output request_policy:all_shards response_policy:special"},
    {"keys", "request_policy:all_shards nondeterministic_output_order"},
    {"lastsave", "nondeterministic_output"},
    {"memory|doctor", "nondeterministic_output request_policy:all_shards response_policy:special"},
    {"memory|malloc-stats",
     "nondeterministic_output request_policy:all_shards response_policy:special"},
    {"memory|purge", "request_policy:all_shards response_policy:all_succeeded"},
    {"memory|stats", "nondeterministic_output request_policy:all_shards response_policy:special"},
    {"mget", "request_policy:multi_shard"},
    {"mset", "request_policy:multi_shard response_policy:all_succeeded"},
    {"msetnx", "request_policy:multi_shard response_policy:agg_min"},
    {"object|encoding", "nondeterministic_output"},
    {"object|freq", "nondeterministic_output"},
    {"object|idletime", "nondeterministic_output"},
    {"object|refcount", "nondeterministic_output"},
    {"ping", "request_policy:all_shards response_policy:all_succeeded"},
    {"pttl", "nondeterministic_output"},
    {"randomkey", "request_policy:all_shards nondeterministic_output"},
    {"scan", "nondeterministic_output request_policy:special"},
    {"sdiff", "nondeterministic_output_order"},
    {"sinter", "nondeterministic_output_order"},
    {"slowlog|get", "request_policy:all_nodes nondeterministic_output"},
    {"slowlog|len", "request_policy:all_nodes response_policy:agg_sum nondeterministic_output"},
    {"slowlog|reset", "request_policy:all_nodes response_policy:all_succeeded"},
    {"smembers", "nondeterministic_output_order"},
    {"spop", "nondeterministic_output"},
    {"srandmember", "nondeterministic_output"},
    {"sscan", "nondeterministic_output"},
    {"sunion", "nondeterministic_output_order"},
    {"time", "nondeterministic_output"},
    {"touch", "request_policy:multi_shard response_policy:agg_sum"},
    {"ttl", "nondeterministic_output"},
    {"unlink", "request_policy:multi_shard response_policy:agg_sum"},
    {"zrandmember", "nondeterministic_output"},
    {"zscan", "nondeterministic_output"},
};

const char* lookup(const Entry* begin, const Entry* end, std::string_view name) {
  const Entry* it = std::lower_bound(begin, end, name,
                                     [](const Entry& e, std::string_view n) { return e.name < n; });
  if (it == end || it->name != name) return nullptr;
  return it->syntax;
}

bool sorted(const Entry* begin, const Entry* end) {
  return std::is_sorted(begin, end, [](const Entry& a, const Entry& b) {
    return std::string_view(a.name) < std::string_view(b.name);
  });
}

}  // namespace

const char* commandSyntax(std::string_view full_name) {
  return lookup(std::begin(kSyntax), std::end(kSyntax), full_name);
}

const char* commandTips(std::string_view full_name) {
  const char* tips = lookup(std::begin(kTips), std::end(kTips), full_name);
  return tips != nullptr ? tips : "";
}

bool commandTablesSorted() {
  return sorted(std::begin(kSyntax), std::end(kSyntax)) &&
         sorted(std::begin(kTips), std::end(kTips));
}

namespace {

void attachTo(Command* cmd) {
  cmd->tips = commandTips(cmd->name);
  const char* line = commandSyntax(cmd->name);
  if (line == nullptr) return;
  std::string err;
  if (!parseArgSyntax(line, &cmd->arguments, &err)) {
    fprintf(stderr, "syntax table: %s: %s\n", cmd->name, err.c_str());
    abort();
  }
}

}  // namespace

void attachCommandDocs(CommandTable& t) {
  for (Command* cmd : t.all()) {
    attachTo(cmd);
    for (Command& sub : cmd->subcommands) attachTo(&sub);
  }
}

}  // namespace server
