// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN]: the longest
// common subsequence of two string values (see string_algo.h for the
// algorithm and the order of the reported ranges).
#include <string>

#include "common/strutil.h"
#include "server/commands/subfamilies.h"
#include "server/commands/types/string_algo.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/request/keyspace.h"

namespace server {
namespace {

struct LcsOptions {
  bool len = false;
  bool idx = false;
  bool with_match_len = false;
  int64_t min_match_len = 0;
};

bool parseLcsOptions(Client* c, LcsOptions* o) {
  for (size_t i = 3; i < c->argc(); i++) {
    std::string_view opt = c->arg(i);
    bool has_next = i + 1 < c->argc();
    if (common::strutil::equalsIgnoreCase(opt, "IDX")) {
      o->idx = true;
    } else if (common::strutil::equalsIgnoreCase(opt, "LEN")) {
      o->len = true;
    } else if (common::strutil::equalsIgnoreCase(opt, "WITHMATCHLEN")) {
      o->with_match_len = true;
    } else if (common::strutil::equalsIgnoreCase(opt, "MINMATCHLEN") && has_next) {
      if (!c->argInt64(++i, &o->min_match_len)) return false;
      if (o->min_match_len < 0) o->min_match_len = 0;
    } else {
      c->addSyntaxError();
      return false;
    }
  }
  if (o->idx && o->len) {
    c->addError("If you want both the length and indexes, please just use IDX.");
    return false;
  }
  return true;
}

void replyMatches(Client* c, const stralgo::LcsResult& r, const LcsOptions& o) {
  resp::Writer& w = c->reply();
  w.mapLen(2);
  w.bulk("matches");
  int64_t shown = 0;
  for (const auto& m : r.matches) {
    if (static_cast<int64_t>(m.length()) >= o.min_match_len) shown++;
  }
  w.arrayLen(shown);
  for (const auto& m : r.matches) {
    if (static_cast<int64_t>(m.length()) < o.min_match_len) continue;
    w.arrayLen(o.with_match_len ? 3 : 2);
    w.arrayLen(2);
    w.integer(m.a_start);
    w.integer(m.a_end);
    w.arrayLen(2);
    w.integer(m.b_start);
    w.integer(m.b_end);
    if (o.with_match_len) w.integer(m.length());
  }
  w.bulk("len");
  w.integer(r.length);
}

void lcsCommand(Client* c) {
  db::Entry* ea = lookupRead(c, c->arg(1));
  db::Entry* eb = lookupRead(c, c->arg(2));
  if ((ea != nullptr && !ea->val.isString()) || (eb != nullptr && !eb->val.isString())) {
    c->addError("The specified keys must contain string values");
    return;
  }
  LcsOptions o;
  if (!parseLcsOptions(c, &o)) return;
  // Entries never move in memory (the dict is intrusive), so both views stay
  // valid; int-encoded values are spelled out into these scratch buffers.
  char sa[24], sb[24];
  std::string_view a = ea != nullptr ? ea->val.str(sa) : std::string_view();
  std::string_view b = eb != nullptr ? eb->val.str(sb) : std::string_view();
  if (a.size() >= UINT32_MAX - 1 || b.size() >= UINT32_MAX - 1) {
    c->addError("String too long for LCS");
    return;
  }
  if (stralgo::lcsTableBytes(a.size(), b.size()) >
      static_cast<uint64_t>(g_server->config.proto_max_bulk_len)) {
    c->addError("Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
    return;
  }
  stralgo::LcsResult r = stralgo::computeLcs(a, b, !o.len && !o.idx, o.idx);
  if (o.idx)
    replyMatches(c, r, o);
  else if (o.len)
    c->addInteger(r.length);
  else
    c->addBulk(r.text);
}

}  // namespace

void registerLcsCommand(CommandTable& t) {
  t.add({"lcs", -3, kReadOnly, lcsCommand, 1, 2, 1, "string", "Find longest common substring",
         "7.0.0", "O(N*M) where N and M are the lengths of s1 and s2, respectively",
         "read string slow"});
}

}  // namespace server
