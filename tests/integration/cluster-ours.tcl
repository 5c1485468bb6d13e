# A cluster of six of our nodes only, made and run with our own tools, as a
# user who replaces Redis everywhere would: our redis-cli --cluster create
# with a replica per master, check, redis-benchmark --cluster and redis-cli
# -c through it, a master killed (its replica elected, WAIT-acknowledged
# writes kept), the dead master back from nodes.conf as a replica, and a
# rebalance. Node timeout: 1 s.

source [file join $::support_dir cluster.tcl]

tags {cluster} {

set ::six {o1 o2 o3 o4 o5 o6}
foreach n $::six { cnode_start $n ours }

proc ours_cli {args} {
  if {[catch {exec $::cfg(cli_bin) {*}$args 2>@1} out]} { return "ERROR: $out" }
  return $out
}
proc masters6 {} {
  return [lmap n [live_nodes $::six] {
    expr {[lindex [cn $n role] 0] eq "master" ? $n : [continue]}
  }]
}

test {Our redis-cli --cluster create: six of our nodes, three masters with a replica each} {
  set out [ours_cli --cluster create {*}[lmap n $::six {caddr $n}] --cluster-replicas 1 \
             --cluster-yes]
  assert_match {*All 16384 slots covered*} $out
  cluster_wait_ok $::six
  foreach m [masters6] { wait_replicas_synced $m }
  set out [ours_cli --cluster check [caddr o1]]
  assert_match {*All nodes agree about slots configuration*} $out
  list [llength [masters6]] [cinfo o1 cluster_size] [cinfo o1 cluster_links_tcp]
} {3 3 10}

test {redis-benchmark --cluster and redis-cli -c go through every master} {
  exec [file join $::repo_root src redis-benchmark] --cluster -p [cport o1] -n 3000 -c 6 \
    -t set -q 2>@1
  foreach m [masters6] { assert {[cn $m dbsize] > 0} }
  foreach i {1 2 3 4 5 6 7 8 9} { ours_cli -c -p [cport o2] set ck$i v$i }
  lmap i {1 2 3 4 5 6 7 8 9} { ours_cli -c -p [cport o3] get ck$i }
} {v1 v2 v3 v4 v5 v6 v7 v8 v9}

test {A master killed: its replica is elected and keeps every acknowledged write} {
  set victim [lindex [masters6] 0]
  set rep [lindex [replicas_of $victim] 0]
  set tag "k6"
  while {[cluster_owner "{$tag}" $::six] ne $victim} { append tag x }
  set c [::redis::connect 127.0.0.1 [cport $victim]]
  for {set i 0} {$i < 100} {incr i} { $c set "{$tag}$i" $i }
  assert_equal 1 [$c wait 1 2000]
  $c close
  cnode_kill $victim
  set ::dead6 $victim
  wait_for_condition 200 50 {[lsearch -exact [masters6] $rep] >= 0} {
    fail "replica $rep of $victim was not elected: [cn $rep cluster nodes]"
  }
  wait_for_condition 200 50 {[cinfo $rep cluster_state] eq "ok"} {
    fail "cluster not ok after the failover"
  }
  set got 0
  for {set i 0} {$i < 100} {incr i} { if {[cn $rep get "{$tag}$i"] eq $i} { incr got } }
  set got
} {100}

test {The dead master restarts from nodes.conf as a replica; rebalance and check agree} {
  cnode_restart $::dead6
  cluster_wait_ok $::six
  wait_for_condition 200 50 {[lindex [cn $::dead6 role] 0] eq "slave"} {
    fail "$::dead6 did not come back as a replica: [cn $::dead6 cluster nodes]"
  }
  set heavy [lindex [masters6] 0]
  set out [ours_cli --cluster rebalance [caddr $heavy] --cluster-weight \
             [cnode_id $heavy]=2 --cluster-yes]
  assert_match {*Moving*slots from*} $out
  cluster_wait_consistent o2
  set out [ours_cli --cluster check [caddr o2]]
  assert_match {*All 16384 slots covered*} $out
  lmap i {1 5 9} { ours_cli -c -p [cport o4] get ck$i }
} {v1 v5 v9}

# A replica restarted after its keys' TTL passed loads them all (from its
# RDB, or replaying its AOF's SET ... PXAT) and keeps them, logically
# expired, until its master's DELs arrive, as Redis's replicas do.
foreach persistence {rdb aof} {
  test "A replica restarted from its $persistence keeps expired keys until its master's DELs" {
    set m [lindex [masters6] 0]
    set r [lindex [replicas_of $m] 0]
    set tag "ttl-$persistence"
    while {[cluster_owner "{$tag}" $::six] ne $m} { append tag x }
    set slot [cn $m cluster keyslot "{$tag}"]
    if {$persistence eq "aof"} {
      cn $r config set appendonly yes
      wait_for_condition 100 50 {[info_field [cn $r info persistence] aof_rewrite_in_progress] == 0} {
        fail "the first AOF rewrite did not end"
      }
    }
    for {set i 0} {$i < 20} {incr i} { cn $m set "{$tag}$i" v px 1500 }
    wait_for_condition 100 50 {[cn $r cluster countkeysinslot $slot] == 20} {
      fail "the replica never got the keys"
    }
    if {$persistence eq "rdb"} { cn $r save }
    cn $m debug set-active-expire 0
    cnode_kill $r
    after 1700
    # The node starts again with the persistence it had (the AOF variant:
    # appendonly yes on its command line).
    if {$persistence eq "aof"} { dict set ::cnodes($r) extra [list --appendonly yes] }
    cnode_restart $r
    set kept [cn $r cluster countkeysinslot $slot]
    # Expired on the master at last: the DELs reach the replica.
    cn $m debug set-active-expire 1
    wait_for_condition 100 50 {[cn $r cluster countkeysinslot $slot] == 0} {
      fail "the master's DELs never reached the replica"
    }
    if {$persistence eq "aof"} {
      cn $r config set appendonly no
      dict set ::cnodes($r) extra {}
    }
    set kept
  } {20}
}

cnodes_stop_all
}
