// RdbReader over a stream (a replica's diskless load): loading an RDB whose
// bytes arrive a few at a time must give exactly what loading the same
// bytes from memory gives, verify the checksum across the reader's buffer
// changes, keep every returned view valid until release(), and fail with
// the source's reason when the bytes stop.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/crc64.h"
#include "server/persist/digest.h"
#include "server/persist/rdb_file.h"
#include "server/persist/rdb_format.h"
#include "server/persist/rdb_io.h"

namespace server::persist {
namespace {

// Hands out `data` in pieces of 1 to max_piece bytes (never more than the
// reader's cap), then fails as a dropped connection would.
class DribbleSource : public RdbReader::Source {
 public:
  DribbleSource(std::string data, size_t max_piece, bool announce_length)
      : data_(std::move(data)), max_piece_(max_piece), announce_(announce_length) {}

  bool fill(uint8_t* buf, size_t min, size_t cap, size_t* got, std::string* err) override {
    *got = 0;
    while (*got < min) {
      if (pos_ == data_.size()) {
        *err = "connection lost";
        return false;
      }
      size_t piece = std::min({1 + rng_() % max_piece_, cap - *got, data_.size() - pos_});
      memcpy(buf + *got, data_.data() + pos_, piece);
      pos_ += piece;
      *got += piece;
    }
    return true;
  }
  int64_t left() const override {
    return announce_ ? static_cast<int64_t>(data_.size() - pos_) : -1;
  }

 private:
  std::string data_;
  size_t pos_ = 0;
  size_t max_piece_;
  bool announce_;
  std::mt19937 rng_{7};
};

// An RDB image: a string, an LZF-compressible string, a list, and a hash
// too big for a listpack (its fields and values read as two views at once).
std::string sampleRdb(bool with_crc = true) {
  RdbWriter w;
  w.raw("REDIS0010", 9);
  w.byte(kOpAux);
  w.string("redis-ver");
  w.string("7.0.15");
  w.byte(kOpSelectDb);
  w.length(0);
  w.byte(kTypeString);
  w.string("plain");
  w.string("hello");
  w.byte(kTypeString);
  w.string("squeezable");
  w.string(std::string(5000, 'z'));
  w.byte(kOpSelectDb);
  w.length(3);
  w.byte(kTypeList);
  w.string("numbers");
  w.length(300);
  for (int i = 0; i < 300; i++) w.string("element-" + std::to_string(i));
  w.byte(kTypeHash);
  w.string("wide");
  w.length(2000);
  for (int i = 0; i < 2000; i++) {
    w.string("field:" + std::to_string(i));
    w.string(std::string(40, static_cast<char>('a' + i % 26)));
  }
  w.byte(kOpEof);
  std::string b = w.buffer();
  uint64_t crc =
      with_crc ? common::crc64(0, reinterpret_cast<const uint8_t*>(b.data()), b.size()) : 0;
  for (int i = 0; i < 8; i++) b.push_back(static_cast<char>(crc >> (8 * i)));
  return b;
}

std::vector<db::Db*> raw(const std::vector<std::unique_ptr<db::Db>>& dbs) {
  std::vector<db::Db*> out;
  for (const auto& d : dbs) out.push_back(d.get());
  return out;
}

TEST(RdbStreamLoad, SameDataAsFromMemoryWhateverThePieces) {
  std::string rdb = sampleRdb();
  std::vector<std::unique_ptr<db::Db>> want;
  LoadStats ws;
  std::string err;
  ASSERT_TRUE(loadRdbBytes(reinterpret_cast<const uint8_t*>(rdb.data()), rdb.size(), 16,
                           LoadLimits(), true, 0, &want, &ws, &err))
      << err;
  ASSERT_EQ(ws.keys, 4u);
  for (size_t piece : {1, 7, 4096, 1 << 20}) {
    for (bool announce : {true, false}) {
      DribbleSource src(rdb, piece, announce);
      RdbReader r(&src);
      std::vector<std::unique_ptr<db::Db>> got;
      LoadStats gs;
      ASSERT_TRUE(loadRdb(r, announce ? rdb.size() : 0, 16, LoadLimits(), true, 0, &got, &gs, &err))
          << "pieces of " << piece << ": " << err;
      EXPECT_EQ(gs.keys, 4u);
      EXPECT_EQ(r.offset(), rdb.size());
      EXPECT_EQ(datasetDigest(raw(got)), datasetDigest(raw(want))) << "pieces of " << piece;
    }
  }
}

TEST(RdbStreamLoad, ChecksumMismatchIsFoundAcrossBuffers) {
  std::string rdb = sampleRdb();
  rdb[rdb.size() - 3] ^= 0x40;  // the stored checksum no longer matches
  DribbleSource src(rdb, 999, false);
  RdbReader r(&src);
  std::vector<std::unique_ptr<db::Db>> got;
  LoadStats st;
  std::string err;
  EXPECT_FALSE(loadRdb(r, 0, 16, LoadLimits(), true, 0, &got, &st, &err));
  EXPECT_NE(err.find("RDB CRC error"), std::string::npos) << err;
  EXPECT_TRUE(got.empty());
}

TEST(RdbStreamLoad, AStreamThatStopsFailsWithTheSourcesReason) {
  std::string rdb = sampleRdb();
  for (size_t cut : {size_t{5}, size_t{200}, rdb.size() / 2, rdb.size() - 4}) {
    DribbleSource src(rdb.substr(0, cut), 100, false);
    RdbReader r(&src);
    std::vector<std::unique_ptr<db::Db>> got;
    LoadStats st;
    std::string err;
    EXPECT_FALSE(loadRdb(r, 0, 16, LoadLimits(), true, 0, &got, &st, &err)) << cut;
    EXPECT_NE(err.find("Internal error in RDB reading offset"), std::string::npos) << err;
    EXPECT_NE(err.find("connection lost"), std::string::npos) << err;
  }
}

TEST(RdbStreamLoad, AnnouncedLengthBoundsCountsAndReads) {
  // A string claiming more bytes than the stream announced is refused at
  // once, without waiting for (or allocating) them.
  RdbWriter w;
  w.length(1000000);
  std::string bytes = w.buffer() + "short";
  DribbleSource src(bytes, 3, true);
  RdbReader r(&src);
  std::string s;
  EXPECT_FALSE(r.string(&s));
  // Not the source's "connection lost": the reader never asked for them.
  EXPECT_EQ(r.error(), RdbReader::kShortRead);
}

TEST(RdbStreamLoad, ViewsStayValidUntilRelease) {
  RdbWriter w;
  w.setCompression(false);  // plain strings: views into the reader's buffers
  for (int i = 0; i < 50; i++) w.string(std::string(1000, static_cast<char>('A' + i % 26)));
  DribbleSource src(w.buffer(), 500, false);
  RdbReader r(&src);
  std::vector<std::string_view> views;
  std::string scratch;
  for (int i = 0; i < 50; i++) {
    std::string_view v;
    ASSERT_TRUE(r.stringView(&v, &scratch));
    views.push_back(v);
  }
  // Every view taken so far still reads its bytes: the reader changed
  // buffers many times but kept the earlier ones.
  for (int i = 0; i < 50; i++)
    EXPECT_EQ(views[i], std::string(1000, static_cast<char>('A' + i % 26)));
  r.release(false);
  EXPECT_EQ(r.offset(), w.buffer().size());
}

TEST(RdbStreamLoad, BytesAfterTheRdbStayBuffered) {
  std::string rdb = sampleRdb();
  std::string after = "0123456789012345678901234567890123456789*1\r\n$4\r\nPING\r\n";
  DribbleSource src(rdb + after, 1 << 20, false);
  RdbReader r(&src);
  std::vector<std::unique_ptr<db::Db>> got;
  LoadStats st;
  std::string err;
  ASSERT_TRUE(loadRdb(r, 0, 16, LoadLimits(), true, 0, &got, &st, &err)) << err;
  EXPECT_EQ(r.buffered(), after);
}

}  // namespace
}  // namespace server::persist
