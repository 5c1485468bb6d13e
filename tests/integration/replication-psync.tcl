# The replication backlog and PSYNC: a replica whose link broke continues
# from its offset (+CONTINUE) while the backlog holds it, gets a full
# resync once it does not, and a promoted replica's old master continues
# from it through the secondary replication id. Ours and Redis 7.0.15.

source [file join $::support_dir replication.tcl]

# The replica bins to try against our master.
set replica_bins [list $::our_bin]
if {[file executable $::reference_bin]} { lappend replica_bins $::reference_bin }

foreach bin $replica_bins {
  set who [expr {$bin eq $::our_bin ? "our server" : "Redis 7.0.15"}]
  start_server {tags {repl external:skip} overrides {repl-diskless-sync-delay 0 repl-backlog-size 16kb}} {
    r set k0 v0
    with_server_bin $bin {
      start_server {} {
        r replicaof 127.0.0.1 [srv -1 port]
        wait_caught_up -1 0

        test "Link cut mid-stream: $who continues from the backlog" {
          assert_equal [repl_field -1 repl_backlog_active] 1
          set full [stat_field -1 sync_full]
          r -1 client kill type replica
          for {set i 0} {$i < 50} {incr i} { r -1 set key:$i $i }
          wait_caught_up -1 0
          assert_equal [stat_field -1 sync_full] $full
          assert_equal [stat_field -1 sync_partial_ok] 1
          assert_match "*Partial resynchronization request from * accepted*" [log_of -1]
          list [r get key:49] [r get k0]
        } {49 v0}

        test "Backlog overflow while $who is away: a full resync, logged" {
          set full [stat_field -1 sync_full]
          set err [stat_field -1 sync_partial_err]
          exec kill -STOP [srv 0 pid]
          r -1 client kill type replica
          set big [string repeat x 1000]
          for {set i 0} {$i < 40} {incr i} { r -1 set big:$i $big }
          exec kill -CONT [srv 0 pid]
          wait_caught_up -1 0
          assert_equal [stat_field -1 sync_full] [expr {$full + 1}]
          assert_equal [stat_field -1 sync_partial_err] [expr {$err + 1}]
          assert_match "*Unable to partial resync with replica * for lack of backlog*" [log_of -1]
          string length [r get big:39]
        } {1000}

        test "Promoted $who: the old master continues from it (secondary id)" {
          set old_id [repl_field -1 master_replid]
          r replicaof no one
          assert_equal [repl_field 0 master_replid2] $old_id
          # The old master comes back after a few of the new master's ticks,
          # as under Sentinel: a promoted server without replicas yet keeps
          # its backlog (repl-backlog-ttl counts from the promotion).
          after 2100
          assert_equal [repl_field 0 repl_backlog_active] 1
          r set on-new-master 1
          r -1 replicaof 127.0.0.1 [srv 0 port]
          wait_caught_up 0 -1
          assert_equal [stat_field 0 sync_partial_ok] 1
          assert_equal [repl_field -1 master_replid] [repl_field 0 master_replid]
          r -1 get on-new-master
        } {1}
      }
    }
  }
}

start_server {tags {repl external:skip} overrides {repl-diskless-sync-delay 0}} {
  start_server {} {
    start_server {} {
      test {A chain: the sub-replica gets its master's stream byte for byte} {
        r -1 replicaof 127.0.0.1 [srv -2 port]
        wait_caught_up -2 -1
        r replicaof 127.0.0.1 [srv -1 port]
        wait_caught_up -1 0
        r -2 select 6
        r -2 set chained 1
        r -2 multi
        r -2 incr n
        r -2 incr n
        r -2 exec
        wait_caught_up -2 0
        assert_equal [repl_field 0 master_replid] [repl_field -2 master_replid]
        r select 6
        list [r get chained] [r get n]
      } {1 2}

      test {The middle replica's link breaks: both continue without a full sync} {
        set full [stat_field -2 sync_full]
        r -2 client kill type replica
        r -2 select 6
        r -2 set during-cut 1
        wait_caught_up -2 0
        assert_equal [stat_field -2 sync_full] $full
        r select 6
        r get during-cut
      } {1}
    }
  }
}

start_server {tags {repl external:skip} overrides {repl-diskless-sync-delay 0 repl-backlog-ttl 1}} {
  start_server {} {
    test {repl-backlog-ttl frees the backlog of a master left without replicas} {
      r replicaof 127.0.0.1 [srv -1 port]
      wait_caught_up -1 0
      r replicaof no one
      wait_log -1 "*Replication backlog freed after 1 seconds without connected replicas*"
      repl_field -1 repl_backlog_active
    } {0}
  }
}

start_server {tags {repl external:skip} overrides {repl-diskless-sync-delay 0}} {
  foreach bin $replica_bins {
    set who [expr {$bin eq $::our_bin ? "our server" : "Redis 7.0.15"}]
    with_server_bin $bin {
      start_server {} {
        r replicaof 127.0.0.1 [srv -1 port]
        wait_caught_up -1 0

        test "WAIT counts $who once it acknowledged the write" {
          r -1 set w 1
          assert_equal [r -1 wait 1 5000] 1
          set t0 [clock milliseconds]
          assert_equal [r -1 wait 2 300] 1
          assert_range [expr {[clock milliseconds] - $t0}] 250 3000
          # Inside MULTI it answers at once (never blocks).
          r -1 multi
          r -1 wait 5 0
          assert_range [lindex [r -1 exec] 0] 0 1
          assert_error "*WAIT cannot be used with replica instances*" {r wait 1 10}
          assert_error "*timeout is negative*" {r -1 wait 1 -1}
        }

        test "WAIT with $who waits for the calling client's own last write" {
          set other [redis_client -1]
          $other set mine 1
          assert_equal [$other wait 1 5000] 1
          # The replica stops: a client whose writes it has acknowledged
          # gets its count at once; the one that writes now waits it out.
          exec kill -STOP [srv 0 pid]
          r -1 set unacked 1
          set t0 [clock milliseconds]
          set counts [list [$other wait 1 3000] [expr {[clock milliseconds] - $t0 < 1000}]]
          lappend counts [r -1 wait 1 200]
          exec kill -CONT [srv 0 pid]
          $other close
          wait_caught_up -1 0
          set counts
        } {1 1 0}

        test "min-replicas-to-write with $who: -NOREPLICAS once it lags" {
          r -1 config set min-replicas-to-write 1
          r -1 config set min-replicas-max-lag 2
          r -1 set ok-with-replica 1
          assert_equal [info_field [r -1 info replication] min_slaves_good_slaves] 1
          exec kill -STOP [srv 0 pid]
          wait_for_condition 100 100 {[catch {r -1 set blocked 1} e] && [string match NOREPLICAS* $e]} {
            exec kill -CONT [srv 0 pid]
            fail "writes were never refused"
          }
          assert_error "*NOREPLICAS*" {r -1 eval {redis.call('set', 'x', 'y')} 0}
          assert_error "NOREPLICAS*" {r -1 eval "#!lua\nreturn 1" 0}
          exec kill -CONT [srv 0 pid]
          wait_for_condition 100 100 {![catch {r -1 set again 1}]} { fail "writes never resumed" }
          r -1 config set min-replicas-to-write 0
          r -1 get again
        } {1}
      }
    }
  }
}

start_server {tags {repl external:skip} overrides {repl-diskless-sync-delay 0}} {
  r set before-restart 1
  set dir [new_tmp_dir replica-restart]
  foreach bin $replica_bins {
    set who [expr {$bin eq $::our_bin ? "our server" : "Redis 7.0.15"}]
    with_server_bin $bin {
      test "$who restarted from its RDB continues partially (repl-id/repl-offset aux fields)" {
        file delete -force $dir/dump.rdb
        start_server [list overrides [list dir $dir]] {
          r replicaof 127.0.0.1 [srv -1 port]
          wait_caught_up -1 0
          r -1 select 5
          r -1 set in-db5 1
          wait_caught_up -1 0
          set pid [srv 0 pid]
          catch {r shutdown save}
          mark_server_killed
          wait_for_condition 100 50 {[catch {exec kill -0 $pid}]} { fail "replica did not exit" }
        }
        set full [stat_field 0 sync_full]
        r select 5
        r set while-restarting 1
        start_server [list overrides [list dir $dir replicaof "127.0.0.1 [srv 0 port]"]] {
          wait_caught_up -1 0
          assert_equal [stat_field -1 sync_full] $full
          assert_match "*Partial resynchronization request from * accepted*" [log_of -1]
          r select 5
          set got [list [r get in-db5] [r get while-restarting]]
        }
        set got
      } {1 1}
    }
  }
}

start_server {tags {repl external:skip}} {
  set dir [new_tmp_dir master-restart]
  set port [find_free_port]
  set master_overrides [list dir $dir port $port repl-diskless-sync-delay 0]
  test {A master restarted from its RDB continues its history: the replica resyncs partially and gets the expired keys' DELs} {
    start_server [list overrides $master_overrides] {
      r -1 replicaof 127.0.0.1 $port
      wait_caught_up 0 -1
      r set kept 1
      r set short v PX 300
      wait_caught_up 0 -1
      set old_id [repl_field 0 master_replid]
      set old_offset [repl_field 0 master_repl_offset]
      set pid [srv 0 pid]
      catch {r shutdown save now}
      mark_server_killed
      wait_for_condition 100 50 {[catch {exec kill -0 $pid}]} { fail "master did not exit" }
    }
    after 400
    start_server [list overrides $master_overrides] {
      wait_link_up -1
      wait_caught_up 0 -1
      set res [list [expr {[repl_field 0 master_replid] ne $old_id}] \
        [expr {[repl_field 0 master_replid2] eq $old_id}] \
        [expr {[repl_field 0 second_repl_offset] == $old_offset + 1}] \
        [stat_field 0 sync_full] [stat_field 0 sync_partial_ok] \
        [r -1 get kept] [r -1 dbsize]]
    }
    set res
  } {1 1 1 0 1 1 1}
}
