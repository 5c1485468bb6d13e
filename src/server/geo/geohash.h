// Geohash arithmetic of Redis's GEO commands, pure functions: points are
// stored in a sorted set as a 52-bit score (26 bits of latitude and 26 of
// longitude, interleaved, latitude in the even bits) over the Web Mercator
// ranges (longitude -180..180, latitude -85.05112878..85.05112878); the
// neighbour boxes of a radius or box search; the haversine distance on a
// sphere of radius 6372797.560856 m. The numbers (and so every reply) are
// those of Redis 7.0.
//
// Module geo/ (namespace server::geo): includes nothing of the server;
// included by commands/types/ (the GEO commands).
#pragma once

#include <array>
#include <cstdint>

namespace server::geo {

constexpr double kLonMin = -180.0;
constexpr double kLonMax = 180.0;
constexpr double kLatMin = -85.05112878;
constexpr double kLatMax = 85.05112878;
constexpr int kStepMax = 26;  // bits per coordinate in a stored score
constexpr double kEarthRadiusM = 6372797.560856;

struct Range {
  double min, max;
};

// A hash of `step` bits per coordinate; bits == 0 && step == 0 is "none".
struct Hash {
  uint64_t bits = 0;
  uint8_t step = 0;
  bool none() const { return bits == 0 && step == 0; }
};

struct Area {
  Range lon, lat;
};

// Encodes a point (inside the ranges) with `step` bits per coordinate;
// false when the point lies outside them.
bool encode(const Range& lon_r, const Range& lat_r, double lon, double lat, int step, Hash* out);
bool encodeWgs84(double lon, double lat, int step, Hash* out);
// The box a hash stands for; false for the "none" hash.
bool decode(const Range& lon_r, const Range& lat_r, Hash h, Area* out);
// The centre of the box of a 52-bit score, clamped to the ranges.
bool decodeScore(double score, double* lon, double* lat);
// The hash left-aligned to 52 bits (the score range its box covers starts
// there).
uint64_t align52(Hash h);
// The stored score of a point.
uint64_t scoreOf(double lon, double lat);

// Great-circle distance in metres.
double distance(double lon1, double lat1, double lon2, double lat2);
// Distance along a meridian between two latitudes.
double latDistance(double lat1, double lat2);

// What a search looks for: a circle or an axis-aligned box around a centre.
struct Shape {
  bool box = false;
  double lon = 0, lat = 0;
  double radius = 0;             // circle, in the unit
  double width = 0, height = 0;  // box, in the unit
  double to_meters = 1;          // metres per unit
};

// True when the point lies in the shape; *dist is its distance in metres
// from the centre.
bool withinShape(const Shape& s, double lon, double lat, double* dist);

// The boxes a search visits, in Redis's order: the centre box, then north,
// south, east, west, north-east, north-west, south-east, south-west; boxes
// that cannot hold a match are "none".
std::array<Hash, 9> searchBoxes(const Shape& s);

// GEOHASH's 11-character base-32 string for a stored score; false when the
// score does not decode.
bool geohashString(double score, char out[11]);

}  // namespace server::geo
