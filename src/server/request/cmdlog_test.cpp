// Unit tests for what SLOWLOG and MONITOR show of a request: redaction,
// Redis's argument trimming and the monitor line quoting.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/request/cmdlog.h"
#include "server/core/command.h"
#include "server/request/monitor.h"
#include "server/request/slowlog.h"

namespace server {
namespace {

Command named(const char* name) {
  Command c{};
  c.name = name;
  return c;
}

TEST(CmdLog, RedactsSecrets) {
  std::vector<std::string_view> auth = {"auth", "user", "pass"};
  EXPECT_EQ(redactedArgs(named("auth"), auth), (std::vector<bool>{false, true, true}));
  std::vector<std::string_view> hello = {"hello", "3", "AUTH", "u", "p", "SETNAME", "n"};
  EXPECT_EQ(redactedArgs(named("hello"), hello),
            (std::vector<bool>{false, false, false, true, true, false, false}));
  std::vector<std::string_view> cfg = {"config", "set", "maxmemory", "1", "REQUIREPASS", "s"};
  EXPECT_EQ(redactedArgs(named("config|set"), cfg),
            (std::vector<bool>{false, false, false, false, false, true}));
  std::vector<std::string_view> get = {"get", "k"};
  EXPECT_EQ(redactedArgs(named("get"), get), (std::vector<bool>{false, false}));
}

TEST(CmdLog, SlowlogTrimsArgumentsAndBytes) {
  std::vector<std::string> storage;
  for (int i = 0; i < 40; i++) storage.push_back("a" + std::to_string(i));
  std::vector<std::string_view> argv(storage.begin(), storage.end());
  std::vector<std::string> out = slowlogArgs(argv, {});
  ASSERT_EQ(out.size(), kSlowlogMaxArgs);
  EXPECT_EQ(out[30], "a30");
  EXPECT_EQ(out[31], "... (9 more arguments)");

  std::string big(130, 'x');
  std::vector<std::string_view> one = {"set", "k", big};
  out = slowlogArgs(one, {false, false, false});
  EXPECT_EQ(out[2], std::string(128, 'x') + "... (2 more bytes)");
  // Exactly 32 arguments or 128 bytes are kept whole.
  storage.resize(32);
  argv.assign(storage.begin(), storage.end());
  EXPECT_EQ(slowlogArgs(argv, {}).back(), "a31");
  std::string edge(128, 'y');
  std::vector<std::string_view> two = {"set", edge};
  EXPECT_EQ(slowlogArgs(two, {}).back(), edge);
  std::vector<std::string_view> a = {"auth", "pw"};
  EXPECT_EQ(slowlogArgs(a, {false, true}).back(), "(redacted)");
}

TEST(CmdLog, SlowlogKeepsNewestFirstAndTrims) {
  Slowlog log;
  for (int i = 0; i < 5; i++) {
    SlowlogEntry e;
    e.duration_us = i;
    log.push(std::move(e), 3);
  }
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log.entries()[0].id, 4u);
  EXPECT_EQ(log.entries()[2].id, 2u);
  log.reset();
  EXPECT_EQ(log.size(), 0u);
  SlowlogEntry e;
  log.push(std::move(e), 0);
  EXPECT_EQ(log.size(), 0u);
}

TEST(CmdLog, MonitorQuoting) {
  std::string out;
  monitor::appendQuoted(&out, std::string_view("a\x01\"\\\n\r\t\a\b \xff~\0", 13));
  EXPECT_EQ(out, "\"a\\x01\\\"\\\\\\n\\r\\t\\a\\b \\xff~\\x00\"");
  std::vector<std::string_view> argv = {"auth", "secret"};
  EXPECT_EQ(monitor::formatLine(1339518083107412, 3, "127.0.0.1:60866", argv, {false, true}),
            "1339518083.107412 [3 127.0.0.1:60866] \"auth\" \"(redacted)\"");
  EXPECT_EQ(monitor::formatLine(5000001, 0, "unix:/tmp/s", {"ping"}, {}),
            "5.000001 [0 unix:/tmp/s] \"ping\"");
}

}  // namespace
}  // namespace server
