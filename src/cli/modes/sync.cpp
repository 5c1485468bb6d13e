// --rdb, --functions-rdb and --replica: redis-cli as a replica. After the
// REPLCONF handshake it sends SYNC and reads the payload raw, in either form
// a 7.0 master sends: "$<size>\r\n<bytes>" (disk target) or
// "$EOF:<40-byte mark>\r\n<bytes><mark>" (diskless). Lines of newlines sent
// while the master prepares the RDB are skipped. Every message and exit
// status is redis-cli 7.0's.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

#include "cli/format.h"
#include "cli/modes/modes.h"

namespace cli::modes {

namespace {

constexpr size_t kMarkLen = 40;
constexpr size_t kChunk = 16 * 1024;

// REPLCONF a b. An error reply is reported and not fatal (an older server
// may not know the option): false. A lost connection exits.
bool sendReplconf(Session* s, const char* a, const char* b) {
  fprintf(stderr, "sending REPLCONF %s %s\n", a, b);
  resp::Reply r;
  if (!s->client().call({"REPLCONF", a, b}, &r)) {
    fprintf(stderr, "\nI/O error\n");
    exit(1);
  }
  if (r.isError()) {
    fprintf(stderr, "REPLCONF %s error: %s\n", a, r.str.c_str());
    return false;
  }
  return true;
}

struct Payload {
  bool usemark = false;
  char mark[kMarkLen];
  unsigned long long size = 0;
};

// Sends SYNC and reads the "$..." line (raw mode stays on afterwards).
void sendSync(Session* s, Payload* p) {
  client::Client& c = s->client();
  c.setRawMode(true);
  c.appendRaw("SYNC\r\n");
  if (!c.flush()) {
    fprintf(stderr, "Error writing to master\n");
    exit(1);
  }
  std::string line;
  while (true) {
    std::string byte;
    if (!c.readRaw(&byte, 1)) {
      fprintf(stderr, "Error reading bulk length while SYNCing\n");
      exit(1);
    }
    if (byte[0] == '\n') {
      if (!line.empty()) break;
      continue;  // a keep-alive newline
    }
    line += byte[0];
  }
  if (line[0] == '-') {
    fprintf(stderr, "SYNC with master failed: %s\n", line.c_str());
    exit(1);
  }
  if (line.compare(1, 4, "EOF:") == 0 && line.size() >= 5 + kMarkLen) {
    p->usemark = true;
    memcpy(p->mark, line.data() + 5, kMarkLen);
    return;
  }
  p->size = strtoull(line.c_str() + 1, nullptr, 10);
}

// Reads the payload, handing each chunk to sink. In mark mode it ends when
// the last kMarkLen bytes read equal the mark; *total counts every byte,
// the mark included. False on a read error.
template <typename Sink>
bool readPayload(Session* s, const Payload& p, unsigned long long* total, Sink sink) {
  unsigned long long left = p.usemark ? ULLONG_MAX : p.size;
  std::string tail;  // the last bytes read, up to kMarkLen
  *total = 0;
  while (left > 0) {
    std::string chunk;
    size_t want = left > kChunk ? kChunk : static_cast<size_t>(left);
    if (!s->client().readRaw(&chunk, want)) return false;
    if (!sink(chunk)) return true;
    left -= chunk.size();
    *total += chunk.size();
    if (p.usemark) {
      tail += chunk;
      if (tail.size() > kMarkLen) tail.erase(0, tail.size() - kMarkLen);
      if (tail.size() == kMarkLen && memcmp(tail.data(), p.mark, kMarkLen) == 0) break;
    }
  }
  return true;
}

}  // namespace

int rdbMode(Session* s) {
  const Options& o = s->options();
  sendReplconf(s, "capa", "eof");
  sendReplconf(s, "rdb-only", "1");
  if (o.functions_rdb && !sendReplconf(s, "rdb-filter-only", "functions")) {
    fprintf(stderr, "Failed requesting functions only RDB from server, aborting\n");
    return 1;
  }
  return saveRdb(s, o.rdb_filename);
}

int saveRdb(Session* s, const std::string& name) {
  Payload p;
  sendSync(s, &p);
  if (p.usemark) {
    fprintf(stderr,
            "SYNC sent to master, writing bytes of bulk transfer until EOF marker to '%s'\n",
            name.c_str());
  } else {
    fprintf(stderr, "SYNC sent to master, writing %llu bytes to '%s'\n", p.size, name.c_str());
  }
  bool to_stdout = name == "-";
  int fd = STDOUT_FILENO;
  if (!to_stdout) {
    fd = open(name.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      fprintf(stderr, "Error opening '%s': %s\n", name.c_str(), strerror(errno));
      return 1;
    }
  }
  unsigned long long total = 0;
  bool write_failed = false;
  bool ok = readPayload(s, p, &total, [&](const std::string& chunk) {
    ssize_t w = write(fd, chunk.data(), chunk.size());
    if (w != static_cast<ssize_t>(chunk.size())) {
      fprintf(stderr, "Error writing data to file: %s\n", w < 0 ? strerror(errno) : "short write");
      write_failed = true;
      return false;
    }
    return true;
  });
  if (write_failed) return 1;
  if (!ok) {
    fprintf(stderr, "I/O Error reading RDB payload from socket\n");
    return 1;
  }
  if (p.usemark) {
    // The mark was written too: cut it off the file (stdout keeps it, as
    // with redis-cli).
    unsigned long long size = total - kMarkLen;
    if (!to_stdout && ftruncate(fd, static_cast<off_t>(size)) == -1)
      fprintf(stderr, "ftruncate failed: %s.\n", strerror(errno));
    fprintf(stderr, "Transfer finished with success after %llu bytes\n", size);
  } else {
    fprintf(stderr, "Transfer finished with success.\n");
  }
  // Close the connection first: fsync may take a while.
  s->client().close();
  if (!to_stdout && fsync(fd) == -1) {
    fprintf(stderr, "Fail to fsync '%s': %s\n", name.c_str(), strerror(errno));
    return 1;
  }
  if (!to_stdout) close(fd);
  return 0;
}

int replicaMode(Session* s) {
  sendReplconf(s, "capa", "eof");
  sendReplconf(s, "rdb-filter-only", "");
  Payload p;
  sendSync(s, &p);
  const char* info = "SYNC with master";
  if (p.usemark) {
    fprintf(stderr, "%s, discarding bytes of bulk transfer until EOF marker...\n", info);
  } else {
    fprintf(stderr, "%s, discarding %llu bytes of bulk transfer...\n", info, p.size);
  }
  unsigned long long total = 0;
  if (!readPayload(s, p, &total, [](const std::string&) { return true; })) {
    fprintf(stderr, "Error reading RDB payload while %sing\n", info);
    return 1;
  }
  s->client().setRawMode(false);
  if (p.usemark) {
    fprintf(stderr, "SYNC done after %llu bytes. Logging commands from master.\n", total);
    // A 7.0 master streams to a diskless replica once it acknowledges. As
    // redis-cli does, the reply awaited here is the first streamed item.
    sleep(1);
    sendReplconf(s, "ACK", "0");
  } else {
    fprintf(stderr, "SYNC done. Logging commands from master.\n");
  }
  resp::Reply r;
  while (s->client().readReply(&r)) {
    std::string line = formatCsv(r) + "\n";
    fwrite(line.data(), 1, line.size(), stdout);
    fflush(stdout);
  }
  fprintf(stderr, "Error: %s\n", s->lastReason().c_str());
  return 1;
}

}  // namespace cli::modes
