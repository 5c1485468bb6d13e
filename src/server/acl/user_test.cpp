#include "server/acl/user.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "server/acl/catalog.h"
#include "server/acl/check.h"
#include "server/commands/families.h"
#include "server/core/state.h"

namespace server::acl {
namespace {

// A server with every command registered and the ACL catalog built: rules
// name commands and categories from the real table.
class AclUser : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<server::Server>();
    for (int i = 0; i < 16; i++) server_->dbs.push_back(std::make_unique<db::Db>(i));
    server::registerAllCommands();
    buildCatalog();
  }
  void TearDown() override { server_.reset(); }

  static User make(const std::vector<std::string>& rules) {
    User u("u");
    std::string err;
    for (const std::string& r : rules) EXPECT_TRUE(u.setRule(r, &err)) << r << ": " << err;
    return u;
  }
  Denial check(const User& u, std::vector<std::string_view> argv) {
    server::Command* cmd = server_->commands.find(argv[0]);
    if (!cmd->subcommands.empty() && argv.size() > 1) cmd = server_->commands.findSub(cmd, argv[1]);
    return checkCommand(u, *cmd, argv).denial;
  }

  std::unique_ptr<server::Server> server_;
};

TEST_F(AclUser, DescribesRulesAsRedis) {
  User u = make({"on", ">p1", "+@all", "-@dangerous", "+get", "-set", "~foo*", "%R~bar", "&ch*",
                 "+config|get", "+select|0"});
  // Rules that change nothing (+get, +select|0) are not shown.
  EXPECT_EQ(u.describe(),
            "user u on #f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a ~foo* "
            "%R~bar resetchannels &ch* +@all -@dangerous -set +config|get");
  User v = make({"+select|0", "-@all", "+select|1", "+select|2", "%R~a", "%W~a"});
  EXPECT_EQ(v.describe(), "user u off ~a resetchannels -@all +select|1 +select|2");
}

TEST_F(AclUser, FailedRuleLeavesTheUserAsItWas) {
  User u = make({"+get", "~k*"});
  std::string before = u.describe(), err;
  EXPECT_FALSE(u.setRule("+nosuch", &err));
  EXPECT_EQ(err, "Unknown command or category name in ACL");
  EXPECT_FALSE(u.setRule("%X~k", &err));
  EXPECT_EQ(err, "Syntax error");
  EXPECT_FALSE(u.setRule("+config|get|x", &err));
  EXPECT_EQ(err, "Allowing first-arg of a subcommand is not supported");
  EXPECT_FALSE(u.setRule("+get|a|b", &err));  // get has no subcommand a
  EXPECT_EQ(err, "Unknown command or category name in ACL");
  EXPECT_FALSE(u.setRule("+config|nosuch|x", &err));
  EXPECT_EQ(err, "Unknown command or category name in ACL");
  EXPECT_EQ(u.describe(), before);
}

TEST_F(AclUser, PasswordsAreSha256) {
  User u = make({"on", ">secret"});
  EXPECT_TRUE(u.checkPassword("secret"));
  EXPECT_FALSE(u.checkPassword("Secret"));
  EXPECT_FALSE(u.checkPassword(""));
  std::string err;
  ASSERT_TRUE(u.setRule("<secret", &err));
  EXPECT_FALSE(u.checkPassword("secret"));
  ASSERT_TRUE(u.setRule("nopass", &err));
  EXPECT_TRUE(u.checkPassword("anything"));
}

TEST_F(AclUser, KeyPatternKinds) {
  // Exact, short prefix (one word compare), 8-byte prefix, long prefix
  // (byte loop) and glob patterns.
  User u = make({"~exact", "~app:*", "~abcdefgh*", "~longprefix:*", "~u?er[12]"});
  const Selector& s = u.selectors()[0];
  const uint8_t rw = kPermRead | kPermWrite;
  EXPECT_TRUE(s.allowsKey("exact", rw));
  EXPECT_FALSE(s.allowsKey("exact2", rw));
  EXPECT_TRUE(s.allowsKey("app:", rw));
  EXPECT_TRUE(s.allowsKey("app:1", rw));
  EXPECT_TRUE(s.allowsKey("app:0123456789", rw));
  EXPECT_FALSE(s.allowsKey("ap", rw));
  EXPECT_FALSE(s.allowsKey("apq:0123456789", rw));
  EXPECT_TRUE(s.allowsKey("abcdefgh", rw));
  EXPECT_TRUE(s.allowsKey("abcdefgh-and-more", rw));
  EXPECT_FALSE(s.allowsKey("abcdefgX-and-more", rw));
  EXPECT_TRUE(s.allowsKey("longprefix:x", rw));
  EXPECT_FALSE(s.allowsKey("longprefiX:x", rw));
  EXPECT_TRUE(s.allowsKey("user1", rw));
  EXPECT_FALSE(s.allowsKey("user3", rw));
}

TEST_F(AclUser, ReadAndWritePermissions) {
  User u = make({"on", "+@all", "%R~r*", "%W~w*"});
  EXPECT_EQ(check(u, {"get", "r1"}), Denial::kNone);
  EXPECT_EQ(check(u, {"get", "w1"}), Denial::kKey);
  EXPECT_EQ(check(u, {"set", "w1", "v"}), Denial::kNone);
  EXPECT_EQ(check(u, {"set", "r1", "v"}), Denial::kKey);
  // SET ... GET reads too (its KeyFlagsProc).
  EXPECT_EQ(check(u, {"set", "w1", "v", "GET"}), Denial::kKey);
  // EXISTS names the key without reading or writing it.
  EXPECT_EQ(check(u, {"exists", "w1"}), Denial::kNone);
  EXPECT_EQ(check(u, {"exists", "x1"}), Denial::kKey);
  EXPECT_EQ(check(u, {"mget", "r1", "r2", "w1"}), Denial::kKey);
  EXPECT_EQ(check(u, {"lmove", "r1", "w1", "LEFT", "RIGHT"}), Denial::kKey);
}

TEST_F(AclUser, CommandsSubcommandsFirstArgsAndNoAuth) {
  User u = make({"on", "-@all", "+config|get", "+select|0", "allkeys"});
  EXPECT_EQ(check(u, {"config", "get", "x"}), Denial::kNone);
  EXPECT_EQ(check(u, {"config", "set", "x", "y"}), Denial::kCommand);
  EXPECT_EQ(check(u, {"select", "0"}), Denial::kNone);
  EXPECT_EQ(check(u, {"select", "1"}), Denial::kCommand);
  EXPECT_EQ(check(u, {"get", "k"}), Denial::kCommand);
  // Allowed before AUTH, so never denied.
  EXPECT_EQ(check(u, {"auth", "u", "p"}), Denial::kNone);
  EXPECT_EQ(check(u, {"hello", "3"}), Denial::kNone);
}

TEST_F(AclUser, ChannelsAndSelectors) {
  User u = make({"on", "+@all", "allkeys", "resetchannels", "&news*", "(+get ~sel*)"});
  EXPECT_EQ(check(u, {"publish", "news1", "m"}), Denial::kNone);
  EXPECT_EQ(check(u, {"publish", "sport", "m"}), Denial::kChannel);
  EXPECT_EQ(check(u, {"subscribe", "news1", "sport"}), Denial::kChannel);
  // PSUBSCRIBE needs the pattern itself.
  EXPECT_EQ(check(u, {"psubscribe", "news*"}), Denial::kNone);
  EXPECT_EQ(check(u, {"psubscribe", "news1*"}), Denial::kChannel);
  User v = make({"on", "+get", "~a*", "(+set ~b*)"});
  EXPECT_EQ(check(v, {"get", "a1"}), Denial::kNone);
  EXPECT_EQ(check(v, {"set", "b1", "x"}), Denial::kNone);
  // Root denies the command, the selector the key: the key is reported.
  EXPECT_EQ(check(v, {"set", "a1", "x"}), Denial::kKey);
  EXPECT_EQ(check(v, {"incr", "a1"}), Denial::kCommand);
  EXPECT_FALSE(v.unrestricted());
  EXPECT_TRUE(make({"+@all", "allkeys", "allchannels"}).unrestricted());
}

}  // namespace
}  // namespace server::acl
