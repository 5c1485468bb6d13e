#include "server/db/listpack.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace server::db {
namespace {

std::vector<std::string> contents(const Listpack& lp) {
  std::vector<std::string> out;
  for (auto p = lp.first(); p != Listpack::kNone; p = lp.next(p))
    out.push_back(lp.get(p).toString());
  return out;
}

std::vector<std::string> contentsBackwards(const Listpack& lp) {
  std::vector<std::string> out;
  for (auto p = lp.last(); p != Listpack::kNone; p = lp.prev(p))
    out.insert(out.begin(), lp.get(p).toString());
  return out;
}

TEST(Listpack, EmptyHasNoBufferAndNoElements) {
  Listpack lp;
  EXPECT_EQ(lp.size(), 0u);
  EXPECT_EQ(lp.bytes(), 0u);
  EXPECT_EQ(lp.first(), Listpack::kNone);
  EXPECT_EQ(lp.last(), Listpack::kNone);
  EXPECT_EQ(lp.at(0), Listpack::kNone);
  EXPECT_EQ(lp.find("x"), Listpack::kNone);
}

TEST(Listpack, IntegersAndStringsRoundTripByteExact) {
  const std::vector<std::string> values = {"0",
                                           "127",
                                           "128",
                                           "-1",
                                           "-4096",
                                           "4095",
                                           "-4097",
                                           "32767",
                                           "-32768",
                                           "32768",
                                           "2147483647",
                                           "-2147483648",
                                           "2147483648",
                                           "9223372036854775807",
                                           "-9223372036854775808",
                                           "9223372036854775808",
                                           "012",
                                           "+1",
                                           "-0",
                                           " 1",
                                           "1 ",
                                           "",
                                           "hello",
                                           std::string(63, 'a'),
                                           std::string(64, 'b'),
                                           std::string(65535, 'c'),
                                           std::string(65536, 'd'),
                                           std::string(1, '\0')};
  Listpack lp;
  for (const auto& v : values) lp.append(v);
  EXPECT_EQ(lp.size(), values.size());
  EXPECT_EQ(contents(lp), values);
  EXPECT_EQ(contentsBackwards(lp), values);
  // Canonical integers are stored as integers, everything else as bytes.
  EXPECT_TRUE(lp.get(lp.at(0)).is_int);
  EXPECT_TRUE(lp.get(lp.at(14)).is_int);   // INT64_MIN
  EXPECT_FALSE(lp.get(lp.at(15)).is_int);  // one past INT64_MAX
  EXPECT_FALSE(lp.get(lp.at(16)).is_int);  // "012"
  for (size_t i = 0; i < values.size(); i++) {
    EXPECT_TRUE(lp.get(lp.at(static_cast<int64_t>(i))).equals(values[i])) << i;
    EXPECT_EQ(lp.find(values[i]), lp.at(static_cast<int64_t>(i))) << i;
  }
}

TEST(Listpack, SmallElementsAreCompact) {
  Listpack lp;
  lp.append("5");       // tag + backlen
  lp.append("field1");  // tag + 6 bytes + backlen
  lp.append("1000");    // 13-bit int: 2 + backlen
  EXPECT_EQ(lp.bytes(), Listpack::kHeader + 2 + 8 + 3);
  EXPECT_EQ(listpackEncodedSize("field1"), 8u);
  EXPECT_EQ(listpackEncodedSize(std::string(200, 'x')), 3u + 200u + 2u);
}

TEST(Listpack, NegativeIndexesAndFindWithSkip) {
  Listpack lp;
  for (const char* s : {"f1", "v1", "f2", "f1", "f3", "v3"}) lp.append(s);
  EXPECT_EQ(lp.get(lp.at(-1)).toString(), "v3");
  EXPECT_EQ(lp.get(lp.at(-6)).toString(), "f1");
  EXPECT_EQ(lp.at(-7), Listpack::kNone);
  EXPECT_EQ(lp.at(6), Listpack::kNone);
  // With skip = 1 only fields (even positions) are compared: "f1" as the
  // value of f2 is not a field.
  auto p = lp.find("f1", 1, lp.at(2));
  EXPECT_EQ(p, Listpack::kNone);
  EXPECT_EQ(lp.find("f3", 1), lp.at(4));
  EXPECT_EQ(lp.find("v1", 1), Listpack::kNone);
  EXPECT_EQ(lp.find("v1", 0), lp.at(1));
}

TEST(Listpack, InsertReplaceEraseKeepOrder) {
  Listpack lp;
  lp.append("b");
  lp.prepend("a");
  lp.insertBefore(Listpack::kNone, "d");
  lp.insertBefore(lp.at(2), "c");
  EXPECT_EQ(contents(lp), (std::vector<std::string>{"a", "b", "c", "d"}));
  lp.replace(lp.at(1), std::string(300, 'B'));
  lp.replace(lp.at(2), "3");
  EXPECT_EQ(contentsBackwards(lp),
            (std::vector<std::string>{"a", std::string(300, 'B'), "3", "d"}));
  auto next = lp.erase(lp.at(1), 2);
  EXPECT_EQ(lp.get(next).toString(), "d");
  EXPECT_EQ(contents(lp), (std::vector<std::string>{"a", "d"}));
  EXPECT_EQ(lp.erase(lp.at(1), 5), Listpack::kNone);
  EXPECT_EQ(lp.erase(lp.first()), Listpack::kNone);
  EXPECT_EQ(lp.size(), 0u);
  Listpack copy = lp.clone();
  EXPECT_EQ(copy.size(), 0u);
}

TEST(Listpack, RandomOperationsMatchAVectorModel) {
  std::mt19937_64 rng(12345);
  auto randomValue = [&]() -> std::string {
    switch (rng() % 5) {
      case 0:
        return std::to_string(static_cast<int64_t>(rng()) >> (rng() % 64));
      case 1:
        return std::to_string(rng() % 200);
      case 2:
        return std::string(rng() % 70, static_cast<char>('a' + rng() % 26));
      case 3:
        return std::string(rng() % 20000, 'z');
      default:
        return "0" + std::to_string(rng() % 10);
    }
  };
  Listpack lp;
  std::vector<std::string> model;
  for (int step = 0; step < 20000; step++) {
    int op = static_cast<int>(rng() % 6);
    if (op <= 1 || model.empty()) {
      size_t i = model.empty() ? 0 : rng() % (model.size() + 1);
      std::string v = randomValue();
      lp.insertBefore(i == model.size() ? Listpack::kNone : lp.at(static_cast<int64_t>(i)), v);
      model.insert(model.begin() + static_cast<ptrdiff_t>(i), v);
    } else if (op == 2) {
      size_t i = rng() % model.size();
      std::string v = randomValue();
      lp.replace(lp.at(static_cast<int64_t>(i)), v);
      model[i] = v;
    } else if (op == 3) {
      size_t i = rng() % model.size();
      size_t n = 1 + rng() % 3;
      lp.erase(lp.at(static_cast<int64_t>(i)), n);
      model.erase(model.begin() + static_cast<ptrdiff_t>(i),
                  model.begin() + static_cast<ptrdiff_t>(std::min(model.size(), i + n)));
    } else if (op == 4) {
      int64_t i = static_cast<int64_t>(rng() % model.size());
      ASSERT_EQ(lp.get(lp.at(i - static_cast<int64_t>(model.size()))).toString(),
                model[static_cast<size_t>(i)]);
    } else {
      const std::string& v = model[rng() % model.size()];
      auto p = lp.find(v);
      ASSERT_NE(p, Listpack::kNone);
      ASSERT_EQ(lp.get(p).toString(), v);
    }
    ASSERT_EQ(lp.size(), model.size());
    if (model.size() > 300) {
      lp.erase(lp.first(), 200);
      model.erase(model.begin(), model.begin() + 200);
    }
    if (step % 500 == 0) {
      ASSERT_EQ(contents(lp), model) << "step " << step;
      ASSERT_EQ(contentsBackwards(lp), model) << "step " << step;
    }
  }
}

}  // namespace
}  // namespace server::db
