#include "server/persist/rdb_stream.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "server/persist/rdb_io.h"

namespace server::db {
namespace {

std::vector<std::string> flat(const Stream& s) {
  std::vector<std::string> out;
  StreamIterator it(s, StreamID{}, StreamID::max(), false);
  StreamID id;
  int64_t nf;
  while (it.next(&id, &nf)) {
    out.push_back(id.toString());
    for (int64_t i = 0; i < nf; i++) {
      std::string_view f, v;
      it.field(&f, &v);
      out.emplace_back(f);
      out.emplace_back(v);
    }
  }
  return out;
}

void add(Stream& s, StreamID id, std::vector<std::string_view> fv, const StreamLimits& lim) {
  StreamID got;
  ASSERT_EQ(s.append(fv.data(), fv.size(), &id, true, lim, 0, &got), Stream::AddResult::kOk);
}

TEST(Stream, RdbRoundTripKeepsGroupsAndPel) {
  Stream s;
  StreamLimits lim{4096, 2};
  for (uint64_t i = 1; i <= 5; i++) add(s, {i, 0}, {"f", std::to_string(i)}, lim);
  s.remove({2, 0});
  s.max_deleted_id = {2, 0};
  StreamGroup* g = s.createGroup("g", {3, 0}, 2);
  StreamConsumer* c = g->createConsumer("alice", 77);
  auto nack = std::make_unique<StreamNack>();
  nack->delivery_time = 1234;
  nack->delivery_count = 3;
  nack->consumer = c;
  c->pel[{3, 0}] = nack.get();
  g->pel[{3, 0}] = std::move(nack);
  g->createConsumer("bob", 88);

  persist::RdbWriter w;
  persist::saveStream(w, s);
  const std::string& bytes = w.buffer();
  persist::RdbReader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  Value v;
  ASSERT_TRUE(persist::loadStream(r, 19, &v)) << r.error();
  const Stream& l = *asStream(v);
  EXPECT_EQ(flat(l), flat(s));
  EXPECT_EQ(l.length, 4u);
  EXPECT_EQ(l.max_deleted_id, (StreamID{2, 0}));
  StreamGroup* lg = l.findGroup("g");
  ASSERT_NE(lg, nullptr);
  EXPECT_EQ(lg->entries_read, 2);
  ASSERT_EQ(lg->pel.size(), 1u);
  EXPECT_EQ(lg->pel.begin()->second->consumer->name, "alice");
  EXPECT_EQ(lg->pel.begin()->second->delivery_count, 3u);
  EXPECT_NE(lg->findConsumer("bob"), nullptr);

  // Cut anywhere, the payload is refused without crashing.
  for (size_t cut = 0; cut < bytes.size(); cut += 3) {
    persist::RdbReader rc(reinterpret_cast<const uint8_t*>(bytes.data()), cut);
    Value dv;
    EXPECT_FALSE(persist::loadStream(rc, 19, &dv));
  }
}

// Every byte flipped in turn: the payload is refused, or it loads into a
// stream that can be walked, trimmed and saved again.
TEST(RdbStream, FlippedBytesNeverBreakTheStream) {
  Stream s;
  StreamLimits lim{4096, 3};
  for (uint64_t i = 1; i <= 8; i++) add(s, {i, i}, {"f", std::to_string(i * 1000), "g", "x"}, lim);
  s.remove({3, 3});
  StreamGroup* g = s.createGroup("grp", {4, 4}, 4);
  StreamConsumer* c = g->createConsumer("c", 5);
  auto nack = std::make_unique<StreamNack>();
  nack->consumer = c;
  c->pel[{2, 2}] = nack.get();
  g->pel[{2, 2}] = std::move(nack);
  persist::RdbWriter w;
  w.setCompression(false);
  persist::saveStream(w, s);
  const std::string good = w.buffer();
  for (size_t i = 0; i < good.size(); i++) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ mask);
      persist::RdbReader r(reinterpret_cast<const uint8_t*>(bad.data()), bad.size());
      Value v;
      if (!persist::loadStream(r, 19, &v)) continue;
      Stream& l = *asStream(v);
      flat(l);
      StreamID last;
      l.edgeId(false, false, &last);
      l.remove(last);
      TrimArgs t;
      t.strategy = TrimStrategy::kMaxLen;
      t.maxlen = 2;
      l.trim(t);
      persist::RdbWriter w2;
      persist::saveStream(w2, l);
    }
  }
}

}  // namespace
}  // namespace server::db
