// BGREWRITEAOF: a forked child writes a new base file from the data set
// while the server appends to a fresh incr file opened at the start; when
// the child succeeds the manifest switches to the new base (old files
// become history and are deleted).
#pragma once

#include <string>

namespace server::persist::aof {

// Starts the rewrite child. False (logged, *err set) when it could not.
bool startRewrite(std::string* err);
// From the cron: reaps a finished child and completes or fails the rewrite.
void checkRewriteChild();
// Stops a running child and removes its temp file.
void killRewriteChild();

// Synchronous base at start (no AOF on disk yet): writes the data set as
// base 1 and opens incr 1.
bool createBaseAtStart();

}  // namespace server::persist::aof
