// Length checks and small helpers of the bus format (wire.h).
#include "server/cluster/wire.h"

#include <cstdio>

namespace server::cluster::wire {

std::string fieldString(const char* p, size_t n) {
  size_t len = strnlen(p, n);
  return std::string(p, len);
}

bool plausibleStart(const uint8_t* p, uint32_t* totlen) {
  if (memcmp(p, "RCmb", 4) != 0) return false;
  uint32_t v;
  memcpy(&v, p + 4, 4);
  *totlen = ntohl(v);
  return *totlen >= kHeaderLen && *totlen <= kMaxMessage;
}

const char* typeName(uint16_t type) {
  switch (type) {
    case kPing:
      return "ping";
    case kPong:
      return "pong";
    case kMeet:
      return "meet";
    case kFail:
      return "fail";
    case kPublish:
      return "publish";
    case kPublishShard:
      return "publishshard";
    case kAuthRequest:
      return "auth-req";
    case kAuthAck:
      return "auth-ack";
    case kUpdate:
      return "update";
    case kMfStart:
      return "mfstart";
    case kModule:
      return "module";
    default:
      return "unknown";
  }
}

namespace {

uint32_t load32(const uint8_t* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return ntohl(v);
}

std::string invalid(const char* type, size_t got, uint64_t want) {
  char buf[160];
  snprintf(buf, sizeof(buf), "Received invalid %s packet of length %zu but expected length %llu",
           type, got, static_cast<unsigned long long>(want));
  return buf;
}

}  // namespace

bool validate(const uint8_t* msg, size_t len, std::string* why) {
  if (len < kHeaderLen) {
    *why = "Received a cluster bus message shorter than its header";
    return false;
  }
  Header h;
  memcpy(&h, msg, sizeof(h));
  uint16_t type = ntohs(h.type);
  if (ntohs(h.ver) != kProtoVersion) {
    *why = "Received a cluster bus message of protocol version " + std::to_string(ntohs(h.ver));
    return false;
  }
  uint64_t want = kHeaderLen;
  switch (type) {
    case kPing:
    case kPong:
    case kMeet: {
      want += sizeof(Gossip) * static_cast<uint64_t>(ntohs(h.count));
      if (want > len) return *why = invalid(typeName(type), len, want), false;
      if (h.mflags[0] & kFlag0ExtData) {
        for (uint16_t n = ntohs(h.extensions); n > 0; n--) {
          if (want + sizeof(ExtHeader) > len)
            return *why = invalid(typeName(type), len, want), false;
          uint32_t extlen = load32(msg + want);
          if (extlen % 8 != 0 || extlen < sizeof(ExtHeader)) {
            char buf[120];
            snprintf(buf, sizeof(buf), "Received a %s packet without proper padding (%u bytes)",
                     typeName(type), extlen);
            *why = buf;
            return false;
          }
          if (len - want < extlen) {
            *why = std::string("Received invalid ") + typeName(type) +
                   " packet with extension data that exceeds total packet length (" +
                   std::to_string(len) + ")";
            return false;
          }
          want += extlen;
        }
      }
      break;
    }
    case kFail:
      want += kFailBody;
      break;
    case kPublish:
    case kPublishShard:
      if (len < kHeaderLen + kPublishFixed) return *why = invalid(typeName(type), len, want), false;
      want += kPublishFixed + static_cast<uint64_t>(load32(msg + kHeaderLen)) +
              load32(msg + kHeaderLen + 4);
      break;
    case kAuthRequest:
    case kAuthAck:
    case kMfStart:
      break;
    case kUpdate:
      want += kUpdateBody;
      break;
    case kModule:
      if (len < kHeaderLen + kModuleFixed) return *why = invalid(typeName(type), len, want), false;
      want += kModuleFixed + static_cast<uint64_t>(load32(msg + kHeaderLen + 8));
      break;
    default:
      want = len;  // unknown types are taken as well formed, and ignored
  }
  if (want != len) {
    *why = invalid(typeName(type), len, want);
    return false;
  }
  return true;
}

void appendHostnameExt(std::string* out, std::string_view hostname) {
  size_t body = (hostname.size() + 1 + 7) / 8 * 8;
  ExtHeader e{htonl(static_cast<uint32_t>(sizeof(ExtHeader) + body)), htons(kExtHostname), 0};
  out->append(reinterpret_cast<const char*>(&e), sizeof(e));
  out->append(hostname.data(), hostname.size());
  out->append(body - hostname.size(), '\0');
}

}  // namespace server::cluster::wire
