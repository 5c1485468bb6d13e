// The one door into a command handler: every caller (dispatch, EXEC,
// scripts, blocked clients re-run, AOF loading, a master's stream) runs a
// command through callCommand, which keeps the per-command statistics,
// feeds propagation, client-side caching, SLOWLOG, LATENCY, MONITOR and
// the output buffer limits.
#pragma once

namespace server {

class Client;
struct Command;

// Runs an already checked command with c->argv() as its arguments and keeps
// its statistics (EXEC runs its queue through this).
void callCommand(Client* c, Command* cmd);

// A call boundary for failed_calls: errors counted so far are not charged
// to the command running now (a script's redis.call refused before it ran
// counts for that command, as rejected_calls).
void markErrorsCounted();

}  // namespace server
