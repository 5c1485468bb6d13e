# Replication over RDMA (repl-transport rdma): a replica reaches its
# master's rdma-port through the rdma connection type, with the same full
# sync (diskless and from disk), stream and partial resync as over TCP, and a
# master serves an RDMA and a TCP replica at once. Values larger than the
# RX buffer cross both ways. Runs only in the rxe VM (needs:rdma).

source [file join $::repo_root tests rdma helpers rdma.tcl]
source [file join $::support_dir replication.tcl]
set ::rdma_port [find_free_port]

proc replica_lines {level} {
  return [split [string trim [r $level client list type replica]] "\n"]
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
                              enable-debug-command yes rdma-rx-size 65536}]] {
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

    test {A master that stops answering is dropped after repl-timeout, then resynced} {
      exec kill -STOP [srv -1 pid]
      set timed_out [catch {wait_log 0 "*MASTER timeout*"} err]
      exec kill -CONT [srv -1 pid]
      if {$timed_out} { error $err }
      wait_link_up 0
      r -1 set after-stop 1
      wait_caught_up -1 0
      r get after-stop
    } {1}
  }
}
