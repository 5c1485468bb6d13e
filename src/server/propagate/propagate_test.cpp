// The feeding core with recording sinks: which effects a sequence of
// (possibly nested) calls feeds, in what form, and to which sinks.
#include "server/propagate/propagate.h"

#include <gtest/gtest.h>

#include "server/propagate/forms.h"

#include <string>
#include <vector>

namespace server::propagate {
namespace {

using Argv = std::vector<std::string_view>;

// Records "db:arg arg ..." per feed.
class Recorder : public Sink {
 public:
  explicit Recorder(unsigned target = kToAof) : target_(target) { addSink(this); }
  ~Recorder() override { removeSink(this); }
  void feed(int db, std::span<const std::string_view> argv) override {
    std::string line = std::to_string(db) + ":";
    for (size_t i = 0; i < argv.size(); i++) {
      if (i > 0) line += ' ';
      line.append(argv[i].data(), argv[i].size());
    }
    lines.push_back(line);
  }
  unsigned target() const override { return target_; }
  std::vector<std::string> lines;

 private:
  unsigned target_;
};

// One call: begin, the handler's work, end.
template <typename Fn>
void call(int db, Argv argv, bool wrote, Fn&& handler) {
  beginCall();
  handler();
  endCall(db, argv, wrote);
}
void call(int db, Argv argv, bool wrote) {
  call(db, std::move(argv), wrote, [] {});
}

TEST(Propagate, WantedFollowsRegisteredSinks) {
  EXPECT_FALSE(wanted());
  {
    Recorder r;
    EXPECT_TRUE(wanted());
    Recorder r2;
    removeSink(&r2);
    removeSink(&r2);  // twice: harmless
    EXPECT_TRUE(wanted());
  }
  EXPECT_FALSE(wanted());
}

TEST(Propagate, WritesAreFedReadsAreNot) {
  Recorder r;
  call(0, {"get", "k"}, false);
  call(3, {"set", "k", "v"}, true);
  EXPECT_EQ(r.lines, (std::vector<std::string>{"3:set k v"}));
  EXPECT_FALSE(inCall());
}

TEST(Propagate, RewriteReplacesTheRequest) {
  Recorder r;
  call(0, {"incrbyfloat", "n", "1.5"}, true, [] { rewrite({"SET", "n", "2.5", "KEEPTTL"}); });
  // A rewrite of a call that wrote nothing is not fed.
  call(0, {"spop", "nokey"}, false, [] { rewrite({"SREM", "nokey", "x"}); });
  // The next call does not inherit the last rewrite.
  call(0, {"incr", "c"}, true);
  EXPECT_EQ(r.lines, (std::vector<std::string>{"0:SET n 2.5 KEEPTTL", "0:incr c"}));
}

TEST(Propagate, OneCallWithSeveralEffectsIsWrapped) {
  Recorder r;
  call(2, {"spop", "s", "2"}, true, [] {
    also(2, {"SREM", "s", "a"});
    also(2, {"SREM", "s", "b"});
    preventCommand();
  });
  EXPECT_EQ(r.lines, (std::vector<std::string>{"2:MULTI", "2:SREM s a", "2:SREM s b", "2:EXEC"}));
}

TEST(Propagate, NestedCallsFeedTheirEffectsNotTheOuterCommand) {
  Recorder r;
  // EXEC running two writes and a read: one unit, wrapped.
  call(0, {"exec"}, true, [] {
    call(0, {"set", "a", "1"}, true);
    call(0, {"get", "a"}, false);
    call(5, {"set", "b", "2"}, true);
  });
  // EXEC of one write: fed bare, as Redis 7.0.
  call(0, {"exec"}, true, [] { call(0, {"set", "a", "1"}, true); });
  // A script that only read: nothing.
  call(0, {"eval", "return redis.call('get','a')", "0"}, false, [] {
    call(0, {"get", "a"}, false);
  });
  EXPECT_EQ(r.lines,
            (std::vector<std::string>{"0:MULTI", "0:set a 1", "5:set b 2", "5:EXEC", "0:set a 1"}));
}

TEST(Propagate, LazyExpiryJoinsTheUnitActiveExpiryIsFedAtOnce) {
  Recorder r;
  call(0, {"get", "k"}, false, [] { keyExpired(0, "k", false); });
  call(0, {"set", "k", "v"}, true, [] { keyExpired(0, "k", true); });
  keyExpired(1, "old", false);  // from the cron: no call
  EXPECT_EQ(r.lines, (std::vector<std::string>{"0:DEL k", "0:MULTI", "0:UNLINK k", "0:set k v",
                                               "0:EXEC", "1:DEL old"}));
}

TEST(Propagate, ABareUnitIsFedWithoutMultiOnlyWhenOutermost) {
  Recorder r;
  // SCAN run directly, expiring two keys: two DELs, no MULTI/EXEC.
  call(0, {"scan", "0"}, false, [] {
    feedUnitBare();
    keyExpired(0, "a", false);
    keyExpired(0, "b", false);
  });
  // The next unit is wrapped again.
  call(0, {"get", "c"}, false, [] {
    keyExpired(0, "c", false);
    keyExpired(0, "d", false);
  });
  // SCAN inside EXEC: the transaction's unit stays wrapped.
  call(0, {"exec"}, true, [] {
    call(0, {"scan", "0"}, false, [] {
      feedUnitBare();
      keyExpired(0, "e", false);
      keyExpired(0, "f", false);
    });
  });
  EXPECT_EQ(r.lines,
            (std::vector<std::string>{"0:DEL a", "0:DEL b", "0:MULTI", "0:DEL c", "0:DEL d",
                                      "0:EXEC", "0:MULTI", "0:DEL e", "0:DEL f", "0:EXEC"}));
}

TEST(Propagate, EvictionIsFedAtOnceEvenInsideACall) {
  Recorder r;
  call(0, {"config", "set", "maxmemory", "1"}, false, [] {
    keyEvicted(0, "a", false);
    keyEvicted(0, "b", true);
  });
  EXPECT_EQ(r.lines, (std::vector<std::string>{"0:DEL a", "0:UNLINK b"}));
}

TEST(Propagate, TargetsPickTheSinks) {
  Recorder aof(kToAof);
  Recorder replica(kToReplicas);
  call(0, {"publish", "ch", "hi"}, false, [] { forceCommand(kToReplicas); });
  call(0, {"flushall"}, false, [] { forceCommand(kToAll); });
  EXPECT_EQ(aof.lines, (std::vector<std::string>{"0:flushall"}));
  EXPECT_EQ(replica.lines, (std::vector<std::string>{"0:publish ch hi", "0:flushall"}));
}

TEST(Propagate, ScriptTargetsApplyToNestedCallsOnly) {
  Recorder aof(kToAof);
  Recorder replica(kToReplicas);
  call(0, {"eval", "...", "0"}, true, [] {
    setNestedTargets(0);  // redis.set_repl(redis.REPL_NONE)
    call(0, {"set", "none", "v"}, true);
    setNestedTargets(kToAof);
    call(0, {"set", "aof", "v"}, true);
    setNestedTargets(kToReplicas);
    call(0, {"set", "repl", "v"}, true, [] { also(0, {"SREM", "s", "x"}); });
    keyExpired(0, "gone", false);  // expiry reaches both whatever set_repl says
  });
  call(0, {"set", "after", "v"}, true);
  EXPECT_EQ(aof.lines, (std::vector<std::string>{"0:MULTI", "0:set aof v", "0:DEL gone", "0:EXEC",
                                                 "0:set after v"}));
  EXPECT_EQ(replica.lines, (std::vector<std::string>{"0:MULTI", "0:SREM s x", "0:set repl v",
                                                     "0:DEL gone", "0:EXEC", "0:set after v"}));
}

TEST(Propagate, HandlerCallsOutsideACallDoNothing) {
  Recorder r;
  rewrite({"SET", "x", "y"});
  also(0, {"DEL", "x"});
  preventCommand();
  forceCommand(kToAll);
  setNestedTargets(0);
  endCall(0, Argv{"set", "x", "y"}, true);  // unpaired
  call(0, {"set", "x", "y"}, true);
  EXPECT_EQ(r.lines, (std::vector<std::string>{"0:set x y"}));
}

TEST(Propagate, ArgumentsAreCopiedBeforeTheCallEnds) {
  Recorder r;
  std::string key = "k1";
  call(0, {"exec"}, true, [&] {
    call(0, {"set", key, "v"}, true);
    key = "zz";  // the request buffer is reused before the unit ends
    call(0, {"set", key, "w"}, true);
  });
  EXPECT_EQ(r.lines, (std::vector<std::string>{"0:MULTI", "0:set k1 v", "0:set zz w", "0:EXEC"}));
}

TEST(PropagateForms, TheRewrittenFormsOfRedis70) {
  Recorder r;
  call(0, {"expire", "k", "100", "nx"}, true, [] {
    std::string_view argv[] = {"expire", "k", "100", "nx"};
    asPexpireat(argv, 1700000000123);
  });
  call(0, {"set", "k", "v", "ex", "10", "get"}, true, [] { asSetPxat("k", "v", 42); });
  call(0, {"set", "k", "v", "GeT", "keepttl", "get"}, true, [] {
    // GET is dropped wherever it is, in any case; the key and value stay
    // even when they read "get".
    std::string_view argv[] = {"set", "get", "get", "GeT", "keepttl", "get"};
    asWithout(argv, 3, "get");
  });
  call(0, {"getdel", "k"}, true, [] { asDel("k", false); });
  call(0, {"expire", "k", "-1"}, true, [] { asDel("k", true); });
  EXPECT_EQ(r.lines,
            (std::vector<std::string>{"0:PEXPIREAT k 1700000000123 nx", "0:SET k v PXAT 42",
                                      "0:set get get keepttl", "0:DEL k", "0:UNLINK k"}));
}

}  // namespace
}  // namespace server::propagate
