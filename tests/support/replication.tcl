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
