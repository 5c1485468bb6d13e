// The handlers of CLUSTER's subcommands, ASKING, READONLY and READWRITE in
// cluster mode (node_cmds.cpp: nodes, roles, failover, state; slot_cmds.cpp:
// slots, keys and the slot map). cluster_cmds.cpp registers them, each
// behind the "cluster support disabled" answer of a node not in cluster
// mode. Private to src/server/cluster/.
#pragma once

namespace server {
class Client;
}

namespace server::cluster::cmd {

// node_cmds.cpp
void help(Client* c);
void meet(Client* c);
void nodes(Client* c);
void myid(Client* c);
void info(Client* c);
void saveconfig(Client* c);
void forget(Client* c);
void replicate(Client* c);
void replicas(Client* c);
void countFailureReports(Client* c);
void failover(Client* c);
void setConfigEpoch(Client* c);
void bumpepoch(Client* c);
void reset(Client* c);
void links(Client* c);
void asking(Client* c);
void readonly(Client* c);
void readwrite(Client* c);

// slot_cmds.cpp
void addslots(Client* c);
void addslotsrange(Client* c);
void delslots(Client* c);
void delslotsrange(Client* c);
void flushslots(Client* c);
void setslot(Client* c);
void keyslot(Client* c);
void countkeysinslot(Client* c);
void getkeysinslot(Client* c);
void slots(Client* c);
void shards(Client* c);

// "unknown subcommand or wrong number of arguments for '<sub>'. Try
// CLUSTER HELP."
void subcommandSyntaxError(Client* c);

}  // namespace server::cluster::cmd
