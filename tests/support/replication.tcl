# Helpers of the replication test files: INFO fields by server level, the
# waits for a link and for a replica to catch up, and the server log.

set ::reference_bin /usr/bin/redis-server
set ::our_bin $::cfg(server_bin)

proc repl_field {level field} { return [info_field [r $level info replication] $field] }
proc stat_field {level field} { return [info_field [r $level info stats] $field] }
proc log_of {level} { return [read_file [srv $level stdout]] }

proc wait_log {level pattern} {
  wait_for_condition 200 50 {[string match $pattern [log_of $level]]} {
    fail "log never matched $pattern"
  }
}

proc wait_link_up {level} {
  wait_for_condition 200 50 {[repl_field $level master_link_status] eq "up"} {
    fail "replica's link never came up: [r $level info replication]"
  }
}

# A replica started with launch_server (rep, its description; c, a client
# of it) that is expected to stop on its own: waits up to 10 s, kills it if
# it did not, and returns {stopped-with-an-error log-matched-pattern}.
proc replica_stopped_with {rep c pattern} {
  set status [wait_server_exit [dict get $rep dir] 10000]
  catch {$c close}
  set log [read_file [dict get $rep stdout]]
  if {$status eq ""} { catch {exec kill -9 [dict get $rep pid]} }
  return [list [expr {$status ne "" && $status != 0}] [string match $pattern $log]]
}

# Waits until the replica has applied everything the master has written.
proc wait_caught_up {master replica} {
  wait_for_condition 200 50 {
    [repl_field $replica master_link_status] eq "up" &&
    [repl_field $replica master_repl_offset] == [repl_field $master master_repl_offset]
  } {
    fail "replica never caught up: master [repl_field $master master_repl_offset],\
          replica [repl_field $replica master_repl_offset]"
  }
}
