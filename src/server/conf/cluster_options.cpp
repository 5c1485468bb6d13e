// The cluster-* directives of Redis 7.0.15 (src/server/cluster/ reads
// them): their bounds, which ones CONFIG SET may change, and the checks
// Redis makes of their values. Changes to the announced address, ports and
// hostname reach the bus at its next cron (100 ms).
#include <cctype>
#include <climits>

#include "server/conf/option_macros.h"

namespace server::conf {
namespace {

bool validHostname(const std::string& v, std::string* e) {
  if (v.size() >= 256) {
    *e = "Hostnames must be less than 256 characters";
    return false;
  }
  for (char ch : v) {
    if (!isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '.') {
      *e = "Hostnames may only contain alphanumeric characters, hyphens or dots";
      return false;
    }
  }
  return true;
}

constexpr const char* kEndpointTypeNames[] = {"ip", "hostname", "unknown-endpoint"};
constexpr EnumValues kEndpointTypes = {kEndpointTypeNames, 3};

}  // namespace

std::vector<Option> clusterOptions() {
  return {
      BOOL_OPT("cluster-enabled", cluster_enabled, false),
      STR_OPT("cluster-config-file", cluster_config_file, false),
      INT_OPT("cluster-node-timeout", cluster_node_timeout, 0, LLONG_MAX, true),
      INT_OPT("cluster-port", cluster_port, 0, 65535, false),
      STR_OPT("cluster-announce-ip", cluster_announce_ip, true),
      Option{"cluster-announce-hostname", true, 1, 1,
             [](Config& c, const Args& a, std::string* e) {
               if (!validHostname(a[0], e)) return false;
               c.cluster_announce_hostname = a[0];
               return true;
             },
             [](const Config& c) { return c.cluster_announce_hostname; }},
      INT_OPT("cluster-announce-port", cluster_announce_port, 0, 65535, true),
      INT_OPT("cluster-announce-bus-port", cluster_announce_bus_port, 0, 65535, true),
      INT_OPT("cluster-announce-tls-port", cluster_announce_tls_port, 0, 65535, true),
      ENUM_OPT("cluster-preferred-endpoint-type", cluster_preferred_endpoint_type, kEndpointTypes,
               true),
      INT_OPT("cluster-replica-validity-factor", cluster_replica_validity_factor, 0, INT_MAX, true),
      INT_OPT("cluster-migration-barrier", cluster_migration_barrier, 0, INT_MAX, true),
      BOOL_OPT("cluster-allow-replica-migration", cluster_allow_replica_migration, true),
      BOOL_OPT("cluster-require-full-coverage", cluster_require_full_coverage, true),
      BOOL_OPT("cluster-replica-no-failover", cluster_replica_no_failover, true),
      BOOL_OPT("cluster-allow-reads-when-down", cluster_allow_reads_when_down, true),
      BOOL_OPT("cluster-allow-pubsubshard-when-down", cluster_allow_pubsubshard_when_down, true),
      MEM_OPT("cluster-link-sendbuf-limit", cluster_link_sendbuf_limit, 0, LONG_MAX, true),
  };
}

}  // namespace server::conf
