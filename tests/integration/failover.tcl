# FAILOVER: a master hands its role to one of its replicas without losing
# an acknowledged write: writes are held until the target has the whole
# stream, then the master becomes the target's replica through PSYNC ...
# FAILOVER, which the target answers as a master. Ours with ours, and with
# Debian's Redis 7.0.15 on either side. TIMEOUT, FORCE, ABORT and the
# errors as Redis 7.0 gives them.

source [file join $::support_dir replication.tcl]

set ::fo_overrides {repl-diskless-sync-delay 0}

proc role_of {level} { return [lindex [r $level role] 0] }

proc wait_role {level role} {
  wait_for_condition 200 50 {[role_of $level] eq $role} {
    fail "server $level never became $role: [r $level role]"
  }
}

proc failover_state {level} { return [repl_field $level master_failover_state] }

# Waits until the failover swapped the roles: `new` a master, `old` its
# replica with the link up and out of the failover state.
proc wait_swapped {new old} {
  wait_role $new master
  wait_role $old slave
  wait_link_up $old
  wait_for_condition 100 50 {[failover_state $old] eq "no-failover"} {
    fail "the old master never left the failover state"
  }
}

start_server [list tags {repl failover external:skip} overrides $::fo_overrides] {
  test {FAILOVER errors: no replicas, nothing to abort, bad arguments} {
    assert_error {*FAILOVER requires connected replicas*} {r failover}
    assert_error {*No failover in progress*} {r failover abort}
    assert_error {*syntax error*} {r failover to 127.0.0.1}
    assert_error {*syntax error*} {r failover bogus}
    assert_error {*FAILOVER timeout must be greater than 0*} {r failover timeout 0}
    assert_error {*not an integer*} {r failover to 127.0.0.1 notaport}
    failover_state 0
  } {no-failover}

  start_server [list overrides $::fo_overrides] {
    r replicaof 127.0.0.1 [srv -1 port]
    wait_caught_up -1 0

    test {FAILOVER argument checks with a replica connected} {
      assert_error {*FAILOVER with force option requires both a timeout and target HOST and IP*} \
        {r -1 failover force}
      assert_error {*FAILOVER with force option requires both a timeout and target HOST and IP*} \
        {r -1 failover to 127.0.0.1 [srv 0 port] force}
      assert_error {*FAILOVER target HOST and PORT is not a replica*} \
        {r -1 failover to 127.0.0.1 1}
      assert_error {*FAILOVER is not valid when server is a replica*} {r failover}
      failover_state -1
    } {no-failover}

    test {A replica refuses PSYNC FAILOVER for a history that is not its own} {
      set fd [socket 127.0.0.1 [srv 0 port]]
      fconfigure $fd -translation binary -blocking 1
      puts -nonewline $fd "PSYNC 0123456789012345678901234567890123456789 1 FAILOVER\r\n"
      flush $fd
      set line [gets $fd]
      close $fd
      list $line [role_of 0]
    } [list "-ERR PSYNC FAILOVER replid must match my replid.\r" slave]

    test {FAILOVER TO the replica: roles swap, no full sync, the data and the stream follow} {
      r -1 set before 1
      wait_caught_up -1 0
      set full [stat_field 0 sync_full]
      assert_equal OK [r -1 failover to 127.0.0.1 [srv 0 port]]
      wait_swapped 0 -1
      assert_error {*READONLY*} {r -1 set x 1}
      r set after 2
      wait_caught_up 0 -1
      list [r -1 get before] [r -1 get after] [expr {[stat_field 0 sync_full] - $full}] \
        [r get before]
    } {1 2 0 1}

    test {FAILOVER without TO picks the replica that caught up (back again)} {
      assert_equal OK [r failover]
      wait_swapped -1 0
      r -1 set third 3
      wait_caught_up -1 0
      r get third
    } {3}

    test {Writes are held while waiting for the target; TIMEOUT without FORCE aborts} {
      exec kill -STOP [srv 0 pid]
      r -1 set unacked 1
      assert_equal OK [r -1 failover to 127.0.0.1 [srv 0 port] timeout 1500]
      assert_equal waiting-for-sync [failover_state -1]
      set rd [redis_deferring_client -1]
      set t0 [clock milliseconds]
      $rd set held 1
      # Reads still run; the write waits until the failover gives up.
      assert_equal 1 [r -1 get unacked]
      assert_equal OK [$rd read]
      set waited [expr {[clock milliseconds] - $t0}]
      $rd close
      exec kill -CONT [srv 0 pid]
      wait_log -1 "*Replica never caught up before timeout*"
      assert_range $waited 1000 10000
      list [failover_state -1] [role_of -1]
    } {no-failover master}

    test {FAILOVER ABORT while waiting: writes flow again, the master stays} {
      exec kill -STOP [srv 0 pid]
      r -1 set unacked2 1
      r -1 failover to 127.0.0.1 [srv 0 port]
      set rd [redis_deferring_client -1]
      $rd set held2 1
      after 200
      assert_equal OK [r -1 failover abort]
      assert_equal OK [$rd read]
      $rd close
      exec kill -CONT [srv 0 pid]
      wait_caught_up -1 0
      list [failover_state -1] [role_of -1] [r get held2]
    } {no-failover master 1}

    test {FAILOVER ... FORCE goes on after TIMEOUT even if the target lags} {
      exec kill -STOP [srv 0 pid]
      r -1 set unacked3 1
      r -1 failover to 127.0.0.1 [srv 0 port] timeout 500 force
      wait_for_condition 100 50 {[failover_state -1] eq "failover-in-progress"} {
        exec kill -CONT [srv 0 pid]
        fail "FORCE did not start the failover"
      }
      exec kill -CONT [srv 0 pid]
      wait_swapped 0 -1
      r get unacked3
    } {1}
  }
}

if {[file executable $::reference_bin]} {
  foreach {master_bin replica_bin who} [list $::our_bin $::reference_bin "our master to Redis 7.0.15" \
                                          $::reference_bin $::our_bin "Redis 7.0.15 to our replica"] {
    with_server_bin $master_bin {
      start_server [list tags {repl failover external:skip} overrides $::fo_overrides] {
        with_server_bin $replica_bin {
          start_server [list overrides $::fo_overrides] {
            test "FAILOVER from $who: roles swap without a full sync" {
              r replicaof 127.0.0.1 [srv -1 port]
              wait_caught_up -1 0
              r -1 set k1 v1
              r -1 hset h f v
              wait_caught_up -1 0
              set full [stat_field 0 sync_full]
              assert_equal OK [r -1 failover to 127.0.0.1 [srv 0 port]]
              wait_swapped 0 -1
              r set k2 v2
              wait_caught_up 0 -1
              list [r -1 get k1] [r -1 get k2] [r hget h f] [expr {[stat_field 0 sync_full] - $full}]
            } {v1 v2 v 0}
          }
        }
      }
    }
  }
}
