// The one place that knows every command family: adding a family means a
// line here and its declaration in families.h.
#include "server/acl/acl.h"
#include "server/cluster/cluster.h"
#include "server/commands/families.h"
#include "server/commands/syntax_table.h"
#include "server/core/state.h"
#include "server/pubsub/pubsub.h"
#include "server/request/multi.h"
#include "server/script/script.h"

namespace server {

void registerAllCommands(void (*top)(CommandTable&)) {
  CommandTable& t = g_server->commands;
  registerConnectionCommands(t);
  registerStringCommands(t);
  registerKeyCommands(t);
  registerServerCommands(t);
  registerBitmapCommands(t);
  registerHllCommands(t);
  registerMultiCommands(t);
  registerPubSubCommands(t);
  registerHashCommands(t);
  registerSetCommands(t);
  registerSortedSetCommands(t);
  registerListCommands(t);
  registerListBlockingCommands(t);
  registerZsetBlockingCommands(t);
  registerSortCommands(t);
  registerStreamCommands(t);
  registerGeoCommands(t);
  script::registerScriptingCommands(t);
  acl::registerAclCommand(t);
  cluster::registerMigrateCommand(t);
  cluster::registerClusterCommands(t);
  if (top != nullptr) top(t);
  attachCommandDocs(t);
}

}  // namespace server
