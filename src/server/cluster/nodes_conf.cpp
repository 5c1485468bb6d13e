// nodes.conf (cluster-config-file): the CLUSTER NODES lines of every node
// but those in handshake, then "vars currentEpoch N lastVoteEpoch M", as
// Redis 7.0.15 writes it, so either server can start from the other's file.
// The file is locked (flock) while the node runs, so that two nodes never
// share one; it is rewritten in place (the lock stays on the same inode).
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/log.h"
#include "common/strutil.h"
#include "server/cluster/state.h"

namespace server::cluster {
namespace {

uint16_t parseFlags(const std::string& s, bool* ok) {
  uint16_t f = 0;
  std::stringstream in(s);
  std::string w;
  while (std::getline(in, w, ',')) {
    if (w == "myself")
      f |= kMyself;
    else if (w == "master")
      f |= kMaster;
    else if (w == "slave")
      f |= kReplica;
    else if (w == "fail?")
      f |= kPfail;
    else if (w == "fail")
      f |= kFail;
    else if (w == "handshake")
      f |= kHandshake;
    else if (w == "noaddr")
      f |= kNoAddr;
    else if (w == "nofailover")
      f |= kNoFailover;
    else if (w != "noflags")
      *ok = false;
  }
  return f;
}

bool parseInt(const std::string& s, int64_t* out) {
  return common::strutil::parseInt64(s, out);
}

// "ip:port@cport[,hostname]"
bool parseAddress(const std::string& a, Node* n) {
  std::string addr = a, host;
  size_t comma = addr.find(',');
  if (comma != std::string::npos) {
    host = addr.substr(comma + 1);
    addr.resize(comma);
  }
  size_t colon = addr.rfind(':');
  if (colon == std::string::npos) return false;
  std::string ports = addr.substr(colon + 1);
  n->ip = addr.substr(0, colon);
  int64_t port = 0, cport = 0;
  size_t at = ports.find('@');
  if (at == std::string::npos) {
    if (!parseInt(ports, &port)) return false;
    cport = port + 10000;  // files of old versions have no bus port
  } else if (!parseInt(ports.substr(0, at), &port) || !parseInt(ports.substr(at + 1), &cport)) {
    return false;
  }
  if (port < 0 || port > 65535 || cport < 0 || cport > 65535) return false;
  n->port = static_cast<int>(port);
  n->cport = static_cast<int>(cport);
  n->hostname = host;
  return true;
}

bool parseSlots(const std::vector<std::string>& argv, Node* n) {
  State& s = st();
  for (size_t j = 8; j < argv.size(); j++) {
    const std::string& a = argv[j];
    if (!a.empty() && a[0] == '[') {
      // [slot->-name] migrating, [slot-<-name] importing
      size_t dash = a.find('-');
      int64_t slot;
      if (dash == std::string::npos || a.size() < dash + 3 + kNameLen ||
          !parseInt(a.substr(1, dash - 1), &slot) || slot < 0 || slot >= kSlots)
        return false;
      char dir = a[dash + 1];
      std::string other = a.substr(dash + 3, kNameLen);
      Node* cn = lookupNode(other);
      if (cn == nullptr) cn = createNode(other, 0);
      if (dir == '>')
        s.migrating_to[slot] = cn;
      else
        s.importing_from[slot] = cn;
      continue;
    }
    int64_t start, stop;
    size_t dash = a.find('-');
    if (dash == std::string::npos) {
      if (!parseInt(a, &start)) return false;
      stop = start;
    } else if (!parseInt(a.substr(0, dash), &start) || !parseInt(a.substr(dash + 1), &stop)) {
      return false;
    }
    if (start < 0 || stop >= kSlots || start > stop) return false;
    for (int64_t k = start; k <= stop; k++) addSlot(n, static_cast<int>(k));
  }
  return true;
}

bool loadLine(const std::string& line, std::string* err) {
  std::vector<std::string> argv;
  std::stringstream in(line);
  std::string w;
  while (in >> w) argv.push_back(w);
  if (argv.empty()) return true;
  State& s = st();
  if (argv[0] == "vars") {
    for (size_t j = 1; j + 1 < argv.size(); j += 2) {
      int64_t v;
      if (!parseInt(argv[j + 1], &v)) return *err = "bad vars value", false;
      if (argv[j] == "currentEpoch")
        s.current_epoch = static_cast<uint64_t>(v);
      else if (argv[j] == "lastVoteEpoch")
        s.last_vote_epoch = static_cast<uint64_t>(v);
      else
        LOG_WARNING("Skipping unknown cluster config variable '%s'", argv[j].c_str());
    }
    return true;
  }
  if (argv.size() < 8) return *err = "a node line has fewer than 8 fields", false;
  if (argv[0].size() != kNameLen) return *err = "bad node name", false;
  Node* n = lookupNode(argv[0]);
  if (n == nullptr) n = createNode(argv[0], 0);
  if (!parseAddress(argv[1], n)) return *err = "bad address " + argv[1], false;
  bool ok = true;
  n->flags = parseFlags(argv[2], &ok);
  if (!ok) return *err = "unknown flag in " + argv[2], false;
  if (n->flags & kMyself) s.myself = n;
  if (n->flags & kNoAddr) n->ip.clear();
  if (argv[3] != "-") {
    Node* m = lookupNode(argv[3]);
    if (m == nullptr) m = createNode(argv[3], 0);
    n->master = m;
    addReplica(m, n);
  }
  int64_t v;
  if (!parseInt(argv[4], &v)) return *err = "bad ping time", false;
  n->ping_sent = v ? mstime() : 0;
  if (!parseInt(argv[5], &v)) return *err = "bad pong time", false;
  n->pong_received = v ? mstime() : 0;
  if (!parseInt(argv[6], &v)) return *err = "bad config epoch", false;
  n->config_epoch = static_cast<uint64_t>(v);
  if (!parseSlots(argv, n)) return *err = "bad slot range", false;
  return true;
}

}  // namespace

bool loadConfig(const std::string& file, std::string* err) {
  std::ifstream in(file);
  if (!in) return true;  // no file yet: a new node
  std::string line;
  int lineno = 0;
  bool any = false;
  while (std::getline(in, line)) {
    lineno++;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    any = true;
    if (!loadLine(line, err)) {
      *err = "Unrecoverable error: corrupted cluster config file \"" + file + "\" at line " +
             std::to_string(lineno) + ": " + *err;
      return false;
    }
  }
  if (!any) return true;  // an empty file is a new node too
  if (st().myself == nullptr) {
    *err = "Unrecoverable error: corrupted cluster config file \"" + file +
           "\": no line with the myself flag";
    return false;
  }
  LOG_NOTICE("Node configuration loaded, I'm %.40s", st().myself->name.c_str());
  uint64_t max = maxEpoch();
  if (st().current_epoch < max) st().current_epoch = max;
  return true;
}

bool saveConfig(bool do_fsync) {
  State& s = st();
  std::string content = nodesDescription(kHandshake, nullptr);
  content += "vars currentEpoch " + std::to_string(s.current_epoch) + " lastVoteEpoch " +
             std::to_string(s.last_vote_epoch) + "\n";
  int fd = open(s.config_file.c_str(), O_WRONLY | O_CREAT, 0644);
  if (fd == -1) return false;
  bool ok = true;
  size_t off = 0;
  while (off < content.size()) {
    ssize_t n = pwrite(fd, content.data() + off, content.size() - off, static_cast<off_t>(off));
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      ok = false;
      break;
    }
    off += static_cast<size_t>(n);
  }
  if (ok && ftruncate(fd, static_cast<off_t>(content.size())) == -1) ok = false;
  if (ok && do_fsync && fsync(fd) == -1) ok = false;
  close(fd);
  return ok;
}

void saveConfigOrDie(bool do_fsync) {
  if (!saveConfig(do_fsync)) {
    LOG_WARNING("Fatal: can't update cluster config file.");
    exit(1);
  }
}

}  // namespace server::cluster
