#include "client/cluster.h"

#include <cstdint>
#include <cstdlib>
#include <mutex>

namespace client {

namespace {

uint16_t crc16(std::string_view s) {
  uint16_t crc = 0;
  for (char ch : s) {
    crc ^= static_cast<uint16_t>(static_cast<uint8_t>(ch) << 8);
    for (int b = 0; b < 8; b++) {
      crc = (crc & 0x8000) ? static_cast<uint16_t>((crc << 1) ^ 0x1021)
                           : static_cast<uint16_t>(crc << 1);
    }
  }
  return crc;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) pos = s.size();
    out.emplace_back(s.substr(start, pos - start));
    start = pos + 1;
  }
  return out;
}

// "host:port@busport[,hostname]" (7.0 may add ",hostname").
bool parseNodeAddress(const std::string& addr, ClusterNodeLine* n) {
  std::string a = addr.substr(0, addr.find(','));
  size_t at = a.find('@');
  if (at != std::string::npos) {
    n->bus_port = atoi(a.c_str() + at + 1);
    a.resize(at);
  }
  size_t colon = a.rfind(':');
  if (colon == std::string::npos) return false;
  n->host = a.substr(0, colon);
  n->port = atoi(a.c_str() + colon + 1);
  return true;
}

}  // namespace

int keyHashSlot(std::string_view key) {
  size_t open = key.find('{');
  if (open != std::string_view::npos) {
    size_t close = key.find('}', open + 1);
    if (close != std::string_view::npos && close > open + 1) {
      key = key.substr(open + 1, close - open - 1);
    }
  }
  return crc16(key) & (kClusterSlots - 1);
}

const std::string& slotTag(int slot) {
  static std::vector<std::string> table;
  static std::once_flag once;
  std::call_once(once, [] {
    // Shortest first: every slot is reached well before three characters
    // run out (62^3 candidates for 16384 slots).
    static const char kAlphabet[] =
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    constexpr size_t kN = sizeof(kAlphabet) - 1;
    table.assign(kClusterSlots, std::string());
    int filled = 0;
    std::string cand;
    for (size_t len = 1; len <= 3 && filled < kClusterSlots; len++) {
      size_t total = 1;
      for (size_t i = 0; i < len; i++) total *= kN;
      for (size_t code = 0; code < total && filled < kClusterSlots; code++) {
        cand.clear();
        for (size_t i = 0, c = code; i < len; i++, c /= kN) cand += kAlphabet[c % kN];
        std::string& slot_tag = table[static_cast<size_t>(crc16(cand) & (kClusterSlots - 1))];
        if (slot_tag.empty()) {
          slot_tag = cand;
          filled++;
        }
      }
    }
  });
  return table[static_cast<size_t>(slot) & (kClusterSlots - 1)];
}

Endpoint nodeEndpoint(const Endpoint& like, const std::string& host, int port) {
  Endpoint ep;  // the default network type
  if (like.path.empty() && like.type != "unix") ep.type = like.type;
  ep.host = host;
  ep.port = port;
  return ep;
}

bool connectNode(Client* c, Endpoint* ep, int timeout_ms) {
  if (c->connect(*ep, timeout_ms)) return true;
  if (ep->type != "rdma") return false;
  Endpoint tcp = *ep;
  tcp.type = "tcp";
  if (!c->connect(tcp, timeout_ms)) return false;
  *ep = tcp;
  return true;
}

bool parseRedirect(std::string_view err, Redirect* out) {
  if (err.substr(0, 6) == "MOVED ") {
    out->ask = false;
  } else if (err.substr(0, 4) == "ASK ") {
    out->ask = true;
  } else {
    return false;
  }
  size_t sp1 = err.find(' ');
  size_t sp2 = err.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return false;
  std::string_view addr = err.substr(sp2 + 1);
  size_t colon = addr.rfind(':');
  if (colon == std::string_view::npos) return false;
  out->slot = atoi(std::string(err.substr(sp1 + 1, sp2 - sp1 - 1)).c_str());
  out->host = std::string(addr.substr(0, colon));
  out->port = atoi(std::string(addr.substr(colon + 1)).c_str());
  return true;
}

bool ClusterNodeLine::hasFlag(std::string_view f) const {
  for (const auto& x : flags) {
    if (x == f) return true;
  }
  return false;
}

bool parseClusterNodes(std::string_view text, std::vector<ClusterNodeLine>* out, std::string* err) {
  out->clear();
  for (const std::string& line : split(text, '\n')) {
    if (line.empty() || line == "\r") continue;
    std::vector<std::string> f = split(line, ' ');
    if (f.size() < 8) {
      *err = "Invalid CLUSTER NODES reply: missing flags.";
      return false;
    }
    ClusterNodeLine n;
    n.id = f[0];
    if (!parseNodeAddress(f[1], &n)) {
      *err = "Invalid CLUSTER NODES reply: missing addr.";
      return false;
    }
    for (auto& flag : split(f[2], ',')) {
      if (!flag.empty()) n.flags.push_back(flag);
    }
    n.master_id = f[3];
    n.config_epoch = strtoull(f[6].c_str(), nullptr, 10);
    n.link_state = f[7];
    for (size_t i = 8; i < f.size(); i++) {
      const std::string& def = f[i];
      if (def.empty()) continue;
      if (def[0] == '[') {
        std::string body = def.substr(1, def.size() - (def.back() == ']' ? 2 : 1));
        size_t p;
        if ((p = body.find("->-")) != std::string::npos) {
          n.migrating.emplace_back(atoi(body.c_str()), body.substr(p + 3));
        } else if ((p = body.find("-<-")) != std::string::npos) {
          n.importing.emplace_back(atoi(body.c_str()), body.substr(p + 3));
        }
        continue;
      }
      size_t dash = def.find('-');
      int start = atoi(def.c_str());
      int stop = dash == std::string::npos ? start : atoi(def.c_str() + dash + 1);
      n.slots.emplace_back(start, stop);
    }
    out->push_back(std::move(n));
  }
  return true;
}

}  // namespace client
