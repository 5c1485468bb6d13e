// The feeding core: a stack of call frames and the effects of the current
// execution unit, fed to the sinks when the outermost call ends.
//
// Everything here is reused between commands (frames, the pending ops and
// their strings) so that a command with sinks registered does not allocate
// once the buffers have grown; with no sink, none of it runs.
#include "server/propagate/propagate.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

namespace server::propagate {

namespace detail {
int g_sink_count = 0;
}

namespace {

struct Frame {
  bool nested = false;       // a call ran inside this one
  bool prevent = false;      // preventCommand()
  bool has_rewrite = false;  // rewrite() gave the form to feed
  unsigned forced = 0;       // forceCommand() targets
  unsigned targets = kToAll;
  unsigned child_targets = kToAll;  // setNestedTargets()
  std::vector<std::string> rewrite;
};

struct Op {
  int db = 0;
  unsigned targets = kToAll;
  std::vector<std::string> argv;
};

struct State {
  std::vector<Sink*> sinks;
  std::vector<Frame> frames;  // frames[0 .. depth) are live
  size_t depth = 0;
  std::vector<Op> pending;  // pending[0 .. npending) hold this unit's effects
  size_t npending = 0;
  std::vector<std::string_view> views;  // scratch for feeding an Op
  bool bare = false;                    // feedUnitBare(): no MULTI/EXEC this unit
};

State& st() {
  static State s;
  return s;
}

void feedAll(int db, unsigned targets, std::span<const std::string_view> argv) {
  State& s = st();
  // By index: the contract forbids changing the sinks from feed(), but a
  // sink that drops itself must not make this loop read freed memory.
  for (size_t i = 0; i < s.sinks.size(); i++) {
    Sink* sink = s.sinks[i];
    if ((sink->target() & targets) != 0) sink->feed(db, argv);
  }
}

template <typename Range>
void record(int db, unsigned targets, const Range& argv) {
  State& s = st();
  if (s.npending == s.pending.size()) s.pending.emplace_back();
  Op& op = s.pending[s.npending++];
  op.db = db;
  op.targets = targets;
  op.argv.resize(std::size(argv));
  size_t i = 0;
  for (const auto& a : argv) op.argv[i++].assign(a.data(), a.size());
}

void flush() {
  State& s = st();
  size_t n = s.npending;
  bool bare = s.bare;
  s.bare = false;
  if (n == 0) return;
  s.npending = 0;  // before feeding: nothing a sink does may see them again
  static constexpr std::string_view kMulti[] = {"MULTI"};
  static constexpr std::string_view kExec[] = {"EXEC"};
  bool wrap = n > 1 && !bare;
  if (wrap) feedAll(s.pending[0].db, kToAll, kMulti);
  for (size_t i = 0; i < n; i++) {
    Op& op = s.pending[i];
    s.views.assign(op.argv.begin(), op.argv.end());
    feedAll(op.db, op.targets, s.views);
  }
  if (wrap) feedAll(s.pending[n - 1].db, kToAll, kExec);
}

Frame* top() {
  State& s = st();
  return s.depth == 0 ? nullptr : &s.frames[s.depth - 1];
}

}  // namespace

void addSink(Sink* sink) {
  State& s = st();
  if (std::find(s.sinks.begin(), s.sinks.end(), sink) != s.sinks.end()) return;
  s.sinks.push_back(sink);
  detail::g_sink_count = static_cast<int>(s.sinks.size());
}

void removeSink(Sink* sink) {
  State& s = st();
  auto it = std::find(s.sinks.begin(), s.sinks.end(), sink);
  if (it == s.sinks.end()) return;
  s.sinks.erase(it);
  detail::g_sink_count = static_cast<int>(s.sinks.size());
}

void beginCall() {
  State& s = st();
  if (s.depth == s.frames.size()) s.frames.emplace_back();
  unsigned inherited = kToAll;
  if (s.depth > 0) {
    Frame& parent = s.frames[s.depth - 1];
    parent.nested = true;
    inherited = parent.targets & parent.child_targets;
  }
  Frame& f = s.frames[s.depth++];
  f.nested = false;
  f.prevent = false;
  f.has_rewrite = false;
  f.forced = 0;
  f.targets = inherited;
  f.child_targets = kToAll;
}

void endCall(int db, std::span<const std::string_view> argv, bool wrote) {
  State& s = st();
  if (s.depth == 0) return;  // unpaired: nothing to close
  Frame& f = s.frames[--s.depth];
  if (!f.nested && !f.prevent) {
    unsigned targets = (wrote ? f.targets : 0u) | (f.forced & f.targets);
    if (targets != 0) {
      if (s.depth == 0 && s.npending == 0) {
        // The usual case, a unit of one effect: fed from the command's own
        // arguments, without the copy a unit of several needs.
        if (f.has_rewrite) {
          s.views.assign(f.rewrite.begin(), f.rewrite.end());
          feedAll(db, targets, s.views);
        } else {
          feedAll(db, targets, argv);
        }
        return;
      }
      if (f.has_rewrite) {
        record(db, targets, f.rewrite);
      } else {
        record(db, targets, argv);
      }
    }
  }
  if (s.depth == 0) flush();
}

bool inCall() {
  return st().depth != 0;
}

void rewrite(std::span<const std::string_view> argv) {
  Frame* f = top();
  if (f == nullptr) return;
  f->has_rewrite = true;
  f->rewrite.resize(argv.size());
  for (size_t i = 0; i < argv.size(); i++) f->rewrite[i].assign(argv[i].data(), argv[i].size());
}

void rewrite(std::initializer_list<std::string_view> argv) {
  rewrite(std::span<const std::string_view>(argv.begin(), argv.size()));
}

void also(int db, std::span<const std::string_view> argv) {
  Frame* f = top();
  if (f == nullptr || f->targets == 0) return;
  record(db, f->targets, argv);
}

void also(int db, std::initializer_list<std::string_view> argv) {
  also(db, std::span<const std::string_view>(argv.begin(), argv.size()));
}

void preventCommand() {
  if (Frame* f = top()) f->prevent = true;
}

void forceCommand(unsigned targets) {
  if (Frame* f = top()) f->forced |= targets;
}

void setNestedTargets(unsigned targets) {
  if (Frame* f = top()) f->child_targets = targets & kToAll;
}

void feedUnitBare() {
  State& s = st();
  if (s.depth == 1) s.bare = true;
}

namespace {
constexpr size_t kHeaderMax = 24;  // '$', 20 digits, CRLF

// Writes "<prefix><n>\r\n" at p; returns the end.
char* putHeader(char* p, char prefix, size_t n) {
  *p++ = prefix;
  p = std::to_chars(p, p + 20, n).ptr;
  *p++ = '\r';
  *p++ = '\n';
  return p;
}

// Writes "$<len>\r\n<a>\r\n" at p (room for a.size() + kHeaderMax + 2).
char* putBulk(char* p, std::string_view a) {
  p = putHeader(p, '$', a.size());
  memcpy(p, a.data(), a.size());
  p += a.size();
  *p++ = '\r';
  *p++ = '\n';
  return p;
}

// The SELECT before a command of another database; at most 48 bytes.
char* putSelect(char* p, int db) {
  static constexpr std::string_view kSelect = "*2\r\n$6\r\nSELECT\r\n";
  memcpy(p, kSelect.data(), kSelect.size());
  char num[16];
  char* end = std::to_chars(num, num + sizeof(num), db).ptr;
  return putBulk(p + kSelect.size(), std::string_view(num, static_cast<size_t>(end - num)));
}
}  // namespace

void appendToStream(std::string* out, int* selected_db, int db,
                    std::span<const std::string_view> argv) {
  size_t need = 48 + kHeaderMax + (kHeaderMax + 2) * argv.size();
  for (std::string_view a : argv) need += a.size();
  bool select = db != *selected_db;
  *selected_db = db;
  // A small command (most are) is formatted on the stack and appended at
  // once; a big one piece by piece, after one growth of out.
  char small[512];
  if (need <= sizeof(small)) {
    char* p = small;
    if (select) p = putSelect(p, db);
    p = putHeader(p, '*', argv.size());
    for (std::string_view a : argv) p = putBulk(p, a);
    out->append(small, static_cast<size_t>(p - small));
    return;
  }
  out->reserve(out->size() + need);
  char* p = small;
  if (select) p = putSelect(p, db);
  p = putHeader(p, '*', argv.size());
  out->append(small, static_cast<size_t>(p - small));
  for (std::string_view a : argv) {
    out->append(small, static_cast<size_t>(putHeader(small, '$', a.size()) - small));
    out->append(a.data(), a.size());
    out->append("\r\n", 2);
  }
}

void keyExpired(int db, std::string_view key, bool lazy_free) {
  std::string_view argv[] = {lazy_free ? "UNLINK" : "DEL", key};
  if (top() != nullptr) {
    // The effect of expiry is not subject to redis.set_repl: replicas and
    // the AOF must lose the key too.
    record(db, kToAll, argv);
  } else {
    feedAll(db, kToAll, argv);
  }
}

void keyEvicted(int db, std::string_view key, bool lazy_free) {
  std::string_view argv[] = {lazy_free ? "UNLINK" : "DEL", key};
  feedAll(db, kToAll, argv);
}

}  // namespace server::propagate
