// Command dispatch: looks up argv[0], checks arity, authentication and the
// other preconditions every command shares, calls the handler and keeps the
// per-command statistics through call (request/call.h).
#pragma once

namespace server {

class Client;

// Runs the request in c->argv(). Returns false if the client no longer
// exists afterwards.
bool dispatchCommand(Client* c);

}  // namespace server
