#include "server/persist/aof/manifest.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "resp/request_parser.h"

namespace server::persist::aof {

namespace {

// Redis's manifest reader refuses lines longer than this.
constexpr size_t kMaxLine = 1024;

// True when a name must be quoted to survive splitting on spaces.
bool needsQuoting(const std::string& s) {
  for (unsigned char ch : s) {
    if (ch == '\\' || ch == '"' || ch == '\'' || ch <= ' ' || ch >= 127) return true;
  }
  return s.empty();
}

std::string quoted(const std::string& s) {
  std::string o = "\"";
  for (unsigned char ch : s) {
    switch (ch) {
      case '\\':
        o += "\\\\";
        break;
      case '"':
        o += "\\\"";
        break;
      case '\n':
        o += "\\n";
        break;
      case '\r':
        o += "\\r";
        break;
      case '\t':
        o += "\\t";
        break;
      case '\a':
        o += "\\a";
        break;
      case '\b':
        o += "\\b";
        break;
      default:
        if (ch >= ' ' && ch < 127) {
          o += static_cast<char>(ch);
        } else {
          char buf[8];
          snprintf(buf, sizeof(buf), "\\x%02x", ch);
          o += buf;
        }
    }
  }
  return o + "\"";
}

void line(std::string* o, const FileInfo& f) {
  *o += "file ";
  *o += needsQuoting(f.name) ? quoted(f.name) : f.name;
  *o += " seq " + std::to_string(f.seq) + " type ";
  *o += static_cast<char>(f.type);
  *o += "\n";
}

}  // namespace

std::string Manifest::format() const {
  std::string o;
  if (base) line(&o, *base);
  for (const FileInfo& f : history) line(&o, f);
  for (const FileInfo& f : incrs) line(&o, f);
  return o;
}

bool Manifest::readFile(const std::string& path, Manifest* out, std::string* err) {
  err->clear();
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::string text;
  char buf[4096];
  ssize_t r;
  while ((r = read(fd, buf, sizeof(buf))) > 0) text.append(buf, static_cast<size_t>(r));
  close(fd);
  return parse(text, out, err);
}

bool Manifest::parse(const std::string& text, Manifest* out, std::string* err) {
  *out = Manifest();
  size_t pos = 0;
  int64_t last_incr = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) {
      // Every line Redis writes ends with a newline: a missing one means a
      // torn write.
      *err = "The AOF manifest file is invalid format";
      return false;
    }
    if (nl - pos + 1 > kMaxLine) {
      *err = "The AOF manifest file contains too long line";
      return false;
    }
    std::string l = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (!l.empty() && l.back() == '\r') l.pop_back();
    if (l.empty() || l[0] == '#') continue;
    std::vector<std::string> w;
    if (!resp::splitArgs(l, &w) || w.empty() || w.size() % 2 != 0) {
      *err = "Invalid AOF manifest file format";
      return false;
    }
    FileInfo f;
    bool have_name = false, have_seq = false, have_type = false;
    for (size_t i = 0; i < w.size(); i += 2) {
      const std::string& k = w[i];
      const std::string& v = w[i + 1];
      if (k == "file") {
        f.name = v;
        have_name = true;
      } else if (k == "seq") {
        char* end = nullptr;
        errno = 0;
        long long n = strtoll(v.c_str(), &end, 10);
        if (errno != 0 || end == v.c_str() || *end != '\0' || n <= 0) {
          *err = "Invalid AOF manifest file format";
          return false;
        }
        f.seq = n;
        have_seq = true;
      } else if (k == "type") {
        if (v.size() != 1 || (v[0] != 'b' && v[0] != 'h' && v[0] != 'i')) {
          *err = "Unknown AOF file type";
          return false;
        }
        f.type = static_cast<FileType>(v[0]);
        have_type = true;
      }
      // Unknown keys are skipped: later versions may add some.
    }
    if (!have_name || !have_seq || !have_type || f.name.find('/') != std::string::npos) {
      *err = "Invalid AOF manifest file format";
      return false;
    }
    switch (f.type) {
      case FileType::kBase:
        if (out->base) {
          *err = "Found duplicate base file information";
          return false;
        }
        out->base = f;
        out->base_seq = f.seq;
        break;
      case FileType::kHistory:
        out->history.push_back(f);
        break;
      case FileType::kIncr:
        if (f.seq <= last_incr) {
          *err = "Found a non-monotonic sequence number";
          return false;
        }
        last_incr = f.seq;
        out->incrs.push_back(f);
        out->incr_seq = f.seq;
        break;
    }
  }
  if (!out->base && out->incrs.empty()) {
    *err = "Found an empty AOF manifest";
    return false;
  }
  return true;
}

std::string manifestName(const std::string& appendfilename) {
  return appendfilename + ".manifest";
}

std::string baseName(const std::string& appendfilename, int64_t seq, bool rdb) {
  return appendfilename + "." + std::to_string(seq) + ".base" + (rdb ? ".rdb" : ".aof");
}

std::string incrName(const std::string& appendfilename, int64_t seq) {
  return appendfilename + "." + std::to_string(seq) + ".incr.aof";
}

std::string tempIncrName(const std::string& appendfilename) {
  return "temp-" + appendfilename + ".incr";
}

bool fsyncDir(const std::string& dir) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = fsync(fd) == 0;
  close(fd);
  return ok;
}

bool writeFileAtomically(const std::string& dir, const std::string& name, const std::string& text,
                         std::string* err) {
  std::string tmp = dir + "/temp-" + name;
  std::string dst = dir + "/" + name;
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *err = "Can't open the AOF manifest file " + tmp + ": " + strerror(errno);
    return false;
  }
  size_t off = 0;
  while (off < text.size()) {
    ssize_t w = write(fd, text.data() + off, text.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      *err = "Can't persist the AOF manifest file " + tmp + ": " + strerror(errno);
      close(fd);
      unlink(tmp.c_str());
      return false;
    }
    off += static_cast<size_t>(w);
  }
  if (fsync(fd) != 0) {
    *err = "Fail to fsync the temp AOF file " + tmp + ": " + strerror(errno);
    close(fd);
    unlink(tmp.c_str());
    return false;
  }
  close(fd);
  if (rename(tmp.c_str(), dst.c_str()) != 0) {
    *err = "Error trying to rename the temporary AOF manifest file " + tmp + " into " + dst + ": " +
           strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  if (!fsyncDir(dir)) {
    *err = "Fail to fsync AOF directory " + dir + ": " + strerror(errno);
    return false;
  }
  return true;
}

}  // namespace server::persist::aof
