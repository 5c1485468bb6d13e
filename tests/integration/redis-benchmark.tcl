# Drives our redis-benchmark (src/redis-benchmark) against the test server:
# the requests it reports are really executed, and its output layouts (-q,
# --csv) are the ones redis-benchmark 7.0 prints.

set ::bench_bin [file join $::repo_root src redis-benchmark]

# Runs the benchmark; returns its stdout (progress lines included).
proc bench {args} {
  return [exec -ignorestderr $::bench_bin -h [srv host] -p [srv port] {*}$args < /dev/null]
}

# Runs the benchmark under tests/support/count_sleeps.py; returns how many
# times it slept (voluntary context switches).
proc bench_sleeps {args} {
  set out [exec -ignorestderr python3 [file join $::support_dir count_sleeps.py] \
             $::bench_bin -h [srv host] -p [srv port] {*}$args < /dev/null]
  if {![regexp {sleeps: (\d+)} $out -> n]} { error "no count in: $out" }
  return $n
}

start_server {tags {benchmark}} {
  test {redis-benchmark: every INCR it reports reaches the server} {
    r del counter:__rand_int__
    set out [bench -q -t incr -n 2003 -c 7 -P 10]
    assert_match "*INCR: * requests per second, p50=* msec*" $out
    r get counter:__rand_int__
  } {2003}

  test {redis-benchmark: -r spreads SETs over random keys of 12 digits} {
    r flushdb
    bench -q -t set -n 2000 -r 1000 -d 5
    set keys [r keys key:*]
    assert_morethan [llength $keys] 100
    foreach k [lrange $keys 0 20] {
      assert_match {key:[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]} $k
      assert_equal [string length [r get $k]] 5
    }
  }

  test {redis-benchmark: --csv prints the 7.0 header and one row per test} {
    set out [bench --csv -t set,get -n 1000]
    set lines [split [string trim $out] "\n"]
    assert_equal [lindex $lines 0] \
      {"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"}
    assert_match {"SET","*","*","*","*","*","*","*"} [lindex $lines 1]
    assert_match {"GET","*","*","*","*","*","*","*"} [lindex $lines 2]
    assert_equal [llength $lines] 3
  }

  test {redis-benchmark: the full report counts the requests and clients} {
    set out [bench -t ping_mbulk -n 1500 -c 3]
    assert_match "*====== PING_MBULK ======*" $out
    assert_match "*1500 requests completed in*" $out
    assert_match "*3 parallel clients*" $out
    assert_match "*Summary:*throughput summary:*requests per second*" $out
  }

  test {redis-benchmark: --busy-poll-us keeps the client awake between replies} {
    # One client, one request at a time: sleeping, the benchmark blocks for
    # most replies (about 1,200 of 2,000 on a quiet machine: some replies
    # are back before it gets to epoll_wait); busy polling, it never has to
    # be woken. A run of one request counts what start-up and exit cost
    # (about 90 here).
    r del counter:__rand_int__
    set base [bench_sleeps -q -t incr -n 1 -c 1 --busy-poll-us 1000000]
    set sleeping [bench_sleeps -q -t incr -n 2000 -c 1]
    set spinning [bench_sleeps -q -t incr -n 2000 -c 1 --busy-poll-us 1000000]
    assert_equal [r get counter:__rand_int__] 4001
    assert_morethan [expr {$sleeping - $base}] 400
    assert_lessthan [expr {$spinning - $base}] 100
  }

  test {redis-benchmark: --busy-poll-us takes 0 to 1000000 microseconds} {
    foreach v {-1 1000001 x} {
      assert_equal 1 [catch {exec $::bench_bin -p [srv port] --busy-poll-us $v -n 1 2>@1} out]
      assert_match "*Invalid value \"$v\" for option --busy-poll-us*" $out
    }
  }
}

start_server {tags {benchmark}} {
  test {redis-benchmark: with no -t every test runs, data-structure ones included, in order} {
    r flushdb
    set out [bench -q -n 300 -c 3]
    set names {}
    foreach line [split $out "\n"] {
      if {[regexp {^([A-Z_]+[^:]*): [0-9.]+ requests per second} $line -> name]} {
        lappend names $name
      }
    }
    assert_equal $names {PING_INLINE PING_MBULK SET GET INCR LPUSH RPUSH LPOP RPOP SADD HSET SPOP ZADD ZPOPMIN {LPUSH (needed to benchmark LRANGE)} {LRANGE_100 (first 100 elements)} {LRANGE_300 (first 300 elements)} {LRANGE_500 (first 500 elements)} {LRANGE_600 (first 600 elements)} {MSET (10 keys)}}
    # 300 LPUSH + 300 RPUSH - 300 LPOP - 300 RPOP + 300 LPUSH for LRANGE.
    assert_equal [r llen mylist] 300
    assert_equal [r type myhash] hash
    # SADD and SPOP of one member each, 300 times: the set ends empty.
    assert_equal [r exists myset myzset] 0
  }
}

start_server {tags {benchmark external:skip} overrides {requirepass secret}} {
  test {redis-benchmark: -a authenticates, a wrong password fails with exit 1} {
    r auth secret
    r del counter:__rand_int__
    bench -a secret -q -t incr -n 500
    assert_equal [r get counter:__rand_int__] 500
    assert_error {*} {bench -a wrong -q -t incr -n 10}
  }
}
