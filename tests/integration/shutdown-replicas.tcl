# SHUTDOWN and SIGTERM on a master with replicas: it first waits, up to
# shutdown-timeout seconds, until every replica has acknowledged the whole
# stream (writes held, reads served, INFO shutdown_in_milliseconds), then
# saves and exits; NOW skips the wait, ABORT cancels it, and
# shutdown-on-sigterm / -sigint give the signals their flags.

source [file join $::support_dir replication.tcl]

proc master_log {} { return [read_file [srv -1 stdout]] }

# A master (level -1) and its replica (level 0), linked and caught up.
proc with_pair {master_overrides code} {
  start_server [list tags {repl shutdown external:skip} overrides $master_overrides] {
    start_server {} {
      r replicaof 127.0.0.1 [srv -1 port]
      wait_caught_up -1 0
      uplevel 1 $code
    }
  }
}

with_pair {shutdown-timeout 60} {
  test {SHUTDOWN waits for a lagging replica: writes held, reads served, then it exits} {
    exec kill -STOP [srv 0 pid]
    r -1 set last 1
    set caller [redis_deferring_client -1]
    $caller shutdown
    wait_for_condition 100 20 {[info_field [r -1 info server] shutdown_in_milliseconds] > 0} {
      exec kill -CONT [srv 0 pid]
      fail "no shutdown under way: [r -1 info server]"
    }
    assert_equal 1 [info_field [r -1 info clients] blocked_clients]
    # Reads go on; a write waits (it would never reach the replica).
    assert_equal 1 [r -1 get last]
    set writer [redis_deferring_client -1]
    $writer set during 1
    after 300
    exec kill -CONT [srv 0 pid]
    set status [wait_server_exit [srv -1 dir] 10000]
    catch {$writer close}
    catch {$caller close}
    list $status [r get last] [string match "*1 of 1 replicas are in sync when shutting down*" \
                                 [master_log]] [r exists during]
  } {0 1 1 0}
}

with_pair {shutdown-timeout 1} {
  test {shutdown-timeout: a replica that stays silent is logged as lagging, then the master exits} {
    exec kill -STOP [srv 0 pid]
    r -1 set unseen 1
    exec kill -TERM [srv -1 pid]
    set status [wait_server_exit [srv -1 dir] 10000]
    exec kill -CONT [srv 0 pid]
    set log [master_log]
    list $status [string match "*Lagging replica 127.0.0.1:[srv 0 port] reported offset*" $log] \
      [string match "*0 of 1 replicas are in sync when shutting down*" $log]
  } {0 1 1}
}

with_pair {shutdown-timeout 60} {
  test {SHUTDOWN NOW does not wait for the replicas} {
    exec kill -STOP [srv 0 pid]
    r -1 set unseen 1
    set t0 [clock milliseconds]
    catch {r -1 shutdown now}
    set status [wait_server_exit [srv -1 dir] 5000]
    exec kill -CONT [srv 0 pid]
    list $status [expr {[clock milliseconds] - $t0 < 3000}] \
      [string match "*Waiting for replicas*" [master_log]]
  } {0 1 0}
}

with_pair {shutdown-timeout 60} {
  test {SHUTDOWN ABORT: the callers get an error, writes go on, the master stays} {
    assert_error {*No shutdown in progress*} {r -1 shutdown abort}
    exec kill -STOP [srv 0 pid]
    r -1 set k 1
    set caller [redis_deferring_client -1]
    $caller shutdown
    wait_for_condition 100 20 {[info_field [r -1 info server] shutdown_in_milliseconds] ne ""} {
      fail "no shutdown under way"
    }
    set writer [redis_deferring_client -1]
    $writer incr k
    assert_equal OK [r -1 shutdown abort]
    catch {$caller read} err
    set incr [$writer read]
    $caller close
    $writer close
    exec kill -CONT [srv 0 pid]
    wait_caught_up -1 0
    list $err $incr [info_field [r -1 info server] shutdown_in_milliseconds] \
      [string match "*Shutdown manually aborted*" [master_log]] [r get k]
  } {{ERR Errors trying to SHUTDOWN. Check logs.} 2 {} 1 2}

  test {connected_clients leaves the replica out} {
    set c [redis_client -1]
    set n [info_field [r -1 info clients] connected_clients]
    $c close
    set n
  } {2}
}

start_server {tags {shutdown external:skip}} {
  test {shutdown-on-sigterm / -sigint: values, canonical order, errors} {
    assert_equal [r config get shutdown-on-sigterm] {shutdown-on-sigterm default}
    r config set shutdown-on-sigterm "force now nosave"
    assert_equal [r config get shutdown-on-sigterm] {shutdown-on-sigterm {nosave now force}}
    assert_error {*SAVE and NOSAVE can't be used simultaneously*} \
      {r config set shutdown-on-sigint "save nosave"}
    assert_error {*must be one of the following: default, save, nosave, now, force*} \
      {r config set shutdown-on-sigint later}
    r config set shutdown-on-sigterm default
    r config get shutdown-timeout
  } {shutdown-timeout 10}
}

start_server {tags {shutdown external:skip} overrides {save {900 1} shutdown-on-sigterm nosave}} {
  test {shutdown-on-sigterm nosave: SIGTERM exits without the final save} {
    set dir [lindex [r config get dir] 1]
    r set k v
    exec kill -TERM [srv pid]
    list [wait_server_exit [srv dir] 5000] [file exists $dir/dump.rdb]
  } {0 0}
}
