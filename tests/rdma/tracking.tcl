# Client-side caching and keyspace notifications with an rdma client on one
# side: a redis-cli --rdma tracking client (RESP3 pushes, and RESP2 with
# REDIRECT to a TCP subscriber) is invalidated by TCP writes; a redis-cli
# --rdma subscriber is the REDIRECT target of a TCP tracking client and
# receives keyspace events. Runs only in the rxe VM (needs:rdma).

source [file join $::repo_root tests rdma helpers rdma.tcl]
set ::rdma_port [find_free_port]

# A background redis-cli --rdma reading commands from a pipe we write to;
# returns its channel (read its output with read_until).
proc rdma_cli_pipe {args} {
  set ch [open [list | timeout -k 5 $::rdma_cmd_timeout $::rdma_cli --rdma \
                  -h $::rdma_addr -p $::rdma_port {*}$args 2>@1] r+]
  fconfigure $ch -blocking 0 -buffering line
  return $ch
}

# Reads lines from a background client until one equals `last` (or 60 s
# passed); returns the lines, `last` included.
proc read_until {ch last} {
  set lines {}
  set deadline [expr {[clock milliseconds] + 60000}]
  while {[clock milliseconds] < $deadline} {
    if {[gets $ch line] >= 0} {
      lappend lines $line
      if {$line eq $last} break
    } elseif {[eof $ch]} {
      break
    } else {
      after 20
    }
  }
  return $lines
}

# The id of the one client connected over rdma.
proc rdma_client_id {} {
  foreach l [split [r client list] "\n"] {
    if {[string match "* transport=rdma*" $l]} { return [lindex [split [lindex $l 0] =] 1] }
  }
  return ""
}

start_server [list tags {needs:rdma external:skip} \
                overrides [rdma_overrides $::rdma_port {protected-mode no}]] {
  test {RDMA tracking: a RESP3 redis-cli --rdma client gets invalidation pushes} {
    r flushall
    set ch [rdma_cli_pipe -3 --show-pushes yes]
    puts $ch "CLIENT TRACKING on"
    puts $ch "GET rdma:t1"
    wait_for_condition 600 50 {[info_field [r info stats] tracking_total_keys] == 1} {
      fail "the rdma client's read was never tracked"
    }
    r set rdma:t1 changed
    puts $ch "PING"
    set lines [read_until $ch PONG]
    close $ch
    set lines
  } {OK {} invalidate rdma:t1 PONG}

  test {RDMA tracking: RESP2 over rdma with REDIRECT to a TCP subscriber} {
    r flushall
    set sub [redis_deferring_client]
    $sub client id
    set sid [$sub read]
    $sub subscribe __redis__:invalidate
    $sub read
    set ch [rdma_cli_pipe]
    puts $ch "CLIENT TRACKING on REDIRECT $sid"
    puts $ch "MGET rdma:t2 rdma:t3"
    wait_for_condition 600 50 {[info_field [r info stats] tracking_total_keys] == 2} {
      fail "the rdma client's read was never tracked"
    }
    r set rdma:t3 x
    set msg [$sub read]
    r flushall
    set null [$sub read]
    puts $ch "PING"
    read_until $ch PONG
    close $ch
    $sub close
    list $msg $null
  } {{message __redis__:invalidate rdma:t3} {message __redis__:invalidate {}}}

  test {RDMA tracking: a redis-cli --rdma subscriber is the REDIRECT target} {
    r flushall
    set ch [rdma_cli_pipe SUBSCRIBE __redis__:invalidate]
    wait_for_condition 600 50 {[lindex [r pubsub numsub __redis__:invalidate] 1] == 1} {
      fail "the rdma subscriber never subscribed"
    }
    set sid [rdma_client_id]
    set c [redis_client]
    $c client tracking on redirect $sid
    $c get rdma:t4
    r set rdma:t4 v
    set lines [read_until $ch rdma:t4]
    $c close
    close $ch
    set lines
  } {subscribe __redis__:invalidate 1 message __redis__:invalidate rdma:t4}

  test {RDMA keyspace notifications: a redis-cli --rdma subscriber gets keyevents} {
    set ch [rdma_cli_pipe PSUBSCRIBE __keyevent@*]
    wait_for_condition 600 50 {[info_field [r info stats] pubsub_patterns] == 1} {
      fail "the rdma subscriber never subscribed"
    }
    r config set notify-keyspace-events Elg
    r rpush rdma:list a
    r del rdma:list
    set lines [read_until $ch rdma:list]
    lappend lines {*}[read_until $ch rdma:list]
    r config set notify-keyspace-events {}
    close $ch
    set lines
  } {psubscribe __keyevent@* 1 pmessage __keyevent@* __keyevent@0__:rpush rdma:list pmessage __keyevent@* __keyevent@0__:del rdma:list}
}
