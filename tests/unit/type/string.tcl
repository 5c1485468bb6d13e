# String commands: SET and its options, GET variants, multi-key forms, ranges
# and LCS. Expected replies are those of Redis 7.0.

start_server {tags {string}} {
  test {SET and GET a simple value} {
    r set mykey hello
    r get mykey
  } {hello}

  test {GET of a missing key is nil} {
    r del nokey
    assert_equal [r get nokey] {}
    # nil is a distinct protocol value, not an empty string.
    r readraw 1
    set raw [r get nokey]
    r readraw 0
    set raw
  } {$-1}

  test {SET of an empty string is an empty bulk, not nil} {
    r set empty ""
    r readraw 1
    set a [r get empty]
    set b [r read]
    r readraw 0
    list $a $b
  } {{$0} {}}

  test {SET overwrites any previous value and TTL} {
    r set k v1 ex 100
    r set k v2
    list [r get k] [r ttl k]
  } {v2 -1}

  test {SET NX only when the key is missing} {
    r del k
    set a [r set k first nx]
    set b [r set k second nx]
    list $a $b [r get k]
  } {OK {} first}

  test {SET XX only when the key exists} {
    r del k
    set a [r set k v xx]
    r set k v0
    set b [r set k v1 xx]
    list $a [r exists k] $b [r get k]
  } {{} 1 OK v1}

  test {SET EX and PX set a TTL} {
    r set k v ex 100
    assert_range [r ttl k] 95 100
    r set k v px 100000
    assert_range [r pttl k] 95000 100000
  }

  test {SET EXAT and PXAT set an absolute expiry} {
    set at [expr {[clock seconds] + 200}]
    r set k v exat $at
    assert_equal [r expiretime k] $at
    set atms [expr {[clock milliseconds] + 300000}]
    r set k v pxat $atms
    assert_equal [r pexpiretime k] $atms
  }

  test {SET KEEPTTL keeps the existing TTL} {
    r set k v ex 100
    r set k v2 keepttl
    list [r get k] [expr {[r ttl k] > 90}]
  } {v2 1}

  test {SET GET returns the old value} {
    r del k
    set a [r set k v1 get]
    set b [r set k v2 get]
    list $a $b [r get k]
  } {{} v1 v2}

  test {SET NX GET and XX GET} {
    r set k old
    set a [r set k new nx get]
    set b [r set k newer xx get]
    list $a $b [r get k]
  } {old old newer}

  test {SET option errors} {
    assert_error {ERR syntax error} {r set k v nx xx}
    assert_error {ERR syntax error} {r set k v ex 10 px 100}
    assert_error {ERR syntax error} {r set k v ex 10 keepttl}
    assert_error {ERR syntax error} {r set k v bogus}
    assert_error {ERR syntax error} {r set k v ex}
    assert_error {ERR value is not an integer or out of range} {r set k v ex abc}
    assert_error {ERR invalid expire time in 'set' command} {r set k v ex 0}
    assert_error {ERR invalid expire time in 'set' command} {r set k v px -5}
    assert_error {ERR invalid expire time in 'set' command} {r set k v ex 9223372036854775}
    assert_error {ERR wrong number of arguments for 'set' command} {r set k}
  }

  test {SETNX} {
    r del k
    list [r setnx k a] [r setnx k b] [r get k]
  } {1 0 a}

  test {SETEX and PSETEX} {
    r setex k 100 v
    assert_range [r ttl k] 95 100
    r psetex k 100000 v2
    assert_range [r pttl k] 95000 100000
    assert_equal [r get k] v2
    assert_error {ERR invalid expire time in 'setex' command} {r setex k 0 v}
    assert_error {ERR invalid expire time in 'psetex' command} {r psetex k -1 v}
    assert_error {ERR value is not an integer or out of range} {r setex k x v}
  }

  test {GETSET} {
    r del k
    list [r getset k a] [r getset k b] [r get k]
  } {{} a b}

  test {GETDEL} {
    r set k v
    list [r getdel k] [r exists k] [r getdel k]
  } {v 0 {}}

  test {GETEX with EX PX EXAT PXAT and PERSIST} {
    r set k v
    assert_equal [r getex k] v
    assert_equal [r ttl k] -1
    assert_equal [r getex k ex 100] v
    assert_range [r ttl k] 95 100
    assert_equal [r getex k px 200000] v
    assert_range [r pttl k] 195000 200000
    set at [expr {[clock seconds] + 500}]
    r getex k exat $at
    assert_equal [r expiretime k] $at
    set atms [expr {[clock milliseconds] + 600000}]
    r getex k pxat $atms
    assert_equal [r pexpiretime k] $atms
    assert_equal [r getex k persist] v
    assert_equal [r ttl k] -1
    assert_equal [r getex nokey ex 10] {}
  }

  test {GETEX errors} {
    r set k v
    assert_error {ERR syntax error} {r getex k ex 10 px 10}
    assert_error {ERR syntax error} {r getex k persist ex 10}
    assert_error {ERR syntax error} {r getex k bogus}
    assert_error {ERR invalid expire time in 'getex' command} {r getex k ex -1}
    assert_error {ERR value is not an integer or out of range} {r getex k ex x}
  }

  test {MSET MGET} {
    r mset a 1 b 2 c 3
    r mget a b nokey c
  } {1 2 {} 3}

  test {MSET with an odd number of arguments} {
    assert_error {ERR wrong number of arguments for 'mset' command} {r mset a 1 b}
  }

  test {MSETNX is all or nothing} {
    r del x1 x2 x3
    set a [r msetnx x1 a x2 b]
    set b [r msetnx x2 z x3 c]
    list $a $b [r mget x1 x2 x3]
  } {1 0 {a b {}}}

  test {APPEND and STRLEN} {
    r del k
    list [r append k foo] [r append k bar] [r get k] [r strlen k] [r strlen nokey]
  } {3 6 foobar 6 0}

  test {APPEND to an integer value} {
    r set k 12
    r append k 34
    list [r get k] [r incr k]
  } {1234 1235}

  test {GETRANGE with positive and negative indexes} {
    r set k "Hello World"
    list [r getrange k 0 4] [r getrange k -5 -1] [r getrange k 0 -1] [r getrange k 5 2] \
      [r getrange k 100 200] [r getrange k -100 2] [r getrange nokey 0 10]
  } {Hello World {Hello World} {} {} Hel {}}

  test {GETRANGE against an integer encoded value} {
    r set k 123456
    r getrange k 1 3
  } {234}

  test {SETRANGE overwrites and pads with zero bytes} {
    r set k "Hello World"
    assert_equal [r setrange k 6 Redis] 11
    assert_equal [r get k] "Hello Redis"
    r del k
    assert_equal [r setrange k 3 ab] 5
    assert_equal [r get k] "\x00\x00\x00ab"
    # An empty value on a missing key creates nothing.
    r del k
    list [r setrange k 5 ""] [r exists k]
  } {0 0}

  test {SETRANGE errors} {
    r set k v
    assert_error {ERR offset is out of range} {r setrange k -1 x}
    assert_error {ERR string exceeds maximum allowed size (proto-max-bulk-len)} \
      {r setrange k 536870911 xx}
    assert_error {ERR value is not an integer or out of range} {r setrange k abc x}
  }

  test {LCS basic and LEN} {
    r mset a ohmytext b mynewtext
    list [r lcs a b] [r lcs a b len] [r lcs a nokey] [r lcs nokey1 nokey2 len]
  } {mytext 6 {} 0}

  test {LCS IDX, WITHMATCHLEN and MINMATCHLEN} {
    r mset a ohmytext b mynewtext
    assert_equal [r lcs a b idx] {matches {{{4 7} {5 8}} {{2 3} {0 1}}} len 6}
    assert_equal [r lcs a b idx withmatchlen] \
      {matches {{{4 7} {5 8} 4} {{2 3} {0 1} 2}} len 6}
    assert_equal [r lcs a b idx minmatchlen 4] {matches {{{4 7} {5 8}}} len 6}
  }

  test {LCS errors} {
    r mset a x b y
    assert_error {ERR If you want both the length and indexes*} {r lcs a b len idx}
    assert_error {ERR syntax error} {r lcs a b bogus}
  }

  test {Values are binary safe: every byte value} {
    set all ""
    for {set i 0} {$i < 256} {incr i} { append all [format %c $i] }
    r set bin $all
    assert_equal [r strlen bin] 256
    assert_equal [r get bin] $all
    # Keys are binary safe too.
    r set "key\x00\r\n\xff" v
    r get "key\x00\r\n\xff"
  } {v}

  test {Random binary values round-trip} {
    for {set i 0} {$i < 50} {incr i} {
      set v [randstring [expr {int(rand() * 300)}]]
      r set rnd $v
      assert_equal [r get rnd] $v
    }
  }

  test {Big values (4 MB) round-trip, including APPEND growth} {
    set big [string repeat "0123456789abcdef" 262144]
    r set big $big
    assert_equal [r strlen big] 4194304
    assert_equal [r get big] $big
    r append big xyz
    assert_equal [r strlen big] 4194307
    assert_equal [r getrange big -3 -1] xyz
  }

  test {OBJECT ENCODING of strings: int, embstr, raw} {
    r set n 12345
    r set s [string repeat a 44]
    r set l [string repeat a 45]
    r set neg -42
    r set notint 012
    list [r object encoding n] [r object encoding s] [r object encoding l] \
      [r object encoding neg] [r object encoding notint]
  } {int embstr raw int embstr}

  test {APPEND makes a value raw} {
    r set s abc
    r append s def
    r object encoding s
  } {raw}

  test {MSET clears TTLs, SETNX on an existing key keeps it} {
    r set a 1 ex 100
    r set b 1 ex 100
    r mset a 2
    r setnx b 2
    list [r ttl a] [expr {[r ttl b] > 90}] [r get b]
  } {-1 1 1}

  test {INCR turns an embstr number back into int encoding} {
    r set n 10
    r append n 0
    assert_equal [r object encoding n] raw
    r incr n
    list [r get n] [r object encoding n]
  } {101 int}

  test {Numbers too long for a 64-bit integer stay strings} {
    r set n 12345678901234567890
    list [r object encoding n] [r get n]
  } {embstr 12345678901234567890}
}
