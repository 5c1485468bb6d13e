# Key expiry: the EXPIRE family with NX/XX/GT/LT, TTL reporting, PERSIST,
# lazy expiry on access and active expiry of keys nobody touches.

start_server {tags {expire}} {
  test {EXPIRE sets a TTL, TTL and PTTL report it} {
    r set k v
    assert_equal [r expire k 100] 1
    assert_range [r ttl k] 95 100
    assert_range [r pttl k] 95000 100000
    assert_equal [r expire nokey 100] 0
  }

  test {TTL and PTTL of missing and persistent keys} {
    r del nokey
    r set p v
    list [r ttl nokey] [r pttl nokey] [r ttl p] [r pttl p]
  } {-2 -2 -1 -1}

  test {PEXPIRE, EXPIREAT and PEXPIREAT} {
    r set k v
    assert_equal [r pexpire k 50000] 1
    assert_range [r pttl k] 45000 50000
    set at [expr {[clock seconds] + 1000}]
    assert_equal [r expireat k $at] 1
    assert_equal [r expiretime k] $at
    set atms [expr {[clock milliseconds] + 2000000}]
    assert_equal [r pexpireat k $atms] 1
    assert_equal [r pexpiretime k] $atms
    # EXPIRETIME rounds the millisecond deadline to the nearest second.
    assert_equal [r expiretime k] [expr {($atms + 500) / 1000}]
    r pexpireat k 1999999999499
    assert_equal [r expiretime k] 1999999999
    r pexpireat k 1999999999500
    assert_equal [r expiretime k] 2000000000
  }

  test {EXPIRETIME and PEXPIRETIME of missing and persistent keys} {
    r del nokey
    r set p v
    list [r expiretime nokey] [r pexpiretime nokey] [r expiretime p] [r pexpiretime p]
  } {-2 -2 -1 -1}

  test {PERSIST removes the TTL} {
    r set k v ex 100
    r set p v
    list [r persist k] [r ttl k] [r persist k] [r persist p] [r persist nokey]
  } {1 -1 0 0 0}

  test {EXPIRE NX and XX} {
    r set k v
    assert_equal [r expire k 100 xx] 0
    assert_equal [r ttl k] -1
    assert_equal [r expire k 100 nx] 1
    assert_equal [r expire k 200 nx] 0
    assert_range [r ttl k] 90 100
    assert_equal [r expire k 200 xx] 1
    assert_range [r ttl k] 190 200
  }

  test {EXPIRE GT and LT} {
    r set k v
    # A persistent key counts as an infinite TTL.
    assert_equal [r expire k 100 gt] 0
    assert_equal [r expire k 100 lt] 1
    assert_equal [r expire k 50 gt] 0
    assert_equal [r expire k 200 gt] 1
    assert_range [r ttl k] 190 200
    assert_equal [r expire k 300 lt] 0
    assert_equal [r expire k 150 lt] 1
    assert_range [r ttl k] 140 150
    assert_equal [r pexpire k 100000 xx lt] 1
    assert_range [r pttl k] 90000 100000
  }

  test {EXPIRE option errors} {
    r set k v
    assert_error {ERR NX and XX, GT or LT options at the same time are not compatible} \
      {r expire k 100 nx xx}
    assert_error {ERR NX and XX, GT or LT options at the same time are not compatible} \
      {r expire k 100 nx gt}
    assert_error {ERR GT and LT options at the same time are not compatible} {r expire k 100 gt lt}
    assert_error {ERR Unsupported option bogus} {r expire k 100 bogus}
    assert_error {ERR value is not an integer or out of range} {r expire k x}
    assert_error {ERR wrong number of arguments for 'expire' command} {r expire k}
    r ttl k
  } {-1}

  test {Overflowing expire times are refused} {
    r set k v
    assert_error {ERR invalid expire time in 'expire' command} {r expire k 9223372036854775807}
    assert_error {ERR invalid expire time in 'expire' command} {r expire k 9223372036854775}
    assert_error {ERR invalid expire time in 'pexpire' command} {r pexpire k 9223372036854775807}
    assert_error {ERR invalid expire time in 'expireat' command} {r expireat k 9223372036854775807}
    assert_error {ERR invalid expire time in 'expire' command} {r expire k -9223372036854775808}
    list [r get k] [r ttl k]
  } {v -1}

  test {A negative or past expire deletes the key at once} {
    r set k v
    assert_equal [r expire k -1] 1
    assert_equal [r exists k] 0
    r set k v
    assert_equal [r pexpireat k 1] 1
    assert_equal [r exists k] 0
    r set k v
    assert_equal [r expireat k [expr {[clock seconds] - 10}]] 1
    r exists k
  } {0}

  test {Lazy expiry: an expired key is gone on access} {
    r set k v px 5
    after 30
    list [r get k] [r exists k] [r ttl k]
  } {{} 0 -2}

  test {Expired keys are not returned by KEYS, MGET or EXISTS} {
    r flushdb
    r set live v
    r set dead v px 5
    after 30
    list [r keys *] [r mget live dead] [r exists live dead]
  } {live {v {}} 1}

  test {SET NX succeeds on an expired key} {
    r set k old px 5
    after 30
    list [r set k new nx] [r get k]
  } {OK new}

  test {Active expiry removes keys nobody touches} {
    r flushdb
    for {set i 0} {$i < 200} {incr i} { r set key:$i v px [expr {20 + $i % 50}] }
    r set keeper v
    wait_for_condition 200 50 {[r dbsize] == 1} {
      fail "keys were not expired actively: dbsize [r dbsize]"
    }
    r get keeper
  } {v}

  test {INFO keyspace reports keys and expires, then falls after expiry} {
    r flushdb
    r mset a 1 b 2 c 3
    r pexpire a 100000
    r pexpire b 50
    assert_match {*db0:keys=3,expires=2,avg_ttl=*} [r info keyspace]
    wait_for_condition 200 50 {[string match "*db0:keys=2,expires=1,*" [r info keyspace]]} {
      fail "INFO keyspace did not fall: [r info keyspace]"
    }
  }

  test {SET without KEEPTTL clears the TTL, with KEEPTTL keeps it} {
    r set k v ex 100
    r set k v2 keepttl
    assert_range [r ttl k] 90 100
    r set k v3
    r ttl k
  } {-1}

  test {Writes that keep the TTL: APPEND, INCR, SETRANGE} {
    r set k 1 ex 100
    r append k 2
    r incr k
    r setrange k 0 9
    list [r get k] [expr {[r ttl k] > 90}]
  } {93 1}

  test {GETSET and GETDEL clear the TTL} {
    r set k v ex 100
    r getset k v2
    assert_equal [r ttl k] -1
    r set k v ex 100
    r getdel k
    r ttl k
  } {-2}

  test {RENAME and COPY keep the TTL, MOVE too} {
    r flushall
    r set k v px 100000
    r rename k k2
    assert_range [r pttl k2] 90000 100000
    r copy k2 k3
    assert_range [r pttl k3] 90000 100000
    r move k3 1
    r select 1
    set t [r pttl k3]
    r select 0
    assert_range $t 90000 100000
  }

  test {A TTL set in the past on RENAME target is handled: key expires before rename} {
    r set k v px 5
    after 30
    assert_error {ERR no such key} {r rename k k2}
  }

  test {EXPIRE with a 0 TTL deletes the key} {
    r set k v
    list [r expire k 0] [r exists k]
  } {1 0}
}
