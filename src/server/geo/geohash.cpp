#include "server/geo/geohash.h"

#include <cmath>

namespace server::geo {

namespace {

constexpr double kDegToRad = M_PI / 180.0;
// Half the Web Mercator world width: the search step is the number of
// halvings of this length that still contain the radius.
constexpr double kMercatorMax = 20037726.37;

double toRad(double deg) {
  return deg * kDegToRad;
}
double toDeg(double rad) {
  return rad / kDegToRad;
}

// Spreads the 32 bits of v over the even bit positions of the result.
uint64_t spread(uint32_t v) {
  uint64_t x = v;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x << 2)) & 0x3333333333333333ULL;
  x = (x | (x << 1)) & 0x5555555555555555ULL;
  return x;
}

// The inverse of spread: the even bits of v packed into 32 bits.
uint32_t squeeze(uint64_t v) {
  uint64_t x = v & 0x5555555555555555ULL;
  x = (x | (x >> 1)) & 0x3333333333333333ULL;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
  return static_cast<uint32_t>(x);
}

// Moves the hash one box along one coordinate: `odd` selects the
// longitude bits, d the direction. Wraps around at the edges, as Redis.
void move(Hash* h, bool odd, int d) {
  const uint64_t lon_mask = 0xaaaaaaaaaaaaaaaaULL;
  const uint64_t lat_mask = 0x5555555555555555ULL;
  const int shift = 64 - h->step * 2;
  uint64_t mine = h->bits & (odd ? lon_mask : lat_mask);
  uint64_t other = h->bits & (odd ? lat_mask : lon_mask);
  // The other coordinate's bits filled with ones make the carry skip them.
  uint64_t fill = (odd ? lat_mask : lon_mask) >> shift;
  if (d > 0) {
    mine = mine + (fill + 1);
  } else {
    mine = mine | fill;
    mine = mine - (fill + 1);
  }
  mine &= (odd ? lon_mask : lat_mask) >> shift;
  h->bits = mine | other;
}

Hash moved(Hash h, int dlon, int dlat) {
  if (dlon != 0) move(&h, true, dlon);
  if (dlat != 0) move(&h, false, dlat);
  return h;
}

// Bits per coordinate for the boxes of a search of this radius at this
// latitude: the boxes must be at least as large as the radius.
int stepsForRadius(double meters, double lat) {
  if (meters == 0) return kStepMax;
  int step = 1;
  while (meters < kMercatorMax) {
    meters *= 2;
    step++;
  }
  step -= 2;
  // Meridians converge towards the poles: larger boxes there.
  if (lat > 66 || lat < -66) {
    step--;
    if (lat > 80 || lat < -80) step--;
  }
  if (step < 1) step = 1;
  if (step > kStepMax) step = kStepMax;
  return step;
}

// Bounding box of the shape: {min lon, min lat, max lon, max lat}.
std::array<double, 4> boundingBox(const Shape& s) {
  double half_h = s.to_meters * (s.box ? s.height / 2 : s.radius);
  double half_w = s.to_meters * (s.box ? s.width / 2 : s.radius);
  double lat_delta = toDeg(half_h / kEarthRadiusM);
  double lon_delta_top = toDeg(half_w / kEarthRadiusM / std::cos(toRad(s.lat + lat_delta)));
  double lon_delta_bottom = toDeg(half_w / kEarthRadiusM / std::cos(toRad(s.lat - lat_delta)));
  // The wider edge is the one nearer the equator.
  double lon_delta = s.lat < 0 ? lon_delta_bottom : lon_delta_top;
  return {s.lon - lon_delta, s.lat - lat_delta, s.lon + lon_delta, s.lat + lat_delta};
}

const Range kLonRange{kLonMin, kLonMax};
const Range kLatRange{kLatMin, kLatMax};

}  // namespace

bool encode(const Range& lon_r, const Range& lat_r, double lon, double lat, int step, Hash* out) {
  if (step > 32 || step == 0) return false;
  if (lon > kLonMax || lon < kLonMin || lat > kLatMax || lat < kLatMin) return false;
  if (lat < lat_r.min || lat > lat_r.max || lon < lon_r.min || lon > lon_r.max) return false;
  double lat_off = (lat - lat_r.min) / (lat_r.max - lat_r.min);
  double lon_off = (lon - lon_r.min) / (lon_r.max - lon_r.min);
  lat_off *= static_cast<double>(1ULL << step);
  lon_off *= static_cast<double>(1ULL << step);
  out->step = static_cast<uint8_t>(step);
  out->bits =
      spread(static_cast<uint32_t>(lat_off)) | (spread(static_cast<uint32_t>(lon_off)) << 1);
  return true;
}

bool encodeWgs84(double lon, double lat, int step, Hash* out) {
  return encode(kLonRange, kLatRange, lon, lat, step, out);
}

bool decode(const Range& lon_r, const Range& lat_r, Hash h, Area* out) {
  if (h.none()) return false;
  uint32_t ilat = squeeze(h.bits);
  uint32_t ilon = squeeze(h.bits >> 1);
  double cells = static_cast<double>(1ULL << h.step);
  double lat_scale = lat_r.max - lat_r.min;
  double lon_scale = lon_r.max - lon_r.min;
  out->lat.min = lat_r.min + (ilat * 1.0 / cells) * lat_scale;
  out->lat.max = lat_r.min + ((ilat + 1.0) * 1.0 / cells) * lat_scale;
  out->lon.min = lon_r.min + (ilon * 1.0 / cells) * lon_scale;
  out->lon.max = lon_r.min + ((ilon + 1.0) * 1.0 / cells) * lon_scale;
  return true;
}

bool decodeScore(double score, double* lon, double* lat) {
  Hash h{static_cast<uint64_t>(score), kStepMax};
  Area a;
  if (!decode(kLonRange, kLatRange, h, &a)) return false;
  *lon = (a.lon.min + a.lon.max) / 2;
  if (*lon > kLonMax) *lon = kLonMax;
  if (*lon < kLonMin) *lon = kLonMin;
  *lat = (a.lat.min + a.lat.max) / 2;
  if (*lat > kLatMax) *lat = kLatMax;
  if (*lat < kLatMin) *lat = kLatMin;
  return true;
}

uint64_t align52(Hash h) {
  return h.bits << (52 - h.step * 2);
}

uint64_t scoreOf(double lon, double lat) {
  Hash h;
  encodeWgs84(lon, lat, kStepMax, &h);
  return align52(h);
}

double latDistance(double lat1, double lat2) {
  return kEarthRadiusM * std::fabs(toRad(lat2) - toRad(lat1));
}

double distance(double lon1, double lat1, double lon2, double lat2) {
  double v = std::sin((toRad(lon2) - toRad(lon1)) / 2);
  // Same meridian: the haversine reduces to the latitude difference.
  if (v == 0.0) return latDistance(lat1, lat2);
  double lat1r = toRad(lat1);
  double lat2r = toRad(lat2);
  double u = std::sin((lat2r - lat1r) / 2);
  double a = u * u + std::cos(lat1r) * std::cos(lat2r) * v * v;
  return 2.0 * kEarthRadiusM * std::asin(std::sqrt(a));
}

bool withinShape(const Shape& s, double lon, double lat, double* dist) {
  if (!s.box) {
    *dist = distance(s.lon, s.lat, lon, lat);
    return *dist <= s.radius * s.to_meters;
  }
  // Latitude first: it is the cheaper test.
  if (latDistance(lat, s.lat) > s.height * s.to_meters / 2) return false;
  if (distance(lon, lat, s.lon, lat) > s.width * s.to_meters / 2) return false;
  *dist = distance(s.lon, s.lat, lon, lat);
  return true;
}

std::array<Hash, 9> searchBoxes(const Shape& s) {
  std::array<double, 4> b = boundingBox(s);
  double min_lon = b[0], min_lat = b[1], max_lon = b[2], max_lat = b[3];
  double radius =
      s.box ? std::sqrt((s.width / 2) * (s.width / 2) + (s.height / 2) * (s.height / 2)) : s.radius;
  radius *= s.to_meters;
  int steps = stepsForRadius(radius, s.lat);

  Hash centre;
  encodeWgs84(s.lon, s.lat, steps, &centre);
  auto neighbours = [](Hash c) {
    // centre, N, S, E, W, NE, NW, SE, SW
    return std::array<Hash, 9>{c,
                               moved(c, 0, 1),
                               moved(c, 0, -1),
                               moved(c, 1, 0),
                               moved(c, -1, 0),
                               moved(c, 1, 1),
                               moved(c, -1, 1),
                               moved(c, 1, -1),
                               moved(c, -1, -1)};
  };
  std::array<Hash, 9> boxes = neighbours(centre);

  // When a side box does not reach past the bounding box, the step was too
  // fine: use boxes twice as large.
  Area north, south, east, west;
  decode(kLonRange, kLatRange, boxes[1], &north);
  decode(kLonRange, kLatRange, boxes[2], &south);
  decode(kLonRange, kLatRange, boxes[3], &east);
  decode(kLonRange, kLatRange, boxes[4], &west);
  bool coarser = north.lat.max < max_lat || south.lat.min > min_lat || east.lon.max < max_lon ||
                 west.lon.min > min_lon;
  if (steps > 1 && coarser) {
    steps--;
    encodeWgs84(s.lon, s.lat, steps, &centre);
    boxes = neighbours(centre);
  }
  Area area;
  decode(kLonRange, kLatRange, centre, &area);

  // Drop the sides the bounding box does not reach.
  if (steps >= 2) {
    auto drop = [&](int a, int b2, int c) { boxes[a] = boxes[b2] = boxes[c] = Hash{}; };
    if (area.lat.min < min_lat) drop(2, 8, 7);  // south, south-west, south-east
    if (area.lat.max > max_lat) drop(1, 5, 6);  // north, north-east, north-west
    if (area.lon.min < min_lon) drop(4, 8, 6);  // west, south-west, north-west
    if (area.lon.max > max_lon) drop(3, 7, 5);  // east, south-east, north-east
  }
  return boxes;
}

bool geohashString(double score, char out[11]) {
  static const char kAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  double lon, lat;
  if (!decodeScore(score, &lon, &lat)) return false;
  // The standard geohash spans latitudes -90..90: re-encode over those.
  Hash h;
  encode(Range{-180, 180}, Range{-90, 90}, lon, lat, kStepMax, &h);
  for (int i = 0; i < 11; i++) {
    // 52 bits make ten characters; the eleventh is taken as zero.
    int idx = i == 10 ? 0 : static_cast<int>((h.bits >> (52 - (i + 1) * 5)) & 0x1f);
    out[i] = kAlphabet[idx];
  }
  return true;
}

}  // namespace server::geo
