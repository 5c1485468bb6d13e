# redis-cli's special modes over RDMA (redis-cli --rdma): each mode once
# (--rdb and --replica too: SYNC served over the rdma connection),
# checked as tests/integration/redis-cli-modes.tcl checks it over TCP. Runs
# only in the rxe VM (needs:rdma).

source [file join $::repo_root tests rdma helpers rdma.tcl]
set ::rdma_port [find_free_port]

# redis-cli --rdma on a pseudo-terminal, typing `input` (pty_run.py).
proc rdma_cli_pty {input args} {
  set pty [file join $::support_dir pty_run.py]
  set out [exec /usr/bin/python3 $pty $input $::rdma_cli --rdma -h $::rdma_addr \
               -p $::rdma_port {*}$args]
  string map [list "\r\n" "\n"] $out
}

start_server [list tags {needs:rdma external:skip} \
                overrides [rdma_overrides $::rdma_port {protected-mode no enable-debug-command yes}]] {
  test {RDMA cli --pipe: 20,000 commands streamed, errors reported} {
    r flushall
    set path [scratch_file pipe-rdma]
    set fd [open $path w]
    fconfigure $fd -translation binary
    for {set i 0} {$i < 20000} {incr i} {
      puts -nonewline $fd "*3\r\n\$3\r\nSET\r\n\$[string length p$i]\r\np$i\r\n\$[string length $i]\r\n$i\r\n"
    }
    puts -nonewline $fd "INCR p1 x\r\n"
    close $fd
    lassign [run_status $::rdma_cli --rdma -h $::rdma_addr -p $::rdma_port --pipe < $path] \
        status out
    file delete $path
    assert_equal $status 1
    assert_match "*ERR wrong number of arguments for 'incr' command*" $out
    assert_match "All data transferred. Waiting for the last reply...\n*" $out
    assert_match "*\nLast reply received from server.\nerrors: 1, replies: 20001*" $out
    list [r dbsize] [r get p19999]
  } {20000 19999}

  test {RDMA cli --scan and --pattern} {
    r flushall
    foreach k {rk:1 rk:2 other} { r set $k v }
    list [lsort [split [rdma_cli --scan] "\n"]] [lsort [split [rdma_cli --scan --pattern rk:*] "\n"]]
  } {{other rk:1 rk:2} {rk:1 rk:2}}

  test {RDMA cli --bigkeys and --memkeys summaries} {
    r flushall
    r rpush rl a b c
    r set rs hello
    set big [rdma_cli --bigkeys]
    assert_match "*Sampled 2 keys in the keyspace!*" $big
    assert_match "*Biggest   list found '\"rl\"' has 3 items*" $big
    assert_match "*Biggest string found '\"rs\"' has 5 bytes*" $big
    set mem [rdma_cli --memkeys]
    set usage [r memory usage rs]
    string match "*Biggest string found '\"rs\"' has $usage bytes*" $mem
  } {1}

  test {RDMA cli --hotkeys with an LFU policy} {
    r flushall
    r config set maxmemory-policy allkeys-lfu
    r set warm v
    for {set i 0} {$i < 10} {incr i} { r get warm }
    set freq [r object freq warm]
    set out [rdma_cli --hotkeys]
    r config set maxmemory-policy noeviction
    string match "*hot key found with counter: $freq\tkeyname: \"warm\"*" $out
  } {1}

  test {RDMA cli --json and --quoted-json} {
    r hset rh f v
    r set rq "a\x01\""
    list [rdma_cli --json hgetall rh] [rdma_cli --quoted-json get rq]
  } [list "{\"f\":\"v\"}" "\"a\\\\x01\\\\\"\""]

  test {RDMA cli --latency times RDMA round trips (busy polling too)} {
    set out [rdma_cli --latency -i 0.5]
    assert_match {[0-9]* [0-9]* [0-9]*.[0-9][0-9] [0-9]*} $out
    set polled [rdma_cli --busy-poll-us 100 --latency --csv -i 0.5]
    assert_equal [llength [split $polled ,]] 4
    string is integer -strict [lindex $out 3]
  } {1}

  test {RDMA cli --latency-history and --latency-dist on a terminal} {
    # Setting up an RDMA connection under emulation takes a while: the
    # pauses leave it a few seconds.
    set hist [rdma_cli_pty {\p\p\p\p\p\p\p\p\x03} --latency-history -i 0.5]
    assert_match "*samples) -- * seconds range\n*" $hist
    set dist [rdma_cli_pty {\p\p\p\p\p\p\p\p\x03} --latency-dist -i 0.3]
    string match "*. - * #          .01 .125 .25 .5 milliseconds*" $dist
  } {1}

  test {RDMA cli --stat lines} {
    set out [rdma_cli_pty {\p\p\p\p\p\p\p\p\x03} --stat -i 0.3]
    assert_match "------- data ------ --------------------- load -------------------- - child -\n*" $out
    regexp {\n[0-9]+ +[0-9.]+[BKMG] +[0-9]+ +0 +[0-9]+ \(\+0\)} $out
  } {1}

  test {RDMA cli --lru-test fills the keyspace and reports hits} {
    r flushall
    set out [rdma_cli_pty {\p\p\p\p\p\p\p\p\x03} --lru-test 500]
    assert_match "*Gets/sec | Hits: * | Misses: *" $out
    assert_morethan [r dbsize] 0
  }

  test {RDMA cli --eval: keys, then a lone comma, then arguments} {
    set path [scratch_file eval-rdma.lua]
    set fd [open $path w]
    puts -nonewline $fd "redis.call('set', KEYS\[1\], ARGV\[1\]); return {KEYS\[1\], ARGV\[1\], #KEYS, #ARGV}"
    close $fd
    set out [rdma_cli --eval $path rk:eval k2 , av a2]
    file delete $path
    list [split $out "\n"] [r get rk:eval]
  } {{rk:eval av 2 2} av}

  test {RDMA cli --askpass} {
    r config set requirepass rdmapw
    lassign [run_status $::rdma_cli --rdma -h $::rdma_addr -p $::rdma_port --askpass \
                 ping << "rdmapw\n"] status out
    r config set requirepass ""
    list $status $out
  } {0 PONG}

  test {RDMA cli --rdb: the RDB of a full SYNC over rdma loads back with the same data} {
    r flushall
    r config set repl-diskless-sync-delay 0
    # Larger than the connection's receive buffers, so the transfer takes
    # many RDMA writes; the server forks with the rdma client attached.
    set val [string repeat "rdma-rdb-" 200]
    for {set i 0} {$i < 3000} {incr i} { r set rdb:$i $val$i }
    r rpush rdb:list a b c
    set digest [r debug digest]
    set path [scratch_file cli.rdb]
    lassign [run_status -nostderr $::rdma_cli --rdma -h $::rdma_addr -p $::rdma_port \
                 --rdb $path] status out
    set dir [scratch_file rdbload]
    file mkdir $dir
    file copy -force $path [file join $dir dump.rdb]
    set loaded {}
    # No unix socket: the VM's shared folder cannot hold one.
    start_server [list overrides [list dir $dir dbfilename dump.rdb enable-debug-command yes \
                                      unixsocket {}]] {
      set loaded [list [r debug digest] [r dbsize] [r get rdb:2999]]
    }
    file delete -force $dir $path
    list $status [expr {$loaded eq [list $digest 3001 ${val}2999]}]
  } {0 1}

  test {RDMA cli --replica prints the writes the server streams over rdma} {
    set outf [scratch_file replica.out]
    set errf [scratch_file replica.err]
    set pid [exec $::rdma_cli --rdma -h $::rdma_addr -p $::rdma_port --replica \
                 > $outf 2> $errf < /dev/null &]
    wait_for_condition 100 100 {
      [file exists $errf] && [string match "*sending REPLCONF ACK 0\n" [read_file $errf]]
    } { fail "no ACK from the rdma replica: [read_file $errf]" }
    r set rdma:first 1
    r set rdma:second 2
    wait_for_condition 100 100 {
      [string match "*\"set\",\"rdma:second\",\"2\"\n" [read_file $outf]]
    } { fail "the rdma replica printed: [read_file $outf]" }
    set listed [string match "*connected_slaves:1*" [r info replication]]
    exec kill $pid
    file delete $outf $errf
    set listed
  } {1}

  test {RDMA cli interactive: Ctrl-C ends SUBSCRIBE and the prompt works again} {
    set ::env(REDISCLI_HISTFILE) /dev/null
    set out [rdma_cli_pty {\p\p\p\psubscribe rch\n\p\p\p\p\x03\p\p\p\pping\n\p\p\p\x04}]
    unset ::env(REDISCLI_HISTFILE)
    list [string match "*Reading messages...*" $out] [string match "*PONG*" $out]
  } {1 1}
}
