# Memory goes back to the system after large frees: FLUSHALL purges the
# allocator (as Redis does), FLUSHALL ASYNC frees on the lazy-free thread
# and jemalloc's background thread (jemalloc-bg-thread) returns the pages.
# The issue's reproduction: three rounds of 200k x 1 KB SETs, each followed
# by FLUSHALL, must not ratchet RSS up; Redis 7.0.15 falls back to ~20 MB.

# Writes $n keys of $size bytes with MSETs of 1000 keys each.
proc mr_fill {prefix n size} {
  set val [string repeat v $size]
  set c [srv 0 client]
  for {set i 0} {$i < $n} {incr i 1000} {
    set args [list mset]
    for {set j $i} {$j < $i + 1000 && $j < $n} {incr j} { lappend args $prefix$j $val }
    $c write [::redis::encode $args]
    $c read
  }
}

proc mr_rss {} { info_field [r info memory] used_memory_rss }

start_server {tags {memory external:skip}} {
  set jemalloc [string match jemalloc* [info_field [r info memory] mem_allocator]]

  test {RSS falls back after FLUSHALL, round after round} {
    set after {}
    for {set round 0} {$round < 3} {incr round} {
      mr_fill k 200000 1000
      assert_equal [r dbsize] 200000
      assert_morethan [mr_rss] 200000000
      r flushall
      lappend after [mr_rss]
    }
    if {$jemalloc} {
      # Every round ends where the first did, well under the 200 MB of data.
      foreach rss $after { assert_lessthan $rss 40000000 }
    }
    llength $after
  } {3}

  test {RSS falls back after FLUSHALL ASYNC (lazy-free thread and jemalloc decay)} {
    mr_fill k 200000 1000
    assert_morethan [mr_rss] 200000000
    assert_equal [r flushall async] OK
    assert_equal [r dbsize] 0
    wait_for_condition 100 100 {[info_field [r info memory] lazyfree_pending_objects] == 0} {
      fail "the lazy-free thread did not finish"
    }
    if {$jemalloc} {
      # jemalloc's dirty-page decay period is 10 s: the background thread
      # returns the pages within it, without any further command.
      wait_for_condition 250 100 {[mr_rss] < 40000000} {
        fail "RSS stays at [mr_rss] after FLUSHALL ASYNC"
      }
    }
    r dbsize
  } {0}
}
