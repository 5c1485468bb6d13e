# Our redis-cli's cluster manager (--cluster <command>) and -c, run against
# Debian's redis-server 7.0.15 started in cluster mode: six nodes made into
# three masters with a replica each, two more joined later, a standalone
# server to import from. Where the output can be compared it is compared
# with Debian's /usr/bin/redis-cli on the same cluster, byte for byte, with
# the exit status.

set ::cc_debian_cli /usr/bin/redis-cli
set ::cc_debian_server /usr/bin/redis-server
# No colours: both programs colour their lines when TERM names an xterm.
set ::env(TERM) dumb

# Runs a cli binary; returns {status stdout stderr}. stdin: text to feed.
proc cc_run {bin stdin args} {
  set errfile [file join [tmp_root] cc-stderr.[pid]]
  set infile [file join [tmp_root] cc-stdin.[pid]]
  set fd [open $infile w]
  puts -nonewline $fd $stdin
  close $fd
  set status 0
  if {[catch {exec -keepnewline -ignorestderr $bin {*}$args < $infile 2> $errfile} out opts]} {
    set code [lindex [dict get $opts -errorcode] 0]
    if {$code eq "CHILDSTATUS"} {
      set status [lindex [dict get $opts -errorcode] 2]
      regsub {child process exited abnormally$} $out "" out
    } else {
      set status "failed: $out"
    }
  }
  set err [read_file $errfile]
  file delete $errfile $infile
  return [list $status $out $err]
}

# `sub` occurs in `text` (no glob: the cluster manager prints brackets).
proc assert_has {sub text} {
  if {[string first $sub $text] < 0} { fail "'$sub' not found in:\n$text" }
}

proc ours {args} { return [cc_run $::cfg(cli_bin) "" {*}$args] }
proc debians {args} { return [cc_run $::cc_debian_cli "" {*}$args] }

# Our cli and Debian's on the same arguments: same status, stdout, stderr.
proc same_as_debian {args} {
  set o [ours {*}$args]
  set d [debians {*}$args]
  assert_equal $o $d "redis-cli $args"
  return $o
}

# A command to one node through Debian's cli (raw output).
proc node {port args} {
  return [exec $::cc_debian_cli -p $port {*}$args]
}

# A free port whose cluster bus port (+10000) is free too, and not one
# handed out before (a node started in the background may not listen yet).
set ::cc_taken {}
proc cc_free_port {} {
  for {set i 0} {$i < 100} {incr i} {
    set p [expr {21000 + int(rand() * 9000)}]
    if {$p in $::cc_taken} continue
    if {[port_is_free $p] && [port_is_free [expr {$p + 10000}]]} {
      lappend ::cc_taken $p
      return $p
    }
  }
  error "no free port pair"
}

# Starts Debian's redis-server (in cluster mode unless cluster is 0) with a
# config file (set-timeout rewrites it); returns {pid port}.
proc cc_start_node {{cluster 1}} {
  set port [cc_free_port]
  set dir [new_tmp_dir cc-node-$port]
  set conf [file join $dir redis.conf]
  set lines [list "port $port" "bind 127.0.0.1" "dir $dir" "save \"\"" "appendonly no" \
               "logfile $dir/log"]
  if {$cluster} {
    lappend lines "cluster-enabled yes" "cluster-config-file nodes.conf" \
      "cluster-node-timeout 2000" "repl-diskless-sync-delay 0"
  }
  set fd [open $conf w]
  puts $fd [join $lines "\n"]
  close $fd
  set pid [exec $::cc_debian_server $conf >/dev/null 2>/dev/null &]
  return [list $pid $port]
}

proc cc_wait_up {port} {
  wait_for_condition 100 50 {![catch {node $port ping} r] && $r eq "PONG"} {
    fail "node on port $port did not start"
  }
}

# Waits until our --cluster check passes (agreement, no open slot, full
# coverage), as seen from `port`.
proc cc_wait_sane {port} {
  wait_for_condition 100 100 {[lindex [ours --cluster check 127.0.0.1:$port] 0] == 0} {
    fail "cluster not sane: [lindex [ours --cluster check 127.0.0.1:$port] 1]"
  }
}

# Waits until every node in `ports` knows `n` nodes and says the cluster is ok.
proc cc_wait_known {ports n} {
  foreach p $ports {
    wait_for_condition 100 100 {
      [string match "*cluster_state:ok*cluster_known_nodes:$n\n*" [node $p cluster info]]
    } { fail "node $p: [node $p cluster info]" }
  }
}

# The slot count a node owns, from its own CLUSTER NODES line.
proc cc_slot_count {port} {
  foreach line [split [node $port cluster nodes] "\n"] {
    if {[string match "*myself*" $line]} {
      set n 0
      foreach r [lrange [split $line " "] 8 end] {
        if {[string index $r 0] eq "\["} continue
        set ab [split $r -]
        set n [expr {$n + [lindex $ab end] - [lindex $ab 0] + 1}]
      }
      return $n
    }
  }
  return 0
}

if {![file executable $::cc_debian_server] || ![file executable $::cc_debian_cli]} {
  puts "\[skip\]: redis-cli-cluster.tcl (Debian's redis-server/redis-cli not installed)"
  return
}

tags {cli cluster external:skip} {
  set pids {}
  set ports {}
  # Nine cluster nodes (six for create, two to add, one left empty) and a
  # standalone server to import from.
  for {set i 0} {$i < 9} {incr i} {
    lassign [cc_start_node] pid port
    lappend pids $pid
    lappend ports $port
  }
  lassign [cc_start_node 0] spid sport
  lappend pids $spid
  try {
    foreach p $ports { cc_wait_up $p }
    cc_wait_up $sport
    set six [lrange $ports 0 5]
    set addrs {}
    foreach p $six { lappend addrs 127.0.0.1:$p }
    lassign [lrange $ports 6 8] p7 p8 p9
    set p0 [lindex $ports 0]
    set ::cc_start [clock milliseconds]

    test {cluster create: answering anything but yes changes nothing, exit 0} {
      lassign [cc_run $::cfg(cli_bin) "no\n" --cluster create {*}$addrs --cluster-replicas 1] \
        st out err
      assert_equal $st 0
      assert_has "Master\[0\] -> Slots 0 - 5460\nMaster\[1\] -> Slots 5461 - 10922\n" $out
      assert_has "Adding replica 127.0.0.1:[lindex $six 4] to 127.0.0.1:$p0\n" $out
      assert_has "Can I set the above configuration? (type 'yes' to accept): " $out
      assert_has "cluster_known_nodes:1" [node $p0 cluster info]
      node $p0 cluster countkeysinslot 0
    } {0}

    test {cluster create --cluster-replicas 1 --cluster-yes: 3 masters, 3 replicas} {
      lassign [ours --cluster create {*}$addrs --cluster-replicas 1 --cluster-yes] st out err
      assert_equal $st 0 "$out\n$err"
      assert_has ">>> Performing hash slots allocation on 6 nodes..." $out
      assert_has ">>> Sending CLUSTER MEET messages to join the cluster" $out
      assert_has "\[OK\] All nodes agree about slots configuration." $out
      assert_has "\[OK\] All 16384 slots covered.\n" $out
      cc_wait_sane $p0
      cc_wait_known $six 6
      # Every replica has synced with its master.
      wait_for_condition 100 100 {
        [llength [lsearch -all [split [node $p0 cluster nodes] "\n"] "* slave *"]] == 3
      } { fail "replicas not attached" }
      set masters 0
      foreach p $six {
        if {[string match "*role:master*" [node $p info replication]]} { incr masters }
      }
      set masters
    } {3}

    test {cluster check and info print what Debian's redis-cli prints} {
      lassign [same_as_debian --cluster check 127.0.0.1:$p0] st out
      assert_equal $st 0
      assert_has "\[OK\] 0 keys in 3 masters.\n0.00 keys per slot on average.\n" $out
      lassign [same_as_debian --cluster check 127.0.0.1 [lindex $six 3]] st
      lassign [same_as_debian --cluster info 127.0.0.1:$p0] st out
      assert_has " -> 0 keys | 5461 slots | 1 slaves.\n" $out
    }

    test {-c follows -MOVED: every key reachable from one node} {
      for {set i 0} {$i < 12} {incr i} {
        assert_equal [lindex [ours -c -p $p0 set ck:$i v$i] 1] "OK\n"
      }
      set moved 0
      for {set i 0} {$i < 12} {incr i} {
        assert_equal [lindex [ours -c -p $p0 get ck:$i] 1] "v$i\n"
        if {[string match "MOVED *" [lindex [ours -p $p0 get ck:$i] 1]]} { incr moved }
      }
      assert {$moved > 0}
      # At the prompt (here fed from a pipe) each redirection is announced,
      # and the session stays on the node it was sent to.
      set script "get ck:0\nget ck:1\nget ck:2\nget ck:3\nset ck:new x\nget ck:new\n"
      set o [cc_run $::cfg(cli_bin) $script -c -p $p0]
      assert_equal $o [cc_run $::cc_debian_cli $script -c -p $p0]
      assert_has "-> Redirected to slot \[" [lindex $o 1]
      lindex [ours -c -p $p0 --no-raw get ck:5] 1
    } "\"v5\"\n"

    test {cluster call (all nodes, only masters, only replicas) as Debian prints it} {
      same_as_debian --cluster call 127.0.0.1:$p0 cluster countkeysinslot 0
      same_as_debian --cluster call 127.0.0.1:$p0 get --cluster-only-masters
      lassign [same_as_debian --cluster call 127.0.0.1:$p0 ping --cluster-only-replicas] st out
      assert_equal $st 0
      llength [lsearch -all [split $out "\n"] "*: PONG"]
    } {3}

    test {cluster set-timeout reaches every node and rewrites its config} {
      lassign [ours --cluster set-timeout 127.0.0.1:$p0 2500] st out err
      assert_equal $st 0 "$out\n$err"
      assert_has ">>> New node timeout set. 6 OK, 0 ERR.\n" $out
      assert_equal [lindex [node [lindex $six 5] config get cluster-node-timeout] 1] 2500
      assert_has "cluster-node-timeout 2500" \
        [read_file [file join [lindex [node $p0 config get dir] 1] redis.conf]]
      same_as_debian --cluster set-timeout 127.0.0.1:$p0 99
    } {1 {} {Setting a node timeout of less than 100 milliseconds is a bad idea.
}}

    test {cluster add-node: a new master, then a replica of it (--cluster-master-id)} {
      lassign [ours --cluster add-node 127.0.0.1:$p7 127.0.0.1:$p0] st out err
      assert_equal $st 0 "$out\n$err"
      assert_has "\[OK\] New node added correctly.\n" $out
      cc_wait_known [concat $six $p7] 7
      cc_wait_sane $p0
      set id7 [node $p7 cluster myid]
      lassign [ours --cluster add-node 127.0.0.1:$p8 127.0.0.1:$p0 --cluster-slave \
                 --cluster-master-id $id7] st out err
      assert_equal $st 0 "$out\n$err"
      assert_has ">>> Configure node as replica of 127.0.0.1:$p7.\n" $out
      wait_for_condition 100 100 {[string match "*master_link_status:up*" \
                                     [node $p8 info replication]]} {
        fail "new replica did not sync"
      }
      assert_has "master_port:$p7" [node $p8 info replication]
      cc_wait_known [concat $six $p7 $p8] 8
      cc_wait_sane $p0
      # Adding a node that is part of a cluster already is refused.
      lassign [same_as_debian --cluster add-node 127.0.0.1:$p8 127.0.0.1:$p0] st out err
      assert_equal $st 1
      assert_has "is not empty. Either the node already knows other nodes" $out
    }

    test {cluster rebalance: nothing to do without --cluster-use-empty-masters} {
      lassign [same_as_debian --cluster rebalance 127.0.0.1:$p0] st out
      assert_equal $st 0
      assert_has "*** No rebalancing needed! All nodes are within the 2.00% threshold.\n" $out
    }

    test {cluster rebalance --cluster-use-empty-masters --cluster-weight moves slots and keys} {
      # Keys in slots 0, 2, 12 and 14: the first slots the first master gives.
      foreach k {k596 k2603 k1699 k1074} { ours -c -p $p0 set $k val-$k }
      set id7 [node $p7 cluster myid]
      set w [list --cluster-use-empty-masters --cluster-weight [string range $id7 0 7]=0.01]
      # The plan is the same as Debian's.
      same_as_debian --cluster rebalance 127.0.0.1:$p0 --cluster-simulate {*}$w
      lassign [ours --cluster rebalance 127.0.0.1:$p0 {*}$w] st out err
      assert_equal $st 0 "$out\n$err"
      assert_has ">>> Rebalancing across 4 nodes. Total weight = 3.01\n" $out
      assert_match "*Moving * slots from 127.0.0.1:$p0 to 127.0.0.1:$p7\n#*" $out
      cc_wait_sane $p0
      assert {[cc_slot_count $p7] >= 50}
      foreach k {k596 k2603 k1699 k1074} {
        assert_equal [lindex [ours -c -p $p0 get $k] 1] "val-$k\n"
        assert_equal [node $p7 exists $k] 1
      }
    }

    test {cluster reshard: every slot of a master moved back, with its keys} {
      set id7 [node $p7 cluster myid]
      set id0 [node $p0 cluster myid]
      set n [cc_slot_count $p7]
      lassign [ours --cluster reshard 127.0.0.1:$p0 --cluster-from $id7 --cluster-to $id0 \
                 --cluster-slots $n --cluster-yes --cluster-pipeline 2] st out err
      assert_equal $st 0 "$out\n$err"
      assert_match "*Ready to move $n slots.*Moving slot 0 from 127.0.0.1:$p7 to 127.0.0.1:$p0: .\n*" \
        $out
      cc_wait_sane $p0
      assert_equal [cc_slot_count $p7] 0
      foreach k {k596 k2603 k1699 k1074} {
        assert_equal [node $p0 exists $k] 1
        assert_equal [lindex [ours -c -p [lindex $six 2] get $k] 1] "val-$k\n"
      }
      assert_equal [lindex [ours -c -p [lindex $six 2] get ck:3] 1] "v3\n"
      # A source that is not a master, and no answer at the plan's question.
      same_as_debian --cluster reshard 127.0.0.1:$p0 --cluster-from [node $p8 cluster myid] \
        --cluster-to $id0 --cluster-slots 1 --cluster-yes
      # (p7 left with no slot has become a replica of the first master.)
      lassign [cc_run $::cfg(cli_bin) "no\n" --cluster reshard 127.0.0.1:$p0 \
                 --cluster-from [node [lindex $six 1] cluster myid] --cluster-to $id0 \
                 --cluster-slots 1] st out
      list $st [string range $out end-4 end]
    } {1 {no)? }}

    test {cluster del-node: two nodes left without slots; a master with slots is refused} {
      set id7 [node $p7 cluster myid]
      set id8 [node $p8 cluster myid]
      lassign [same_as_debian --cluster del-node 127.0.0.1:$p0 [node $p0 cluster myid]] st out
      assert_equal $st 1
      assert_has "is not empty! Reshard data away and try again.\n" $out
      foreach id [list $id8 $id7] port [list $p8 $p7] {
        lassign [ours --cluster del-node 127.0.0.1:$p0 $id] st out err
        assert_equal $st 0 "$out\n$err\n[node $p0 cluster nodes]"
        assert_has ">>> Sending CLUSTER RESET SOFT to the deleted node.\n" $out
        assert_has "cluster_known_nodes:1" [node $port cluster info]
      }
      cc_wait_sane $p0
      llength [split [string trim [node $p0 cluster nodes]] "\n"]
    } {6}

    test {-c follows -ASK (ASKING first) while a slot migrates} {
      set src $p0
      set dst [lindex $six 1]
      set srcid [node $src cluster myid]
      set dstid [node $dst cluster myid]
      # k596 is in slot 0, which the first master owns again.
      node $dst cluster setslot 0 importing $srcid
      node $src cluster setslot 0 migrating $dstid
      node $src migrate 127.0.0.1 $dst k596 0 5000
      assert_match "ASK 0 127.0.0.1:$dst*" [lindex [ours -p $src get k596] 1]
      assert_equal [lindex [ours -c -p $src get k596] 1] "val-k596\n"
      set o [cc_run $::cfg(cli_bin) "get k596\n" -c -p $src]
      assert_equal $o [cc_run $::cc_debian_cli "get k596\n" -c -p $src]
      assert_equal [lindex $o 1] "-> Redirected to slot \[0\] located at 127.0.0.1:$dst\nval-k596\n"
      # Finish the migration by hand on the three masters.
      foreach p [list $dst $src [lindex $six 2]] { node $p cluster setslot 0 node $dstid }
      cc_wait_sane $p0
      lindex [ours -c -p $src get k596] 1
    } "val-k596\n"

    test {cluster check reports a slot left open; fix finishes the move} {
      set src [lindex $six 1]
      set dst [lindex $six 2]
      set srcid [node $src cluster myid]
      set dstid [node $dst cluster myid]
      # Slot 0 (key k596) is on the second master now: open it towards the third.
      node $dst cluster setslot 0 importing $srcid
      node $src cluster setslot 0 migrating $dstid
      lassign [same_as_debian --cluster check 127.0.0.1:$p0] st out
      assert_equal $st 1
      assert_has "\[WARNING\] Node 127.0.0.1:$src has slots in migrating state 0." $out
      assert_has "\[WARNING\] The following slots are open: 0." $out
      lassign [ours --cluster fix 127.0.0.1:$p0] st out err
      assert_equal $st 0 "$out\n$err"
      assert_has ">>> Fixing open slot 0\nSet as migrating in: 127.0.0.1:$src\nSet as importing in: 127.0.0.1:$dst\n>>> Case 1: Moving slot 0 from 127.0.0.1:$src to 127.0.0.1:$dst\n" \
        $out
      cc_wait_sane $p0
      assert_equal [node $dst cluster countkeysinslot 0] 1
      lindex [ours -c -p $p0 get k596] 1
    } "val-k596\n"

    test {cluster fix covers slots nobody serves, after asking even with --cluster-yes} {
      foreach p $six { catch {node $p cluster delslots 200 201} }
      wait_for_condition 50 100 {
        [string match "*Not all 16384 slots are covered*" [lindex [ours --cluster check 127.0.0.1:$p0] 1]]
      } { fail "slots still covered" }
      lassign [same_as_debian --cluster check 127.0.0.1:$p0] st out
      assert_equal $st 1
      lassign [cc_run $::cfg(cli_bin) "yes\n" --cluster fix 127.0.0.1:$p0 --cluster-yes] st out err
      assert_equal $st 0 "$out\n$err"
      assert_has "The following uncovered slots have no keys across the cluster:\n\[200-201\]\nFix these slots by covering with a random node? (type 'yes' to accept): >>> Covering slot 200 with 127.0.0.1:" $out
      cc_wait_sane $p0
      lindex [ours -c -p $p0 set slot200key x] 1
    } "OK\n"

    test {cluster import from a standalone server (--cluster-copy keeps the source)} {
      for {set i 0} {$i < 6} {incr i} { node $sport set imp:$i iv$i }
      lassign [ours --cluster import 127.0.0.1:$p0 --cluster-from 127.0.0.1:$sport \
                 --cluster-copy] st out err
      assert_equal $st 0 "$out\n$err"
      assert_has "*** Importing 6 keys from DB 0\n" $out
      assert_equal [llength [lsearch -all [split $out "\n"] "Migrating imp:* OK"]] 6
      for {set i 0} {$i < 6} {incr i} {
        assert_equal [lindex [ours -c -p $p0 get imp:$i] 1] "iv$i\n"
      }
      assert_equal [node $sport dbsize] 6
      # A cluster node is not a source; --cluster-from is required.
      lassign [same_as_debian --cluster import 127.0.0.1:$p0 --cluster-from 127.0.0.1:$p9] st out
      assert_has "\[ERR\] The source node should not be a cluster node.\n" $out
      same_as_debian --cluster import 127.0.0.1:$p0
    } {1 {} {[ERR] Option '--cluster-from' is required for subcommand 'import'.
}}

    test {cluster backup writes nodes.json and one RDB per master, as Debian's} {
      set d1 [new_tmp_dir cc-backup]
      set d2 [new_tmp_dir cc-backup]
      set o [ours --cluster backup 127.0.0.1:$p0 $d1]
      set d [debians --cluster backup 127.0.0.1:$p0 $d2]
      assert_equal [lindex $o 0] 0
      # The RDB sizes may differ by a byte or two (the replication offset
      # is in them): the rest must be the same.
      regsub -all {writing [0-9]+ bytes} [string map [list $d1 DIR] $o] {writing N bytes} o
      regsub -all {writing [0-9]+ bytes} [string map [list $d2 DIR] $d] {writing N bytes} d
      assert_equal $o $d
      assert_equal [read_file $d1/nodes.json] [read_file $d2/nodes.json]
      assert_match "*\"slots_count\": *" [read_file $d1/nodes.json]
      set rdbs [lsort [glob -tails -directory $d1 *.rdb]]
      assert_equal $rdbs [lsort [glob -tails -directory $d2 *.rdb]]
      foreach f $rdbs { assert_match "REDIS*" [string range [read_file $d1/$f] 0 8] }
      llength $rdbs
    } {3}

    set bench [file join [file dirname $::cfg(cli_bin)] redis-benchmark]
    test {redis-benchmark --cluster: each master gets its own keys} {
      foreach p [lrange $six 0 2] { node $p flushall }
      set out [exec $bench --cluster -p $p0 -t set,mset -n 3000 -r 100 -q 2>@1]
      assert_has "Cluster has 3 master nodes:\n\nMaster 0: " $out
      assert_has "\nSET: " $out
      assert_has "\nMSET (10 keys): " $out
      set masters 0
      foreach p $six {
        if {![string match "*role:master*" [node $p info replication]]} continue
        incr masters
        set keys [split [node $p --scan --pattern key:*] "\n"]
        assert {[llength $keys] > 0}
        # Every key is in a slot its node owns (no MOVED was answered).
        foreach k [lrange $keys 0 4] { assert_equal [node $p exists $k] 1 }
      }
      set masters
    } {3}

    test {redis-benchmark --cluster reads the slots again when a slot moves under it} {
      set fd [open "|$bench --cluster -p $p0 -t set -n 300000 -r 1000 -q 2>@1" r]
      # Once it has listed the masters, move the first slot of the first one.
      while {[gets $fd line] >= 0 && $line ne ""} {}
      set id0 [node $p0 cluster myid]
      set id1 [node [lindex $six 1] cluster myid]
      lassign [ours --cluster reshard 127.0.0.1:$p0 --cluster-from $id0 --cluster-to $id1 \
                 --cluster-slots 1 --cluster-yes] st rout err
      assert_equal $st 0 "$rout\n$err"
      set out [read $fd]
      set status [catch {close $fd} err]
      assert_equal $status 0 $err
      assert_has "WARNING: Cluster slots configuration changed, fetching new one...\n" $out
      regexp {SET: ([0-9.]+) requests per second} $out -> rps
      expr {$rps > 0}
    } {1}

    test {-c: redirections that cannot be followed end as Debian's redis-cli ends} {
      # Stand-ins that answer every command with one fixed error.
      set script {
import socket, sys, threading
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8)
def serve(c):
    while c.recv(4096):
        c.sendall(sys.argv[2].encode() + b"\r\n")
while True:
    c, _ = s.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
}
      set dead [cc_free_port]
      set moved [cc_free_port]
      set ask [cc_free_port]
      set refuse [cc_free_port]
      set fakes {}
      lappend fakes [exec python3 -c $script $moved "-MOVED 77 127.0.0.1:$dead" &]
      lappend fakes [exec python3 -c $script $ask "-ASK 77 127.0.0.1:$refuse" &]
      lappend fakes [exec python3 -c $script $refuse "-ERR not now" &]
      try {
        foreach p [list $moved $ask $refuse] {
          wait_for_condition 50 100 {![port_is_free $p]} { fail "stand-in on $p not up" }
        }
        set o [same_as_debian -c -p $moved get k]
        assert_equal [lindex $o 2] "Could not connect to Redis at 127.0.0.1:$dead: Connection refused\n"
        set o [same_as_debian -c -p $ask get k]
        assert_equal [lindex $o 2] "ASKING failed: ERR not now\nError: \n"
        lindex $o 0
      } finally {
        foreach pid $fakes { catch {exec kill $pid} }
      }
    } {1}

    test {cluster manager errors: exit 1 with Debian's messages} {
      # A node with keys, or one that is not a cluster node, is refused at create.
      lassign [same_as_debian --cluster create 127.0.0.1:$p9 127.0.0.1:$p0 127.0.0.1:$p8] st out
      assert_has "\[ERR\] Node 127.0.0.1:$p0 is not empty." $out
      lassign [same_as_debian --cluster create 127.0.0.1:$sport 127.0.0.1:$p9] st out
      assert_has "\[ERR\] Node 127.0.0.1:$sport is not configured as a cluster node.\n" $out
      lassign [same_as_debian --cluster create 127.0.0.1:$p9 127.0.0.1:$p8 127.0.0.1:$p7 \
                 --cluster-replicas 1] st out
      assert_has "Redis Cluster requires at least 3 master nodes." $out
      set dead [cc_free_port]
      foreach args [list [list check 127.0.0.1:$dead] [list info 127.0.0.1] [list check] \
                      [list nosuch 127.0.0.1:$p0] [list del-node 127.0.0.1:$p0] \
                      [list create 127.0.0.1] [list add-node 127.0.0.1:$dead 127.0.0.1:$p0] \
                      [list del-node 127.0.0.1:$p0 [string repeat 0 40]] \
                      [list rebalance 127.0.0.1:$p0 --cluster-weight nosuch=2] \
                      [list reshard 127.0.0.1:$p0 --cluster-to nosuch --cluster-slots 1 \
                         --cluster-from all]] {
        lassign [same_as_debian --cluster {*}$args] st
        assert_equal $st 1 $args
      }
      lassign [same_as_debian --cluster check 127.0.0.1:$dead] st out err
      assert_equal $err "Could not connect to Redis at 127.0.0.1:$dead: Connection refused\n"
      lassign [same_as_debian --cluster help] st out
      assert_match "Cluster Manager Commands:\n  create         host1:port1 ... hostN:portN\n*" $out
      # Options that redis-cli refuses together or without their value.
      same_as_debian -c -s /tmp/nosuch.sock ping
      same_as_debian --cluster check 127.0.0.1:$p0 --cluster-from
    } {1 {} {Unrecognized option or bad number of args for: '--cluster-from'
}}

    puts "    (cluster tests took [expr {[clock milliseconds] - $::cc_start}] ms)"
  } finally {
    foreach pid $pids { catch {exec kill -9 $pid} }
  }
}
