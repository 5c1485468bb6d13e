# Streams: entries, IDs, ranges, trimming, deletion and XSETID, as Redis
# 7.0.15 answers them (every expectation also holds against Debian's
# redis-server 7.0.15). Consumer groups are in stream-groups.tcl, what the
# AOF and replicas receive in stream-propagation.tcl.

proc blocked_count {} {
  info_field [r info clients] blocked_clients
}

# Waits until n clients are blocked (a blocking command reached the server).
proc await_blocked {n} {
  wait_for_condition 200 10 {[blocked_count] == $n} {
    fail "expected $n blocked clients, have [blocked_count]"
  }
}

start_server {tags {stream}} {
  test {An entry added with an explicit ID reads back with its fields in order} {
    r del st
    assert_equal [r xadd st 10-1 name alice age 30] 10-1
    assert_equal [r type st] stream
    assert_equal [r object encoding st] stream
    assert_equal [r xlen st] 1
    r xrange st - +
  } {{10-1 {name alice age 30}}}

  test {Automatic IDs grow, and "ms-*" picks the next sequence} {
    r del st
    set a [r xadd st * f 1]
    set b [r xadd st * f 2]
    assert {[lindex [split $a -] 0] <= [lindex [split $b -] 0]}
    assert_equal [lindex [r xrange st - +] end 0] $b
    r del st
    r xadd st 7-3 f v
    assert_equal [r xadd st 7-* f v] 7-4
    assert_equal [r xadd st 9-* f v] 9-0
    assert_error {*equal or smaller*} {r xadd st 0-* f v}
  }

  test {XADD refuses IDs that do not move forward, 0-0 and malformed IDs} {
    r del st
    r xadd st 5-5 f v
    assert_error {*equal or smaller*} {r xadd st 5-5 f v}
    assert_error {*equal or smaller*} {r xadd st 4-9 f v}
    assert_error {*greater than 0-0*} {r xadd other 0-0 f v}
    assert_error {*Invalid stream ID*} {r xadd st 6-x f v}
    assert_error {*Invalid stream ID*} {r xadd st - f v}
    assert_error {*wrong number of arguments*} {r xadd st 6-0 f}
    r set str x
    assert_error {WRONGTYPE*} {r xadd str * f v}
    r xadd st 18446744073709551615-18446744073709551615 f v
    assert_error {*exhausted the last possible ID*} {r xadd st * f v}
    r del str
  }

  test {NOMKSTREAM does not create the key} {
    r del st
    assert_equal [r xadd st nomkstream * f v] {}
    assert_equal [r exists st] 0
    r xadd st 1-0 f v
    r xadd st nomkstream 2-0 f v
    r xlen st
  } {2}

  test {XRANGE and XREVRANGE: bounds, exclusive bounds, incomplete IDs, COUNT} {
    r del st
    foreach id {1-0 1-1 2-0 3-5 4-0} { r xadd st $id v $id }
    assert_equal [llength [r xrange st - +]] 5
    assert_equal [lmap e [r xrange st 1 2] {lindex $e 0}] {1-0 1-1 2-0}
    assert_equal [lmap e [r xrange st (1-0 (3-5] {lindex $e 0}] {1-1 2-0}
    assert_equal [lmap e [r xrevrange st + - count 2] {lindex $e 0}] {4-0 3-5}
    assert_equal [lmap e [r xrevrange st (4-0 (1-1] {lindex $e 0}] {3-5 2-0}
    assert_equal [r xrange st - + count 0] {}
    assert_equal [r xrange nosuch - +] {}
    assert_error {*invalid start ID*} {r xrange st (18446744073709551615-18446744073709551615 +}
    assert_error {*invalid end ID*} {r xrange st - (0-0}
    assert_error {*syntax error*} {r xrange st - + limit 2}
  }

  test {Entries whose fields differ from the first entry's read back intact} {
    r del st
    r xadd st 1-0 a 1 b 2
    r xadd st 2-0 a 3 b 4
    r xadd st 3-0 b 5 a 6
    r xadd st 4-0 x 7
    r xadd st 5-0 a 12345678901234 b -7 c {}
    r xrange st - +
  } {{1-0 {a 1 b 2}} {2-0 {a 3 b 4}} {3-0 {b 5 a 6}} {4-0 {x 7}} {5-0 {a 12345678901234 b -7 c {}}}}

  test {XDEL tombstones entries; XLEN, ranges and the recorded IDs follow} {
    r del st
    foreach id {1-0 2-0 3-0 4-0} { r xadd st $id f $id }
    assert_equal [r xdel st 2-0 9-0 2-0] 1
    assert_equal [r xlen st] 3
    assert_equal [lmap e [r xrevrange st + -] {lindex $e 0}] {4-0 3-0 1-0}
    r xdel st 1-0
    set info [r xinfo stream st]
    assert_equal [dict get $info recorded-first-entry-id] 3-0
    assert_equal [dict get $info max-deleted-entry-id] 2-0
    assert_equal [dict get $info entries-added] 4
    r xdel st 3-0 4-0
    # An emptied stream stays, remembering its last ID.
    assert_equal [r exists st] 1
    assert_error {*equal or smaller*} {r xadd st 4-0 f v}
    dict get [r xinfo stream st] recorded-first-entry-id
  } {0-0}

  test {Exact MAXLEN and MINID trimming} {
    r del st
    for {set i 1} {$i <= 50} {incr i} { r xadd st $i-0 f $i }
    assert_equal [r xtrim st maxlen 40] 10
    assert_equal [r xlen st] 40
    assert_equal [r xtrim st minid 21] 10
    assert_equal [lindex [r xrange st - + count 1] 0 0] 21-0
    r xadd st maxlen = 5 100-0 f v
    assert_equal [r xlen st] 5
    r xadd st minid 100 101-0 f v
    r xlen st
  } {2}

  test {Approximate trimming only drops whole nodes} {
    r config set stream-node-max-entries 10
    r del st
    for {set i 1} {$i <= 95} {incr i} { r xadd st $i-0 f $i }
    # 95 entries in nodes of 10: trimming to ~ 62 can drop three nodes.
    assert_equal [r xtrim st maxlen ~ 62] 30
    assert_equal [r xlen st] 65
    assert_equal [dict get [r xinfo stream st] radix-tree-keys] 7
    # LIMIT bounds the work: one node at most.
    assert_equal [r xtrim st maxlen ~ 0 limit 10] 10
    # MINID ~ drops the nodes whose last entry is below it (41-50, 51-60).
    assert_equal [r xtrim st minid ~ 70] 20
    r config set stream-node-max-entries 100
    r xlen st
  } {35}

  test {Trimming arguments are checked as Redis checks them} {
    assert_error {*LIMIT cannot be used without the special ~ option*} {r xtrim st maxlen 5 limit 2}
    assert_error {*MAXLEN and MINID options at the same time*} {r xtrim st maxlen 5 minid 5}
    assert_error {*must be called with a trimming strategy*} {r xtrim st limit 0}
    assert_error {*MAXLEN argument must be >= 0*} {r xtrim st maxlen -1}
    assert_error {*LIMIT argument must be >= 0*} {r xadd st maxlen ~ 5 limit -1 * f v}
    assert_error {*without specifying a trimming strategy*} {r xadd st limit 5 * f v}
    r xtrim nosuch maxlen 0
  } {0}

  test {Nodes close at stream-node-max-bytes as well} {
    r config set stream-node-max-bytes 200
    r del st
    for {set i 1} {$i <= 20} {incr i} { r xadd st $i-0 field [string repeat x 50] }
    set keys [dict get [r xinfo stream st] radix-tree-keys]
    r config set stream-node-max-bytes 4096
    assert_range $keys 5 20
    r xlen st
  } {20}

  test {XSETID moves the last ID and the counters, within limits} {
    r del st
    r xadd st 5-0 f v
    assert_error {*smaller than the target stream top item*} {r xsetid st 4-0}
    assert_error {ERR no such key} {r xsetid nosuch 1-0}
    assert_error {*smaller than the target stream length*} {r xsetid st 6-0 entriesadded 0}
    assert_error {*smaller than the provided max_deleted_entry_id*} {r xsetid st 6-0 entriesadded 5 maxdeletedid 7-0}
    assert_error {*syntax error*} {r xsetid st 6-0 7}
    r xsetid st 9-9 entriesadded 20 maxdeletedid 3-0
    set info [r xinfo stream st]
    assert_equal [dict get $info last-generated-id] 9-9
    assert_equal [dict get $info entries-added] 20
    assert_equal [dict get $info max-deleted-entry-id] 3-0
    r xadd st * f v
    assert_error {*equal or smaller*} {r xadd st 9-9 f v}
  }

  test {XREAD returns entries after the given IDs, for several streams} {
    r del s1 s2
    r xadd s1 1-0 a 1
    r xadd s1 2-0 a 2
    r xadd s2 1-0 b 1
    assert_equal [r xread streams s1 s2 1-0 0] {{s1 {{2-0 {a 2}}}} {s2 {{1-0 {b 1}}}}}
    assert_equal [r xread count 1 streams s1 0] {{s1 {{1-0 {a 1}}}}}
    assert_equal [r xread streams s1 nosuch $ 0] {}
    assert_error {*Unbalanced*} {r xread streams s1 s2 0}
    assert_error {*only supported by XREADGROUP*} {r xread group g c streams s1 0}
    assert_error {*can be specified only when calling XREADGROUP*} {r xread streams s1 >}
  }

  test {XREAD BLOCK with $ is served by the next entry only} {
    r del s1
    r xadd s1 1-0 old 1
    set rd [redis_deferring_client]
    $rd xread block 0 streams s1 $
    await_blocked 1
    r xadd s1 2-0 new 2
    assert_equal [$rd read] {{s1 {{2-0 {new 2}}}}}
    $rd close
  }

  test {XREAD BLOCK is not woken by a delete, nor by a key of another type} {
    r del s1
    set rd [redis_deferring_client]
    $rd xread block 0 streams s1 $
    await_blocked 1
    r multi
    r xadd s1 1-0 a 1
    r del s1
    r exec
    r lpush s1 x
    r del s1
    assert_equal [blocked_count] 1
    r xadd s1 5-0 late 1
    assert_equal [$rd read] {{s1 {{5-0 {late 1}}}}}
    $rd close
  }

  test {XREAD BLOCK on several streams answers with the one written first} {
    r del s1 s2
    r xadd s1 1-0 a 1
    r xadd s2 1-0 b 1
    set rd [redis_deferring_client]
    $rd xread block 0 streams s1 s2 $ $
    await_blocked 1
    # Both get new entries before the client is served; s2 came first.
    r multi
    r xadd s2 2-0 b 2
    r xadd s1 2-0 a 2
    r exec
    assert_equal [$rd read] {{s2 {{2-0 {b 2}}}}}
    $rd close
  }

  test {XREADGROUP BLOCK on several streams answers with the one written first} {
    r del s1 s2
    r xgroup create s1 g $ mkstream
    r xgroup create s2 g $ mkstream
    set rd [redis_deferring_client]
    $rd xreadgroup group g c block 0 streams s1 s2 > >
    await_blocked 1
    r multi
    r xadd s2 3-0 b 3
    r xadd s1 3-0 a 3
    r exec
    assert_equal [$rd read] {{s2 {{3-0 {b 3}}}}}
    $rd close
    # The entry of s1 was not delivered to anyone.
    assert_equal [lindex [r xpending s1 g] 0] 0
  }

  test {XREAD BLOCK times out with a null reply; a negative timeout is an error} {
    set rd [redis_deferring_client]
    $rd xread block 30 streams nosuch $
    assert_equal [$rd read] {}
    $rd close
    assert_error {*timeout is negative*} {r xread block -1 streams s1 $}
    assert_error {*timeout is not an integer*} {r xread block 1.5 streams s1 $}
  }

  test {XREAD BLOCK inside MULTI answers at once} {
    r del s1
    r multi
    r xread block 0 streams s1 $
    r exec
  } {{}}

  test {Stream keyspace events} {
    r config set notify-keyspace-events KEt
    set sub [redis_deferring_client]
    $sub psubscribe __keyevent@*
    $sub read
    r del st
    r xadd st 1-0 f v
    r xadd st maxlen 0 2-0 f v
    r xdel st 2-0
    r xadd st 3-0 f v
    r xtrim st maxlen 0
    r xsetid st 10-0
    r xgroup create st g $
    r xgroup createconsumer st g c
    r xgroup delconsumer st g c
    r xgroup setid st g 0
    r xgroup destroy st g
    set got {}
    for {set i 0} {$i < 11} {incr i} { lappend got [lindex [$sub read] 2] }
    $sub close
    r config set notify-keyspace-events {}
    set got
  } [list __keyevent@0__:xadd __keyevent@0__:xadd __keyevent@0__:xtrim __keyevent@0__:xadd \
      __keyevent@0__:xtrim __keyevent@0__:xsetid __keyevent@0__:xgroup-create \
      __keyevent@0__:xgroup-createconsumer __keyevent@0__:xgroup-delconsumer \
      __keyevent@0__:xgroup-setid __keyevent@0__:xgroup-destroy]

  test {SCAN TYPE stream, MEMORY USAGE and COPY of a stream} {
    r flushdb
    r xadd st 1-0 f v
    r set str x
    assert_equal [lindex [r scan 0 type stream] 1] st
    assert_range [r memory usage st] 50 10000
    r xgroup create st g 0
    r copy st st2
    r xadd st 2-0 f v
    assert_equal [r xlen st2] 1
    llength [r xinfo groups st2]
  } {1}
}

start_server {tags {stream external:skip} overrides {enable-debug-command yes}} {
  # A model (a Tcl list of {id fields}) checked against the server after
  # random XADD / XDEL / XTRIM sequences, with nodes small enough to split.
  test {Random adds, deletes and trims match a simple model} {
    r config set stream-node-max-entries 4
    r del st
    set model {}
    set ms 0
    for {set round 0} {$round < 600} {incr round} {
      set op [expr {int(rand() * 10)}]
      if {$op < 6} {
        incr ms [expr {int(rand() * 3)}]
        set id [r xadd st $ms-* f[expr {$round % 3}] $round]
        lappend model [list $id [list f[expr {$round % 3}] $round]]
      } elseif {$op < 8 && [llength $model]} {
        set victim [lindex $model [expr {int(rand() * [llength $model])}] 0]
        assert_equal [r xdel st $victim] 1
        set model [lsearch -all -inline -not -index 0 $model $victim]
      } elseif {$op == 8} {
        set keep [expr {int(rand() * 30)}]
        r xtrim st maxlen $keep
        if {[llength $model] > $keep} { set model [lrange $model end-[expr {$keep - 1}] end] }
        if {$keep == 0} { set model {} }
      } else {
        assert_equal [r xrange st - +] $model
        assert_equal [r xrevrange st + -] [lreverse $model]
      }
      assert_equal [r xlen st] [llength $model]
    }
    r config set stream-node-max-entries 100
    assert_equal [r xrange st - +] $model
  }

  test {Streams survive DEBUG RELOAD and an AOF rewrite with their groups} {
    r flushall
    r config set stream-node-max-entries 3
    for {set i 1} {$i <= 10} {incr i} { r xadd st $i-0 f $i }
    r xdel st 4-0 10-0
    r xgroup create st g 0
    r xreadgroup group g alice count 3 streams st >
    r xgroup createconsumer st g bob
    r xadd empty 1-0 f v
    r xdel empty 1-0
    r config set stream-node-max-entries 100
    set digest [r debug digest]
    set groups [r xinfo groups st]
    set pending [r xpending st g - + 10]
    r debug reload
    assert_equal [r debug digest] $digest
    assert_equal [r xinfo groups st] $groups
    assert_equal [lmap p [r xpending st g - + 10] {lreplace $p 2 2}] \
        [lmap p $pending {lreplace $p 2 2}]
    assert_equal [dict get [r xinfo stream empty] last-generated-id] 1-0
    r config set aof-use-rdb-preamble no
    r config set appendonly yes
    wait_for_condition 100 50 {[info_field [r info persistence] aof_rewrite_in_progress] == 0 &&
                               [info_field [r info persistence] aof_rewrite_scheduled] == 0} {
      fail "AOF rewrite did not finish"
    }
    r debug loadaof
    assert_equal [r debug digest] $digest
    assert_equal [r xinfo groups st] $groups
    assert_equal [lsort [lmap c [r xinfo consumers st g] {dict get $c name}]] {alice bob}
    dict get [r xinfo stream empty] max-deleted-entry-id
  } {1-0}
}
