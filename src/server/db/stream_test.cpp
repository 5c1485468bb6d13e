#include "server/db/stream.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

namespace server::db {
namespace {

using Entries = std::vector<std::pair<std::string, std::vector<std::string>>>;

Entries read(const Stream& s, StreamID start, StreamID end, bool rev) {
  Entries out;
  StreamIterator it(s, start, end, rev);
  StreamID id;
  int64_t nf;
  while (it.next(&id, &nf)) {
    std::vector<std::string> fv;
    for (int64_t i = 0; i < nf; i++) {
      std::string_view f, v;
      it.field(&f, &v);
      fv.emplace_back(f);
      fv.emplace_back(v);
    }
    out.emplace_back(id.toString(), fv);
  }
  return out;
}

Entries readAll(const Stream& s) {
  return read(s, StreamID{}, StreamID::max(), false);
}

void add(Stream& s, StreamID id, std::vector<std::string_view> fv, const StreamLimits& lim) {
  StreamID got;
  ASSERT_EQ(s.append(fv.data(), fv.size(), &id, true, lim, 0, &got), Stream::AddResult::kOk);
  ASSERT_EQ(got, id);
}

TEST(StreamId, ParsesAndOrders) {
  StreamID a{1, 2}, b{1, 3}, c{2, 0};
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  StreamID m = StreamID::max();
  EXPECT_FALSE(m.incr());
  StreamID z;
  EXPECT_FALSE(z.decr());
  StreamID x{1, UINT64_MAX};
  EXPECT_TRUE(x.incr());
  EXPECT_EQ(x, (StreamID{2, 0}));
  uint8_t raw[16];
  c.encode(raw);
  EXPECT_EQ(raw[7], 2);
  EXPECT_EQ(StreamID::decode(raw), c);
}

TEST(Stream, AutomaticIdsAndSequenceRules) {
  Stream s;
  StreamLimits lim;
  std::vector<std::string_view> fv{"f", "v"};
  StreamID got;
  ASSERT_EQ(s.append(fv.data(), 2, nullptr, true, lim, 1000, &got), Stream::AddResult::kOk);
  EXPECT_EQ(got, (StreamID{1000, 0}));
  // The clock went back: the sequence grows instead.
  ASSERT_EQ(s.append(fv.data(), 2, nullptr, true, lim, 999, &got), Stream::AddResult::kOk);
  EXPECT_EQ(got, (StreamID{1000, 1}));
  StreamID partial{1000, 0};
  ASSERT_EQ(s.append(fv.data(), 2, &partial, false, lim, 0, &got), Stream::AddResult::kOk);
  EXPECT_EQ(got, (StreamID{1000, 2}));
  StreamID old{5, 0};
  EXPECT_EQ(s.append(fv.data(), 2, &old, true, lim, 0, &got), Stream::AddResult::kIdTooSmall);
  EXPECT_EQ(s.length, 3u);
  EXPECT_EQ(s.entries_added, 3u);
  EXPECT_EQ(s.first_id, (StreamID{1000, 0}));
}

TEST(Stream, NodesSplitByEntriesAndBytes) {
  Stream s;
  StreamLimits lim{4096, 3};
  for (uint64_t i = 1; i <= 10; i++) add(s, {i, 0}, {"f", "v"}, lim);
  EXPECT_EQ(s.nodes.size(), 4u);
  Stream b;
  StreamLimits small{60, 0};
  std::string big(20, 'x');
  for (uint64_t i = 1; i <= 10; i++) add(b, {i, 0}, {"field", big}, small);
  EXPECT_GT(b.nodes.size(), 3u);
  EXPECT_EQ(readAll(b).size(), 10u);
}

TEST(Stream, MixedFieldsReadBackForwardAndBackward) {
  Stream s;
  StreamLimits lim{4096, 2};
  add(s, {1, 0}, {"a", "1", "b", "2"}, lim);
  add(s, {2, 0}, {"b", "x"}, lim);
  add(s, {3, 0}, {"a", "-42", "b", "12345678901"}, lim);
  Entries fwd = readAll(s);
  ASSERT_EQ(fwd.size(), 3u);
  EXPECT_EQ(fwd[1].second, (std::vector<std::string>{"b", "x"}));
  EXPECT_EQ(fwd[2].second, (std::vector<std::string>{"a", "-42", "b", "12345678901"}));
  Entries rev = read(s, StreamID{}, StreamID::max(), true);
  ASSERT_EQ(rev.size(), 3u);
  EXPECT_EQ(rev[0].first, "3-0");
  EXPECT_EQ(read(s, {2, 0}, {2, 0}, false).size(), 1u);
  EXPECT_EQ(read(s, {2, 1}, {2, 5}, false).size(), 0u);
}

// Random appends, removals and exact trims against a std::map model.
TEST(Stream, MatchesModelUnderRandomEdits) {
  std::mt19937 rng(7);
  Stream s;
  StreamLimits lim{4096, 5};
  std::map<StreamID, std::string> model;
  uint64_t ms = 1;
  for (int round = 0; round < 3000; round++) {
    int op = static_cast<int>(rng() % 10);
    if (op < 6) {
      ms += rng() % 2;
      std::string v = std::to_string(round);
      std::vector<std::string_view> fv{"f", v};
      StreamID got;
      StreamID want{ms, 0};
      ASSERT_EQ(s.append(fv.data(), 2, &want, false, lim, 0, &got), Stream::AddResult::kOk);
      model[got] = v;
    } else if (op < 9 && !model.empty()) {
      auto it = model.begin();
      std::advance(it, rng() % model.size());
      ASSERT_TRUE(s.remove(it->first));
      ASSERT_FALSE(s.remove(it->first));
      model.erase(it);
    } else {
      TrimArgs t;
      t.strategy = TrimStrategy::kMaxLen;
      t.maxlen = static_cast<int64_t>(rng() % 40);
      int64_t want = model.size() > static_cast<size_t>(t.maxlen)
                         ? static_cast<int64_t>(model.size()) - t.maxlen
                         : 0;
      ASSERT_EQ(s.trim(t), want);
      while (model.size() > static_cast<size_t>(t.maxlen)) model.erase(model.begin());
    }
    ASSERT_EQ(s.length, model.size());
  }
  Entries all = readAll(s);
  ASSERT_EQ(all.size(), model.size());
  size_t i = 0;
  for (auto& [id, v] : model) {
    EXPECT_EQ(all[i].first, id.toString());
    EXPECT_EQ(all[i].second[1], v);
    i++;
  }
}

TEST(Stream, ApproximateTrimDropsWholeNodesOnly) {
  Stream s;
  StreamLimits lim{4096, 10};
  for (uint64_t i = 1; i <= 35; i++) add(s, {i, 0}, {"f", "v"}, lim);
  TrimArgs t;
  t.strategy = TrimStrategy::kMaxLen;
  t.approx = true;
  t.maxlen = 12;
  EXPECT_EQ(s.trim(t), 20);
  EXPECT_EQ(s.length, 15u);
  EXPECT_EQ(s.first_id, (StreamID{21, 0}));
}

// The node index behaves as the ordered map it replaces: front erases leave
// a gap that later inserts close, middle erases and out-of-order inserts
// keep the order, lookups find the node holding an ID.
TEST(StreamNodeIndex, KeepsOrderThroughFrontAndMiddleErases) {
  StreamNodeIndex idx;
  std::map<uint64_t, std::string> model;
  std::mt19937 rng(7);
  uint64_t next = 1;
  for (int step = 0; step < 3000; step++) {
    int op = static_cast<int>(rng() % 10);
    if (op < 5 || model.empty()) {
      uint64_t k = next;
      next += 1 + rng() % 3;
      idx.insert({k, 0}).lp.append(std::to_string(k));
      model[k] = std::to_string(k);
    } else if (op < 8) {
      idx.erase(idx.begin());
      model.erase(model.begin());
    } else if (op < 9) {
      auto it = idx.upper_bound({model.rbegin()->first / 2, 0});
      if (it != idx.end()) {
        model.erase(it->first.ms);
        idx.erase(it);
      }
    } else {
      uint64_t k = 1 + rng() % next;  // an insert in the middle, if free
      if (!model.count(k)) {
        idx.insert({k, 0}).lp.append(std::to_string(k));
        model[k] = std::to_string(k);
      }
    }
    ASSERT_EQ(idx.size(), model.size());
    auto m = model.begin();
    for (const auto& [id, node] : idx) {
      ASSERT_EQ(id.ms, m->first);
      ASSERT_EQ(node.lp.get(node.lp.first()).toString(), m->second);
      ++m;
    }
    if (!model.empty()) {
      uint64_t probe = model.begin()->first + rng() % next;
      auto u = model.upper_bound(probe);
      auto it = idx.upper_bound({probe, 0});
      ASSERT_EQ(it == idx.end(), u == model.end());
      if (u != model.end()) {
        ASSERT_EQ(it->first.ms, u->first);
      }
      ASSERT_EQ(idx.contains({probe, 0}), model.count(probe) == 1);
    }
  }
  // Freed front slots are reused rather than the array growing forever.
  size_t cap = idx.allocatedBytes();
  for (int i = 0; i < 100000; i++) {
    idx.insert({next++, 0});
    idx.erase(idx.begin());
  }
  EXPECT_LE(idx.allocatedBytes(), 2 * cap + 1024);
}

}  // namespace
}  // namespace server::db
