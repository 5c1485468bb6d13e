# What stream commands feed replicas and the AOF, read through SYNC
# (support/repl_stream.tcl): the deterministic forms Redis 7.0.15 streams.
# XADD with the ID it generated and the trim it did, XREADGROUP as XCLAIM
# per delivered entry (plus XGROUP SETID for NOACK reads), XCLAIM and
# XAUTOCLAIM as XCLAIM ... FORCE JUSTID LASTID.

source [file join $::support_dir repl_stream.tcl]

# The stream with times replaced by "T" (delivery times differ per run).
proc untimed {cmds} {
  lmap c $cmds {
    set i [lsearch -exact $c TIME]
    if {$i >= 0} { lset c [expr {$i + 1}] T }
    set c
  }
}

start_server {tags {stream external:skip}} {
  if {![repl_stream_supported]} {
    puts "\[skip\]: stream-propagation.tcl (no SYNC on this server)"
    flush stdout
    return
  }
  set s [repl_stream_open]
  repl_stream_take $s

  test {XADD is fed with the ID it generated} {
    r xadd st 5-* f v
    set id [r xadd st * g w]
    assert_equal [repl_stream_take $s] [list {xadd st 5-0 f v} [list xadd st $id g w]]
  }

  test {Approximate trims are fed as the exact trim that happened} {
    r del st
    r config set stream-node-max-entries 10
    for {set i 1} {$i <= 30} {incr i} { r xadd st $i-0 f v }
    repl_stream_take $s
    r xadd st maxlen ~ 15 31-0 f v
    r xadd st minid ~ 25 32-0 f v
    r xtrim st maxlen ~ 1
    r xtrim st maxlen ~ 1000
    r config set stream-node-max-entries 100
    repl_stream_take $s
  } {{xadd st maxlen = 21 31-0 f v} {xadd st minid = 21-0 32-0 f v} {xtrim st maxlen = 2}}

  test {XREADGROUP is fed as XCLAIM per entry; NOACK as XGROUP SETID} {
    r del st
    r xadd st 1-0 a 1
    r xadd st 2-0 b 2
    r xgroup create st g 0
    repl_stream_take $s
    r xreadgroup group g alice count 1 streams st >
    assert_equal [untimed [repl_stream_take $s]] \
      {{XCLAIM st g alice 0 1-0 TIME T RETRYCOUNT 1 FORCE JUSTID LASTID 1-0}}
    r xreadgroup group g bob noack streams st >
    assert_equal [repl_stream_take $s] \
      {MULTI {XGROUP CREATECONSUMER st g bob} {XGROUP SETID st g 2-0 ENTRIESREAD 2} EXEC}
    # Nothing to read: nothing fed.
    r xreadgroup group g alice streams st >
    repl_stream_take $s
  } {}

  test {XCLAIM, XAUTOCLAIM and XACK} {
    r xclaim st g carol 0 1-0 justid
    assert_equal [untimed [repl_stream_take $s]] \
      {{XCLAIM st g carol 0 1-0 TIME T RETRYCOUNT 1 FORCE JUSTID LASTID 2-0}}
    r xautoclaim st g dave 0 - count 10
    assert_equal [untimed [repl_stream_take $s]] \
      {{XCLAIM st g dave 0 1-0 TIME T RETRYCOUNT 2 FORCE JUSTID LASTID 2-0}}
    r xclaim st g erin 0 9-0 lastid 5-0
    assert_equal [repl_stream_take $s] {{XGROUP SETID st g 5-0 ENTRIESREAD 2}}
    r xack st g 1-0
    repl_stream_take $s
  } {{xack st g 1-0}}

  test {A blocked XREADGROUP served by XADD feeds the XADD, then its XCLAIM} {
    r del st
    r xgroup create st g $ mkstream
    repl_stream_take $s
    set rd [redis_deferring_client]
    $rd xreadgroup group g c block 0 streams st >
    wait_for_condition 200 10 {[info_field [r info clients] blocked_clients] == 1} {
      fail "client did not block"
    }
    r xadd st 7-0 f v
    $rd read
    $rd close
    untimed [repl_stream_take $s]
  } {{xadd st 7-0 f v} {XCLAIM st g c 0 7-0 TIME T RETRYCOUNT 1 FORCE JUSTID LASTID 7-0}}

  repl_stream_close $s
}
