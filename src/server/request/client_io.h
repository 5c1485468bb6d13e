// Drives a Client's connection: reads requests and runs them through the
// dispatcher, writes replies, and closes the client when the connection
// fails or the server decided so. This is the layer between the server and
// the Client buffer: the Client itself only parses and buffers.
//
// Module request/: everything that happens to one client's requests:
// client_io (read, parse, write), call.h (running a command), the client
// registry (clients.cpp), keyspace lookups, MULTI/WATCH, blocking, CLIENT
// PAUSE, output buffer limits, SLOWLOG, MONITOR, client info. May include
// core/, conf/, db/, pubsub/, propagate/, acl/, latency/ and below; the one
// include that runs up is client_io's call of the dispatcher. Included by
// persist/, script/, repl/, evict/, commands/ and the top.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace server {

class Client;

// Installs the read handler; the client's connection must be connected. The
// master's client (kMaster) must carry its flag before: it gets a handler of
// its own that feeds the replication hook.
void startReading(Client* c);
// Writes what the reply buffer holds; installs a write handler when the
// transport cannot take it all. Returns false if the client was freed.
bool flushClient(Client* c);
// The loop thread's half of a read or a write an I/O thread made
// (threaded_io.cpp): the outcome of Client::readInput (its return and
// window) is run as the read handler would; afterWrite takes what
// Client::writeReplies returned and wrote, as flushClient does (false:
// the client is being closed).
void afterThreadedRead(Client* c, ssize_t n, const char* base, size_t len);
bool afterWrite(Client* c, bool ok, uint64_t written);
// Runs the requests left in the client's buffer while its input was held
// (CLIENT PAUSE ended, a blocked client was served). Returns false if the
// client was freed.
bool resumeInput(Client* c);
// The replica side (server/repl/) is told of every request of its master's
// stream once applied, with its bytes (replication offset, the copy its own
// replicas get).
using MasterAppliedHook = void (*)(Client* c, std::string_view bytes);
void setMasterAppliedHook(MasterAppliedHook hook);
// The master side (server/repl/) is told when a replica's (kReplica) output
// has drained, and may queue more of the replication stream, which it
// sends a window at a time; returns whether it did. Called on the loop's
// thread, from flushClient and afterWrite.
using ReplicaDrainedHook = bool (*)(Client* c);
void setReplicaDrainedHook(ReplicaDrainedHook hook);

}  // namespace server
