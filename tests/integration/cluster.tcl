# Cluster mode with a mixed cluster: three of our nodes and three of Debian's
# Redis 7.0.15, created by Debian's redis-cli --cluster create. One cluster
# serves the whole file: routing (MOVED, ASK, TRYAGAIN, CROSSSLOT), a slot
# moved by hand and resharding by redis-cli in both directions, redis-py's
# RedisCluster, Pub/Sub over the bus, failovers of our master and of
# Redis's, the dead masters coming back as replicas from nodes.conf, a
# manual failover, and hostile bytes on the bus. Node timeout: 1 s.

source [file join $::support_dir cluster.tcl]

tags {cluster} {

set ::all {a b c d e f}
cnode_start a ours
cnode_start b debian
cnode_start c ours
cnode_start d debian
cnode_start e ours
cnode_start f ours

# The master a replica follows, by name; and the replicas of a master.
proc master_of {name} {
  set mid [lindex [split [lindex [split [cn $name cluster nodes] "\n"] \
              [lsearch -glob [split [cn $name cluster nodes] "\n"] "*myself*"]] " "] 3]
  foreach n $::all {
    if {[catch {cnode_id $n} id]} continue
    if {$id eq $mid} { return $n }
  }
  return ""
}
proc masters {} {
  set out {}
  foreach n $::all {
    if {![catch {cn $n role} role] && [lindex $role 0] eq "master"} { lappend out $n }
  }
  return $out
}

test {redis-cli --cluster create: three of our nodes with three of Redis 7.0.15} {
  set out [dcli --cluster create {*}[lmap n $::all {caddr $n}] --cluster-replicas 1 \
             --cluster-yes]
  assert_match {*All 16384 slots covered*} $out
  cluster_wait_ok $::all
  assert_equal [llength [masters]] 3
}

test {Every node agrees on the nodes, their roles and the slots} {
  wait_for_condition 100 50 {
    [llength [lsort -unique [lmap n $::all {cluster_view $n}]]] == 1
  } {
    fail "views differ: [join [lmap n $::all {cluster_view $n}] "\n---\n"]"
  }
}

test {A key on the wrong node gets -MOVED to its owner; redis-cli -c follows it} {
  set owner [cluster_owner foo $::all]
  set other [lindex [lsearch -all -inline -not [masters] $owner] 0]
  assert_equal [cn a cluster keyslot foo] 12182
  assert_equal [cn b cluster keyslot foo] 12182
  catch {cn $other get foo} err
  assert_equal $err "MOVED 12182 [caddr $owner]"
  assert_equal [dcli -c -p [cport $other] set foo bar] OK
  assert_equal [cn $owner get foo] bar
}

test {Keys of one request in different slots: -CROSSSLOT; a hash tag keeps them together} {
  set owner [cluster_owner "{user1}" $::all]
  assert_equal [cn $owner mset "{user1}.a" 1 "{user1}.b" 2] OK
  assert_equal [cn $owner mget "{user1}.a" "{user1}.b"] {1 2}
  assert_error {CROSSSLOT*} {cn $owner mset x1 1 x2 2 x3 3 x4 4}
  # A transaction whose keys span slots fails at EXEC with the same error.
  set c [::redis::connect 127.0.0.1 [cport $owner]]
  $c multi
  $c set "{user1}.a" 3
  set other [lindex [lsearch -all -inline -not [masters] $owner] 0]
  assert_error {MOVED*} {$c set [owned_key $other] 1}
  assert_error {EXECABORT*} {$c exec}
  $c close
}

test {Cluster mode refuses SELECT, MOVE, SWAPDB and REPLICAOF, as Redis} {
  foreach n [lrange [masters] 0 1] {
    assert_error {*SELECT is not allowed in cluster mode*} {cn $n select 1}
    assert_error {*MOVE is not allowed in cluster mode*} {cn $n move [owned_key $n] 1}
    assert_error {*SWAPDB is not allowed in cluster mode*} {cn $n swapdb 0 1}
    assert_error {*REPLICAOF not allowed in cluster mode*} {cn $n replicaof 127.0.0.1 1}
  }
}

test {A slot moved by hand: ASK for keys already gone, TRYAGAIN for a partial multi-key request} {
  # Slot of {m}: moved from its owner to another master, key by key.
  set src [cluster_owner "{m}" $::all]
  set dst [lindex [lsearch -all -inline -not [masters] $src] 0]
  set slot [cn $src cluster keyslot "{m}"]
  cn $src mset "{m}1" one "{m}2" two
  assert_equal [cn $dst cluster setslot $slot importing [cnode_id $src]] OK
  assert_equal [cn $src cluster setslot $slot migrating [cnode_id $dst]] OK
  assert_equal [cn $src cluster countkeysinslot $slot] 2
  assert_equal [lsort [cn $src cluster getkeysinslot $slot 10]] [list "{m}1" "{m}2"]
  # One key moves; the other stays.
  assert_equal [cn $src migrate 127.0.0.1 [cport $dst] "{m}1" 0 5000] OK
  assert_equal [cn $src get "{m}2"] two
  catch {cn $src get "{m}1"} err
  assert_equal $err "ASK $slot [caddr $dst]"
  catch {cn $src mget "{m}1" "{m}2"} err
  assert_match {TRYAGAIN*} $err
  # The target serves the key only after ASKING.
  catch {cn $dst get "{m}1"} err
  assert_equal $err "MOVED $slot [caddr $src]"
  set c [::redis::connect 127.0.0.1 [cport $dst]]
  assert_equal [$c asking] OK
  assert_equal [$c get "{m}1"] one
  $c close
  assert_equal [cn $src migrate 127.0.0.1 [cport $dst] "{m}2" 0 5000] OK
  foreach n [list $dst $src] { cn $n cluster setslot $slot node [cnode_id $dst] }
  catch {cn $src get "{m}2"} err
  assert_equal $err "MOVED $slot [caddr $dst]"
  assert_equal [dcli -c -p [cport $src] get "{m}2"] two
  cluster_wait_consistent a
}

test {Scripts: only keys this node serves, in one slot, as Redis refuses them} {
  set errors {}
  foreach kind {ours debian} {
    set m [lindex [lmap n [masters] {expr {[dict get $::cnodes($n) kind] eq $kind ? $n : [continue]}}] 0]
    if {$m eq ""} continue
    set other [lindex [lsearch -all -inline -not [masters] $m] 0]
    set k1 [owned_key $m x]
    set k2 [owned_key $m y]
    while {[cn $m cluster keyslot $k2] == [cn $m cluster keyslot $k1]} { set k2 [owned_key $m y$k2] }
    set far [owned_key $other z]
    set row {}
    catch {cn $m eval {return redis.call('get', ARGV[1])} 0 $far} e1
    set two_slots {redis.call('get', ARGV[1]) return redis.call('get', ARGV[2])}
    catch {cn $m eval "#!lua\n$two_slots" 0 $k1 $k2} e2
    catch {cn $m eval "#!lua flags=no-cluster\nreturn 1" 0} e3
    catch {cn $m eval "#!lua flags=allow-cross-slot-keys\n$two_slots" 0 $k1 $k2} e4
    # Without a shebang a script may use several slots (as before 7.0).
    catch {cn $m eval $two_slots 0 $k1 $k2} e5
    lappend errors [list $e1 $e2 $e3 $e4 $e5]
  }
  assert_match {*Script attempted to access a non local key in a cluster node*} [lindex $errors 0 0]
  assert_match {*Script attempted to access keys that do not hash to the same slot*} [lindex $errors 0 1]
  assert_match {*Can not run script on cluster, 'no-cluster' flag is set.*} [lindex $errors 0 2]
  assert_equal [lindex $errors 0 3] {}
  assert_equal [lindex $errors 0 4] {}
  # Redis 7.0.15 answers the same.
  if {[llength $errors] == 2} { assert_equal [lindex $errors 0] [lindex $errors 1] }
}

test {A client blocked on a key whose slot moves away gets -MOVED} {
  set m [lindex [lmap n [masters] {expr {[dict get $::cnodes($n) kind] eq "ours" ? $n : [continue]}}] 0]
  set other [lindex [lsearch -all -inline -not [masters] $m] 0]
  set key [owned_key $m blk]
  set slot [cn $m cluster keyslot $key]
  set c [::redis::connect 127.0.0.1 [cport $m] -defer 1]
  $c blpop $key 0
  wait_for_condition 100 20 {[info_field [cn $m info clients] blocked_clients] == 1} {
    fail "client never blocked"
  }
  foreach n [list $other $m] { cn $n cluster setslot $slot node [cnode_id $other] }
  catch {$c read} err
  $c close
  cluster_wait_consistent a
  assert_match "MOVED $slot [caddr $other]" $err
}

test {Shard channel subscribers are unsubscribed when their slot moves away} {
  set m [lindex [lmap n [masters] {expr {[dict get $::cnodes($n) kind] eq "ours" ? $n : [continue]}}] 0]
  set other [lindex [lsearch -all -inline -not [masters] $m] 0]
  set ch [owned_key $m sch]
  set slot [cn $m cluster keyslot $ch]
  set sub [::redis::connect 127.0.0.1 [cport $m] -defer 1]
  $sub ssubscribe $ch
  assert_equal [$sub read] [list ssubscribe $ch 1]
  foreach n [list $other $m] { cn $n cluster setslot $slot node [cnode_id $other] }
  set got [$sub read]
  $sub close
  cluster_wait_consistent a
  assert_equal $got [list sunsubscribe $ch 0]
}

test {redis-py's RedisCluster writes and reads through the mixed cluster} {
  set script {
import sys
from redis.cluster import RedisCluster
rc = RedisCluster(host='127.0.0.1', port=int(sys.argv[1]))
for i in range(300):
    rc.set('py:%d' % i, 'v%d' % i)
print(sum(1 for i in range(300) if rc.get('py:%d' % i) == ('v%d' % i).encode()))
  }
  exec /usr/bin/python3 -c $script [cport a]
} {300}

test {redis-cli --cluster reshard moves slots from our node to Redis's and back} {
  set ours [lindex [lmap n [masters] {expr {[dict get $::cnodes($n) kind] eq "ours" ? $n : [continue]}}] 0]
  set theirs [lindex [lmap n [masters] {expr {[dict get $::cnodes($n) kind] eq "debian" ? $n : [continue]}}] 0]
  if {$theirs eq ""} { set theirs [lindex [lsearch -all -inline -not [masters] $ours] 0] }
  foreach {from to} [list $ours $theirs $theirs $ours] {
    cluster_wait_consistent a
    set out [dcli --cluster reshard [caddr a] --cluster-from [cnode_id $from] \
               --cluster-to [cnode_id $to] --cluster-slots 150 --cluster-yes]
    assert_match {*Moving slot*} $out
    assert_no_match {*ERR*} $out
  }
  set out [dcli --cluster check [caddr a]]
  assert_match {*All nodes agree about slots configuration*} $out
  assert_no_match {*open*slots:*} $out
  set bad 0
  foreach i {0 7 42 99 150 299} {
    if {[dcli -c -p [cport a] get py:$i] ne "v$i"} { incr bad }
  }
  set bad
} {0}

test {PUBLISH reaches subscribers on every node; SPUBLISH stays within its shard} {
  set sub [::redis::connect 127.0.0.1 [cport b] -defer 1]
  $sub subscribe news
  assert_equal [$sub read] {subscribe news 1}
  cn a publish news hello
  assert_equal [$sub read] {message news hello}
  $sub close
  set owner [cluster_owner chan1 $::all]
  set rep [lindex [replicas_of $owner] 0]
  set ssub [::redis::connect 127.0.0.1 [cport $rep] -defer 1]
  $ssub ssubscribe chan1
  assert_equal [$ssub read] {ssubscribe chan1 1}
  cn $owner spublish chan1 shard-msg
  assert_equal [$ssub read] {smessage chan1 shard-msg}
  $ssub close
}

# Writes acknowledged by WAIT before a master dies must be on its successor.
proc acked_writes {master prefix n} {
  set c [::redis::connect 127.0.0.1 [cport $master]]
  set slot [cn $master cluster keyslot "{$prefix}"]
  for {set i 0} {$i < $n} {incr i} { $c set "{$prefix}$i" $i }
  set acked [$c wait 1 2000]
  $c close
  return $acked
}

proc fail_master {victim} {
  set reps [replicas_of $victim]
  wait_replicas_synced $victim
  set tag "fo-$victim"
  while {[cluster_owner "{$tag}" $::all] ne $victim} { append tag x }
  assert_equal [acked_writes $victim $tag 50] [llength $reps]
  cnode_kill $victim
  set survivors [live_nodes $::all]
  wait_for_condition 200 50 {
    [lsearch -exact [masters] [lindex $reps 0]] >= 0 ||
    ([llength $reps] > 1 && [lsearch -exact [masters] [lindex $reps 1]] >= 0)
  } {
    fail "no replica of $victim was promoted: [cn [lindex $survivors 0] cluster nodes]"
  }
  wait_for_condition 200 50 {[cinfo [lindex $survivors 0] cluster_state] eq "ok"} {
    fail "cluster not ok after the failover"
  }
  set owner [cluster_owner "{$tag}" $survivors]
  set got 0
  for {set i 0} {$i < 50} {incr i} { if {[cn $owner get "{$tag}$i"] eq $i} { incr got } }
  return $got
}

test {Our master dies: its replica is elected, and no acknowledged write is lost} {
  set victim [lindex [lmap n [masters] {expr {[dict get $::cnodes($n) kind] eq "ours" && [llength [replicas_of $n]] ? $n : [continue]}}] 0]
  set ::dead1 $victim
  fail_master $victim
} {50}

test {Redis's master dies: its replica is elected the same way} {
  set victim [lindex [lmap n [masters] {expr {[dict get $::cnodes($n) kind] eq "debian" && [llength [replicas_of $n]] ? $n : [continue]}}] 0]
  if {$victim eq ""} {
    # No Debian master with a replica in this layout: fail another master.
    set victim [lindex [lmap n [masters] {expr {[llength [replicas_of $n]] ? $n : [continue]}}] 0]
  }
  set ::dead2 $victim
  fail_master $victim
} {50}

test {The dead masters restart from nodes.conf and rejoin as replicas} {
  cnode_restart $::dead1
  cnode_restart $::dead2
  cluster_wait_ok $::all
  wait_for_condition 200 50 {
    [lindex [cn $::dead1 role] 0] eq "slave" && [lindex [cn $::dead2 role] 0] eq "slave"
  } {
    fail "restarted masters did not become replicas"
  }
  assert_match {*myself,slave*} [cn $::dead1 cluster nodes]
}

test {CLUSTER FAILOVER: a replica of ours takes over its master without losing a write} {
  cluster_wait_consistent a
  cluster_wait_ok $::all
  # A replica (ours) and its master.
  set rep ""
  foreach n $::all {
    if {[dict get $::cnodes($n) kind] ne "ours" || [lindex [cn $n role] 0] ne "slave"} continue
    set rep $n
    break
  }
  set master [master_of $rep]
  wait_for_condition 200 50 {
    [info_field [cn $rep info replication] master_link_status] eq "up"
  } {
    fail "replica $rep never synced with $master"
  }
  set tag mf
  while {[cluster_owner "{$tag}" $::all] ne $master} { append tag y }
  assert {[acked_writes $master $tag 20] >= 1}
  # The replica must see its master up and linked (else FORCE is needed).
  set mid [cnode_id $master]
  wait_for_condition 200 50 {
    [regexp "(?n)^$mid \\S+ master - \\d+ \\d+ \\d+ connected" [cn $rep cluster nodes]]
  } {
    fail "replica $rep does not see its master up: [cn $rep cluster nodes]"
  }
  assert_equal [cn $rep cluster failover] OK
  wait_for_condition 200 50 {
    [lindex [cn $rep role] 0] eq "master" && [lindex [cn $master role] 0] eq "slave"
  } {
    fail "manual failover did not swap the roles: [cn $rep cluster nodes]"
  }
  assert_match {*Manual failover*} [clog $rep]
  cn $rep get "{$tag}19"
} {19}

test {Our redis-cli --cluster check and rebalance work on the mixed cluster} {
  cluster_wait_consistent a
  set entry [caddr [lindex [masters] 0]]
  set heavy [lindex [masters] 0]
  set out [exec $::cfg(cli_bin) --cluster rebalance $entry \
             --cluster-weight [cnode_id $heavy]=1.2 --cluster-yes 2>@1]
  assert_match {*Moving*slots from*} $out
  cluster_wait_consistent a
  set out [exec $::cfg(cli_bin) --cluster check $entry 2>@1]
  assert_match {*All nodes agree about slots configuration*} $out
  assert_match {*All 16384 slots covered*} $out
  set bad 0
  foreach i {1 5 77 123 250} {
    if {[exec $::cfg(cli_bin) -c -p [cport a] get py:$i] ne "v$i"} { incr bad }
  }
  set bad
} {0}

test {Hostile bytes on the cluster bus: logged, the link dropped, the node unharmed} {
  set victim [lindex [lmap n $::all {expr {[dict get $::cnodes($n) kind] eq "ours" ? $n : [continue]}}] 0]
  set bus [expr {[cport $victim] + 10000}]
  set cases [list "GARBAGE!" \
               "RCmb\xff\xff\xff\xff" \
               "RCmb[binary format I 2256]\x00\x01\x00\x00\x00\x00\x00\x05" \
               "RCmb[binary format I 2300][string repeat \x00 8]"]
  foreach bytes $cases {
    set s [socket 127.0.0.1 $bus]
    fconfigure $s -translation binary -buffering none
    puts -nonewline $s $bytes
    if {[string length $bytes] > 8} { puts -nonewline $s [string repeat \x00 [expr {2300 - [string length $bytes]}]] }
    flush $s
    # The node closes the link (EOF) rather than waiting for more.
    fconfigure $s -blocking 1
    set deadline [expr {[clock milliseconds] + 3000}]
    set eof 0
    while {[clock milliseconds] < $deadline} {
      if {[catch {read $s 1} got] || [eof $s]} { set eof 1; break }
      after 20
    }
    catch {close $s}
    assert_equal $eof 1
  }
  assert_match {*Bad message length or signature*} [clog $victim]
  assert_match {*invalid*packet*} [clog $victim]
  assert_equal [cn $victim ping] PONG
  cluster_wait_ok $::all
}

test {A master cut off from the others stops taking writes after the node timeout} {
  # Dropping every bus message it receives is a partition seen from its
  # side: it hears no PONG, finds itself in the minority and declares the
  # cluster down for its clients; healed, the cluster serves the key again.
  # (The majority may have failed it over to its replica meanwhile, as
  # Redis does: then the key is served by the promoted replica.)
  set victim [lindex [lmap n [masters] {expr {[dict get $::cnodes($n) kind] eq "ours" ? $n : [continue]}}] 0]
  set k [owned_key $victim part]
  cn $victim debug drop-cluster-packet-filter -2
  wait_for_condition 100 100 {[cinfo $victim cluster_state] eq "fail"} {
    fail "the cut-off master kept cluster_state ok"
  }
  catch {cn $victim set $k v} err
  assert_match {CLUSTERDOWN*} $err
  cn $victim debug drop-cluster-packet-filter -1
  wait_for_condition 200 100 {[cinfo $victim cluster_state] eq "ok"} {
    fail "the master never rejoined: [cn $victim cluster nodes]"
  }
  cluster_wait_ok $::all
  cn [cluster_owner $k $::all] set $k v
} {OK}

test {An announced RDMA port reaches our nodes' CLUSTER SHARDS; Redis's nodes ignore it} {
  # cluster-announce-rdma-port rides in bytes of the bus header Redis 7.0
  # leaves zero (RDMA.md, Cluster); no RDMA device is needed to announce.
  set ours [lmap n $::all {expr {[dict get $::cnodes($n) kind] eq "ours" ? $n : [continue]}}]
  set theirs [lmap n $::all {expr {[dict get $::cnodes($n) kind] eq "debian" ? $n : [continue]}}]
  lassign $ours x y
  set xid [cnode_id $x]
  proc rdma_port_seen {by id} {
    foreach shard [cn $by cluster shards] {
      foreach node [dict get $shard nodes] {
        if {[dict get $node id] eq $id} {
          return [expr {[dict exists $node rdma-port] ? [dict get $node rdma-port] : 0}]
        }
      }
    }
    return -1
  }
  cn $x config set cluster-announce-rdma-port 7777
  wait_for_condition 100 50 {[rdma_port_seen $y $xid] == 7777} {
    fail "node $y never saw the announced RDMA port"
  }
  assert_equal 7777 [rdma_port_seen $x $xid]
  # Redis's view of the node is unchanged, and it logged nothing about it.
  set t [lindex $theirs 0]
  assert_equal 0 [rdma_port_seen $t $xid]
  assert_no_match {*unknown*} [clog $t]
  cn $x config set cluster-announce-rdma-port 0
  wait_for_condition 100 50 {[rdma_port_seen $y $xid] == 0} {
    fail "the RDMA port stayed announced"
  }
  cluster_wait_ok $::all
} {}

test {cluster-bus-transport changes at run time; without an RDMA device the bus stays on TCP} {
  # Outside the rxe VM there is no RDMA device: the bus's RDMA listener
  # cannot open, which is logged, and the links stay TCP (tests/rdma/
  # cluster.tcl has the links moving over). Back to tcp, the same.
  set ours [lmap n $::all {expr {[dict get $::cnodes($n) kind] eq "ours" ? $n : [continue]}}]
  set x [lindex $ours 0]
  cn $x config set cluster-bus-transport rdma
  wait_for_condition 100 50 {[string match "*cluster-bus-transport is now rdma*" [clog $x]]} {
    fail "the change was never applied"
  }
  assert_match "*Cluster bus over rdma not available*" [clog $x]
  # CLUSTER INFO lists link counts only for the types in use.
  assert_equal {} [cinfo $x cluster_links_rdma]
  assert_morethan [cinfo $x cluster_links_tcp] 0
  cn $x config set cluster-bus-transport tcp
  wait_for_condition 100 50 {[string match "*cluster-bus-transport is now tcp*" [clog $x]]} {
    fail "the change back was never applied"
  }
  cluster_wait_ok $::all
  lindex [cn $x config get cluster-bus-transport] 1
} {tcp}

test {CLUSTER SHARDS and CLUSTER SLOTS of our node match a Redis node's} {
  set ours [lindex [lmap n $::all {expr {[dict get $::cnodes($n) kind] eq "ours" ? $n : [continue]}}] 0]
  set theirs [lindex [lmap n $::all {expr {[dict get $::cnodes($n) kind] eq "debian" ? $n : [continue]}}] 0]
  wait_for_condition 100 50 {[cn $ours cluster slots] eq [cn $theirs cluster slots]} {
    fail "SLOTS differ:\n[cn $ours cluster slots]\n[cn $theirs cluster slots]"
  }
  set norm {{shards} {
    lsort [lmap s $shards {
      dict set s nodes [lsort [lmap n [dict get $s nodes] {
        dict remove $n replication-offset health
      }]]
      set s
    }]
  }}
  assert_equal [apply $norm [cn $ours cluster shards]] [apply $norm [cn $theirs cluster shards]]
}

cnodes_stop_all

test {nodes.conf: a corrupted file stops start-up; two nodes cannot share one} {
  set dir [new_tmp_dir cnode-bad]
  write_bytes $dir/nodes.conf "not a node line\n"
  set port [cluster_free_port]
  catch {exec $::cfg(server_bin) --port $port --cluster-enabled yes --dir $dir \
           --cluster-config-file nodes.conf 2>@1} out
  assert_match {*corrupted cluster config file*} $out
  file delete $dir/nodes.conf
  cnode_start solo ours
  catch {exec $::cfg(server_bin) --port $port --cluster-enabled yes --dir [cdir solo] \
           --cluster-config-file nodes.conf 2>@1} out
  assert_match {*already used by a different Redis Cluster node*} $out
  assert_equal [cinfo solo cluster_known_nodes] 1
  cnodes_stop_all
}

}
