# Replication over RDMA (repl-transport rdma): a replica reaches its
# master's rdma-port through the rdma connection type, with the same full
# sync (diskless and from disk, loaded from a file or as it arrives),
# stream and partial resync as over TCP, and a master serves an RDMA and a
# TCP replica at once. Values larger than the RX buffer cross both ways. A
# master or a replica that vanishes without a disconnect (SIGSTOP) is
# dropped after repl-timeout and the link continues with PSYNC. Runs only in
# the rxe VM (needs:rdma).

source [file join $::repo_root tests rdma helpers rdma.tcl]
source [file join $::support_dir replication.tcl]
set ::rdma_port [find_free_port]

proc replica_lines {level} {
  return [split [string trim [r $level client list type replica]] "\n"]
}

proc rdma_info_of {level field} {
  return [info_field [r $level info rdma] $field]
}

# How many lines of the server's log match `pattern`.
proc log_count {level pattern} {
  return [llength [lsearch -all -glob [split [log_of $level] "\n"] $pattern]]
}

proc fill {level n} {
  for {set i 0} {$i < $n} {incr i} { r $level set k:$i [string repeat v 1000] }
  r $level set big1 [string repeat a 300000]
  r $level rpush list a b c
  r $level hset h f1 v1 f2 v2
  r $level select 3
  r $level set in-db3 1
  r $level select 0
}

start_server [list tags {needs:rdma external:skip repl} \
                overrides [rdma_overrides $::rdma_port \
                             {protected-mode no repl-diskless-sync-delay 0 \
                              enable-debug-command yes rdma-rx-size 65536 \
                              repl-ping-replica-period 1}]] {
  fill 0 2000
  start_server [list overrides [rdma_overrides 0 \
                                  {repl-transport rdma repl-timeout 3 enable-debug-command yes}]] {
    test {A replica with repl-transport rdma syncs from the master's rdma-port (diskless)} {
      r replicaof $::rdma_addr $::rdma_port
      wait_link_up 0
      wait_caught_up -1 0
      assert_match {*transport=rdma*} [replica_lines -1]
      assert_equal [r debug digest] [r -1 debug digest]
      r select 3
      set v [r get in-db3]
      r select 0
      set v
    } {1}

    test {The stream over RDMA: writes, values larger than the RX buffer, MULTI} {
      r -1 set after [string repeat z 200000]
      r -1 multi
      r -1 incr counter
      r -1 lpush list d
      r -1 exec
      # The replica's ACKs come back over RDMA too.
      assert_equal 1 [r -1 wait 1 5000]
      wait_caught_up -1 0
      assert_equal [r debug digest] [r -1 debug digest]
      string length [r get after]
    } {200000}

    start_server [list overrides [rdma_overrides 0]] {
      test {The master serves an RDMA and a TCP replica at once} {
        r replicaof 127.0.0.1 [srv -2 port]
        wait_link_up 0
        r -2 set both 1
        wait_caught_up -2 0
        wait_caught_up -2 -1
        set lines [replica_lines -2]
        list [llength $lines] [llength [lsearch -all $lines *transport=rdma*]] \
          [llength [lsearch -all $lines *transport=tcp*]] [r get both] [r -1 get both]
      } {2 1 1 1 1}
    }

    test {A cut RDMA link continues with PSYNC} {
      set full [stat_field -1 sync_full]
      set partial [stat_field -1 sync_partial_ok]
      r -1 client kill type replica
      wait_log 0 "*Connection with master lost*"
      r -1 set while-down 1
      wait_caught_up -1 0
      list [expr {[stat_field -1 sync_full] - $full}] \
        [expr {[stat_field -1 sync_partial_ok] - $partial}] [r get while-down]
    } {0 1 1}

    test {A full sync from disk over RDMA (repl-diskless-sync no)} {
      r -1 config set repl-diskless-sync no
      set full [stat_field -1 sync_full]
      # A new replication id: the replica cannot continue and syncs whole.
      r -1 debug change-repl-id
      r -1 client kill type replica
      wait_for_condition 200 50 {[stat_field -1 sync_full] > $full} {
        fail "no full sync after the id changed"
      }
      r -1 set after-disk 1
      wait_caught_up -1 0
      assert_match {*transport=rdma*} [replica_lines -1]
      assert_equal [r debug digest] [r -1 debug digest]
      r get after-disk
    } {1}

    test {A diskless load over RDMA parses the RDB as it arrives (swapdb)} {
      r config set repl-diskless-load swapdb
      # Slowed down: the loader waits on the link many times over.
      r config set key-load-delay 300
      set before [log_count 0 "*MASTER <-> REPLICA sync: receiving*to parser*"]
      set full [stat_field -1 sync_full]
      r -1 config set repl-diskless-sync yes
      r -1 debug change-repl-id
      r -1 client kill type replica
      wait_for_condition 200 50 {[log_count 0 "*MASTER <-> REPLICA sync: receiving*to parser*"] > $before} {
        fail "no diskless load"
      }
      after 300
      r config set key-load-delay 0
      r -1 set after-diskless 1
      wait_caught_up -1 0
      assert_morethan [stat_field -1 sync_full] $full
      assert_equal [r debug digest] [r -1 debug digest]
      r config set repl-diskless-load disabled
      r get after-diskless
    } {1}

    # A peer that vanishes without a disconnect: SIGSTOP. soft-RoCE runs in
    # the kernel, so the stopped side's transport still acknowledges every
    # write and liveness probe (rdma_dead_peers stays put); only repl-timeout
    # can find it, then the link resumes with +CONTINUE (same id, same offset).
    test {RDMA replica: a master that vanishes is dropped after repl-timeout, then PSYNC continues} {
      set full [stat_field -1 sync_full]
      set partial [stat_field -1 sync_partial_ok]
      set replid [repl_field -1 master_replid]
      set dead [rdma_info_of 0 rdma_dead_peers]
      set timeouts [log_count 0 "*MASTER timeout: no data nor PING received*"]
      set connect_timeouts [log_count 0 "*Timeout connecting to the MASTER*"]
      set continued [log_count 0 "*Successful partial resynchronization with master*"]
      set t0 [clock milliseconds]
      exec kill -STOP [srv -1 pid]
      try {
        wait_for_condition 200 50 {
          [log_count 0 "*MASTER timeout: no data nor PING received*"] > $timeouts
        } { fail "the replica never timed the stopped master out" }
        set elapsed [expr {[clock milliseconds] - $t0}]
        wait_for_condition 100 50 {[repl_field 0 master_link_status] eq "down"} {
          fail "master_link_status stayed [repl_field 0 master_link_status]"
        }
        # Its reconnection reaches the stopped master's rdma_cm but nothing
        # answers: the attempt times out too, and leaves a stale connect
        # request in the master's queue for when it wakes up.
        wait_for_condition 200 50 {
          [log_count 0 "*Timeout connecting to the MASTER*"] > $connect_timeouts
        } { fail "the reconnection to the stopped master never timed out" }
        assert_equal [repl_field 0 master_link_status] down
        # Not the liveness probe: the stopped master's card answered it.
        assert_equal $dead [rdma_info_of 0 rdma_dead_peers]
      } finally {
        exec kill -CONT [srv -1 pid]
      }
      # repl-timeout is 3 s and the master PINGs every second: not before
      # 2 s of silence, and not much after 3 s plus one cron tick.
      assert_range $elapsed 2000 9000
      wait_link_up 0
      r -1 set after-vanish 1
      wait_caught_up -1 0
      assert_equal $full [stat_field -1 sync_full]
      assert_equal [expr {$partial + 1}] [stat_field -1 sync_partial_ok]
      assert_equal [expr {$continued + 1}] \
        [log_count 0 "*Successful partial resynchronization with master*"]
      assert_equal $replid [repl_field -1 master_replid]
      assert_match {*transport=rdma*} [replica_lines -1]
      # The stale connect requests found on waking are closed: only the
      # replica's link is left on the master.
      wait_for_condition 300 50 {[rdma_info_of -1 rdma_connections] == 1} {
        fail "the master kept [rdma_info_of -1 rdma_connections] rdma connections"
      }
      assert_equal [r debug digest] [r -1 debug digest]
      r get after-vanish
    } {1}

    test {RDMA master: a replica that vanishes is dropped after repl-timeout, then PSYNC continues} {
      r -1 config set repl-timeout 3
      set full [stat_field -1 sync_full]
      set partial [stat_field -1 sync_partial_ok]
      set dead [rdma_info_of -1 rdma_dead_peers]
      set drops [log_count -1 "*Disconnecting timedout replica (streaming sync): *"]
      set t0 [clock milliseconds]
      exec kill -STOP [srv 0 pid]
      try {
        # The stream keeps flowing into the stopped replica's RX buffer (its
        # card takes it), but no REPLCONF ACK comes back. Well under 128
        # writes: past the receives it keeps posted its card answers RNR and
        # the liveness probe closes the link first (RDMA.md, Dead peers).
        for {set i 0} {$i < 20} {incr i} { r -1 set during-stop:$i $i }
        wait_for_condition 200 50 {
          [log_count -1 "*Disconnecting timedout replica (streaming sync): *"] > $drops
        } { fail "the master never timed the stopped replica out" }
        set elapsed [expr {[clock milliseconds] - $t0}]
        wait_for_condition 100 50 {[repl_field -1 connected_slaves] == 0} {
          fail "the master still lists [repl_field -1 connected_slaves] replicas"
        }
        assert_equal $dead [rdma_info_of -1 rdma_dead_peers]
        assert_equal {} [replica_lines -1]
      } finally {
        exec kill -CONT [srv 0 pid]
      }
      assert_range $elapsed 2000 9000
      wait_link_up 0
      wait_caught_up -1 0
      assert_equal $full [stat_field -1 sync_full]
      assert_equal [expr {$partial + 1}] [stat_field -1 sync_partial_ok]
      assert_match {*transport=rdma*} [replica_lines -1]
      assert_equal [r debug digest] [r -1 debug digest]
      r get during-stop:19
    } {19}
  }
}
