# Blocking list commands and the generic blocking machinery: waking order,
# timeouts, CLIENT UNBLOCK, clients that leave, SELECT/FLUSHALL/SWAPDB, and
# writes arriving over another transport.

proc blocked_count {} {
  info_field [r info clients] blocked_clients
}

proc wait_blocked {n} {
  wait_for_condition 1000 10 {[blocked_count] == $n} {
    fail "expected $n blocked clients, have [blocked_count]"
  }
}

start_server {tags {blocking}} {
  test {BLPOP and BRPOP serve at once when a list has elements} {
    r del l1 l2
    r rpush l2 a b c
    list [r blpop l1 l2 0] [r brpop l1 l2 1] [r llen l2]
  } {{l2 a} {l2 c} 1}

  test {BLPOP blocks until another client pushes} {
    r del l
    set rd [redis_deferring_client]
    $rd blpop l 0
    wait_blocked 1
    assert_match {*flags=b*} [r client list]
    r rpush l x
    set res [$rd read]
    $rd close
    list $res [r exists l] [blocked_count]
  } {{l x} 0 0}

  test {BLPOP on several keys is woken by the first one written} {
    r del l1 l2
    set rd [redis_deferring_client]
    $rd brpop l1 l2 0
    wait_blocked 1
    r lpush l2 y
    set res [$rd read]
    $rd close
    set res
  } {l2 y}

  test {Timeout: null array reply after about the given time} {
    r del l
    set rd [redis_deferring_client]
    set start [clock milliseconds]
    $rd blpop l 0.2
    assert_equal [$rd read] {}
    set elapsed [expr {[clock milliseconds] - $start}]
    # Well under a second: 0.2 is not rounded up to whole seconds.
    assert_range $elapsed 180 900
    $rd readraw 1
    $rd brpop l 0.01
    set raw2 [$rd read]
    $rd blmove l d left left 0.01
    set raw_move [$rd read]
    $rd readraw 0
    $rd hello 3
    $rd read
    $rd readraw 1
    $rd blmpop 0.01 1 l left
    set raw3 [$rd read]
    $rd readraw 0
    $rd close
    list $raw2 $raw_move $raw3
  } {*-1 *-1 _}

  test {A 1 ms timeout does not block indefinitely} {
    r del l
    list [r blpop l 0.001] [r brpoplpush l d 0.001] [r blmpop 0.001 1 l left] \
        [r blpop l 0.0001]
  } {{} {} {} {}}

  test {Timeout errors} {
    assert_error {ERR timeout is not a float or out of range} {r blpop l abc}
    assert_error {ERR timeout is not a float or out of range} {r blpop l nan}
    assert_error {ERR timeout is negative} {r blpop l -1}
    assert_error {ERR timeout is negative} {r brpoplpush l d -0.5}
    assert_error {ERR timeout is negative} {r blmove l d left left -1}
    assert_error {ERR timeout is negative} {r blmpop -1 1 l left}
    assert_error {ERR timeout is negative} {r blpop l 1e30}
    assert_error {ERR wrong number of arguments for 'blpop' command} {r blpop l}
    assert_error {ERR syntax error} {r blmove l d left up 0}
    assert_error {ERR numkeys should be greater than 0} {r blmpop 0 0 l left}
  }

  test {First come, first served; one push serves several clients in order} {
    r del l
    set clients {}
    for {set i 0} {$i < 3} {incr i} {
      set rd [redis_deferring_client]
      $rd blpop l 0
      wait_blocked [expr {$i + 1}]
      lappend clients $rd
    }
    r rpush l a b c d
    set res {}
    foreach rd $clients {
      lappend res [$rd read]
      $rd close
    }
    list $res [r lrange l 0 -1]
  } {{{l a} {l b} {l c}} d}

  test {BLMOVE whose destination wakes another blocked client} {
    r del src dst
    set rd1 [redis_deferring_client]
    set rd2 [redis_deferring_client]
    $rd1 blmove src dst right left 0
    wait_blocked 1
    $rd2 blpop dst 0
    wait_blocked 2
    r rpush src v
    set res [list [$rd1 read] [$rd2 read] [r exists src dst]]
    $rd1 close
    $rd2 close
    set res
  } {v {dst v} 0}

  test {BRPOPLPUSH and BLMPOP with COUNT when woken} {
    r del src dst l
    set rd1 [redis_deferring_client]
    set rd2 [redis_deferring_client]
    $rd1 brpoplpush src dst 0
    $rd2 blmpop 0 2 nokey l right count 2
    wait_blocked 2
    r rpush src a b
    r rpush l 1 2 3
    set res [list [$rd1 read] [$rd2 read] [r lrange src 0 -1] [r lrange dst 0 -1] [r lrange l 0 -1]]
    $rd1 close
    $rd2 close
    set res
  } {b {l {3 2}} a b 1}

  test {WRONGTYPE at block time; a key deleted or replaced by another type keeps clients waiting} {
    r del l
    r set s x
    assert_error {WRONGTYPE*} {r blpop s 0}
    assert_error {WRONGTYPE*} {r blmpop 0 1 s left}
    set rd [redis_deferring_client]
    $rd blpop l 0
    wait_blocked 1
    r set l notalist
    r del l
    r set l again
    after 50
    assert_equal [blocked_count] 1
    r del l
    r rpush l ok
    set res [$rd read]
    $rd close
    set res
  } {l ok}

  test {BLMOVE to a destination of another type answers WRONGTYPE when woken} {
    r del src
    r set dst x
    set rd [redis_deferring_client]
    $rd blmove src dst left left 0
    wait_blocked 1
    r rpush src a
    assert_error {WRONGTYPE*} {$rd read}
    $rd close
    list [r lrange src 0 -1] [blocked_count]
  } {a 0}

  test {A client that disconnects while blocked is removed cleanly} {
    r del l
    set rd [redis_deferring_client]
    $rd blpop l 0
    wait_blocked 1
    $rd close
    wait_blocked 0
    r rpush l x
    r lrange l 0 -1
  } {x}

  test {Keys are per db: SELECT} {
    r del l
    set rd [redis_deferring_client]
    $rd select 9
    $rd read
    $rd blpop l 0
    wait_blocked 1
    r rpush l db0
    after 50
    assert_equal [blocked_count] 1
    r select 9
    r rpush l db9
    set res [$rd read]
    r select 0
    $rd close
    list $res [r lrange l 0 -1]
  } {{l db9} db0}

  test {FLUSHALL keeps clients blocked; SWAPDB brings a list to them} {
    r flushall
    set rd [redis_deferring_client]
    $rd select 9
    $rd read
    $rd blpop l 0
    wait_blocked 1
    r flushall
    after 50
    assert_equal [blocked_count] 1
    r select 10
    r rpush l fromdb10
    r select 0
    r swapdb 9 10
    set res [$rd read]
    $rd close
    set res
  } {l fromdb10}

  test {CLIENT UNBLOCK with TIMEOUT and ERROR} {
    r del l
    r config resetstat
    set rd [redis_deferring_client]
    $rd client id
    set id [$rd read]
    $rd blpop l 0
    wait_blocked 1
    assert_equal [r client unblock $id] 1
    assert_equal [$rd read] {}
    $rd brpoplpush l d 0
    wait_blocked 1
    assert_equal [r client unblock $id error] 1
    assert_error {UNBLOCKED client unblocked via CLIENT UNBLOCK} {$rd read}
    assert_equal [r client unblock $id] 0
    assert_equal [r client unblock 999999] 0
    assert_error {ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR} {r client unblock $id foo}
    $rd close
    # Either way the command counts as failed (Redis 7.0's rule).
    assert_match {*failed_calls=1*} [info_field [r info commandstats] cmdstat_blpop]
    assert_match {*failed_calls=1*} [info_field [r info commandstats] cmdstat_brpoplpush]
    blocked_count
  } {0}

  test {Input sent while blocked runs after the unblock, in order} {
    r del l
    set rd [redis_deferring_client]
    $rd blpop l 0
    wait_blocked 1
    $rd ping
    $rd rpush l2 after
    after 50
    assert_equal [r exists l2] 0
    r rpush l x
    set res [list [$rd read] [$rd read] [$rd read]]
    $rd close
    r del l2
    set res
  } {{l x} PONG 1}

  test {A blocked client can pipeline another blocking command} {
    r del l
    set rd [redis_deferring_client]
    $rd blpop l 0
    $rd blpop l 0
    wait_blocked 1
    r rpush l a
    assert_equal [$rd read] {l a}
    wait_blocked 1
    r rpush l b
    set res [$rd read]
    $rd close
    set res
  } {l b}

  test {Linked and circular BRPOPLPUSH} {
    r del list1 list2 list3
    set rd1 [redis_deferring_client]
    set rd2 [redis_deferring_client]
    $rd1 blmove list1 list2 right left 0
    $rd2 blmove list2 list3 left right 0
    wait_blocked 2
    r rpush list1 foo
    assert_equal [list [$rd1 read] [$rd2 read]] {foo foo}
    set linked [list [r lrange list1 0 -1] [r lrange list2 0 -1] [r lrange list3 0 -1]]
    $rd1 brpoplpush list1 list2 0
    $rd2 brpoplpush list2 list1 0
    wait_blocked 2
    r rpush list1 bar
    assert_equal [list [$rd1 read] [$rd2 read]] {bar bar}
    $rd1 close
    $rd2 close
    list $linked [r lrange list1 0 -1] [r lrange list2 0 -1]
  } {{{} {} foo} bar {}}

  test {Self-referential BRPOPLPUSH} {
    r del blist
    set rd [redis_deferring_client]
    $rd brpoplpush blist blist 0
    wait_blocked 1
    r rpush blist foo
    set res [list [$rd read] [r lrange blist 0 -1]]
    $rd close
    set res
  } {foo foo}

  test {Several BRPOPLPUSH clients: a wrong-type destination fails only its own client} {
    r del blist target1 target2
    r set target1 nolist
    set rd1 [redis_deferring_client]
    set rd2 [redis_deferring_client]
    $rd1 brpoplpush blist target1 0
    $rd2 brpoplpush blist target2 0
    wait_blocked 2
    r lpush blist foo
    assert_error {WRONGTYPE*} {$rd1 read}
    set res [list [$rd2 read] [r lrange target2 0 -1] [r exists blist]]
    $rd1 close
    $rd2 close
    set res
  } {foo foo 0}

  test {BLPOP with variadic LPUSH gets the last pushed} {
    r del blist
    set rd [redis_deferring_client]
    $rd blpop blist 0
    wait_blocked 1
    r lpush blist foo bar
    set res [list [$rd read] [r lrange blist 0 -1]]
    $rd close
    set res
  } {{blist bar} foo}

  test {BLPOP with the same key several times; RENAME moves a list into place} {
    r del list1 list2 bob
    set rd [redis_deferring_client]
    $rd blpop list1 list2 list2 list1 0
    wait_blocked 1
    r rpush bob abc def
    r rename bob list2
    set res [$rd read]
    $rd close
    set res
  } {list2 abc}

  test {A blocking command is counted once in commandstats} {
    r config resetstat
    r del l
    set rd [redis_deferring_client]
    $rd blpop l 0
    wait_blocked 1
    r lpush l 1
    $rd read
    $rd blpop l 0.01
    $rd read
    $rd close
    regexp {cmdstat_blpop:calls=(\d+)} [r info commandstats] -> calls
    set calls
  } {2}

  test {CLIENT REPLY OFF also silences the reply of a woken client} {
    r del l
    set rd [redis_deferring_client]
    $rd client reply off
    $rd blpop l 0
    wait_blocked 1
    r rpush l x y
    wait_for_condition 500 10 {[r llen l] == 1} { fail "blpop was not served" }
    $rd client reply on
    set res [$rd read]
    $rd close
    set res
  } {OK}

  test {The idle timeout does not close a blocked client} {
    r del l
    r config set timeout 1
    set rd [redis_deferring_client]
    $rd blpop l 0
    wait_blocked 1
    # Keep this connection busy: only the blocked one stays idle.
    for {set i 0} {$i < 11} {incr i} {
      after 200
      r ping
    }
    r rpush l x
    set res [$rd read]
    r config set timeout 0
    $rd close
    set res
  } {l x}

  tags {needs:unix external:skip} {
    test {A Unix socket client unblocks a TCP client} {
      r del l
      set rd [redis_deferring_client]
      $rd blpop l 0
      wait_blocked 1
      set u [redis_unix_client]
      $u rpush l viaunix
      $u close
      set res [$rd read]
      $rd close
      set res
    } {l viaunix}

    test {A TCP client unblocks a Unix socket client} {
      r del l
      set u [redis_unix_client 0 1]
      $u brpop l 0
      wait_blocked 1
      r rpush l viatcp
      set res [$u read]
      $u close
      set res
    } {l viatcp}
  }

  test {Timeouts of many clients fire in order without spinning} {
    r del l
    set clients {}
    foreach t {0.3 0.1 0.2} {
      set rd [redis_deferring_client]
      $rd blpop l $t
      lappend clients $rd
    }
    wait_blocked 3
    set cpu [info_dict [r info cpu]]
    set before [expr {[dict get $cpu used_cpu_user] + [dict get $cpu used_cpu_sys]}]
    set start [clock milliseconds]
    set order {}
    # Read whichever answers first: they time out shortest first.
    foreach i {1 2 0} {
      assert_equal [[lindex $clients $i] read] {}
      lappend order [expr {[clock milliseconds] - $start < 1000}]
    }
    set cpu [info_dict [r info cpu]]
    set after [expr {[dict get $cpu used_cpu_user] + [dict get $cpu used_cpu_sys]}]
    # A spinning wait would burn about the whole 0.3 s.
    assert_lessthan [expr {$after - $before}] 0.1
    foreach rd $clients { $rd close }
    list $order [blocked_count]
  } {{1 1 1} 0}

  test {Inside MULTI a blocking command answers as on timeout} {
    r del l z
    r multi
    r blpop l 0
    r brpoplpush l d 0
    r blmpop 0 1 l left
    r bzpopmin z 0
    r bzmpop 0 1 z min
    r exec
  } {{} {} {} {} {}}

  test {BZPOPMIN and BZPOPMAX serve at once, and block until a ZADD} {
    r del z1 z2
    r zadd z2 1 a 2 b 3 c
    assert_equal [r bzpopmin z1 z2 0] {z2 a 1}
    assert_equal [r bzpopmax z1 z2 0] {z2 c 3}
    set rd [redis_deferring_client]
    $rd bzpopmax z1 0
    wait_blocked 1
    r zadd z1 5 x 7 y
    set res [$rd read]
    $rd close
    list $res [r zrange z1 0 -1]
  } {{z1 y 7} x}

  test {BZMPOP with COUNT when woken; timeout gives a null array} {
    r del z
    set rd [redis_deferring_client]
    $rd bzmpop 0 2 nosuch z max count 2
    wait_blocked 1
    r zadd z 1 a 2 b 3 c
    set res [$rd read]
    $rd close
    list $res [r zrange z 0 -1] [r bzmpop 0.01 1 nosuch min] [r bzpopmin nosuch 0.01]
  } {{z {{c 3} {b 2}}} a {} {}}

  test {BZPOPMIN: WRONGTYPE at block time, a list at the key keeps the client waiting} {
    r del z l
    r rpush l x
    assert_error {WRONGTYPE*} {r bzpopmin l 0}
    assert_error {*timeout is not a float*} {r bzpopmin z abc}
    assert_error {*numkeys*} {r bzmpop 0 0 z min}
    set rd [redis_deferring_client]
    $rd bzpopmin z 0
    wait_blocked 1
    r rpush z notazset
    after 50
    assert_equal [blocked_count] 1
    r del z
    r zadd z 4 m
    set res [$rd read]
    $rd close
    set res
  } {z m 4}

  test {COMMAND GETKEYS for BZMPOP} {
    r command getkeys bzmpop 0 2 a b min
  } {a b}
}
