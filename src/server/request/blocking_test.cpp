// The blocking machinery without a network: a client with no connection
// runs BLPOP/BLMOVE/BLMPOP directly. Covers what the Tcl suite cannot reach
// before MULTI/EXEC exists: kDenyBlocking answers as on timeout.
#include "server/request/blocking.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "server/core/client.h"
#include "server/commands/families.h"
#include "server/dispatch.h"
#include "server/request/keyspace.h"
#include "server/server.h"

namespace server {
namespace {

class BlockingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 16; i++) server_.dbs.push_back(std::make_unique<db::Db>(i));
    registerAllCommands();
    client_.reset(server_.newClient(nullptr));
  }
  void TearDown() override {
    blocking::onClientFree(client_.get());
    client_.reset();
  }
  // Runs a command; returns the bytes of output it added.
  size_t run(std::vector<std::string> args) {
    size_t before = client_->outputBytes();
    Command* cmd = server_.commands.find(args[0]);
    EXPECT_NE(cmd, nullptr);
    client_->setArgvViews(args);
    client_->cur_cmd = cmd;
    cmd->proc(client_.get());
    client_->clearArgv();
    return client_->outputBytes() - before;
  }

  Instance server_;
  std::unique_ptr<Client> client_;
};

TEST_F(BlockingTest, BlocksOnEmptyListWithoutReplying) {
  EXPECT_EQ(run({"blpop", "l", "0"}), 0u);
  EXPECT_TRUE(blocking::isBlocked(client_.get()));
  EXPECT_EQ(blocking::blockedClientCount(), 1u);
}

TEST_F(BlockingTest, DenyBlockingAnswersAsOnTimeout) {
  client_->flags |= kDenyBlocking;
  EXPECT_EQ(run({"blpop", "l", "0"}), 5u);  // *-1\r\n
  EXPECT_EQ(run({"blmpop", "0", "1", "l", "left"}), 5u);
  EXPECT_EQ(run({"blmove", "l", "d", "left", "left", "0"}), 5u);  // $-1\r\n (plain null)
  EXPECT_FALSE(blocking::isBlocked(client_.get()));
  EXPECT_EQ(blocking::blockedClientCount(), 0u);
}

TEST_F(BlockingTest, ServesAtOnceWhenDataIsThere) {
  EXPECT_EQ(run({"rpush", "l", "a"}), 4u);  // :1\r\n
  EXPECT_EQ(run({"blpop", "l", "0"}), strlen("*2\r\n$1\r\nl\r\n$1\r\na\r\n"));
  EXPECT_FALSE(blocking::isBlocked(client_.get()));
}

TEST_F(BlockingTest, TimeoutParsing) {
  int64_t t = -1;
  std::vector<std::string> a = {"blpop", "l", "1.5"};
  client_->setArgvViews(a);
  db::Clock::update();
  ASSERT_TRUE(blocking::parseBlockTimeout(client_.get(), 2, &t));
  EXPECT_EQ(t, db::Clock::nowMs + 1500);
  a[2] = "0";
  client_->setArgvViews(a);
  ASSERT_TRUE(blocking::parseBlockTimeout(client_.get(), 2, &t));
  EXPECT_EQ(t, 0);
  a[2] = "-1";
  client_->setArgvViews(a);
  EXPECT_FALSE(blocking::parseBlockTimeout(client_.get(), 2, &t));
  client_->clearArgv();
}

}  // namespace
}  // namespace server
