# io-threads: the reads and writes of clients spread over a pool of threads
# while commands keep running on the main thread. The threads are used when
# many clients have work in the same loop iteration; these tests make that
# happen by holding the main thread in DEBUG SLEEP while the clients send.
# (The suite's threaded pass, ./runtest --io-threads 4, runs every other file
# with the threads serving every client.)

proc threaded_counts {} {
  set info [r info stats]
  list [info_field $info io_threaded_reads_processed] [info_field $info io_threaded_writes_processed]
}

# Holds the main thread for `secs` while `body` runs (the clients' bytes pile
# up in their sockets and are all found in one iteration); returns once the
# sleep has ended.
proc while_server_sleeps {secs body} {
  set sleeper [redis_deferring_client]
  $sleeper debug sleep $secs
  after 20
  uplevel 1 $body
  assert_equal OK [$sleeper read]
  $sleeper close
}

# CPU time (user + system, in clock ticks) of every thread of a process.
proc process_ticks {pid} {
  set f [split [read_file /proc/$pid/stat] " "]
  # Fields 14 and 15 (utime, stime), counted from 1; the command name has
  # no space in it here.
  expr {[lindex $f 13] + [lindex $f 14]}
}

start_server {tags {io-threads external:skip} overrides {io-threads 4 io-threads-do-reads yes enable-debug-command yes}} {
  test {io-threads 4: the threads run and are logged; CONFIG SET cannot change them} {
    assert_match "*I/O threads: 4 (the main thread included), for writes and reads*" \
      [read_file [srv stdout]]
    assert_equal {io-threads 4} [r config get io-threads]
    assert_equal {io-threads-do-reads yes} [r config get io-threads-do-reads]
    assert_error {*can't set immutable config*} {r config set io-threads 2}
    assert_error {*can't set immutable config*} {r config set io-threads-do-reads no}
    # The main thread and three I/O threads at least.
    assert {[llength [glob -directory /proc/[srv pid]/task *]] >= 4}
  }

  test {Clients arriving together are read and written by the threads, each in order} {
    set clients {}
    for {set i 0} {$i < 16} {incr i} {
      r del k$i
      lappend clients [redis_deferring_client]
    }
    lassign [threaded_counts] reads0 writes0
    # Two rounds: the first one's many replies engage the threads, the
    # second is then read by them as well.
    foreach round {1 2} {
      while_server_sleeps 0.3 {
        set i 0
        foreach c $clients {
          set batch ""
          for {set j 0} {$j < 100} {incr j} { append batch [::redis::encode [list incr k$i]] }
          $c write $batch
          incr i
        }
      }
      set i 0
      foreach c $clients {
        for {set j 1} {$j <= 100} {incr j} {
          assert_equal [expr {($round - 1) * 100 + $j}] [$c read]
        }
        incr i
      }
    }
    lassign [threaded_counts] reads1 writes1
    foreach c $clients { $c close }
    list [expr {$reads1 > $reads0}] [expr {$writes1 > $writes0}]
  } {1 1}

  test {Clients that leave while the threads write their large replies disturb no one} {
    r set big [string repeat x 1000000]
    set good {}
    set leavers {}
    for {set i 0} {$i < 8} {incr i} { lappend good [redis_deferring_client] }
    for {set i 0} {$i < 8} {incr i} { lappend leavers [redis_deferring_client] }
    while_server_sleeps 0.3 {
      foreach c $leavers {
        $c write [string repeat [::redis::encode {get big}] 5]
      }
      foreach c $good { $c write [::redis::encode {incr survivors}] }
      # Gone before the main thread wakes: their replies meet closed sockets.
      foreach c $leavers { $c close }
    }
    set counts {}
    foreach c $good {
      lappend counts [$c read]
      $c close
    }
    wait_for_condition 500 20 {[info_field [r info clients] connected_clients] == 1} {
      fail "the leavers were not freed"
    }
    list [lsort -integer $counts] [r ping]
  } {{1 2 3 4 5 6 7 8} PONG}

  test {used_memory counts what the threads free: large replies leave no drift} {
    r set big [string repeat y 200000]
    set clients {}
    for {set i 0} {$i < 16} {incr i} { lappend clients [redis_deferring_client] }
    set before [info_field [r info memory] used_memory]
    # 16 x 40 replies of 200 KB (128 MB in all), written and freed by the
    # threads; used_memory must come back down once they are sent.
    foreach round {1 2} {
      while_server_sleeps 0.2 {
        foreach c $clients { $c write [string repeat [::redis::encode {get big}] 20] }
      }
      foreach c $clients {
        for {set j 0} {$j < 20} {incr j} { $c read }
      }
    }
    foreach c $clients { $c close }
    wait_for_condition 500 20 {[info_field [r info clients] connected_clients] == 1} {
      fail "the clients were not freed"
    }
    set after [info_field [r info memory] used_memory]
    assert_lessthan [expr {$after - $before}] 4000000
  }

  test {CLIENT KILL of clients the threads serve, sent in the same iteration} {
    set victims {}
    set ids {}
    for {set i 0} {$i < 10} {incr i} {
      set c [redis_deferring_client]
      $c client id
      lappend ids [$c read]
      lappend victims $c
    }
    set killer [redis_deferring_client]
    while_server_sleeps 0.3 {
      foreach c $victims { $c write [::redis::encode {incr victim-writes}] }
      foreach id $ids { $killer write [::redis::encode [list client kill id $id]] }
    }
    set killed 0
    foreach id $ids { incr killed [$killer read] }
    foreach c $victims { $c close }
    $killer close
    list $killed [r ping]
  } {10 PONG}

  test {An idle server's threads use no CPU once the load is gone} {
    # Load that engages the threads, then quiet.
    set clients {}
    for {set i 0} {$i < 16} {incr i} { lappend clients [redis_deferring_client] }
    while_server_sleeps 0.2 {
      foreach c $clients { $c write [::redis::encode {ping}] }
    }
    foreach c $clients {
      assert_equal PONG [$c read]
      $c close
    }
    after 300
    set t0 [process_ticks [srv pid]]
    after 1000
    set used [expr {[process_ticks [srv pid]] - $t0}]
    # A spinning thread would use ~100 ticks a second; the cron uses ~0.
    assert_lessthan $used 10
  }
}

# TLS clients go through the threads too: SSL_read and SSL_write run there,
# the loop's events and the TLS pending list are caught up after each step.
source [file join $::support_dir tls.tcl]
set ::iot_tls_port [find_free_port]
start_server [list tags {io-threads external:skip} \
                overrides [tls_overrides $::iot_tls_port {io-threads 4 io-threads-do-reads yes}]] {
  test {TLS clients under load are served by the threads, every request answered} {
    set d [tls_certs]
    lassign [threaded_counts] reads0 writes0
    # 32 TLS connections with pipelines of 8: many clients with work in
    # each iteration, big enough replies (-d 1000) to span TLS records.
    if {[catch {exec /usr/bin/redis-benchmark -h 127.0.0.1 -p $::iot_tls_port --tls \
                  --cacert $d/ca.crt --cert $d/client.crt --key $d/client.key \
                  -c 32 -P 8 -n 40000 -d 1000 -t set,get -r 1000 -q 2>@1} out]} {
      fail "redis-benchmark over TLS failed: $out"
    }
    assert_match "*SET: *requests per second*" $out
    assert_match "*GET: *requests per second*" $out
    lassign [threaded_counts] reads1 writes1
    assert_morethan [info_field [r info stats] total_commands_processed] 79999
    list [expr {$reads1 > $reads0}] [expr {$writes1 > $writes0}] \
      [tls_cli $::iot_tls_port ping]
  } {1 1 PONG}
}
