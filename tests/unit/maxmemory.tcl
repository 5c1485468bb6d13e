# maxmemory: the limit is enforced. Under noeviction denyoom commands get
# Redis's -OOM error while the others still run; under the seven other
# policies keys are evicted and used_memory stays at the limit, and which
# keys survive follows the policy (a model check in the spirit of Redis's
# LRU-approximation test): recently used keys under LRU, often used ones
# under LFU, keys without a TTL under volatile-*, the longest TTLs under
# volatile-ttl. Eviction does not depend on the transport that wrote the
# data (the Unix-socket case). Every expectation holds on Redis 7.0.15 too.

proc mm_info {field} {
  set v [info_field [r info] $field]
  return $v
}

# Writes keys $prefix$from .. $prefix$to-1 with values of $size bytes
# through client $c, pipelined in batches; `ex` > 0 gives each a TTL of
# ex + index seconds (ttl_step 1) or ex seconds (ttl_step 0). Returns the
# number of error replies (each must be the -OOM error).
proc mm_write {c prefix from to size {ex 0} {ttl_step 0}} {
  set val [string repeat x $size]
  set errors 0
  set batch 100
  for {set i $from} {$i < $to} {incr i $batch} {
    set end [expr {min($i + $batch, $to)}]
    set buf ""
    for {set j $i} {$j < $end} {incr j} {
      if {$ex > 0} {
        set ttl [expr {$ttl_step ? $ex + $j : $ex}]
        append buf [::redis::encode [list set $prefix$j $val ex $ttl]]
      } else {
        append buf [::redis::encode [list set $prefix$j $val]]
      }
    }
    $c write $buf
    for {set j $i} {$j < $end} {incr j} {
      if {[catch {$c read} e]} {
        assert_equal $e {OOM command not allowed when used memory > 'maxmemory'.}
        incr errors
      }
    }
  }
  return $errors
}

# Reads keys $prefix$from .. $prefix$to-1 through client $c in one
# pipeline (an access for LRU/LFU).
proc mm_touch {c prefix from to} {
  set buf ""
  for {set i $from} {$i < $to} {incr i} { append buf [::redis::encode [list get $prefix$i]] }
  $c write $buf
  for {set i $from} {$i < $to} {incr i} { $c read }
}

# The LRU clock counts whole seconds (Redis's may lag the wall clock by one
# cron tick). Waits until the wall clock is early in a second, so that the
# few hundred milliseconds of work that follow, even on a slow machine, fall
# within one tick and the keys they touch are equally recent.
proc mm_early_in_second {} {
  while {[clock milliseconds] % 1000 < 150 || [clock milliseconds] % 1000 > 250} { after 5 }
}

# How many of $prefix$from .. $prefix$to-1 still exist.
proc mm_count {prefix from to} {
  set n 0
  for {set i $from} {$i < $to} {incr i} { incr n [r exists $prefix$i] }
  return $n
}

# Sets maxmemory to what the server uses now (so that any more data means
# evicting) and returns it. `warm` first runs one INFO: the first INFO
# after the writes may leave the connection's reply buffer larger (about
# 100 KB on this server), growth that would otherwise count as data and
# cost about as many more evicted keys (the LRU tests are sensitive to it).
proc mm_limit_here {{warm 0}} {
  if {$warm} { mm_info used_memory }
  set used [mm_info used_memory]
  r config set maxmemory $used
  return $used
}

start_server {tags {maxmemory}} {
  test {maxmemory options: defaults, limits and errors as Redis 7.0} {
    assert_equal [r config get maxmemory-samples] {maxmemory-samples 5}
    assert_equal [r config get maxmemory-eviction-tenacity] {maxmemory-eviction-tenacity 10}
    assert_equal [r config get maxmemory-clients] {maxmemory-clients 0}
    assert_equal [r config get jemalloc-bg-thread] {jemalloc-bg-thread yes}
    foreach o {eviction expire server-del user-del user-flush} {
      assert_equal [r config get lazyfree-lazy-$o] [list lazyfree-lazy-$o no]
    }
    set p "ERR CONFIG SET failed (possibly related to argument"
    assert_error "$p 'maxmemory-samples') - argument must be between 1 and 2147483647 inclusive" \
      {r config set maxmemory-samples 0}
    assert_error "$p 'maxmemory-eviction-tenacity') - argument must be between 0 and 100 inclusive" \
      {r config set maxmemory-eviction-tenacity 101}
    assert_error "$p 'maxmemory-clients') - percentage argument must be less or equal to 100" \
      {r config set maxmemory-clients 101%}
    assert_error "$p 'maxmemory-clients') - argument must be a memory or percent value" \
      {r config set maxmemory-clients -5}
    r config set maxmemory-clients 10%
    assert_equal [r config get maxmemory-clients] {maxmemory-clients 10%}
    r config set maxmemory-clients 1mb
    assert_equal [r config get maxmemory-clients] {maxmemory-clients 1048576}
    r config set maxmemory-clients 0
    r config set maxmemory-samples 10
    assert_equal [r config get maxmemory-samples] {maxmemory-samples 10}
    r config set maxmemory-samples 5
  } {OK}

  test {INFO reports maxmemory, the policy and the eviction counters} {
    r config set maxmemory 3mb
    r config set maxmemory-policy allkeys-lru
    set mem [r info memory]
    set stats [r info stats]
    r config set maxmemory 0
    r config set maxmemory-policy noeviction
    list [info_field $mem maxmemory] [info_field $mem maxmemory_human] \
      [info_field $mem maxmemory_policy] [info_field $mem mem_not_counted_for_evict] \
      [info_field $stats evicted_keys] [info_field $stats evicted_clients] \
      [info_field $stats total_eviction_exceeded_time]
  } {3145728 3.00M allkeys-lru 0 0 0 0}
}

start_server {tags {maxmemory external:skip}} {
  test {noeviction: denyoom commands get -OOM, the others still run} {
    r config set maxmemory-policy noeviction
    mm_write [srv 0 client] k 0 200 1000
    set limit [mm_limit_here]
    set errors [mm_write [srv 0 client] n 0 1000 1000]
    assert_morethan $errors 0
    assert_error {OOM command not allowed when used memory > 'maxmemory'.} {r set x y}
    assert_error {OOM*} {r incr counter}
    assert_error {OOM*} {r lpush l a}
    assert_error {OOM*} {r sadd s a}
    # Reads, deletes and other commands without denyoom still run.
    assert_equal [string length [r get k1]] 1000
    assert_equal [r exists k2] 1
    assert_equal [r expire k3 100] 1
    assert_equal [r ping] PONG
    assert_equal [mm_info evicted_keys] 0
    assert_morethan [mm_info total_eviction_exceeded_time] -1
    # Freeing memory makes room again.
    for {set i 0} {$i < 200} {incr i} { r del k$i n$i }
    assert_equal [r set x y] OK
    r config set maxmemory 0
    r flushall
  } {OK}

  test {noeviction in MULTI: queuing is refused when out of memory, EXEC aborts} {
    mm_write [srv 0 client] k 0 200 1000
    mm_limit_here
    mm_write [srv 0 client] n 0 300 1000
    assert_equal [r multi] OK
    assert_error {OOM*} {r get k1}
    assert_error {EXECABORT*} {r exec}
    # DISCARD is never refused.
    r multi
    assert_equal [r discard] OK
    r config set maxmemory 0
    r flushall
  } {OK}

  test {EXEC of a transaction with a write is refused once memory is full} {
    r multi
    r set a b
    r get a
    # The limit drops under the used memory while the transaction is open.
    set rd [redis_client]
    $rd config set maxmemory 1
    set err [catch {r exec} e]
    $rd config set maxmemory 0
    $rd close
    # The refused EXEC discards the transaction.
    assert_error {ERR EXEC without MULTI} {r exec}
    list $err $e [r exists a]
  } {1 {EXECABORT Transaction discarded because of: OOM command not allowed when used memory > 'maxmemory'.} 0}
}

foreach policy {allkeys-lru allkeys-lfu allkeys-random volatile-lru volatile-lfu volatile-random volatile-ttl} {
  start_server {tags {maxmemory external:skip}} {
    test "$policy: used_memory stays at maxmemory, keys are evicted" {
      r config set maxmemory-policy $policy
      set volatile [string match volatile-* $policy]
      # 300 keys without TTL, then 700 with one.
      mm_write [srv 0 client] p 0 300 1000
      mm_write [srv 0 client] v 0 700 1000 100000
      set limit [mm_limit_here]
      assert_equal [mm_write [srv 0 client] w 0 2000 1000 100000] 0
      set used [mm_info used_memory]
      assert_lessthan $used [expr {$limit + 64 * 1024}]
      assert_morethan [mm_info evicted_keys] 1500
      set persistent [mm_count p 0 300]
      if {$volatile} {
        # Only keys with a TTL may go.
        assert_equal $persistent 300
      } else {
        assert_lessthan $persistent 300
      }
    }
  }
}

start_server {tags {maxmemory external:skip}} {
  test {allkeys-lru keeps the recently used keys (LRU approximation)} {
    r config set maxmemory-policy allkeys-lru
    mm_write [srv 0 client] k 0 1000 1000
    # The LRU clock counts seconds.
    after 2100
    # Keys 0..499 are used again: only the others are old.
    mm_early_in_second
    mm_touch [srv 0 client] k 0 500
    mm_limit_here 1
    mm_write [srv 0 client] n 0 400 1000
    set hot [mm_count k 0 500]
    set cold [mm_count k 500 1000]
    assert_morethan [mm_info evicted_keys] 300
    # Sampled eviction is approximate. With the limit taken after the
    # warm-up INFO and the reads and writes in one LRU tick (above), about
    # 440 keys go, 470-480 hot ones stay (Redis 7.0.15 alike).
    assert_morethan $hot 450
    assert_lessthan $cold 250
    assert_morethan [expr {$hot - $cold}] 200
    # The new keys are as recent as the hot ones.
    assert_morethan [mm_count n 0 400] 350
  }

  test {volatile-lru evicts the least recently used keys that have a TTL} {
    r flushall
    r config set maxmemory 0
    r config set maxmemory-policy volatile-lru
    mm_write [srv 0 client] p 0 200 1000
    mm_write [srv 0 client] k 0 800 1000 100000
    after 2100
    mm_early_in_second
    mm_touch [srv 0 client] k 0 400
    mm_limit_here 1
    mm_write [srv 0 client] n 0 300 1000 100000
    assert_equal [mm_count p 0 200] 200
    assert_morethan [mm_count k 0 400] 360
    assert_lessthan [mm_count k 400 800] 200
  }
}

start_server {tags {maxmemory external:skip}} {
  test {allkeys-lfu keeps the frequently used keys} {
    r config set maxmemory-policy allkeys-lfu
    mm_write [srv 0 client] k 0 1000 1000
    for {set n 0} {$n < 10} {incr n} {
      for {set i 0} {$i < 500} {incr i} { r get k$i }
    }
    mm_limit_here
    mm_write [srv 0 client] n 0 400 1000
    assert_morethan [mm_info evicted_keys] 300
    assert_morethan [mm_count k 0 500] 450
  }
}

start_server {tags {maxmemory external:skip}} {
  test {volatile-ttl evicts the keys that expire soonest first} {
    r config set maxmemory-policy volatile-ttl
    # TTLs 10000 + i seconds: key i expires before key i+1.
    mm_write [srv 0 client] k 0 1000 1000 10000 1
    mm_limit_here
    mm_write [srv 0 client] n 0 300 1000 100000
    set soon [mm_count k 0 250]
    set late [mm_count k 750 1000]
    assert_morethan [mm_info evicted_keys] 200
    assert_lessthan $soon 125
    assert_morethan $late 240
    # The new keys with the longest TTL all survive.
    mm_count n 0 300
  } {300}

  test {volatile-* with no key to evict: -OOM} {
    r flushall
    r config set maxmemory 0
    r config set maxmemory-policy volatile-random
    r config resetstat
    mm_write [srv 0 client] p 0 300 1000
    mm_limit_here
    set errors [mm_write [srv 0 client] q 0 300 1000]
    assert_morethan $errors 0
    assert_equal [mm_info evicted_keys] 0
    mm_count p 0 300
  } {300}
}

start_server {tags {maxmemory external:skip needs:unix}} {
  test {Eviction works for data written over the Unix socket} {
    r config set maxmemory-policy allkeys-lru
    set u [redis_unix_client]
    mm_write $u k 0 500 1000
    set limit [mm_limit_here]
    assert_equal [mm_write $u n 0 1500 1000] 0
    $u close
    assert_lessthan [mm_info used_memory] [expr {$limit + 64 * 1024}]
    assert_morethan [mm_info evicted_keys] 1000
    r config set maxmemory-policy noeviction
    set u [redis_unix_client]
    set errors [mm_write $u m 0 500 1000]
    $u close
    assert_morethan $errors 0
  }
}

start_server {tags {maxmemory external:skip}} {
  test {CONFIG SET maxmemory under the used memory evicts down to it} {
    r config set maxmemory-policy allkeys-random
    mm_write [srv 0 client] k 0 2000 1000
    set used [mm_info used_memory]
    set limit [expr {$used - 1000000}]
    r config set maxmemory $limit
    wait_for_condition 500 20 {[mm_info used_memory] < $limit + 64 * 1024} {
      fail "used_memory stays above the new maxmemory"
    }
    assert_morethan [mm_info evicted_keys] 800
    assert_lessthan [r dbsize] 1200
  }

  test {CONFIG RESETSTAT zeroes evicted_keys} {
    r config resetstat
    mm_info evicted_keys
  } {0}
}

# In the threaded pass (io-threads 4) this also checks that the requests
# the I/O threads read run after the previous round's invalidations are
# written: otherwise the next command's eviction counts them and evicts
# again.
start_server {tags {maxmemory external:skip}} {
  test {Eviction frees what is over the limit, not the invalidations it sends} {
    # Ten RESP3 clients track 300 keys with 1 KB names: every eviction
    # queues ten 1 KB invalidation messages. They are not counted against
    # what the eviction must free, or freeing a key would call for freeing
    # more keys, until none is left.
    r config set maxmemory-policy allkeys-lru
    r config set maxmemory-eviction-tenacity 100
    set trackers {}
    for {set j 0} {$j < 10} {incr j} {
      set rd [redis_deferring_client]
      $rd hello 3
      $rd read
      $rd client tracking on
      $rd read
      lappend trackers $rd
    }
    for {set i 0} {$i < 300} {incr i} {
      set key $i[string repeat k 1000]
      r set $key v
      foreach rd $trackers {
        $rd get $key
        $rd read
      }
    }
    # A cron tick gives back the query buffers the long names grew.
    after 1100
    r config set maxmemory [expr {[mm_info used_memory] - 40000}]
    set evicted [mm_info evicted_keys]
    set left [r dbsize]
    foreach rd $trackers { $rd close }
    assert_range $evicted 10 60
    assert_range $left 240 290
  }
}

start_server {tags {maxmemory external:skip}} {
  test {A full keyspace table does not grow into eviction} {
    # 4096 keys fill a 4096-bucket table; the next key would double it
    # (64 KB) past a limit 10 KB above what is used: the table waits at a
    # higher load instead, and no key is evicted to make room for it.
    # (Latency tracking off: the first CONFIG SET would allocate its
    # histogram past the new limit.)
    r config set latency-tracking no
    r config set maxmemory-policy allkeys-random
    for {set i 0} {$i < 4096} {incr i} { r set key:$i x }
    r config set maxmemory [expr {[mm_info used_memory] + 10 * 1024}]
    r set one 1
    r set two 2
    list [r dbsize] [mm_info evicted_keys]
  } {4098 0}
}
