// Command dispatch: looks up argv[0], checks arity, authentication and the
// other preconditions every command shares, calls the handler and keeps the
// per-command statistics.
#pragma once

namespace server {

class Client;
struct Command;

// Runs the request in c->argv(). Returns false if the client no longer
// exists afterwards.
bool dispatchCommand(Client* c);

// Runs an already checked command with c->argv() as its arguments and keeps
// its statistics (EXEC runs its queue through this).
void callCommand(Client* c, Command* cmd);

}  // namespace server
