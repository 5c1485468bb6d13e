# Data over rdma, byte for byte: binary values from 1 byte to 4x the RX
# buffer (rdma-rx-size 64 KiB) and an 8 MiB value, written over one transport
# and read over the other, plus 10,000 pipelined commands. Values travel
# through redis-cli -x (stdin as the last argument) and come back through
# redis-cli --raw into a file, which is exact for binary data (--raw adds one
# newline). Then pipelined commands and a 1 MiB value with busy-poll-us set,
# and busy polling's direct CQ polls counted against completion events.
# Runs only in the rxe VM (needs:rdma).

source [file join $::repo_root tests rdma helpers rdma.tcl]
set ::rdma_port [find_free_port]
set ::rx_size 65536

# redis-cli over tcp (to="tcp") or rdma with the server's address options.
proc cli_target {to} {
  if {$to eq "rdma"} { return [list $::rdma_cli --rdma -h $::rdma_addr -p $::rdma_port] }
  return [list $::rdma_cli -h [srv host] -p [srv port]]
}

# SET key to the contents of `path` through redis-cli -x over `to`.
proc cli_set_file {to key path} {
  lassign [run_status {*}[cli_target $to] -x SET $key < $path] status out
  if {$status != 0 || $out ne "OK"} { error "SET over $to exited $status: $out" }
}

# GET key over `from` through redis-cli --raw into `path`.
proc cli_get_file {from key path} {
  lassign [run_status -nostderr {*}[cli_target $from] --raw GET $key > $path] status out
  if {$status != 0} { error "GET over $from exited $status" }
}

# Asserts that `got` holds exactly the bytes of `want` plus --raw's newline.
proc assert_same_bytes {want got} {
  set w [file size $want]
  assert_equal [file size $got] [expr {$w + 1}] "size of $got"
  set fd [open $got rb]
  seek $fd $w
  set tail [read $fd]
  close $fd
  assert_equal $tail "\n"
  lassign [run_status cmp -n $w $want $got] status out
  assert_equal $status 0 "cmp: $out"
}

proc random_file {path size} {
  exec head -c $size /dev/urandom > $path
}

start_server [list tags {needs:rdma external:skip} \
                overrides [rdma_overrides $::rdma_port \
                             [list protected-mode no rdma-rx-size $::rx_size]]] {
  set src [scratch_file value]
  set out [scratch_file out]

  foreach size [list 1 2 17 1000 [expr {$::rx_size - 1}] $::rx_size [expr {$::rx_size + 1}] \
                  [expr {2 * $::rx_size + 7}] [expr {4 * $::rx_size - 1}] \
                  [expr {4 * $::rx_size}]] {
    test "RDMA data: $size random bytes, written over rdma, read over tcp and rdma" {
      random_file $src $size
      cli_set_file rdma rdma:val:$size $src
      assert_equal [r strlen rdma:val:$size] $size
      cli_get_file tcp rdma:val:$size $out
      assert_same_bytes $src $out
      cli_get_file rdma rdma:val:$size $out
      assert_same_bytes $src $out
    }

    test "RDMA data: $size random bytes, written over tcp, read over rdma" {
      random_file $src $size
      cli_set_file tcp rdma:tcpval:$size $src
      cli_get_file rdma rdma:tcpval:$size $out
      assert_same_bytes $src $out
    }
  }

  test {RDMA data: the Tcl client's view of a binary value set over rdma} {
    # Every byte value, NUL and CR LF included, in a value past the RX size.
    set bytes ""
    for {set i 0} {$i < 256} {incr i} { append bytes [format %c $i] }
    set value [string repeat $bytes [expr {(2 * $::rx_size) / 256 + 3}]]
    write_binary $src $value
    cli_set_file rdma rdma:allbytes $src
    assert_equal [r get rdma:allbytes] $value
  }

  test {RDMA data: an 8 MiB value crosses both ways intact} {
    # 128 times the RX buffer (8 MiB: soft-RoCE moves a few MB/s per
    # direction here, and each of the five transfers below costs its time).
    set size [expr {8 * 1024 * 1024}]
    random_file $src $size
    set credits [rdma_info rdma_credits_sent]
    cli_set_file rdma rdma:huge $src
    assert_equal [r strlen rdma:huge] $size
    # The server's ring (grown to 64 KiB) went around 128 times: it credits
    # at least once per ring's worth consumed (RDMA.md, "Flow control").
    assert_morethan [rdma_info rdma_credits_sent] [expr {$credits + 120}]
    cli_get_file rdma rdma:huge $out
    assert_same_bytes $src $out
    cli_get_file tcp rdma:huge $out
    assert_same_bytes $src $out
    r del rdma:huge
    # And back: written over tcp, read over rdma.
    cli_set_file tcp rdma:huge2 $src
    cli_get_file rdma rdma:huge2 $out
    assert_same_bytes $src $out
    r del rdma:huge2
  }

  test {RDMA data: 10,000 pipelined INCRs each get their reply, in order} {
    r del rdma:pipe
    lassign [peer --pipeline --repeat 10000 -- INCR rdma:pipe] status peer_out
    assert_equal $status 0 [string range $peer_out end-200 end]
    set replies [regexp -all -inline {reply: :(\d+)} $peer_out]
    assert_equal [expr {[llength $replies] / 2}] 10000
    set expect 1
    foreach {_ n} $replies {
      if {$n != $expect} { fail "reply $expect was :$n" }
      incr expect
    }
    r get rdma:pipe
  } {10000}

  test {RDMA data: 3,000 commands from redis-cli's stdin over rdma} {
    r flushdb
    set script [scratch_file cmds]
    set fd [open $script w]
    for {set i 0} {$i < 3000} {incr i} { puts $fd "SET rdma:stdin:$i v$i" }
    puts $fd "DBSIZE"
    close $fd
    lassign [run_status {*}[cli_target rdma] < $script] status cli_out
    file delete $script
    assert_equal $status 0
    set lines [split $cli_out "\n"]
    assert_equal [llength $lines] 3001
    assert_equal [lsort -unique [lrange $lines 0 end-1]] OK
    assert_equal [lindex $lines end] 3000
    assert_equal [r dbsize] 3000
    r mget rdma:stdin:0 rdma:stdin:1234 rdma:stdin:2999
  } {v0 v1234 v2999}

  test {RDMA data: with busy-poll-us set, pipelined commands and a 1 MiB value cross intact} {
    # The busy-polling loop picks completion-channel events up without
    # sleeping; what arrives must be the same as through the sleeping loop.
    r config set busy-poll-us 2000
    r del rdma:bp
    lassign [peer --pipeline --repeat 2000 -- INCR rdma:bp] status peer_out
    assert_equal $status 0 [string range $peer_out end-200 end]
    assert_equal [llength [regexp -all -inline {reply: :\d+} $peer_out]] 2000
    random_file $src 1048576
    cli_set_file rdma rdma:bpval $src
    cli_get_file rdma rdma:bpval $out
    assert_same_bytes $src $out
    r config set busy-poll-us 0
    r get rdma:bp
  } {2000}

  test {RDMA busy polling: completions are reaped from the CQ, not through events} {
    # One request at a time, so the server waits between requests. Sleeping,
    # it hears of each request through one completion event; spinning, it polls
    # the CQ of a connection that just had an event, leaving it unarmed (no
    # interrupt, no channel read) until it sleeps again. 1 s outlasts the gap
    # between requests; serverCron's timer may still re-arm a few times.
    r del rdma:poll
    set ev0 [rdma_info rdma_completion_events]
    set po0 [rdma_info rdma_polled_completions]
    lassign [peer --repeat 300 -- INCR rdma:poll] status peer_out
    assert_equal $status 0 [string range $peer_out end-200 end]
    set ev1 [rdma_info rdma_completion_events]
    set po1 [rdma_info rdma_polled_completions]
    assert_morethan [expr {$ev1 - $ev0}] 299
    # One event per request: the replies' RDMA writes are mostly unsignaled,
    # so their completions wake nobody (signaled, it would be two).
    assert_lessthan [expr {$ev1 - $ev0}] 360
    assert_equal $po1 $po0

    r config set busy-poll-us 1000000
    lassign [peer --repeat 300 -- INCR rdma:poll] status peer_out
    r config set busy-poll-us 0
    assert_equal $status 0 [string range $peer_out end-200 end]
    assert_equal [llength [regexp -all -inline {reply: :\d+} $peer_out]] 300
    set ev2 [rdma_info rdma_completion_events]
    set po2 [rdma_info rdma_polled_completions]
    assert_lessthan [expr {$ev2 - $ev1}] 100
    assert_morethan [expr {$po2 - $po1}] 299
    r get rdma:poll
  } {600}

  test {RDMA: a sleeping server reads its completion channel once per event} {
    # System calls are what a sleeping server's round trip costs on top of
    # the NIC's: each completion event is one read() of the channel, and a
    # second read() that finds nothing (EAGAIN) would be pure overhead. strace
    # counts every read() of the server while one client sends requests one
    # at a time, so the server sleeps, and hears of each through an event.
    # The Tcl client is idle meanwhile: the server reads no other fd.
    set trace [scratch_file strace]
    set st [exec strace -f -c -e trace=read -o $trace -p [srv pid] 2>/dev/null &]
    wait_for_condition 50 100 {[regexp {TracerPid:\s+[1-9]} [read_file /proc/[srv pid]/status]]} {
      fail "strace did not attach to the server"
    }
    set ev0 [rdma_info rdma_completion_events]
    lassign [peer --repeat 200 -- INCR rdma:reads] status peer_out
    set ev1 [rdma_info rdma_completion_events]
    exec kill -INT $st
    # strace -c writes its table when it detaches.
    wait_for_condition 50 100 {[string match "*total*" [read_file $trace]]} {
      fail "strace wrote no summary"
    }
    assert_equal $status 0 [string range $peer_out end-200 end]
    assert_equal [llength [regexp -all -inline {reply: :\d+} $peer_out]] 200
    # strace -c's row: % time, seconds, usecs/call, calls, [errors,] read
    set reads 0
    foreach line [split [read_file $trace] "\n"] {
      if {[lindex $line end] eq "read"} { set reads [lindex $line 3] }
    }
    file delete $trace
    set events [expr {$ev1 - $ev0}]
    assert_morethan $events 199
    # INFO rdma's own request reads the TCP socket once or twice.
    assert_lessthan $reads [expr {$events + 10}]
    r get rdma:reads
  } {200}

  test {RDMA: redis-benchmark --busy-poll-us reaps its replies without sleeping} {
    # The client library's loop polls its connection's CQ as the server's
    # does: one client, one request at a time, and the benchmark is woken
    # for nearly every reply only while it sleeps. A run of one request
    # counts what start-up, the handshake and exit cost.
    set bench [list python3 [file join $::support_dir count_sleeps.py] \
                 [file join $::repo_root src redis-benchmark] --rdma -h $::rdma_addr \
                 -p $::rdma_port -q -t incr -c 1]
    r del counter:__rand_int__
    set runs 0
    proc sleeps_of {bench extra} {
      lassign [run_status -nostderr {*}$bench {*}$extra] status bench_out
      assert_equal $status 0 $bench_out
      assert_match "*INCR: * requests per second*" $bench_out
      regexp {sleeps: (\d+)} $bench_out -> n
      return $n
    }
    set base [sleeps_of $bench {-n 1 --busy-poll-us 1000000}]
    # The other way round, a loaded host can make a sleeping loop find its
    # reply already there now and then (it then does not sleep for it): the
    # most of three sleeping runs is taken. A loop that sleeps per reply
    # passes the first.
    set sleeping 0
    for {set try 0} {$try < 3} {incr try} {
      set sleeping [expr {max($sleeping, [sleeps_of $bench {-n 300}])}]
      incr runs
      if {$sleeping - $base > 150} break
    }
    # On a loaded host the VM's kernel work behind a post (soft-RoCE runs in
    # the kernel) can block now and then even while the loop spins: the
    # best of three spinning runs is taken. A loop that sleeps per reply
    # fails all three by hundreds.
    set spinning {}
    for {set try 0} {$try < 3} {incr try} {
      set n [sleeps_of $bench {-n 300 --busy-poll-us 1000000}]
      incr runs
      if {$spinning eq "" || $n < $spinning} { set spinning $n }
      if {$spinning - $base < 60} break
    }
    assert_equal [r get counter:__rand_int__] [expr {1 + 300 * $runs}]
    assert_morethan [expr {$sleeping - $base}] 150
    assert_lessthan [expr {$spinning - $base}] 60
  }

  file delete $src $out
  wait_rdma_clients 0
}
