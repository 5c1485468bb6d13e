# Debian's redis-sentinel 7.0.15 as a test peer: `with_sentinels` starts a
# few Sentinels watching one master (named mymaster), runs a body, and stops
# them whatever the body did. Inside, `sen i cmd ...` talks to Sentinel i.
#
# Sentinel's own timers set the pace (see its sentinel.c): it sends INFO to a
# replica every 10 s (every second while the master is down or failing
# over), and turns an old master that comes back into a replica once it has
# reported the wrong role for 8 s; the waits below allow for that.

set ::sentinel_bin /usr/bin/redis-sentinel
set ::sentinels {}

proc sentinel_available {} { return [file executable $::sentinel_bin] }

proc sentinel_spawn {master_port quorum} {
  set dir [new_tmp_dir sentinel]
  set port [find_free_port]
  # Raw lines: the monitor line is several words, not one quoted value.
  # down-after-milliseconds stays above Sentinel's 1 s reconnect throttle:
  # at 1000 a Sentinel that just switched masters can flag the new one down
  # before its first reconnect (and fail over a second time).
  write_config $dir/sentinel.conf [list port $port bind 127.0.0.1 dir $dir logfile {""} \
                                     sentinel "monitor mymaster 127.0.0.1 $master_port $quorum" \
                                     sentinel "down-after-milliseconds mymaster 2000" \
                                     sentinel "failover-timeout mymaster 10000" \
                                     sentinel "parallel-syncs mymaster 1"]
  set pid [spawn_server $::sentinel_bin [list $dir/sentinel.conf] $dir]
  wait_for_condition 200 20 {[ping_server 127.0.0.1 $port]} {
    fail "Sentinel did not start: [read_file $dir/stdout]"
  }
  set client [::redis::connect 127.0.0.1 $port -timeout $::cfg(reply_timeout)]
  return [dict create port $port pid $pid dir $dir client $client]
}

proc sentinel_stop {s} {
  catch {[dict get $s client] close}
  catch {exec kill -TERM [dict get $s pid]}
  if {[wait_server_exit [dict get $s dir] 5000] eq ""} {
    catch {exec kill -KILL [dict get $s pid]}
    wait_server_exit [dict get $s dir] 2000
  }
  set log [read_file [dict get $s dir]/stdout]
  if {[string first "crashed by signal" $log] >= 0} { fail "Sentinel crashed:\n$log" }
  if {$::failed_tests == 0} { file delete -force [dict get $s dir] }
}

# with_sentinels count master_port quorum body: the body runs in the
# caller's frame; the Sentinels are gone afterwards even if it failed.
proc with_sentinels {count master_port quorum body} {
  set saved $::sentinels
  set ::sentinels {}
  set rc [catch {
    for {set i 0} {$i < $count} {incr i} { lappend ::sentinels [sentinel_spawn $master_port $quorum] }
    uplevel 1 $body
  } res opts]
  foreach s $::sentinels { catch {sentinel_stop $s} }
  set ::sentinels $saved
  return -options $opts $res
}

proc sen {i args} { [dict get [lindex $::sentinels $i] client] {*}$args }
proc sentinel_port {i} { return [dict get [lindex $::sentinels $i] port] }
proc sentinel_log {i} { return [read_file [dict get [lindex $::sentinels $i] dir]/stdout] }

# Every Sentinel's log, one after the other.
proc sentinel_logs {} {
  set all ""
  for {set i 0} {$i < [llength $::sentinels]} {incr i} { append all [sentinel_log $i] }
  return $all
}

# The value of field in a Sentinel reply of alternating names and values.
proc sentinel_field {pairs field} {
  foreach {k v} $pairs { if {$k eq $field} { return $v } }
  return ""
}

# Waits until every Sentinel knows the replicas and the other Sentinels,
# and sees each replica's link to the master up.
proc wait_sentinels_ready {replicas} {
  set others [expr {[llength $::sentinels] - 1}]
  for {set i 0} {$i < [llength $::sentinels]} {incr i} {
    wait_for_condition 300 100 {
      [sentinel_field [sen $i sentinel master mymaster] num-slaves] == $replicas &&
      [sentinel_field [sen $i sentinel master mymaster] num-other-sentinels] == $others &&
      [sentinels_see_links_up $i $replicas]
    } {
      fail "Sentinel $i never saw the deployment: [sen $i sentinel master mymaster]"
    }
  }
}

proc sentinels_see_links_up {i replicas} {
  set up 0
  foreach rep [sen $i sentinel replicas mymaster] {
    if {[sentinel_field $rep master-link-status] eq "ok"} { incr up }
  }
  return [expr {$up == $replicas}]
}

# Waits until every Sentinel names the server at port as the master.
proc wait_sentinels_master {port} {
  for {set i 0} {$i < [llength $::sentinels]} {incr i} {
    wait_for_condition 300 100 {[lindex [sen $i sentinel get-master-addr-by-name mymaster] 1] == $port} {
      fail "Sentinel $i still names [sen $i sentinel get-master-addr-by-name mymaster]"
    }
  }
}

# Waits until no Sentinel has a failover of mymaster in progress.
proc wait_sentinels_settled {} {
  for {set i 0} {$i < [llength $::sentinels]} {incr i} {
    wait_for_condition 300 100 {[sentinel_field [sen $i sentinel master mymaster] flags] eq "master"} {
      fail "Sentinel $i is still failing over: [sen $i sentinel master mymaster]"
    }
  }
}
