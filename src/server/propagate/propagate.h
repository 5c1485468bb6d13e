// Propagation: the stream of write effects, in the order they are applied,
// as command vectors a replayer (AOF loading, a replica fed through SYNC)
// can run to reach the same data set.
//
// Contract for sinks (the AOF writer, SYNC streams to replicas):
// - feed() is called once per effect, from the main thread, after the
//   effect is applied and before the reply that caused it is written out.
// - `db` is the database the command applies to; a sink that writes a
//   stream emits SELECT itself when `db` differs from its last one.
// - Effects are deterministic: commands whose result depends on time or
//   randomness are fed in an exact form (relative expiries as absolute
//   PEXPIREAT/PXAT, SPOP as SREM, INCRBYFLOAT as SET ... KEEPTTL, blocking
//   pops as their non-blocking form, expired and evicted keys as DEL or
//   UNLINK). A transaction and a script that wrote more than one effect are
//   fed between "MULTI" and "EXEC" entries.
// - The views in `argv` are valid only during the call.
// - When no sink is registered, wanted() is false and callers skip all
//   propagation work: the command hot path pays one load and branch.
#pragma once

#include <span>
#include <string_view>

namespace server::propagate {

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void feed(int db, std::span<const std::string_view> argv) = 0;
};

// Registers/unregisters a sink; a sink must unregister before it is destroyed.
void addSink(Sink* sink);
void removeSink(Sink* sink);

// True when at least one sink is registered.
bool wanted();

// Command boundaries, from callCommand (dispatch.cpp). A command that
// changed the data set (`changed`: server.dirty grew; SAVE and DEBUG
// LOADAOF reset it and are not fed) is fed with its own arguments, unless
// commands it ran itself (EXEC's queue, a script's redis.call) were fed:
// those are fed instead, between MULTI and EXEC when more than one.
void beginCall();
void endCall(int db, std::span<const std::string_view> argv, bool changed);

}  // namespace server::propagate
