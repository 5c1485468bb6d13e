# A cluster whose bus runs over TLS (tls-cluster yes): one of our nodes and
# one of Debian's Redis 7.0.15, each with a plaintext and a TLS port. The
# bus listens on the TLS port + 10000 and both nodes reach each other over
# it; what a client is told about the other node depends on how the client
# came in, as Redis 7.0 does: a TLS client is given TLS ports, a plaintext
# client the plaintext ones (-MOVED, CLUSTER SLOTS, CLUSTER NODES), and
# CLUSTER SHARDS names both. MIGRATE to a node named by its plaintext port
# reaches it over TLS (Redis would try TLS on the plaintext port).

source [file join $::support_dir cluster.tcl]
source [file join $::support_dir tls.tcl]

tags {cluster tls} {

proc tls_cluster_args {tls_port} {
  set d [tls_certs]
  return [list --tls-port $tls_port --tls-cluster yes --tls-cert-file $d/server.crt \
            --tls-key-file $d/server.key --tls-ca-cert-file $d/ca.crt]
}

set ta [cluster_free_port]
set tb [cluster_free_port]
cnode_start a ours [tls_cluster_args $ta]
cnode_start b debian [tls_cluster_args $tb]

# The port part of "-MOVED <slot> <host>:<port>".
proc moved_port {err} {
  if {![regexp {^MOVED [0-9]+ [^ ]*:([0-9]+)$} [string trim $err] -> port]} {
    fail "not a MOVED error: $err"
  }
  return $port
}

test {tls-cluster yes: our node and Redis's meet over TLS on the TLS port + 10000} {
  assert_match "*Cluster bus listening on *[expr {$ta + 10000}]*" [clog a]
  assert_match "*Running mode=cluster, port=[cport a].*" [clog a]
  cn a cluster addslotsrange 0 8191
  cn b cluster addslotsrange 8192 16383
  # The TLS port is the one a TLS cluster announces and meets on.
  assert_equal OK [cn a cluster meet 127.0.0.1 $tb]
  cluster_wait_ok {a b}
  # Both links (to b and from b) are TLS connections.
  wait_for_condition 100 50 {[cinfo a cluster_links_tls] == 2} {
    fail "links: [cn a cluster info]"
  }
  cinfo a cluster_links_tcp
} {}

test {-MOVED names the plaintext port to plaintext clients and the TLS port to TLS clients} {
  set kb [owned_key b]
  set ka [owned_key a]
  catch {cn a get $kb} plain_err
  set tls_err [tls_cli $ta get $kb]
  # Redis's node answers the same way for our node's keys.
  catch {cn b get $ka} redis_plain
  set redis_tls [tls_cli $tb get $ka]
  list [expr {[moved_port $plain_err] == [cport b]}] [expr {[moved_port $tls_err] == $tb}] \
    [expr {[moved_port $redis_plain] == [cport a]}] [expr {[moved_port $redis_tls] == $ta}]
} {1 1 1 1}

test {CLUSTER SLOTS and CLUSTER NODES show ports of the client's kind; SHARDS shows both} {
  set plain_ports [lsort [lmap r [cn a cluster slots] {lindex $r 2 1}]]
  set tls_slots [tls_cli $ta --no-raw cluster slots]
  assert_equal $plain_ports [lsort [list [cport a] [cport b]]]
  assert_match "*$ta*" $tls_slots
  assert_match "*$tb*" $tls_slots
  assert_no_match "*[cport b]*" $tls_slots
  assert_match "*127.0.0.1:[cport b]@[expr {$tb + 10000}]*" [cn a cluster nodes]
  assert_match "*127.0.0.1:$tb@[expr {$tb + 10000}]*" [tls_cli $ta cluster nodes]
  # SHARDS: the same from both kinds of client, with "port" and "tls-port".
  set shard_b {}
  foreach shard [cn a cluster shards] {
    foreach node [dict get $shard nodes] {
      if {[dict get $node id] eq [cnode_id b]} { set shard_b $node }
    }
  }
  list [expr {[dict get $shard_b port] == [cport b]}] [expr {[dict get $shard_b tls-port] == $tb}]
} {1 1}

test {Writes through both nodes over TLS with Debian's redis-cli -c} {
  foreach i {1 2 3 4 5 6 7 8} {
    assert_equal OK [tls_cli $ta -c set tlsk$i v$i]
  }
  lmap i {1 2 3 4 5 6 7 8} {tls_cli $tb -c get tlsk$i}
} {v1 v2 v3 v4 v5 v6 v7 v8}

test {A slot moved by a plaintext client: MIGRATE to the plaintext port goes over TLS} {
  # What redis-cli --cluster reshard does, with the ports a plaintext client
  # is shown; the node reaches b's TLS port (cluster links are TLS).
  set k [owned_key a mig]
  set slot [cn a cluster keyslot $k]
  cn a set $k moved-value
  cn b cluster setslot $slot importing [cnode_id a]
  cn a cluster setslot $slot migrating [cnode_id b]
  assert_equal OK [cn a migrate 127.0.0.1 [cport b] $k 0 5000]
  cn b cluster setslot $slot node [cnode_id b]
  cn a cluster setslot $slot node [cnode_id b]
  list [tls_cli $tb get $k] [cn a cluster countkeysinslot $slot]
} {moved-value 0}

cnodes_stop_all
}
