// Geo commands over sorted sets (the scores are 52-bit geohashes, see
// geo/geohash.h): GEOADD GEODIST GEOHASH GEOPOS GEORADIUS[_RO]
// GEORADIUSBYMEMBER[_RO] GEOSEARCH GEOSEARCHSTORE, with Redis 7.0's
// argument rules, error texts, search order and reply shapes.
#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/strutil.h"
#include "server/commands/families.h"
#include "server/commands/types/zset_common.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/geo/geohash.h"
#include "server/propagate/propagate.h"
#include "server/request/keyspace.h"

namespace server {
namespace {

using geo::Shape;

// Reads lon, lat at argv[i], argv[i+1]; replies and returns false when they
// are not numbers or lie outside the indexable area.
bool argLonLat(Client* c, size_t i, double* lon, double* lat) {
  if (!common::strutil::parseDouble(c->arg(i), lon) ||
      !common::strutil::parseDouble(c->arg(i + 1), lat)) {
    c->addNotFloat();
    return false;
  }
  if (*lon < geo::kLonMin || *lon > geo::kLonMax || *lat < geo::kLatMin || *lat > geo::kLatMax) {
    c->addErrorFormat("invalid longitude,latitude pair %f,%f", *lon, *lat);
    return false;
  }
  return true;
}

// Metres per unit, or -1 after replying the error.
double argUnit(Client* c, size_t i) {
  std::string_view u = c->arg(i);
  if (common::strutil::equalsIgnoreCase(u, "m")) return 1;
  if (common::strutil::equalsIgnoreCase(u, "km")) return 1000;
  if (common::strutil::equalsIgnoreCase(u, "ft")) return 0.3048;
  if (common::strutil::equalsIgnoreCase(u, "mi")) return 1609.34;
  c->addError("unsupported unit provided. please use M, KM, FT, MI");
  return -1;
}

bool argNumber(Client* c, size_t i, double* out, const char* msg) {
  if (!common::strutil::parseDouble(c->arg(i), out)) {
    c->addError(msg);
    return false;
  }
  return true;
}

// "radius unit" at argv[i].
bool argRadius(Client* c, size_t i, Shape* s) {
  if (!argNumber(c, i, &s->radius, "need numeric radius")) return false;
  if (s->radius < 0) {
    c->addError("radius cannot be negative");
    return false;
  }
  s->to_meters = argUnit(c, i + 1);
  return s->to_meters >= 0;
}

// "width height unit" at argv[i].
bool argBox(Client* c, size_t i, Shape* s) {
  if (!argNumber(c, i, &s->width, "need numeric width") ||
      !argNumber(c, i + 1, &s->height, "need numeric height"))
    return false;
  if (s->height < 0 || s->width < 0) {
    c->addError("height or width cannot be negative");
    return false;
  }
  s->box = true;
  s->to_meters = argUnit(c, i + 2);
  return s->to_meters >= 0;
}

// Position of a member of the set; false when absent.
bool memberPosition(db::ZSet* z, std::string_view member, double* lon, double* lat) {
  double score;
  return z->score(member, &score) && geo::decodeScore(score, lon, lat);
}

// A distance as Redis prints it: rounded to four decimals, always showing
// them ("0.0000", "166274.1516").
void replyDistance(Client* c, double d) {
  long long v = std::llrint(d * 10000.0);
  bool neg = v < 0;
  unsigned long long u = neg ? 0ULL - static_cast<unsigned long long>(v) : v;
  char buf[48];
  int n = snprintf(buf, sizeof(buf), "%s%llu.%04llu", neg ? "-" : "", u / 10000, u % 10000);
  c->addBulk(std::string_view(buf, static_cast<size_t>(n)));
}

// A coordinate: RESP2 bulk, RESP3 double, in %.17Lf with the trailing
// zeros dropped.
void replyCoordinate(Client* c, double v) {
  std::string s = common::strutil::formatLongDouble(v);
  if (c->proto() >= 3) {
    c->reply().raw(",");
    c->reply().raw(s);
    c->reply().raw("\r\n");
  } else {
    c->addBulk(s);
  }
}

// ---- GEOADD GEODIST GEOHASH GEOPOS

void geoaddCommand(Client* c) {
  size_t first = 2;
  bool nx = false, xx = false;
  for (; first < c->argc(); first++) {
    std::string_view opt = c->arg(first);
    if (common::strutil::equalsIgnoreCase(opt, "nx"))
      nx = true;
    else if (common::strutil::equalsIgnoreCase(opt, "xx"))
      xx = true;
    else if (!common::strutil::equalsIgnoreCase(opt, "ch"))
      break;
  }
  if ((c->argc() - first) % 3 != 0 || (nx && xx)) {
    c->addSyntaxError();
    return;
  }
  // GEOADD is ZADD with the points turned into scores, and it is fed to the
  // AOF and replicas as that ZADD.
  std::vector<std::string> scores;
  size_t elements = (c->argc() - first) / 3;
  scores.reserve(elements);
  for (size_t i = 0; i < elements; i++) {
    double lon, lat;
    if (!argLonLat(c, first + i * 3, &lon, &lat)) return;
    scores.push_back(std::to_string(geo::scoreOf(lon, lat)));
  }
  std::vector<std::string_view> zargv;
  zargv.reserve(first + elements * 2);
  zargv.push_back("zadd");
  for (size_t i = 1; i < first; i++) zargv.push_back(c->arg(i));
  for (size_t i = 0; i < elements; i++) {
    zargv.push_back(scores[i]);
    zargv.push_back(c->arg(first + i * 3 + 2));
  }
  Command* zadd = g_server->commands.find("zadd");
  std::vector<std::string_view> saved = zargv;
  c->swapArgv(&saved);
  zadd->proc(c);
  c->swapArgv(&saved);
  if (propagate::wanted()) propagate::rewrite(std::span<const std::string_view>(zargv));
}

void geodistCommand(Client* c) {
  double to_meters = 1;
  if (c->argc() == 5) {
    to_meters = argUnit(c, 4);
    if (to_meters < 0) return;
  } else if (c->argc() > 5) {
    c->addSyntaxError();
    return;
  }
  db::ZSet* z;
  if (!readZSet(c, c->arg(1), &z)) return;
  double lon1, lat1, lon2, lat2;
  if (z == nullptr || !memberPosition(z, c->arg(2), &lon1, &lat1) ||
      !memberPosition(z, c->arg(3), &lon2, &lat2)) {
    c->addNull();
    return;
  }
  replyDistance(c, geo::distance(lon1, lat1, lon2, lat2) / to_meters);
}

void geohashCommand(Client* c) {
  db::ZSet* z;
  if (!readZSet(c, c->arg(1), &z)) return;
  c->addArrayLen(static_cast<int64_t>(c->argc() - 2));
  for (size_t i = 2; i < c->argc(); i++) {
    double score;
    char buf[11];
    if (z != nullptr && z->score(c->arg(i), &score) && geo::geohashString(score, buf))
      c->addBulk(std::string_view(buf, sizeof(buf)));
    else
      c->addNull();
  }
}

void geoposCommand(Client* c) {
  db::ZSet* z;
  if (!readZSet(c, c->arg(1), &z)) return;
  c->addArrayLen(static_cast<int64_t>(c->argc() - 2));
  for (size_t i = 2; i < c->argc(); i++) {
    double lon, lat;
    if (z != nullptr && memberPosition(z, c->arg(i), &lon, &lat)) {
      c->addArrayLen(2);
      replyCoordinate(c, lon);
      replyCoordinate(c, lat);
    } else {
      c->reply().nullArray();
    }
  }
}

// ---- the searches

enum SearchFlags : int {
  kFromCoords = 1,   // GEORADIUS: centre given as lon lat
  kFromMember = 2,   // GEORADIUSBYMEMBER: centre is a member
  kNoStore = 4,      // the _RO forms: no STORE / STOREDIST
  kSearch = 8,       // GEOSEARCH syntax
  kSearchStore = 16  // GEOSEARCHSTORE
};

struct Point {
  std::string member;
  double lon, lat, dist, score;
};

// The members in the shape, visiting the boxes in Redis's order; stops
// early once `limit` (non-zero with ANY) points were found.
void collectPoints(db::ZSet* z, const Shape& shape, size_t limit, std::vector<Point>* out) {
  std::array<geo::Hash, 9> boxes = geo::searchBoxes(shape);
  int last = -1;
  for (int i = 0; i < 9; i++) {
    const geo::Hash& h = boxes[i];
    if (h.none()) continue;
    // Very large radii make neighbouring boxes coincide: visit each once.
    if (last > 0 && h.bits == boxes[last].bits && h.step == boxes[last].step) continue;
    if (limit != 0 && out->size() >= limit) break;
    db::ScoreRange r;
    geo::Hash next = h;
    next.bits++;
    r.min = static_cast<double>(geo::align52(h));
    r.max = static_cast<double>(geo::align52(next));
    r.minex = false;
    r.maxex = true;
    z->rangeByScore(r, false, 0, [&](std::string_view m, double score) {
      Point p;
      if (geo::decodeScore(score, &p.lon, &p.lat) &&
          geo::withinShape(shape, p.lon, p.lat, &p.dist)) {
        p.member.assign(m);
        p.score = score;
        out->push_back(std::move(p));
      }
      return limit == 0 || out->size() < limit;
    });
    last = i;
  }
}

void storeResult(Client* c, std::string_view key, const std::vector<Point>& pts, size_t n,
                 bool storedist, double to_meters, bool search) {
  ZElements elements;
  elements.reserve(n);
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < n; i++) {
    if (!seen.insert(pts[i].member).second) continue;
    elements.emplace_back(pts[i].member, storedist ? pts[i].dist / to_meters : pts[i].score);
  }
  std::sort(elements.begin(), elements.end(), [](const auto& a, const auto& b) {
    return a.second < b.second || (a.second == b.second && a.first < b.first);
  });
  zsetStoreResult(c, key, elements, search ? "geosearchstore" : "georadiusstore");
  c->addInteger(static_cast<int64_t>(n));
}

void searchGeneric(Client* c, size_t src_index, int flags) {
  db::ZSet* z;
  if (!readZSet(c, c->arg(src_index), &z)) return;

  Shape shape;
  size_t base;
  std::string_view store_key;
  bool has_store = false;
  if (flags & kFromCoords) {
    base = 6;
    if (!argLonLat(c, 2, &shape.lon, &shape.lat) || !argRadius(c, 4, &shape)) return;
  } else if (flags & kFromMember) {
    base = 5;
    // A missing key still has its options parsed (the reply depends on
    // STORE), but the radius is not checked.
    if (z != nullptr) {
      if (!memberPosition(z, c->arg(2), &shape.lon, &shape.lat)) {
        c->addError("could not decode requested zset member");
        return;
      }
      if (!argRadius(c, 3, &shape)) return;
    }
  } else {
    base = 2;
    if (flags & kSearchStore) {
      base = 3;
      store_key = c->arg(1);
      has_store = true;
    }
  }

  bool withdist = false, withhash = false, withcoord = false, any = false, storedist = false;
  bool frommember = false, fromloc = false, byradius = false, bybox = false;
  enum { kNone, kAsc, kDesc } sort = kNone;
  int64_t count = 0;
  const bool search = flags & kSearch;
  size_t argc = c->argc();
  for (size_t i = base; i < argc; i++) {
    std::string_view a = c->arg(i);
    size_t left = argc - i - 1;  // arguments after this one
    auto is = [&](const char* name) { return common::strutil::equalsIgnoreCase(a, name); };
    if (is("withdist")) {
      withdist = true;
    } else if (is("withhash")) {
      withhash = true;
    } else if (is("withcoord")) {
      withcoord = true;
    } else if (is("any")) {
      any = true;
    } else if (is("asc")) {
      sort = kAsc;
    } else if (is("desc")) {
      sort = kDesc;
    } else if (is("count") && left >= 1) {
      if (!c->argInt64(i + 1, &count)) return;
      if (count <= 0) {
        c->addError("COUNT must be > 0");
        return;
      }
      i++;
    } else if ((is("store") || is("storedist")) && left >= 1 && !(flags & kNoStore) && !search) {
      store_key = c->arg(i + 1);
      has_store = true;
      storedist = is("storedist");
      i++;
    } else if (is("storedist") && search && (flags & kSearchStore)) {
      storedist = true;
    } else if (is("frommember") && left >= 1 && search && !fromloc) {
      if (z != nullptr && !memberPosition(z, c->arg(i + 1), &shape.lon, &shape.lat)) {
        c->addError("could not decode requested zset member");
        return;
      }
      frommember = true;
      i++;
    } else if (is("fromlonlat") && left >= 2 && search && !frommember) {
      if (!argLonLat(c, i + 1, &shape.lon, &shape.lat)) return;
      fromloc = true;
      i += 2;
    } else if (is("byradius") && left >= 2 && search && !bybox) {
      if (!argRadius(c, i + 1, &shape)) return;
      shape.box = false;
      byradius = true;
      i += 2;
    } else if (is("bybox") && left >= 3 && search && !byradius) {
      if (!argBox(c, i + 1, &shape)) return;
      bybox = true;
      i += 3;
    } else {
      c->addSyntaxError();
      return;
    }
  }

  if (has_store && (withdist || withhash || withcoord)) {
    c->addErrorFormat("%s is not compatible with WITHDIST, WITHHASH and WITHCOORD options",
                      (flags & kSearchStore) ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS");
    return;
  }
  std::string name(c->arg(0));
  if (search && !(frommember || fromloc)) {
    c->addErrorFormat("exactly one of FROMMEMBER or FROMLONLAT can be specified for %s",
                      name.c_str());
    return;
  }
  if (search && !(byradius || bybox)) {
    c->addErrorFormat("exactly one of BYRADIUS and BYBOX can be specified for %s", name.c_str());
    return;
  }
  if (any && count == 0) {
    c->addError("the ANY argument requires COUNT argument");
    return;
  }
  if (z == nullptr) {
    if (has_store) {
      deleteStoreTarget(c, store_key);
      c->addInteger(0);
    } else {
      c->addArrayLen(0);
    }
    return;
  }
  // COUNT needs the nearest ones, so it implies ASC (not with ANY).
  if (count != 0 && sort == kNone && !any) sort = kAsc;

  std::vector<Point> pts;
  collectPoints(z, shape, any ? static_cast<size_t>(count) : 0, &pts);
  if (pts.empty() && !has_store) {
    c->addArrayLen(0);
    return;
  }
  size_t n = pts.size();
  if (count != 0 && static_cast<uint64_t>(count) < n) n = static_cast<size_t>(count);
  if (sort != kNone) {
    auto asc = [](const Point& a, const Point& b) { return a.dist < b.dist; };
    auto desc = [](const Point& a, const Point& b) { return a.dist > b.dist; };
    if (n == pts.size()) {
      if (sort == kAsc)
        std::stable_sort(pts.begin(), pts.end(), asc);
      else
        std::stable_sort(pts.begin(), pts.end(), desc);
    } else if (sort == kAsc) {
      std::partial_sort(pts.begin(), pts.begin() + static_cast<long>(n), pts.end(), asc);
    } else {
      std::partial_sort(pts.begin(), pts.begin() + static_cast<long>(n), pts.end(), desc);
    }
  }
  if (has_store) {
    storeResult(c, store_key, pts, n, storedist, shape.to_meters, search);
    return;
  }
  int options = (withdist ? 1 : 0) + (withhash ? 1 : 0) + (withcoord ? 1 : 0);
  c->addArrayLen(static_cast<int64_t>(n));
  for (size_t i = 0; i < n; i++) {
    const Point& p = pts[i];
    if (options) c->addArrayLen(options + 1);
    c->addBulk(p.member);
    if (withdist) replyDistance(c, p.dist / shape.to_meters);
    if (withhash) c->addInteger(static_cast<int64_t>(p.score));
    if (withcoord) {
      c->addArrayLen(2);
      replyCoordinate(c, p.lon);
      replyCoordinate(c, p.lat);
    }
  }
}

void georadiusCommand(Client* c) {
  searchGeneric(c, 1, kFromCoords);
}
void georadiusRoCommand(Client* c) {
  searchGeneric(c, 1, kFromCoords | kNoStore);
}
void georadiusbymemberCommand(Client* c) {
  searchGeneric(c, 1, kFromMember);
}
void georadiusbymemberRoCommand(Client* c) {
  searchGeneric(c, 1, kFromMember | kNoStore);
}
void geosearchCommand(Client* c) {
  searchGeneric(c, 1, kSearch);
}
void geosearchstoreCommand(Client* c) {
  searchGeneric(c, 2, kSearch | kSearchStore);
}

// GEORADIUS[BYMEMBER] keys: the source, then the STORE/STOREDIST targets.
bool georadiusKeys(const std::vector<std::string_view>& argv, size_t first_option,
                   std::vector<size_t>* out) {
  out->push_back(1);
  for (size_t i = first_option; i + 1 < argv.size(); i++) {
    if (common::strutil::equalsIgnoreCase(argv[i], "store") ||
        common::strutil::equalsIgnoreCase(argv[i], "storedist")) {
      out->push_back(i + 1);
      i++;
    }
  }
  return true;
}
bool georadiusKeysProc(const std::vector<std::string_view>& argv, std::vector<size_t>* out) {
  return georadiusKeys(argv, 6, out);
}
bool georadiusbymemberKeysProc(const std::vector<std::string_view>& argv,
                               std::vector<size_t>* out) {
  return georadiusKeys(argv, 5, out);
}

constexpr const char* kRadiusComplexity =
    "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area "
    "delimited by center and radius and M is the number of items inside the index.";

}  // namespace

void registerGeoCommands(CommandTable& t) {
  t.add({"geoadd", -5, kWrite | kDenyOom, geoaddCommand, 1, 1, 1, "geo",
         "Add one or more geospatial items in the geospatial index represented using a sorted set",
         "3.2.0",
         "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
         "write geo slow"});
  t.add({"geodist", -4, kReadOnly, geodistCommand, 1, 1, 1, "geo",
         "Returns the distance between two members of a geospatial index", "3.2.0", "O(log(N))",
         "read geo slow"});
  t.add(
      {"geohash", -2, kReadOnly, geohashCommand, 1, 1, 1, "geo",
       "Returns members of a geospatial index as standard geohash strings", "3.2.0",
       "O(log(N)) for each member requested, where N is the number of elements in the sorted set.",
       "read geo slow"});
  t.add({"geopos", -2, kReadOnly, geoposCommand, 1, 1, 1, "geo",
         "Returns longitude and latitude of members of a geospatial index", "3.2.0",
         "O(N) where N is the number of members requested.", "read geo slow"});
  t.add({"georadius", -6, kWrite | kDenyOom, georadiusCommand, 1, 1, 1, "geo",
         "Query a sorted set representing a geospatial index to fetch members matching a given "
         "maximum distance from a point",
         "3.2.0", kRadiusComplexity, "write geo slow"});
  t.add({"georadius_ro", -6, kReadOnly, georadiusRoCommand, 1, 1, 1, "geo",
         "A read-only variant for GEORADIUS", "3.2.10", kRadiusComplexity, "read geo slow"});
  t.add({"georadiusbymember", -5, kWrite | kDenyOom, georadiusbymemberCommand, 1, 1, 1, "geo",
         "Query a sorted set representing a geospatial index to fetch members matching a given "
         "maximum distance from a member",
         "3.2.0",
         "O(N+log(M)) where N is the number of elements inside the bounding box of the circular "
         "area delimited by center and radius and M is the number of items inside the index.",
         "write geo slow"});
  t.add({"georadiusbymember_ro", -5, kReadOnly, georadiusbymemberRoCommand, 1, 1, 1, "geo",
         "A read-only variant for GEORADIUSBYMEMBER", "3.2.10",
         "O(N+log(M)) where N is the number of elements inside the bounding box of the circular "
         "area delimited by center and radius and M is the number of items inside the index.",
         "read geo slow"});
  t.add({"geosearch", -7, kReadOnly, geosearchCommand, 1, 1, 1, "geo",
         "Query a sorted set representing a geospatial index to fetch members inside an area of a "
         "box or a circle.",
         "6.2.0",
         "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area "
         "around the shape provided as the filter and M is the number of items inside the shape",
         "read geo slow"});
  t.add({"geosearchstore", -8, kWrite | kDenyOom, geosearchstoreCommand, 1, 2, 1, "geo",
         "Query a sorted set representing a geospatial index to fetch members inside an area of a "
         "box or a circle, and store the result in another key.",
         "6.2.0",
         "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area "
         "around the shape provided as the filter and M is the number of items inside the shape",
         "write geo slow"});
  t.setKeysProc("georadius", georadiusKeysProc);
  t.setKeysProc("georadiusbymember", georadiusbymemberKeysProc);
}

}  // namespace server
