// LOLWUT [VERSION v] [args...]: computer art and the server version, as
// Redis 7.0 answers it. Version 5 draws Georg Nees's "Schotter" (squares
// that tilt and drift more and more down the page) in Braille characters;
// any other version (7 by default) prints only "Redis ver. 7.0.15".
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/strutil.h"
#include "server/commands/server/introspection.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/version.h"

namespace server {

namespace {

// A 1-bit canvas; pixels outside it are ignored.
class Canvas {
 public:
  Canvas(int w, int h) : w_(w), h_(h), px_(static_cast<size_t>(w) * h, 0) {}
  void set(int x, int y) {
    if (x < 0 || y < 0 || x >= w_ || y >= h_) return;
    px_[static_cast<size_t>(y) * w_ + x] = 1;
  }
  bool get(int x, int y) const {
    if (x < 0 || y < 0 || x >= w_ || y >= h_) return false;
    return px_[static_cast<size_t>(y) * w_ + x] != 0;
  }
  // Bresenham's line.
  void line(int x1, int y1, int x2, int y2) {
    int dx = std::abs(x2 - x1), dy = std::abs(y2 - y1);
    int sx = x1 < x2 ? 1 : -1, sy = y1 < y2 ? 1 : -1;
    int err = dx - dy;
    while (true) {
      set(x1, y1);
      if (x1 == x2 && y1 == y2) break;
      int e2 = err * 2;
      if (e2 > -dy) {
        err -= dy;
        x1 += sx;
      }
      if (e2 < dx) {
        err += dx;
        y1 += sy;
      }
    }
  }
  // A square of the given side centred on (x, y), turned by angle radians.
  void square(int x, int y, float side, float angle) {
    int px[4], py[4];
    float half_diag = std::round(side / 1.4142135623f);
    float k = static_cast<float>(M_PI / 4) + angle;
    for (int j = 0; j < 4; j++) {
      px[j] = static_cast<int>(std::round(std::sin(k) * half_diag + x));
      py[j] = static_cast<int>(std::round(std::cos(k) * half_diag + y));
      k += static_cast<float>(M_PI / 2);
    }
    for (int j = 0; j < 4; j++) line(px[j], py[j], px[(j + 1) % 4], py[(j + 1) % 4]);
  }
  // Each 2x4 block of pixels as one Braille character (U+2800 + dots),
  // rows separated by newlines.
  std::string braille() const {
    std::string out;
    for (int y = 0; y < h_; y += 4) {
      for (int x = 0; x < w_; x += 2) {
        int dots = 0;
        if (get(x, y)) dots |= 1 << 0;
        if (get(x, y + 1)) dots |= 1 << 1;
        if (get(x, y + 2)) dots |= 1 << 2;
        if (get(x + 1, y)) dots |= 1 << 3;
        if (get(x + 1, y + 1)) dots |= 1 << 4;
        if (get(x + 1, y + 2)) dots |= 1 << 5;
        if (get(x, y + 3)) dots |= 1 << 6;
        if (get(x + 1, y + 3)) dots |= 1 << 7;
        int code = 0x2800 + dots;
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
      }
      if (y != h_ - 1) out += '\n';
    }
    return out;
  }

 private:
  int w_, h_;
  std::vector<uint8_t> px_;
};

float randomUnit() {
  return static_cast<float>(rand()) / static_cast<float>(RAND_MAX);
}

std::string schotter(int cols, int per_row, int per_col) {
  int width = cols * 2;
  int padding = width > 4 ? 2 : 0;
  float side = static_cast<float>(width - padding * 2) / static_cast<float>(per_row);
  int height = static_cast<int>(side * static_cast<float>(per_col)) + padding * 2;
  Canvas canvas(width, height);
  for (int y = 0; y < per_col; y++) {
    for (int x = 0; x < per_row; x++) {
      int sx = static_cast<int>(static_cast<float>(x) * side + side / 2 + padding);
      int sy = static_cast<int>(static_cast<float>(y) * side + side / 2 + padding);
      float angle = 0;
      // The first two rows stand straight; below, disorder grows.
      if (y > 1) {
        float scale = static_cast<float>(y) / static_cast<float>(per_col);
        float r1 = randomUnit() * scale, r2 = randomUnit() * scale, r3 = randomUnit() * scale;
        if (rand() % 2) r1 = -r1;
        if (rand() % 2) r2 = -r2;
        if (rand() % 2) r3 = -r3;
        angle = r1;
        sx += static_cast<int>(r2 * side / 3);
        sy += static_cast<int>(r3 * side / 3);
      }
      canvas.square(sx, sy, side, angle);
    }
  }
  return canvas.braille();
}

long clampArg(long v, long lo, long hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

void lolwutCommand(Client* c) {
  long version = 7;
  size_t first = 1;  // the version's own arguments start here
  if (c->argc() >= 3 && common::strutil::equalsIgnoreCase(c->arg(1), "version")) {
    int64_t v;
    if (!c->argInt64(2, &v)) return;
    version = static_cast<long>(v);
    first = 3;
  }
  if (version != 5) {
    c->reply().verbatim(std::string("Redis ver. ") + kRedisVersion + "\n");
    return;
  }
  long args[3] = {66, 8, 12};  // columns, squares per row, squares per column
  for (size_t i = 0; i < 3 && first + i < c->argc(); i++) {
    int64_t v;
    if (!c->argInt64(first + i, &v)) return;
    args[i] = static_cast<long>(v);
  }
  std::string art = schotter(static_cast<int>(clampArg(args[0], 1, 1000)),
                             static_cast<int>(clampArg(args[1], 1, 200)),
                             static_cast<int>(clampArg(args[2], 1, 200)));
  art += "\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. ";
  art += kRedisVersion;
  art += "\n";
  c->reply().verbatim(art);
}

}  // namespace

void registerLolwutCommand(CommandTable& t) {
  t.add({"lolwut", -1, kReadOnly | kFast, lolwutCommand, 0, 0, 0, "server",
         "Display some computer art and the Redis version", "5.0.0", nullptr, "read fast"});
}

}  // namespace server
