// STAND-IN until the `prop` branch lands its propagate.cpp (the coordinator
// keeps that one). It feeds sinks the argv of every write command (and write
// subcommand) that changed server.dirty, as the client sent it: no
// deterministic rewrites, no MULTI/EXEC wrapping, no expired-key DELs.
//
// It needs no hook in the dispatcher: when the first sink registers, the
// handler of every command flagged "write" is swapped for a trampoline that
// runs the original and feeds the sinks if the data set changed. callCommand
// sets Client::cur_cmd before the call, which is how the trampoline finds
// the original handler.
#include "server/propagate/propagate.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "server/client.h"
#include "server/command.h"
#include "server/server.h"

namespace server::propagate {

namespace {

std::vector<Sink*>& sinks() {
  static std::vector<Sink*> v;
  return v;
}

std::unordered_map<const Command*, CommandProc>& originals() {
  static std::unordered_map<const Command*, CommandProc> m;
  return m;
}

void trampoline(Client* c) {
  const Command* cmd = c->cur_cmd;
  auto it = originals().find(cmd);
  if (it == originals().end()) return;  // cannot happen: only wrapped commands point here
  int64_t before = g_server->dirty;
  int db = c->dbIndex();
  it->second(c);
  if (g_server->dirty == before || sinks().empty()) return;
  const std::vector<std::string_view>& argv = c->argv();
  std::span<const std::string_view> view(argv.data(), argv.size());
  for (Sink* s : std::vector<Sink*>(sinks())) s->feed(db, view);
}

void wrap(Command* cmd) {
  if ((cmd->flags & kWrite) && cmd->proc != nullptr && cmd->proc != trampoline) {
    originals()[cmd] = cmd->proc;
    cmd->proc = trampoline;
  }
  for (Command& sub : cmd->subcommands) wrap(&sub);
}

}  // namespace

void addSink(Sink* sink) {
  static bool wrapped = false;
  if (!wrapped && g_server != nullptr) {
    wrapped = true;
    for (Command* cmd : g_server->commands.all()) wrap(cmd);
  }
  if (std::find(sinks().begin(), sinks().end(), sink) == sinks().end()) sinks().push_back(sink);
}

void removeSink(Sink* sink) {
  auto& v = sinks();
  v.erase(std::remove(v.begin(), v.end(), sink), v.end());
}

bool wanted() {
  return !sinks().empty();
}

}  // namespace server::propagate
