// The cluster bus wire format, byte for byte as Redis 7.0.15 nodes send and
// expect it (facts from Redis's cluster.h; the layout below is this
// project's own, checked field by field with static_assert).
//
// Every message starts with a fixed 2256-byte header (Header). Multi-byte
// fields are in network byte order; the slot bitmaps have slot N in bit
// (N % 8) of byte N / 8. What follows the header depends on the type:
//
//   PING, PONG, MEET   `count` gossip entries (Gossip, 104 bytes each), then,
//                      when mflags[0] has kFlag0ExtData, `extensions`
//                      extension records (ExtHeader + 8-byte-padded body;
//                      7.0 knows type 0, the announced hostname)
//   FAIL               the failing node's name (40 bytes)
//   PUBLISH(SHARD)     channel_len, message_len, then both, unpadded
//   UPDATE             configEpoch, node name, slot bitmap (2096 bytes)
//   FAILOVER_AUTH_*,   nothing
//   MFSTART
//   MODULE             module id, len, type, payload
//
// validate() is the only reader of lengths: the bus hands a message to the
// processing code only after it said yes, so that code may index within
// the sizes the header announces.
#pragma once

#include <arpa/inet.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace server::cluster::wire {

constexpr int kSlots = 16384;
constexpr size_t kNameLen = 40;
constexpr size_t kIpLen = 46;  // INET6_ADDRSTRLEN
constexpr uint16_t kProtoVersion = 1;

enum MsgType : uint16_t {
  kPing = 0,
  kPong = 1,
  kMeet = 2,
  kFail = 3,
  kPublish = 4,
  kAuthRequest = 5,
  kAuthAck = 6,
  kUpdate = 7,
  kMfStart = 8,
  kModule = 9,
  kPublishShard = 10,
  kTypeCount = 11,
};

// mflags[0]
constexpr uint8_t kFlag0Paused = 1 << 0;    // master paused for a manual failover
constexpr uint8_t kFlag0ForceAck = 1 << 1;  // vote even though the master is up
constexpr uint8_t kFlag0ExtData = 1 << 2;   // PING/PONG/MEET carry extensions

constexpr uint16_t kExtHostname = 0;

struct Gossip {
  char nodename[kNameLen];
  uint32_t ping_sent;      // seconds
  uint32_t pong_received;  // seconds
  char ip[kIpLen];
  uint16_t port;
  uint16_t cport;
  uint16_t flags;
  uint16_t pport;
  uint16_t unused;
};
static_assert(sizeof(Gossip) == 104);

struct Update {
  uint64_t config_epoch;
  char nodename[kNameLen];
  uint8_t slots[kSlots / 8];
};
static_assert(sizeof(Update) == 2096);

struct Header {
  char sig[4];  // "RCmb"
  uint32_t totlen;
  uint16_t ver;
  uint16_t port;
  uint16_t type;
  uint16_t count;
  uint64_t current_epoch;
  uint64_t config_epoch;
  uint64_t offset;
  char sender[kNameLen];
  uint8_t myslots[kSlots / 8];
  char replicaof[kNameLen];
  char myip[kIpLen];
  uint16_t extensions;
  // Redis 7.0 leaves these 30 bytes zero and never reads them. This
  // project's nodes announce their RDMA endpoints in the first 8 (see
  // RdmaAnnounce); the rest stay zero.
  char unused[30];
  uint16_t pport;
  uint16_t cport;
  uint16_t flags;
  uint8_t state;
  uint8_t mflags[3];
};
static_assert(offsetof(Header, totlen) == 4);
static_assert(offsetof(Header, ver) == 8);
static_assert(offsetof(Header, port) == 10);
static_assert(offsetof(Header, type) == 12);
static_assert(offsetof(Header, count) == 14);
static_assert(offsetof(Header, current_epoch) == 16);
static_assert(offsetof(Header, config_epoch) == 24);
static_assert(offsetof(Header, offset) == 32);
static_assert(offsetof(Header, sender) == 40);
static_assert(offsetof(Header, myslots) == 80);
static_assert(offsetof(Header, replicaof) == 2128);
static_assert(offsetof(Header, myip) == 2168);
static_assert(offsetof(Header, extensions) == 2214);
static_assert(offsetof(Header, unused) == 2216);
static_assert(offsetof(Header, pport) == 2246);
static_assert(offsetof(Header, cport) == 2248);
static_assert(offsetof(Header, flags) == 2250);
static_assert(offsetof(Header, state) == 2252);
static_assert(offsetof(Header, mflags) == 2253);
static_assert(sizeof(Header) == 2256);

// The RDMA endpoints a node of this project announces in Header::unused:
// the signature "RDMA", the port its clients reach it on over RDMA
// (rdma-port, or cluster-announce-rdma-port) and the port its bus listens
// on over RDMA (0: its bus is TCP only). Ports in network byte order. A
// header without the signature (a Redis node's) announces neither.
struct RdmaAnnounce {
  char sig[4];
  uint16_t port;
  uint16_t cport;
};
static_assert(sizeof(RdmaAnnounce) == 8);
static_assert(sizeof(RdmaAnnounce) <= sizeof(Header::unused));
constexpr char kRdmaAnnounceSig[4] = {'R', 'D', 'M', 'A'};

inline void putRdmaAnnounce(Header* h, int port, int cport) {
  if (port == 0 && cport == 0) return;
  RdmaAnnounce a;
  memcpy(a.sig, kRdmaAnnounceSig, 4);
  a.port = htons(static_cast<uint16_t>(port));
  a.cport = htons(static_cast<uint16_t>(cport));
  memcpy(h->unused, &a, sizeof(a));
}
// False (ports 0) when the header announces no RDMA endpoint.
inline bool getRdmaAnnounce(const Header& h, int* port, int* cport) {
  RdmaAnnounce a;
  memcpy(&a, h.unused, sizeof(a));
  *port = *cport = 0;
  if (memcmp(a.sig, kRdmaAnnounceSig, 4) != 0) return false;
  *port = ntohs(a.port);
  *cport = ntohs(a.cport);
  return true;
}

struct ExtHeader {
  uint32_t length;  // of the record, this header included; a multiple of 8
  uint16_t type;
  uint16_t unused;
};
static_assert(sizeof(ExtHeader) == 8);

// Sizes of the bodies, as the totlen rules count them.
constexpr size_t kHeaderLen = sizeof(Header);
constexpr size_t kFailBody = kNameLen;
constexpr size_t kPublishFixed = 8;  // channel_len + message_len
constexpr size_t kUpdateBody = sizeof(Update);
constexpr size_t kModuleFixed = 13;  // id, len, type
// The largest message this node accepts (a PUBLISH may be as big as a
// client's value; beyond this the link is dropped as hostile).
constexpr uint32_t kMaxMessage = 512u * 1024 * 1024 + 64 * 1024;

inline uint64_t hton64(uint64_t v) {
  return (static_cast<uint64_t>(htonl(static_cast<uint32_t>(v))) << 32) |
         htonl(static_cast<uint32_t>(v >> 32));
}
inline uint64_t ntoh64(uint64_t v) {
  return hton64(v);
}

inline bool slotBit(const uint8_t* bitmap, int slot) {
  return (bitmap[slot >> 3] >> (slot & 7)) & 1;
}
inline void setSlotBit(uint8_t* bitmap, int slot) {
  bitmap[slot >> 3] |= static_cast<uint8_t>(1 << (slot & 7));
}
inline void clearSlotBit(uint8_t* bitmap, int slot) {
  bitmap[slot >> 3] &= static_cast<uint8_t>(~(1 << (slot & 7)));
}

// A fixed-size name field as a string (stops at the first NUL).
std::string fieldString(const char* p, size_t n);

// The first 8 bytes of a message are in: false when the signature is not
// "RCmb" or the announced length is shorter than a header or longer than
// kMaxMessage (the link is then dropped).
bool plausibleStart(const uint8_t* p, uint32_t* totlen);

// A whole message of `len` bytes (len == its totlen). True when its length
// agrees with its type, count and extensions as Redis checks them; else
// false with *why, a log line ("Received invalid PING packet of length
// ...").
bool validate(const uint8_t* msg, size_t len, std::string* why);

const char* typeName(uint16_t type);

// The extension records of a valid PING/PONG/MEET, in order.
template <typename Fn>
void forEachExtension(const Header* h, Fn fn) {
  if (!(h->mflags[0] & kFlag0ExtData)) return;
  const uint8_t* p =
      reinterpret_cast<const uint8_t*>(h) + kHeaderLen + sizeof(Gossip) * ntohs(h->count);
  for (uint16_t n = ntohs(h->extensions); n > 0; n--) {
    ExtHeader e;
    memcpy(&e, p, sizeof(e));
    uint32_t len = ntohl(e.length);
    fn(ntohs(e.type),
       std::string_view(reinterpret_cast<const char*>(p) + sizeof(e), len - sizeof(e)));
    p += len;
  }
}

// Appends the hostname extension record (NUL-terminated, padded to 8).
void appendHostnameExt(std::string* out, std::string_view hostname);

}  // namespace server::cluster::wire
