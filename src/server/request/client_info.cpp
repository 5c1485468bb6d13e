#include "server/request/client_info.h"

#include <cstdio>

#include "net/connection.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/pubsub/pubsub.h"
#include "server/pubsub/tracking.h"
#include "server/request/multi.h"

namespace server {

namespace {

size_t (*g_replica_pending)(const Client* c) = nullptr;

// A unix-socket peer has no address of its own: Redis shows the socket
// path with port 0 for both ends.
std::string withPort(std::string addr, const std::string& local) {
  if (addr.find(':') != std::string::npos) return addr;
  if (addr.empty()) addr = local;
  return addr + ":0";
}

}  // namespace

void formatClientLine(const ClientLine& f, std::string* out) {
  // Two passes: names and addresses have no length limit.
  auto print = [&f](char* buf, size_t size) {
    return snprintf(buf, size,
                    "id=%llu addr=%s laddr=%s fd=%d name=%s age=%lld idle=%lld flags=%s db=%d "
                    "sub=%zu psub=%zu ssub=%zu multi=%ld qbuf=%zu qbuf-free=%zu argv-mem=%zu "
                    "multi-mem=%zu rbs=%zu rbp=%zu obl=%zu oll=%zu omem=%zu tot-mem=%zu events=%s "
                    "cmd=%s user=%s redir=%lld resp=%d transport=%s\n",
                    static_cast<unsigned long long>(f.id), f.addr.c_str(), f.laddr.c_str(), f.fd,
                    f.name.c_str(), static_cast<long long>(f.age), static_cast<long long>(f.idle),
                    f.flags.c_str(), f.db, f.sub, f.psub, f.ssub, f.multi, f.qbuf, f.qbuf_free,
                    f.argv_mem, f.multi_mem, f.rbs, f.rbp, f.obl, f.oll, f.omem, f.tot_mem,
                    f.events.c_str(), f.cmd.c_str(), f.user.c_str(),
                    static_cast<long long>(f.redir), f.resp, f.transport.c_str());
  };
  int n = print(nullptr, 0);
  if (n <= 0) return;
  size_t at = out->size();
  out->resize(at + static_cast<size_t>(n) + 1);
  print(out->data() + at, static_cast<size_t>(n) + 1);
  out->resize(at + static_cast<size_t>(n));
}

void setReplicaPendingHook(size_t (*hook)(const Client* c)) {
  g_replica_pending = hook;
}

ClientLine describeClient(Client* c) {
  ClientLine f;
  f.id = c->id();
  if (net::Connection* conn = c->conn()) {
    std::string local = conn->localAddress();
    f.laddr = withPort(local, local);
    f.addr = withPort(conn->peerAddress(), local);
    f.fd = conn->fd();
    f.transport = conn->transport();
  }
  f.name = c->name();
  f.age = (db::Clock::nowMs - c->ctime_ms) / 1000;
  f.idle = (db::Clock::nowMs - c->last_interaction_ms) / 1000;
  std::string flags;
  if (c->flags & kReplica) flags += 'S';
  if (c->flags & kMaster) flags += 'M';
  if (c->flags & kMonitor) flags += 'O';
  if (isPubSubClient(c)) flags += 'P';
  if (inMulti(c)) flags += 'x';
  if (c->flags & kPostponed) flags += 'b';
  flags += tracking::clientListFlags(c);
  if (multiDirtyCas(c)) flags += 'd';
  if (c->flags & kCloseAfterReply) flags += 'c';
  if (c->flags & kCloseAsap) flags += 'A';
  if (c->flags & kNoEvict) flags += 'e';
  if (c->flags & kBlocked) flags += 'b';
  f.flags = flags.empty() ? "N" : flags;
  f.redir = tracking::clientListRedir(c);
  f.db = c->dbIndex();
  f.sub = pubsubChannelCount(c);
  f.psub = pubsubPatternCount(c);
  f.ssub = pubsubShardChannelCount(c);
  f.multi = multiQueuedCount(c);
  f.multi_mem = multiQueuedBytes(c);
  f.qbuf = c->queryBufferUnparsed();
  bool running = c == g_server->current_client;
  if (running) {
    for (std::string_view a : c->argv()) f.argv_mem += a.size();
    f.qbuf = c->input_batch;  // the running request is still in it, as in Redis
  }
  f.qbuf_free = c->queryBufferCapacity() > f.qbuf ? c->queryBufferCapacity() - f.qbuf : 0;
  f.rbs = c->replyBufferSize();
  f.rbp = c->replyBufferPeak();
  size_t shared = (c->flags & kReplica) && g_replica_pending ? g_replica_pending(c) : 0;
  f.omem = c->outputBytes() + shared;
  f.obl = c->outputBytes();
  f.oll = 0;
  f.tot_mem = sizeof(Client) + c->queryBufferCapacity() + c->outputMemory() + shared + f.argv_mem +
              multiMemory(c) + pubsubStateMemory(c) + tracking::clientStateMemory(c);
  f.events = c->eventsString();
  const Command* cmd = running ? c->cur_cmd : c->last_cmd;
  if (cmd != nullptr) f.cmd = cmd->name;
  f.user = c->user;
  f.resp = c->proto();
  return f;
}

}  // namespace server
