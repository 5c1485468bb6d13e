// DEBUG: SLEEP, LOG, ERROR, PROTOCOL, SEGFAULT, ASSERT and HELP here;
// OBJECT, POPULATE, the structure printers and the internal knobs in
// debug_inspect.cpp; RELOAD, LOADAOF, AOF-FLUSH-SLEEP, DIGEST and
// DIGEST-VALUE in src/server/persist/. Like Redis 7.0 the command is refused
// unless enable-debug-command is "yes" (or "local" for loopback/unix
// clients).
#include <sys/mman.h>
#include <time.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "common/log.h"
#include "common/strutil.h"
#include "server/commands/server/introspection.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/crash/crash_report.h"
#include "server/persist/persist.h"

namespace server {

namespace {

const char kDebugNotAllowed[] =
    "DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can "
    "run it from a local connection, otherwise you need to set this option in the configuration "
    "file, and then restart the server.";

// Blocks the whole server, which is the point: tests use it to stall the
// event loop for a known time.
void sleepSeconds(double seconds) {
  if (!(seconds > 0)) return;
  struct timespec ts;
  ts.tv_sec = static_cast<time_t>(seconds);
  ts.tv_nsec = static_cast<long>((seconds - static_cast<double>(ts.tv_sec)) * 1e9);
  while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
  }
}

// DEBUG SEGFAULT: a real invalid access (a write to a read-only page), so
// the crash handler sees what a genuine fault gives it.
void crashBySegfault() {
  void* page = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  *static_cast<volatile char*>(page) = 'x';
}

// DEBUG PROTOCOL <type>: one reply of each RESP type, for testing clients.
void debugProtocol(Client* c, std::string_view type) {
  resp::Writer& w = c->reply();
  auto is = [&](const char* name) { return common::strutil::equalsIgnoreCase(type, name); };
  if (is("string")) {
    w.bulk("Hello World");
  } else if (is("integer")) {
    w.integer(12345);
  } else if (is("double")) {
    w.doubleValue(3.141);
  } else if (is("bignum")) {
    w.bigNumber("1234567999999999999999999999999999999");
  } else if (is("null")) {
    w.null();
  } else if (is("array") || is("set")) {
    if (is("array"))
      w.arrayLen(3);
    else
      w.setLen(3);
    for (int j = 0; j < 3; j++) w.integer(j);
  } else if (is("map")) {
    w.mapLen(3);
    for (int j = 0; j < 3; j++) {
      w.integer(j);
      w.boolean(j == 1);
    }
  } else if (is("attrib")) {
    if (w.proto() >= 3) {
      // The writer has no attribute type: it exists only for this test.
      w.raw("|1\r\n");
      w.bulk("key-popularity");
      w.arrayLen(2);
      w.bulk("key:123");
      w.integer(90);
    }
    w.bulk("Some real reply following the attribute");
  } else if (is("push")) {
    if (w.proto() < 3) {
      c->addError("RESP2 is not supported by this command");
      return;
    }
    w.pushLen(2);
    w.bulk("server-cpu-usage");
    w.integer(42);
    w.bulk("Some real reply following the push reply");
  } else if (is("verbatim")) {
    w.verbatim("This is a verbatim\nstring");
  } else if (is("true")) {
    w.boolean(true);
  } else if (is("false")) {
    w.boolean(false);
  } else {
    c->addError(
        "Wrong protocol type name. Please use one of the following: "
        "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false");
  }
}

void debugHelp(Client* c) {
  static const char* const kLines[] = {
      "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "ASSERT",
      "    Crash by assertion failed.",
      "CHANGE-REPL-ID",
      "    Change the replication IDs of the instance.",
      "    Dangerous: should be used only for testing the replication subsystem.",
      "CONFIG-REWRITE-FORCE-ALL",
      "    Like CONFIG REWRITE but writes all configuration options, defaults included.",
      "HTSTATS <dbid>",
      "    Return hash table statistics of the specified Redis database.",
      "HTSTATS-KEY <key> [full]",
      "    Like HTSTATS but for the hash table stored at <key>'s value.",
      "ERROR <string>",
      "    Reply with an error whose line is <string> (for testing clients).",
      "LOG <message>",
      "    Write <message> to the server log.",
      "LISTPACK <key>",
      "    Print the listpack of a listpack-encoded <key> on the server's stdout.",
      "QUICKLIST <key> [<0|1>]",
      "    Print the nodes of the list at <key> on the server's stdout; 1 adds the",
      "    elements.",
      "STRINGMATCH-TEST",
      "    Run the glob matcher on random patterns and strings.",
      "DIGEST",
      "    Output a hex signature representing the current DB content.",
      "DIGEST-VALUE <key> [<key> ...]",
      "    Output a hex signature of the values of all the specified keys.",
      "LOADAOF",
      "    Flush the AOF buffers on disk and reload the AOF in memory.",
      "AOF-FLUSH-SLEEP <microsec>",
      "    Server will sleep before flushing the AOF, this is used for testing.",
      "MALLCTL <key> [<val>]",
      "    Get or set a malloc tuning integer.",
      "MALLCTL-STR <key> [<val>]",
      "    Get or set a malloc tuning string.",
      "OBJECT <key>",
      "    Show low level info about the `key` and associated value.",
      "DROP-CLUSTER-PACKET-FILTER <packet-type>",
      "    Drop all packets that match the filtered type. Set to -1 allow all packets,",
      "    -2 to drop every type.",
      "CLUSTERLINK KILL <to|from|all> <node-id>",
      "    Kills the link based on the direction to/from (both) with the provided node.",
      "PAUSE-CRON <0|1>",
      "    Stop periodic cron job processing.",
      "POPULATE <count> [<prefix>] [<size>]",
      "    Create <count> string keys named key:<num>. If <prefix> is specified then",
      "    it is used instead of the 'key' prefix. These are not propagated to",
      "    replicas. Cluster slots are not respected so keys not belonging to the",
      "    current node can be created in cluster mode.",
      "PROTOCOL <type>",
      "    Reply with a test value of the specified type. <type> can be: string,",
      "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
      "    true, false.",
      "QUICKLIST-PACKED-THRESHOLD <size>",
      "    Sets the threshold for elements to be inserted as plain vs packed nodes",
      "    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
      "RELOAD [option ...]",
      "    Save the RDB on disk and reload it back to memory. Valid <option> values:",
      "    * MERGE: conflicting keys will be loaded from RDB.",
      "    * NOFLUSH: the existing database will not be removed before load, but",
      "      conflicting keys will generate an exception and kill the server.",
      "    * NOSAVE: the database will be loaded from an existing RDB file.",
      "    Examples:",
      "    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
      "      the database.",
      "    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
      "      existing RDB file.",
      "    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
      "      file to the database.",
      "SEGFAULT",
      "    Crash the server with sigsegv.",
      "SET-DISABLE-DENY-SCRIPTS <0|1>",
      "    For testing: disable the deny-script flag so that commands like DEBUG",
      "    can run inside scripts.",
      "SET-ACTIVE-EXPIRE <0|1>",
      "    Setting it to 0 disables expiring keys in background when they are not",
      "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
      "    default.",
      "SLEEP <seconds>",
      "    Stop the server for <seconds>. Decimals allowed.",
      "HELP",
      "    Prints this help.",
  };
  replyHelp(c, kLines);
}

}  // namespace

void debugCommand(Client* c) {
  if (!debugCommandAllowed(c)) {
    c->addError(kDebugNotAllowed);
    return;
  }
  std::string_view sub = c->arg(1);
  if (c->argc() == 2 && common::strutil::equalsIgnoreCase(sub, "HELP")) {
    debugHelp(c);
    return;
  }
  if (c->argc() == 2 && common::strutil::equalsIgnoreCase(sub, "SEGFAULT")) {
    crashBySegfault();
    return;
  }
  if (c->argc() == 2 && common::strutil::equalsIgnoreCase(sub, "ASSERT")) {
    crash::assertFailed(__FILE__, __LINE__, "1 == 2");
  }
  if (c->argc() == 3 && common::strutil::equalsIgnoreCase(sub, "SLEEP")) {
    // Redis reads the number leniently (strtod): "abc" sleeps 0 seconds.
    std::string arg(c->arg(2));
    sleepSeconds(strtod(arg.c_str(), nullptr));
    c->addOk();
    return;
  }
  if (c->argc() == 3 && common::strutil::equalsIgnoreCase(sub, "SET-ACTIVE-EXPIRE")) {
    // Keys then expire only when accessed (tests of lazy expiry).
    g_server->active_expire = c->arg(2) != "0";
    c->addOk();
    return;
  }
  if (c->argc() == 3 && common::strutil::equalsIgnoreCase(sub, "LOG")) {
    // The test suite marks where each test starts in the server's log.
    std::string_view msg = c->arg(2);
    LOG_WARNING("DEBUG LOG: %.*s", static_cast<int>(msg.size()), msg.data());
    c->addOk();
    return;
  }
  if (c->argc() == 3 && common::strutil::equalsIgnoreCase(sub, "ERROR")) {
    // The argument is the whole error line, code included; written past
    // the error statistics, as Redis does (clients' tests of error replies).
    c->reply().error("-" + std::string(c->arg(2)));
    return;
  }
  if (c->argc() == 3 && common::strutil::equalsIgnoreCase(sub, "PROTOCOL")) {
    debugProtocol(c, c->arg(2));
    return;
  }
  if (persist::debugSubcommand(c)) return;  // RELOAD DIGEST DIGEST-VALUE
  if (debugInspectSubcommand(c)) return;
  c->addErrorFormat("unknown subcommand or wrong number of arguments for '%.*s'. Try DEBUG HELP.",
                    static_cast<int>(sub.size() > 128 ? 128 : sub.size()), sub.data());
}

void registerDebugCommand(CommandTable& t) {
  t.add({"debug", -2, kAdmin | kNoScript | kLoading | kStale, debugCommand, 0, 0, 0, "server",
         "A container for debugging commands", "1.0.0", "Depends on subcommand.",
         "admin slow dangerous"});
}

}  // namespace server
