// Propagation: the stream of write effects, in the order they are applied,
// as command vectors a replayer (AOF loading, a replica fed through SYNC)
// can run to reach the same data set. What is fed is what Redis 7.0.15
// writes to its AOF and replication stream, case for case.
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
//   fed between "MULTI" and "EXEC" entries (MULTI with the db of the first
//   effect, EXEC with the db of the last, so a sink's SELECT lands before
//   MULTI as in Redis); a unit of one effect is fed bare.
// - The views in `argv` are valid only during the call. feed() must not
//   run commands or register/unregister sinks.
// - When no sink is registered, wanted() is false and callers skip all
//   propagation work: the command hot path pays one load and branch.
//
// Targets: Redis sends some effects to replicas only (PUBLISH, SPUBLISH)
// and scripts may pick targets with redis.set_repl(). A sink says which
// stream it writes with target(); an effect reaches a sink when their
// targets intersect. The default, kToAof, suits a persistence sink; a
// replica stream overrides target() to return kToReplicas. MULTI/EXEC
// wrappers go to every sink, as Redis does.
//
// How effects are gathered (Redis 7.0's model): every command run is a
// call bracketed by beginCall()/endCall(); brackets nest (EXEC running its
// queue, redis.call in scripts). The outermost bracket is an execution
// unit: effects recorded inside it are held and fed when it ends. A call
// that wrote (the caller says so: the server's dirty counter grew) records
// its argv, or the form given to rewrite(), unless a call nested in it
// recorded the effects itself (EXEC, EVAL, FCALL are never fed as such) or
// it called preventCommand(). Keys deleted by lazy expiry join the unit
// they happen in; active expiry and eviction are fed at once.
//
// Where the stream differs from Redis 7.0.15's: SET with EXAT/PXAT already
// past deletes the key here (Redis keeps it, logically expired), so it is
// fed as DEL/UNLINK, not SET ... PXAT <past>. A sink registered in the
// middle of a unit (CONFIG SET inside MULTI) gets that unit's remaining
// effects one by one.
//
// Module propagate/ (namespace server::propagate): includes nothing of the
// server (sinks register themselves). Included by request/ (call
// brackets), commands/ (rewritten forms), pubsub/, script/, persist/ (the
// AOF sink), repl/ (the replication stream's sink) and the top.
#pragma once

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

namespace server::propagate {

enum Target : unsigned { kToAof = 1, kToReplicas = 2, kToAll = 3 };

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void feed(int db, std::span<const std::string_view> argv) = 0;
  // Which stream this sink writes (see Targets above).
  virtual unsigned target() const { return kToAof; }
};

// For a sink that writes a RESP stream (the AOF, the replication stream):
// appends argv to *out as a RESP command, after "SELECT <db>" when db is not
// *selected_db, which then becomes db.
void appendToStream(std::string* out, int* selected_db, int db,
                    std::span<const std::string_view> argv);

// Registers/unregisters a sink; a sink must unregister before it is destroyed.
void addSink(Sink* sink);
void removeSink(Sink* sink);

namespace detail {
extern int g_sink_count;
}
// True when at least one sink is registered.
inline bool wanted() {
  return detail::g_sink_count != 0;
}

// ---- the call bracket (dispatch's callCommand, blocked-client re-runs)
// Callers test wanted() once before beginCall and pair it with endCall
// whatever wanted() says later (a sink may register during the call).
void beginCall();
// `db` and `argv`: the client's db and request after the command ran;
// `wrote`: the command changed the data set (dirty grew).
void endCall(int db, std::span<const std::string_view> argv, bool wrote);
// True inside a bracket: rewrite()/also()/... have a call to apply to.
bool inCall();

// ---- for command handlers; each is a no-op outside a bracket, so callers
// check wanted() before building arguments.
// The current call is fed as argv instead of its request, if it wrote.
void rewrite(std::span<const std::string_view> argv);
void rewrite(std::initializer_list<std::string_view> argv);
// Records an extra effect now, ahead of the current call's own.
void also(int db, std::span<const std::string_view> argv);
void also(int db, std::initializer_list<std::string_view> argv);
// The current call is not fed itself (it gave its effects through also()).
void preventCommand();
// The current call is fed to `targets` even if it wrote nothing (PUBLISH
// to replicas; FLUSHALL, whose save resets the dirty counter).
void forceCommand(unsigned targets);
// Calls nested in the current one (redis.call in a script) are fed only to
// `targets` (redis.set_repl); resets when the current call ends.
void setNestedTargets(unsigned targets);
// The unit's effects are fed one by one, without MULTI/EXEC, when the
// current call is the outermost: a command that may lazily expire any keys
// (SCAN, RANDOMKEY) run directly, whose deletions are independent, as in
// Redis. Inside EXEC or a script the unit stays wrapped.
void feedUnitBare();

// ---- deletions not caused by a command's own logic
// A key deleted because its TTL passed: "DEL key" ("UNLINK key" when
// freed lazily, lazyfree-lazy-expire). Inside a bracket it joins the
// current unit (lazy expiry); outside, it is fed at once (active expiry).
void keyExpired(int db, std::string_view key, bool lazy_free);
// A key evicted under maxmemory: fed at once ("UNLINK" under
// lazyfree-lazy-eviction).
void keyEvicted(int db, std::string_view key, bool lazy_free);

}  // namespace server::propagate
