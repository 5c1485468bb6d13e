// The pure parts of the process settings: title templates and cpu lists.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/process/logo.h"
#include "server/process/os_tuning.h"
#include "server/process/proc_title.h"

namespace server::process {
namespace {

TitleVars vars() {
  TitleVars v;
  v.title = "/usr/bin/redis-server";
  v.listen_addr = "127.0.0.1:6379";
  v.port = "6379";
  v.tls_port = "0";
  return v;
}

TEST(ProcTitle, ExpandsAsRedis) {
  std::string out;
  ASSERT_TRUE(expandProcTitle("{title} {listen-addr} {server-mode}", vars(), &out));
  EXPECT_EQ(out, "/usr/bin/redis-server 127.0.0.1:6379");
  // "{{" is a brace; a lone "}" stays; inner spaces stay, outer ones go.
  ASSERT_TRUE(expandProcTitle("x {{a}} }} y", vars(), &out));
  EXPECT_EQ(out, "x {a}} }} y");
  ASSERT_TRUE(expandProcTitle("  {title}  {port}  ", vars(), &out));
  EXPECT_EQ(out, "/usr/bin/redis-server  6379");
  ASSERT_TRUE(expandProcTitle("{port}-{unixsocket}-{config-file}-{tls-port}", vars(), &out));
  EXPECT_EQ(out, "6379---0");
  EXPECT_FALSE(expandProcTitle("{title", vars(), &out));
  EXPECT_FALSE(expandProcTitle("{unknown}", vars(), &out));
  EXPECT_FALSE(expandProcTitle("x {", vars(), &out));
  EXPECT_FALSE(expandProcTitle("{server-mode}", vars(), &out));  // empty result
}

TEST(CpuList, RangesAndStrides) {
  std::vector<int> cpus;
  std::string err;
  ASSERT_TRUE(parseCpuList("0-3,8,10-15:2", &err, &cpus)) << err;
  EXPECT_EQ(cpus, (std::vector<int>{0, 1, 2, 3, 8, 10, 12, 14}));
  EXPECT_FALSE(parseCpuList("abc", &err, &cpus));
  EXPECT_FALSE(parseCpuList("3-1", &err, &cpus));
  EXPECT_FALSE(parseCpuList("1-4:0", &err, &cpus));
  EXPECT_FALSE(parseCpuList("", &err, &cpus));
}

TEST(Logo, CarriesVersionPortAndPid) {
  LogoInfo info;
  info.version = "7.0.15";
  info.port = 6380;
  info.pid = 4242;
  std::string text = logoText(info);
  EXPECT_NE(text.find("7.0.15"), std::string::npos);
  EXPECT_NE(text.find("Port: 6380"), std::string::npos);
  EXPECT_NE(text.find("PID: 4242"), std::string::npos);
  EXPECT_NE(text.find("Running in standalone mode"), std::string::npos);
  info.mode = "cluster";
  EXPECT_NE(logoText(info).find("Running in cluster mode"), std::string::npos);
}

}  // namespace
}  // namespace server::process
