#include "server/pubsub/notify.h"

#include <gtest/gtest.h>

#include "server/conf/config.h"

namespace server::notify {
namespace {

std::string canonical(std::string_view in) {
  int flags = -1;
  if (!parseFlags(in, &flags)) return "<invalid>";
  return flagsToString(flags);
}

TEST(Notify, ParseAndPrintAsRedis70) {
  EXPECT_EQ(canonical(""), "");
  EXPECT_EQ(canonical("KEA"), "AKE");
  EXPECT_EQ(canonical("EK"), "KE");
  EXPECT_EQ(canonical("g$lshzxetdKEmn"), "AKEm");  // every class of A: "A", n not shown
  EXPECT_EQ(canonical("zlE"), "lzE");              // classes in g$lshzxetdn order
  EXPECT_EQ(canonical("Kn"), "nK");
  EXPECT_EQ(canonical("KEd"), "dKE");
  EXPECT_EQ(canonical("KQ"), "<invalid>");
  EXPECT_EQ(canonical("a"), "<invalid>");  // case matters
}

TEST(Notify, AExcludesKeymissAndNew) {
  int flags = 0;
  ASSERT_TRUE(parseFlags("A", &flags));
  EXPECT_EQ(flags & (kKeyMiss | kNew), 0);
  EXPECT_EQ(flags & kAll, kAll);
  ASSERT_TRUE(parseFlags("An", &flags));
  EXPECT_NE(flags & kNew, 0);  // kept, though CONFIG GET prints "A"
  EXPECT_EQ(flagsToString(flags), "A");
}

TEST(Notify, ConfigOption) {
  Config c;
  std::string err;
  ASSERT_TRUE(loadConfigText(&c, "notify-keyspace-events Elg\n", &err)) << err;
  EXPECT_EQ(c.notify_keyspace_events, kKeyevent | kList | kGeneric);
  EXPECT_FALSE(loadConfigText(&c, "notify-keyspace-events KX\n", &err));
  EXPECT_NE(err.find("Invalid event class character"), std::string::npos) << err;
}

}  // namespace
}  // namespace server::notify
