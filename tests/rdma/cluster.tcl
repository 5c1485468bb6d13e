# Cluster mode over RDMA: nodes of ours with an rdma-port announce it on the
# bus, and with cluster-bus-transport rdma their bus links run over RDMA to
# each other (a Redis 7.0.15 node, which announces no RDMA endpoint, is
# reached over TCP). Our redis-cli --cluster --rdma creates and reshards the
# cluster, redis-cli -c --rdma and redis-benchmark --cluster --rdma follow
# the slot map over RDMA, falling back to TCP for the Redis node, and a
# master killed is replaced by its replica over the RDMA bus while an RDMA
# client keeps writing. Runs only in the rxe VM (needs:rdma).

source [file join $::repo_root tests rdma helpers rdma.tcl]
source [file join $::support_dir cluster.tcl]

tags {needs:rdma cluster external:skip} {

# Each node listens on 127.0.0.1 (the helpers' connections) and on the RDMA
# address, where the cluster meets. Ours get an RDMA port that differs from
# the TCP one, so the tests can tell which one a client was given.
array set ::rport {}
proc rnode {name kind {more {}}} {
  set extra [list --bind 127.0.0.1 $::rdma_addr --protected-mode no {*}$more]
  if {$kind eq "ours"} {
    set ::rport($name) [find_free_port]
    lappend extra --rdma-port $::rport($name) --rdma-bind $::rdma_addr \
      --cluster-bus-transport rdma --rdma-rx-size 65536
  }
  cnode_start $name $kind $extra
}
proc raddr {name} { return "$::rdma_addr:$::rport($name)" }

# Our redis-cli over RDMA; {status output}.
proc rcli {args} { return [run_status $::rdma_cli --rdma {*}$args] }

proc links_of {name type} {
  set v [cinfo $name cluster_links_$type]
  return [expr {$v eq "" ? 0 : $v}]
}

# Outside the VM (needs:rdma not requested) every test is skipped and no
# node starts.
set ::rdma_cluster_run [expr {[skip_reason $::tags] eq ""}]
if {$::rdma_cluster_run} {
  foreach n {a b c} { rnode $n ours }
  rnode r ours {--repl-transport rdma}
}

# Every named node says cluster_state:ok.
proc wait_state_ok {names} {
  wait_for_condition 300 100 {
    [llength [lmap n $names {expr {[catch {cinfo $n cluster_state} v] || $v ne "ok" ? $n : [continue]}}]] == 0
  } {
    fail "cluster not ok on all of $names: [cn [lindex $names 0] cluster nodes]"
  }
}

test {redis-cli --cluster create --rdma: the nodes meet, and their bus runs over RDMA} {
  lassign [rcli --cluster create [raddr a] [raddr b] [raddr c] --cluster-yes] st out
  assert_equal 0 $st
  assert_match {*All 16384 slots covered*} $out
  cluster_wait_ok {a b c}
  # Links start over TCP while a node's RDMA bus port is not yet known, and
  # move once its first message announced it.
  foreach n {a b c} {
    wait_for_condition 100 100 {[links_of $n rdma] == 4 && [links_of $n tcp] == 0} {
      fail "links of $n: [cn $n cluster info]"
    }
  }
  assert_match "*Cluster bus listening on*[expr {[cport a] + 10000}]*" [clog a]
}

test {A replica added over RDMA replicates over RDMA; all links of the four are RDMA} {
  lassign [rcli --cluster add-node [raddr r] [raddr a] --cluster-slave \
             --cluster-master-id [cnode_id a]] st out
  assert_equal 0 $st
  cluster_wait_ok {a b c r}
  # repl-transport rdma: the replica reaches its master's RDMA port.
  wait_for_condition 200 100 {
    [info_field [cn r info replication] master_link_status] eq "up"
  } {
    fail "replica r never synced: [cn r info replication]"
  }
  assert_equal $::rport(a) [info_field [cn r info replication] master_port]
  assert_match {*transport=rdma*} [cn a client list type replica]
  foreach n {a b c r} {
    wait_for_condition 100 100 {[links_of $n rdma] == 6 && [links_of $n tcp] == 0} {
      fail "links of $n: [cn $n cluster info]"
    }
  }
  lindex [cn r role] 0
} {slave}

test {cluster-bus-transport at run time: the bus moves to TCP and back to RDMA} {
  foreach n {a b c r} { cn $n config set cluster-bus-transport tcp }
  foreach n {a b c r} {
    wait_for_condition 100 100 {[links_of $n rdma] == 0 && [links_of $n tcp] == 6} {
      fail "links of $n after the switch to tcp: [cn $n cluster info]"
    }
  }
  wait_state_ok {a b c r}
  foreach n {a b c r} { cn $n config set cluster-bus-transport rdma }
  foreach n {a b c r} {
    wait_for_condition 100 100 {[links_of $n rdma] == 6 && [links_of $n tcp] == 0} {
      fail "links of $n after the switch back to rdma: [cn $n cluster info]"
    }
  }
  wait_state_ok {a b c r}
  assert_match "*cluster-bus-transport is now rdma*" [clog a]
}

test {CLUSTER SHARDS names every node's rdma-port; RDMA clients are given RDMA ports} {
  foreach shard [cn a cluster shards] {
    foreach node [dict get $shard nodes] {
      foreach n {a b c r} {
        if {[dict get $node id] eq [cnode_id $n]} {
          assert_equal $::rport($n) [dict get $node rdma-port]
          assert_equal [cport $n] [dict get $node port]
        }
      }
    }
  }
  set kb [owned_key b]
  catch {cn a get $kb} tcp_err
  lassign [rcli -h $::rdma_addr -p $::rport(a) get $kb] st rdma_err
  assert_match "*:[cport b]" $tcp_err
  assert_match "*MOVED * $::rdma_addr:$::rport(b)*" $rdma_err
  lassign [rcli -h $::rdma_addr -p $::rport(a) cluster nodes] st nodes
  assert_match "*$::rdma_addr:$::rport(b)@[expr {[cport b] + 10000}]*" $nodes
  lassign [rcli -h $::rdma_addr -p $::rport(a) cluster slots] st slots
  list [string match "*$::rport(c)*" $slots] [string match "*[cport c]*" $slots]
} {1 0}

test {redis-cli -c --rdma writes through every master and reads back from another} {
  # Keys of all three masters (each start of a redis-cli costs a connection
  # set-up, slow under emulation: a few keys only).
  set keys [list [owned_key a rk] [owned_key b rk] [owned_key c rk]]
  foreach k $keys {
    lassign [rcli -c -h $::rdma_addr -p $::rport(a) set $k v-$k] st out
    assert_equal 0 $st
  }
  set got {}
  foreach k $keys {
    lappend got [string trim [lindex [rcli -c -h $::rdma_addr -p $::rport(c) get $k] 1]]
  }
  assert_equal $got [lmap k $keys {string cat v- $k}]
  # The keys are where the slot map says, on all three masters.
  lmap n {a b c} {expr {[cn $n dbsize] > 0}}
} {1 1 1}

test {redis-benchmark --cluster --rdma spreads its keys over the masters} {
  foreach n {a b c} { cn $n flushall }
  lassign [run_status [file join $::repo_root src redis-benchmark] --rdma --cluster \
             -h $::rdma_addr -p $::rport(b) -n 3000 -c 6 -t set -q] st out
  assert_equal 0 $st
  assert_match {*SET:*requests per second*} $out
  lmap n {a b c} {expr {[cn $n dbsize] > 0}}
} {1 1 1}

test {A Redis 7.0.15 node joins: reached over TCP by the bus and by RDMA clients} {
  rnode d debian
  cn a cluster meet $::rdma_addr [cport d]
  cluster_wait_ok {a b c r d}
  # Our nodes keep RDMA links among themselves and use TCP for d.
  wait_for_condition 100 100 {[links_of a tcp] == 2 && [links_of a rdma] == 6} {
    fail "links of a: [cn a cluster info]"
  }
  # Resharding over RDMA: the cli reaches d over TCP, and MIGRATE (told
  # RDMA ports) moves the keys to d at its TCP port.
  for {set i 0} {$i < 50} {incr i} { cn [cluster_owner dk$i {a b c}] set dk$i $i }
  lassign [rcli --cluster reshard [raddr a] --cluster-from [cnode_id a] \
             --cluster-to [cnode_id d] --cluster-slots 60 --cluster-yes] st out
  assert_equal 0 $st
  cluster_wait_consistent a
  assert {[cn d dbsize] > 0}
  set dk [owned_key d dk]
  lassign [rcli -c -h $::rdma_addr -p $::rport(b) set $dk ok] st out
  assert_equal 0 $st
  lassign [rcli -c -h $::rdma_addr -p $::rport(c) get $dk] st out
  list $st [string trim $out] [cn d get $dk]
} {0 ok ok}

test {A master killed: its replica takes over via the RDMA bus, RDMA clients follow} {
  set ka [owned_key a fk]
  set slot [cn b cluster keyslot $ka]
  cnode_kill a
  wait_for_condition 200 100 {
    ![catch {cn r role} role] && [lindex $role 0] eq "master"
  } {
    fail "replica r was not promoted: [cn b cluster nodes]"
  }
  wait_state_ok {b c r d}
  lassign [rcli -c -h $::rdma_addr -p $::rport(b) set $ka after-failover] st out
  assert_equal 0 $st
  cn r get $ka
} {after-failover}

if {$::rdma_cluster_run} { cnodes_stop_all }
}
