#include "server/geo/geohash.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace server::geo {
namespace {

TEST(Geohash, ScoreOfAKnownPointMatchesRedis) {
  // Redis 7.0 stores the Eiffel tower (2.2945, 48.8584) as this score.
  EXPECT_EQ(scoreOf(2.2945, 48.8584), 3663832614297766ULL);
}

TEST(Geohash, DecodedScoreIsTheCellCentreNearThePoint) {
  double lon, lat;
  ASSERT_TRUE(decodeScore(static_cast<double>(scoreOf(2.2945, 48.8584)), &lon, &lat));
  EXPECT_NEAR(lon, 2.2945, 1e-5);
  EXPECT_NEAR(lat, 48.8584, 1e-5);
  // The corners of the indexable area stay inside it.
  ASSERT_TRUE(decodeScore(static_cast<double>(scoreOf(kLonMax, kLatMax)), &lon, &lat));
  EXPECT_LE(lon, kLonMax);
  EXPECT_LE(lat, kLatMax);
}

TEST(Geohash, EncodeRefusesPointsOutsideTheArea) {
  Hash h;
  EXPECT_FALSE(encodeWgs84(181, 0, kStepMax, &h));
  EXPECT_FALSE(encodeWgs84(0, 86, kStepMax, &h));
  EXPECT_TRUE(encodeWgs84(-180, -85.05112878, kStepMax, &h));
}

TEST(Geohash, DistanceIsTheHaversineOnRedisSphere) {
  EXPECT_DOUBLE_EQ(distance(1, 2, 1, 2), 0);
  // One degree along a meridian.
  EXPECT_NEAR(distance(10, 0, 10, 1), kEarthRadiusM * M_PI / 180, 1e-6);
  // GEODIST measures between the decoded cell centres.
  double lon1, lat1, lon2, lat2;
  ASSERT_TRUE(decodeScore(static_cast<double>(scoreOf(2.2945, 48.8584)), &lon1, &lat1));
  ASSERT_TRUE(decodeScore(static_cast<double>(scoreOf(2.3376, 48.8606)), &lon2, &lat2));
  EXPECT_NEAR(distance(lon1, lat1, lon2, lat2), 3163.6189, 1e-4);
}

TEST(Geohash, StandardGeohashString) {
  char buf[11];
  ASSERT_TRUE(geohashString(static_cast<double>(scoreOf(2.2945, 48.8584)), buf));
  EXPECT_EQ(std::string(buf, 11), "u09tunquc90");
}

TEST(Geohash, SearchBoxesCoverTheCircle) {
  Shape s;
  s.lon = 2.3;
  s.lat = 48.86;
  s.radius = 5;
  s.to_meters = 1000;
  auto boxes = searchBoxes(s);
  ASSERT_FALSE(boxes[0].none());
  // A point 4 km east lies in one of the boxes' score ranges.
  uint64_t p =
      scoreOf(2.3 + 4000 / (kEarthRadiusM * std::cos(48.86 * M_PI / 180)) * 180 / M_PI, 48.86);
  bool covered = false;
  for (const Hash& h : boxes) {
    if (h.none()) continue;
    Hash next = h;
    next.bits++;
    if (p >= align52(h) && p < align52(next)) covered = true;
  }
  EXPECT_TRUE(covered);
}

}  // namespace
}  // namespace server::geo
