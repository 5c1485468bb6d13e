// Shutting down, as Redis 7.0 does it: SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE]
// [ABORT], and SIGTERM / SIGINT (with the flags shutdown-on-sigterm /
// shutdown-on-sigint give them).
//
// A master whose replicas have not all acknowledged the whole stream first
// waits for them, up to shutdown-timeout seconds (unless NOW, or the
// timeout is 0): writes are held (pause::Hold::kShutdown), the replicas
// are asked for an ACK, INFO shows shutdown_in_milliseconds, and each
// SHUTDOWN caller stays blocked. Then the lagging replicas are logged, the
// final save runs (persist::shutdownSave) and the server exits; a failed
// save (without FORCE) keeps it running, every caller gets "Errors trying
// to SHUTDOWN. Check logs." and writes go on. SHUTDOWN ABORT cancels a
// wait (or a signal's request not yet acted on) the same way.
//
// On the top floor: it joins persist/, repl/, request/pause and crash/.
#pragma once

namespace server {

class CommandTable;

// Registers SHUTDOWN.
void registerShutdownCommand(CommandTable& t);
// From the server cron: starts a signal's shutdown, ends a wait for
// replicas once they caught up or the time is over.
void shutdownCron();

}  // namespace server
