# Blocking commands and pub/sub across transports with an rdma client on one
# side: redis-cli --rdma blocked in BLPOP/BZPOPMIN is woken by a TCP write
# and the reverse; a redis-cli --rdma subscriber receives what a TCP client
# publishes and the reverse. Runs only in the rxe VM (needs:rdma).

source [file join $::repo_root tests rdma helpers rdma.tcl]
set ::rdma_port [find_free_port]

# A background redis-cli --rdma running one command; returns its channel.
proc rdma_cli_bg {args} {
  set ch [open [list | timeout -k 5 $::rdma_cmd_timeout $::rdma_cli --rdma \
                  -h $::rdma_addr -p $::rdma_port {*}$args 2>@1] r]
  fconfigure $ch -blocking 0 -buffering line
  return $ch
}

# Reads from a background client until `n` lines arrived (or 60 s passed).
proc read_lines {ch n} {
  set lines {}
  set deadline [expr {[clock milliseconds] + 60000}]
  while {[llength $lines] < $n && [clock milliseconds] < $deadline} {
    if {[gets $ch line] >= 0} {
      lappend lines $line
    } elseif {[eof $ch]} {
      break
    } else {
      after 20
    }
  }
  return $lines
}

proc blocked_count {} {
  info_field [r info clients] blocked_clients
}

start_server [list tags {needs:rdma external:skip} \
                overrides [rdma_overrides $::rdma_port {protected-mode no}]] {
  test {RDMA blocking: redis-cli --rdma BLPOP is woken by a TCP RPUSH} {
    r del rdma:q
    set ch [rdma_cli_bg BLPOP rdma:q 0]
    wait_for_condition 600 50 {[blocked_count] == 1} { fail "the rdma client never blocked" }
    r rpush rdma:q hello
    set lines [read_lines $ch 2]
    close $ch
    list $lines [r exists rdma:q] [blocked_count]
  } {{rdma:q hello} 0 0}

  test {RDMA blocking: a TCP BLPOP is woken by redis-cli --rdma RPUSH} {
    r del rdma:q2
    set rd [redis_deferring_client]
    $rd blpop rdma:q2 0
    wait_for_condition 100 20 {[blocked_count] == 1} { fail "not blocked" }
    assert_equal [rdma_cli RPUSH rdma:q2 from-rdma] 1
    set res [$rd read]
    $rd close
    set res
  } {rdma:q2 from-rdma}

  test {RDMA blocking: BZPOPMIN over rdma, woken by a TCP ZADD; timeout over rdma} {
    r del rdma:z
    set ch [rdma_cli_bg BZPOPMIN rdma:z 0]
    wait_for_condition 600 50 {[blocked_count] == 1} { fail "the rdma client never blocked" }
    r zadd rdma:z 2 b 1 a
    set lines [read_lines $ch 3]
    close $ch
    assert_equal $lines {rdma:z a 1}
    # A timeout answers a null array; redis-cli prints it as an empty line.
    string trim [rdma_cli BLPOP rdma:nosuch 0.2]
  } {}

  test {RDMA pub/sub: a redis-cli --rdma subscriber gets TCP publishes} {
    set ch [rdma_cli_bg SUBSCRIBE rdma:ch]
    wait_for_condition 600 50 {[lindex [r pubsub numsub rdma:ch] 1] == 1} {
      fail "the rdma subscriber never subscribed"
    }
    assert_equal [r publish rdma:ch one] 1
    assert_equal [r publish rdma:ch [string repeat x 100000]] 1
    # subscribe, rdma:ch, 1, then message, rdma:ch, payload per publish.
    set lines [read_lines $ch 9]
    # A subscriber never exits by itself: end it as a user would (a signal).
    catch {exec kill -TERM {*}[pid $ch]}
    catch {close $ch}
    assert_equal [lrange $lines 0 5] {subscribe rdma:ch 1 message rdma:ch one}
    assert_equal [lrange $lines 6 7] {message rdma:ch}
    assert_equal [string length [lindex $lines 8]] 100000
    wait_for_condition 600 50 {[lindex [r pubsub numsub rdma:ch] 1] == 0} {
      fail "the subscription outlived the client"
    }
  }

  test {RDMA pub/sub: redis-cli --rdma PUBLISH reaches a TCP pattern subscriber} {
    set rd [redis_deferring_client]
    $rd psubscribe rdma:*
    assert_equal [$rd read] {psubscribe rdma:* 1}
    assert_equal [rdma_cli PUBLISH rdma:news hi] 1
    set msg [$rd read]
    $rd close
    set msg
  } {pmessage rdma:* rdma:news hi}
}
