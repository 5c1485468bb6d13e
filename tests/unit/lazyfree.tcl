# Lazy freeing: UNLINK, FLUSHALL/FLUSHDB ASYNC and the lazyfree-lazy-*
# options hand big values (and whole keyspaces) to a background thread,
# counted in INFO memory (lazyfree_pending_objects, lazyfreed_objects) as
# Redis 7.0 counts them: one object per value, one per key of a flushed db.
# Small values (strings, listpack/intset encodings, up to 64 elements) are
# freed at once.

proc lf_freed {} { info_field [r info memory] lazyfreed_objects }

# Waits until the background thread has freed `n` objects in all.
proc lf_wait_freed {n} {
  wait_for_condition 200 50 {[lf_freed] == $n} {
    fail "lazyfreed_objects is [lf_freed], expected $n"
  }
}

# A set of $n members stored as a hash table (not intset/listpack).
proc lf_big_set {key n} {
  set args [list sadd $key]
  for {set i 0} {$i < $n} {incr i} { lappend args member:$i }
  r {*}$args
}

start_server {tags {lazyfree external:skip}} {
  test {UNLINK frees a big value in the background, a small one at once} {
    r config resetstat
    lf_big_set big 1000
    r set small x
    r sadd tiny a b c
    assert_equal [r unlink big small tiny] 3
    lf_wait_freed 1
    list [r exists big] [info_field [r info memory] lazyfree_pending_objects]
  } {0 0}

  test {UNLINK of a big value gives its memory back, the request's buffers too} {
    # Measured from before the first big request: the 50,000-argument SADD
    # grows the client's argument lists and query buffer, which must not
    # stay behind once it ran (Redis frees its argv after each command).
    r config resetstat
    set before [info_field [r info memory] used_memory]
    lf_big_set big 50000
    assert_morethan [info_field [r info memory] used_memory] [expr {$before + 1000000}]
    r unlink big
    lf_wait_freed 1
    wait_for_condition 200 50 {[info_field [r info memory] used_memory] < $before + 200000} {
      fail "memory of the unlinked set was not freed"
    }
  }

  test {DEL frees in the background only under lazyfree-lazy-user-del} {
    r config resetstat
    lf_big_set big 1000
    r del big
    assert_equal [lf_freed] 0
    r config set lazyfree-lazy-user-del yes
    lf_big_set big 1000
    r del big
    lf_wait_freed 1
    r config set lazyfree-lazy-user-del no
  } {OK}

  test {FLUSHALL ASYNC and FLUSHDB ASYNC: keys go at once, freed in the background} {
    r config resetstat
    for {set i 0} {$i < 500} {incr i} { r set k$i v }
    r select 1
    for {set i 0} {$i < 300} {incr i} { r set k$i v }
    assert_equal [r flushdb async] OK
    assert_equal [r dbsize] 0
    lf_wait_freed 300
    r select 0
    assert_equal [r flushall async] OK
    assert_equal [r dbsize] 0
    lf_wait_freed 800
    r set k v
    r get k
  } {v}

  test {lazyfree-lazy-user-flush makes FLUSHALL without argument asynchronous} {
    r config resetstat
    for {set i 0} {$i < 100} {incr i} { r set k$i v }
    r flushall sync
    assert_equal [lf_freed] 0
    r config set lazyfree-lazy-user-flush yes
    for {set i 0} {$i < 100} {incr i} { r set k$i v }
    r flushall
    lf_wait_freed 100
    r config set lazyfree-lazy-user-flush no
  } {OK}

  test {lazyfree-lazy-server-del: an overwritten big value is freed in the background} {
    r config resetstat
    lf_big_set big 1000
    r set big string
    assert_equal [lf_freed] 0
    r config set lazyfree-lazy-server-del yes
    lf_big_set big2 1000
    r set big2 string
    lf_wait_freed 1
    r config set lazyfree-lazy-server-del no
    r get big2
  } {string}

  test {lazyfree-lazy-expire: an expired big value is freed in the background} {
    r config resetstat
    r config set lazyfree-lazy-expire yes
    lf_big_set vol 1000
    r pexpire vol 10
    after 50
    assert_equal [r exists vol] 0
    lf_wait_freed 1
    r config set lazyfree-lazy-expire no
  } {OK}

  test {lazyfree-lazy-eviction: evicted big values are freed in the background} {
    r flushall
    r config resetstat
    r config set lazyfree-lazy-eviction yes
    r config set maxmemory-policy allkeys-random
    for {set i 0} {$i < 20} {incr i} { lf_big_set big$i 1000 }
    r config set maxmemory [expr {[info_field [r info memory] used_memory] - 200000}]
    # The write triggers eviction. While the evicted sets are still being
    # freed in the background it may itself be refused (-OOM), and later
    # cycles may evict it too (allkeys-random): count the big sets gone.
    catch {r set trigger x}
    r config set maxmemory 0
    r config set lazyfree-lazy-eviction no
    set evicted 0
    for {set i 0} {$i < 20} {incr i} { incr evicted [expr {![r exists big$i]}] }
    assert_morethan $evicted 0
    assert_morethan [expr {[info_field [r info stats] evicted_keys] + 1}] $evicted
    lf_wait_freed $evicted
  }
}
