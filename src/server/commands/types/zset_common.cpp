#include "server/commands/types/zset_common.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "common/strutil.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/request/keyspace.h"

namespace server {

namespace {

bool fitsListpack(size_t size, size_t max_len) {
  const Config& cfg = g_server->config;
  return size <= static_cast<size_t>(cfg.zset_max_listpack_entries) &&
         max_len <= static_cast<size_t>(cfg.zset_max_listpack_value);
}

// One bound of a score range, read as Redis reads it (strtod over the whole
// text, so "(" alone is an open 0 and leading spaces pass); NaN refused.
bool parseScoreBound(std::string_view s, double* v, bool* exclusive) {
  *exclusive = !s.empty() && s[0] == '(';
  if (*exclusive) s.remove_prefix(1);
  std::string buf(s);
  char* end = nullptr;
  *v = strtod(buf.c_str(), &end);
  return *end == '\0' && !std::isnan(*v);
}

bool parseLexBound(std::string_view s, std::string* value, db::LexRange::Bound* kind,
                   bool* exclusive) {
  if (s.empty()) return false;
  *exclusive = false;
  switch (s[0]) {
    case '+':
    case '-':
      if (s.size() != 1) return false;
      *kind = s[0] == '+' ? db::LexRange::kPosInf : db::LexRange::kNegInf;
      return true;
    case '(':
    case '[':
      *kind = db::LexRange::kValue;
      *exclusive = s[0] == '(';
      value->assign(s.substr(1));
      return true;
    default:
      return false;
  }
}

}  // namespace

db::ZSet* newZSet(size_t size_hint, size_t max_len) {
  if (g_server->config.zset_max_listpack_entries == 0 || !fitsListpack(size_hint, max_len))
    return new db::SkiplistZSet();
  return new db::ListpackZSet();
}

db::ZSet* zsetMakeRoom(db::Entry* e, size_t new_members, size_t max_len) {
  db::ZSet* z = zsetOf(e);
  if (!z->isListpack() || fitsListpack(z->size() + new_members, max_len)) return z;
  db::ZSet* big = db::toSkiplist(*z);
  e->val = db::Value::fromCollection(db::Kind::kZSet, big);
  return big;
}

void zsetStoreResult(Client* c, std::string_view key, const ZElements& elements,
                     const char* event) {
  db::Db* d = c->db();
  if (elements.empty()) {
    deleteStoreTarget(c, key);
    return;
  }
  size_t max_len = 0;
  for (const auto& [m, s] : elements) max_len = std::max(max_len, m.size());
  db::ZSet* z;
  if (g_server->config.zset_max_listpack_entries != 0 && fitsListpack(elements.size(), max_len)) {
    auto* lp = new db::ListpackZSet();
    for (const auto& [m, s] : elements) lp->appendSorted(m, s);
    z = lp;
  } else {
    auto* sl = new db::SkiplistZSet();
    sl->reserve(elements.size());
    for (const auto& [m, s] : elements) sl->set(m, s);
    z = sl;
  }
  d->set(key, db::Value::fromCollection(db::Kind::kZSet, z), false);
  keyModified(c, key);
  notify::keyEvent(c, notify::kZset, event, key);
}

bool readZSet(Client* c, std::string_view key, db::ZSet** z) {
  bool wrongtype;
  db::Entry* e = lookupReadKind(c, key, db::Kind::kZSet, &wrongtype);
  if (wrongtype) return false;
  *z = e ? zsetOf(e) : nullptr;
  return true;
}

void zsetAfterRemove(Client* c, db::Entry* e, std::string_view key, const char* event) {
  db::ZSet* z = zsetOf(e);
  bool deleted = z->size() == 0;
  if (deleted) {
    c->db()->removeEntry(e);
  } else if (!z->isListpack()) {
    static_cast<db::SkiplistZSet*>(z)->maybeShrink();
  }
  keyModified(c, key);
  notify::keyEvent(c, notify::kZset, event, key);
  if (deleted) notify::keyEvent(c, notify::kGeneric, "del", key);
}

bool argScore(Client* c, size_t i, double* out) {
  if (!common::strutil::parseDouble(c->arg(i), out)) {
    c->addNotFloat();
    return false;
  }
  return true;
}

bool parseScoreRange(std::string_view min, std::string_view max, db::ScoreRange* r) {
  return parseScoreBound(min, &r->min, &r->minex) && parseScoreBound(max, &r->max, &r->maxex);
}

bool parseLexRange(std::string_view min, std::string_view max, db::LexRange* r) {
  return parseLexBound(min, &r->min, &r->min_kind, &r->minex) &&
         parseLexBound(max, &r->max, &r->max_kind, &r->maxex);
}

void replyScore(Client* c, double score) {
  c->reply().doubleValue(score);
}

void replyElements(Client* c, const ZElements& elements, bool withscores) {
  ZElementsReply out(c, withscores);
  for (const auto& [m, s] : elements) out.add(m, s);
  out.end();
}

ZElementsReply::ZElementsReply(Client* c, bool withscores)
    : c_(c), withscores_(withscores), slot_(c->reply().beginDeferred()) {}

void ZElementsReply::add(std::string_view member, double score) {
  if (withscores_ && c_->proto() >= 3) c_->addArrayLen(2);
  c_->addBulk(member);
  if (withscores_) replyScore(c_, score);
  n_++;
}

void ZElementsReply::end() {
  int64_t n = static_cast<int64_t>(n_);
  if (withscores_ && c_->proto() < 3) n *= 2;
  c_->reply().endDeferredArray(slot_, n);
}

}  // namespace server
