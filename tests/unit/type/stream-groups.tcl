# Stream consumer groups as Redis 7.0.15 runs them: XGROUP, XREADGROUP
# (new entries, history, NOACK, BLOCK), XACK, XPENDING, XCLAIM, XAUTOCLAIM
# and XINFO, with lag and entries-read.

proc blocked_count {} {
  info_field [r info clients] blocked_clients
}

proc await_blocked {n} {
  wait_for_condition 200 10 {[blocked_count] == $n} {
    fail "expected $n blocked clients, have [blocked_count]"
  }
}

start_server {tags {stream}} {
  test {XGROUP CREATE: existing key, MKSTREAM, $ and duplicate names} {
    r del st
    assert_error {*requires the key to exist*} {r xgroup create st g $}
    assert_equal [r xgroup create st g $ mkstream] OK
    assert_equal [r type st] stream
    assert_error {BUSYGROUP*} {r xgroup create st g 0}
    assert_error {*ENTRIESREAD must be positive or -1*} {r xgroup create st g2 0 entriesread -5}
    assert_error {*unknown subcommand or wrong number of arguments*} {r xgroup create st g2 0 foo}
    assert_error {NOGROUP*} {r xgroup setid st nosuch 0}
    assert_equal [r xgroup destroy st nosuch] 0
    r xgroup destroy st g
  } {1}

  test {XREADGROUP > delivers each entry once and fills the PEL} {
    r del st
    foreach id {1-0 2-0 3-0} { r xadd st $id f $id }
    r xgroup create st g 0
    assert_equal [r xreadgroup group g alice count 2 streams st >] {{st {{1-0 {f 1-0}} {2-0 {f 2-0}}}}}
    assert_equal [r xreadgroup group g bob streams st >] {{st {{3-0 {f 3-0}}}}}
    assert_equal [r xreadgroup group g bob streams st >] {}
    set summary [r xpending st g]
    assert_equal [lrange $summary 0 2] {3 1-0 3-0}
    assert_equal [lindex $summary 3] {{alice 2} {bob 1}}
    # History: the consumer's own pending entries, from an ID on.
    assert_equal [r xreadgroup group g alice streams st 0] {{st {{1-0 {f 1-0}} {2-0 {f 2-0}}}}}
    assert_equal [r xreadgroup group g alice streams st 1-0] {{st {{2-0 {f 2-0}}}}}
    assert_equal [r xack st g 1-0 1-0 9-0] 1
    r xdel st 2-0
    # A pending entry deleted from the stream reads back as a null entry.
    r xreadgroup group g alice streams st 0
  } {{st {{2-0 {}}}}}

  test {XREADGROUP errors} {
    assert_error {NOGROUP*} {r xreadgroup group nosuch c streams st >}
    assert_error {NOGROUP*} {r xreadgroup group g c streams nosuchkey >}
    assert_error {*$ ID is meaningless*} {r xreadgroup group g c streams st $}
    assert_error {*Missing GROUP option*} {r xreadgroup count 1 count 1 streams st >}
    r set str x
    assert_error {WRONGTYPE*} {r xreadgroup group g c streams str >}
    r del str
  }

  test {NOACK delivers without adding to the PEL} {
    r del st
    r xadd st 1-0 f v
    r xgroup create st g 0
    r xreadgroup group g c noack streams st >
    lindex [r xpending st g] 0
  } {0}

  test {XPENDING extended form: ranges, COUNT, consumer and IDLE filters} {
    r del st
    foreach id {1-0 2-0 3-0 4-0} { r xadd st $id f v }
    r xgroup create st g 0
    r xreadgroup group g a count 2 streams st >
    r xreadgroup group g b streams st >
    assert_equal [lmap p [r xpending st g - + 10] {lindex $p 0}] {1-0 2-0 3-0 4-0}
    assert_equal [lmap p [r xpending st g (1-0 + 2] {lindex $p 0}] {2-0 3-0}
    assert_equal [lmap p [r xpending st g - + 10 b] {lindex $p 0}] {3-0 4-0}
    assert_equal [r xpending st g - + 10 nobody] {}
    assert_equal [r xpending st g idle 100000 - + 10] {}
    set p [lindex [r xpending st g - + 1] 0]
    assert_equal [lindex $p 1] a
    assert_equal [lindex $p 3] 1
    assert_error {*syntax error*} {r xpending st g - +}
    assert_error {NOGROUP*} {r xpending st nosuch}
  }

  test {XCLAIM moves entries, counts deliveries and honours its options} {
    r del st
    foreach id {1-0 2-0 3-0} { r xadd st $id f $id }
    r xgroup create st g 0
    r xreadgroup group g a streams st >
    # Not idle long enough: nothing moves.
    assert_equal [r xclaim st g b 100000 1-0] {}
    assert_equal [r xclaim st g b 0 1-0] {{1-0 {f 1-0}}}
    assert_equal [lindex [r xpending st g - + 1] 0 3] 2
    assert_equal [r xclaim st g b 0 2-0 justid] {2-0}
    assert_equal [lindex [r xpending st g 2-0 2-0 1] 0 3] 1
    r xclaim st g c 0 3-0 retrycount 7 idle 5000
    set p [lindex [r xpending st g 3-0 3-0 1] 0]
    assert_equal [lindex $p 1] c
    assert_equal [lindex $p 3] 7
    assert_range [lindex $p 2] 5000 60000
    # FORCE takes an entry nobody had; LASTID moves the group forward.
    r xadd st 4-0 f 4-0
    r xclaim st g d 0 4-0 force justid lastid 4-0
    assert_equal [dict get [lindex [r xinfo groups st] 0] last-delivered-id] 4-0
    # A deleted entry leaves the PEL when claimed.
    r xdel st 1-0
    assert_equal [r xclaim st g b 0 1-0] {}
    assert_error {*Unrecognized XCLAIM option*} {r xclaim st g b 0 2-0 bogus}
    assert_error {*Invalid min-idle-time*} {r xclaim st g b x 2-0}
    lindex [r xpending st g] 0
  } {3}

  test {XAUTOCLAIM scans the PEL with a cursor and reports deleted entries} {
    r del st
    for {set i 1} {$i <= 6} {incr i} { r xadd st $i-0 f $i }
    r xgroup create st g 0
    r xreadgroup group g a streams st >
    r xdel st 2-0
    set reply [r xautoclaim st g b 0 - count 3]
    assert_equal [lindex $reply 0] 4-0
    assert_equal [lmap e [lindex $reply 1] {lindex $e 0}] {1-0 3-0}
    assert_equal [lindex $reply 2] {2-0}
    set reply [r xautoclaim st g b 0 (3-0 count 10 justid]
    assert_equal $reply {0-0 {4-0 5-0 6-0} {}}
    assert_error {*COUNT must be > 0*} {r xautoclaim st g b 0 - count 0}
    llength [r xpending st g - + 10 b]
  } {5}

  test {XGROUP CREATECONSUMER, DELCONSUMER and XINFO CONSUMERS} {
    r del st
    r xadd st 1-0 f v
    r xgroup create st g 0
    assert_equal [r xgroup createconsumer st g zed] 1
    assert_equal [r xgroup createconsumer st g zed] 0
    r xreadgroup group g amy streams st >
    assert_equal [lmap c [r xinfo consumers st g] {dict get $c name}] {amy zed}
    assert_equal [dict get [lindex [r xinfo consumers st g] 0] pending] 1
    assert_equal [r xgroup delconsumer st g amy] 1
    assert_equal [lindex [r xpending st g] 0] 0
    assert_error {NOGROUP*} {r xinfo consumers st nosuch}
    assert_error {ERR no such key} {r xinfo groups nosuch}
  }

  test {Lag and entries-read follow reads, deletions and SETID} {
    r del st
    for {set i 1} {$i <= 5} {incr i} { r xadd st $i-0 f v }
    r xgroup create st g 0
    set g [lindex [r xinfo groups st] 0]
    assert_equal [dict get $g lag] 5
    r xreadgroup group g c count 2 streams st >
    set g [lindex [r xinfo groups st] 0]
    assert_equal [list [dict get $g entries-read] [dict get $g lag]] {2 3}
    # A tombstone after the group's position makes the lag unknown.
    r xdel st 4-0
    assert_equal [dict get [lindex [r xinfo groups st] 0] lag] {}
    r xgroup setid st g $ entriesread 5
    set g [lindex [r xinfo groups st] 0]
    list [dict get $g last-delivered-id] [dict get $g entries-read] [dict get $g lag]
  } {5-0 5 0}

  test {XINFO STREAM and its FULL form} {
    r del st
    r xadd st 1-0 a 1
    r xadd st 2-0 b 2
    r xgroup create st g 0
    r xreadgroup group g c count 1 streams st >
    set info [r xinfo stream st]
    assert_equal [dict get $info length] 2
    assert_equal [dict get $info groups] 1
    assert_equal [dict get $info first-entry] {1-0 {a 1}}
    assert_equal [dict get $info last-entry] {2-0 {b 2}}
    set full [r xinfo stream st full count 1]
    assert_equal [dict get $full entries] {{1-0 {a 1}}}
    set g [lindex [dict get $full groups] 0]
    assert_equal [dict get $g pel-count] 1
    assert_equal [lindex [dict get $g consumers] 0 1] c
    assert_error {*unknown subcommand or wrong number of arguments*} {r xinfo stream st full count}
    assert_equal [llength [r xinfo help]] 9
  }

  test {Blocked XREADGROUP is served by XADD, in arrival order} {
    r del st
    r xgroup create st g $ mkstream
    set c1 [redis_deferring_client]
    set c2 [redis_deferring_client]
    $c1 xreadgroup group g one block 0 streams st >
    await_blocked 1
    $c2 xreadgroup group g two block 0 streams st >
    await_blocked 2
    r xadd st 1-0 f v
    assert_equal [$c1 read] {{st {{1-0 {f v}}}}}
    r xadd st 2-0 f v
    assert_equal [$c2 read] {{st {{2-0 {f v}}}}}
    $c1 close
    $c2 close
    lindex [r xpending st g] 0
  } {2}

  test {Blocked XREADGROUP gets an error when its group or key goes} {
    r del st
    r xgroup create st g $ mkstream
    set c [redis_deferring_client]
    $c xreadgroup group g one block 0 streams st >
    await_blocked 1
    r xgroup destroy st g
    assert_error {NOGROUP*no longer exists*} {$c read}
    r xgroup create st g $
    $c xreadgroup group g one block 0 streams st >
    await_blocked 1
    r del st
    assert_error {UNBLOCKED*no longer exists*} {$c read}
    $c close
  }
}
