# Generic keyspace commands: deletion, lookup, patterns, renames, moves and
# copies between databases, flushes, SELECT/SWAPDB and OBJECT ENCODING.

start_server {tags {keyspace}} {
  test {DEL returns the number of keys removed} {
    r mset a 1 b 2 c 3
    list [r del a b nokey] [r del a] [r exists a b c]
  } {2 0 1}

  test {UNLINK behaves like DEL} {
    r mset a 1 b 2
    list [r unlink a b nokey] [r exists a b]
  } {2 0}

  test {EXISTS counts repeated keys each time} {
    r set a 1
    r exists a a nokey a
  } {3}

  test {TYPE of a string and of a missing key} {
    r set s v
    r del nokey
    list [r type s] [r type nokey]
  } {string none}

  test {KEYS with *, ? and character classes} {
    r flushdb
    foreach k {foo foa fob fooo bar baz b} { r set $k 1 }
    assert_equal [lsort [r keys *]] {b bar baz foa fob foo fooo}
    assert_equal [lsort [r keys fo?]] {foa fob foo}
    assert_equal [lsort [r keys fo\[ab\]]] {foa fob}
    assert_equal [lsort [r keys fo\[^ab\]]] {foo}
    assert_equal [lsort [r keys fo\[a-b\]]] {foa fob}
    assert_equal [lsort [r keys b*]] {b bar baz}
    assert_equal [lsort [r keys *o]] {foo fooo}
    r keys nomatch*
  } {}

  test {KEYS with escaped special characters} {
    r flushdb
    r mset {a*b} 1 {a?b} 2 axb 3 {a[b} 4 {a\b} 5
    assert_equal [lsort [r keys {a\*b}]] {a*b}
    assert_equal [lsort [r keys {a\?b}]] {a?b}
    assert_equal [lsort [r keys {a\[b}]] {{a[b}}
    assert_equal [lsort [r keys {a\\b}]] {{a\b}}
    lsort [r keys {a?b}]
  } {a*b a?b {a[b} {a\b} axb}

  test {RANDOMKEY} {
    r flushdb
    assert_equal [r randomkey] {}
    r mset x 1 y 2
    set seen {}
    for {set i 0} {$i < 50} {incr i} { lappend seen [r randomkey] }
    lsort -unique $seen
  } {x y}

  test {RENAME moves value and TTL} {
    r flushdb
    r set src v ex 100
    r rename src dst
    list [r exists src] [r get dst] [expr {[r ttl dst] > 90}]
  } {0 v 1}

  test {RENAME overwrites the destination and its TTL} {
    r set src v
    r set dst old ex 100
    r rename src dst
    list [r get dst] [r ttl dst]
  } {v -1}

  test {RENAME errors and renaming to itself} {
    r del nokey
    assert_error {ERR no such key} {r rename nokey b}
    r set a 1
    r rename a a
  } {OK}

  test {RENAMENX} {
    r flushdb
    r mset a 1 b 2
    set x [r renamenx a b]
    set y [r renamenx a c]
    list $x $y [r mget a b c] [r renamenx c c]
  } {0 1 {{} 2 1} 0}

  test {SELECT switches databases; out of range and non-integer errors} {
    r select 1
    r set k db1
    r select 0
    r set k db0
    assert_equal [r get k] db0
    r select 1
    assert_equal [r get k] db1
    r select 0
    assert_error {ERR DB index is out of range} {r select 16}
    assert_error {ERR DB index is out of range} {r select -1}
    assert_error {ERR value is not an integer or out of range} {r select abc}
    r get k
  } {db0}

  test {MOVE to another database} {
    r flushall
    r set k v
    assert_equal [r move k 1] 1
    assert_equal [r exists k] 0
    r select 1
    assert_equal [r get k] v
    r select 0
    # Fails when the destination already has the key.
    r set k other
    assert_equal [r move k 1] 0
    assert_equal [r move nokey 1] 0
    assert_error {ERR source and destination objects are the same} {r move k 0}
    assert_error {ERR DB index is out of range} {r move k 99}
    assert_error {ERR value is not an integer or out of range} {r move k x}
    r get k
  } {other}

  test {MOVE keeps the TTL} {
    r flushall
    r set k v ex 100
    r move k 2
    r select 2
    set ttl [r ttl k]
    r select 0
    assert_range $ttl 90 100
  }

  test {COPY within a database, REPLACE, and TTL} {
    r flushall
    r set src v ex 100
    assert_equal [r copy src dst] 1
    assert_equal [r get dst] v
    assert_range [r ttl dst] 90 100
    r set src v2
    assert_equal [r copy src dst] 0
    assert_equal [r get dst] v
    assert_equal [r copy src dst replace] 1
    assert_equal [r get dst] v2
    assert_equal [r ttl dst] -1
    assert_equal [r copy nokey dst2] 0
    r exists dst2
  } {0}

  test {COPY to another DB} {
    r flushall
    r set src v
    assert_equal [r copy src src db 3] 1
    r select 3
    set v [r get src]
    r select 0
    list $v [r get src]
  } {v v}

  test {COPY errors} {
    r set a 1
    assert_error {ERR source and destination objects are the same} {r copy a a}
    assert_error {ERR DB index is out of range} {r copy a b db 99}
    assert_error {ERR value is not an integer or out of range} {r copy a b db x}
    assert_error {ERR syntax error} {r copy a b bogus}
  }

  test {TOUCH counts existing keys} {
    r flushdb
    r mset a 1 b 2
    r touch a b nokey
  } {2}

  test {DBSIZE and FLUSHDB only affect the selected DB} {
    r flushall
    r mset a 1 b 2 c 3
    r select 1
    r set x 1
    assert_equal [r dbsize] 1
    r flushdb
    assert_equal [r dbsize] 0
    r select 0
    r dbsize
  } {3}

  test {FLUSHALL SYNC and ASYNC empty every DB} {
    r set a 1
    r select 1
    r set b 1
    r select 0
    assert_equal [r flushall async] OK
    assert_equal [r dbsize] 0
    r set a 1
    assert_equal [r flushall sync] OK
    r select 1
    set n [r dbsize]
    r select 0
    list $n [r dbsize] [r flushdb async] [r flushdb sync]
  } {0 0 OK OK}

  test {FLUSHDB and FLUSHALL syntax errors} {
    assert_error {ERR syntax error} {r flushdb bogus}
    assert_error {ERR syntax error} {r flushall async sync}
  }

  test {FLUSHALL and FLUSHDB count the keys they remove as changes; with save points FLUSHALL saves} {
    # As Redis 7.0.15: a flush adds the keys it removed to
    # rdb_changes_since_last_save; with save points FLUSHALL saves the empty
    # data set, leaving no change unsaved.
    set saved [lindex [r config get save] 1]
    r config set save ""
    r flushall
    r config resetstat
    set before [info_field [r info persistence] rdb_changes_since_last_save]
    r mset a 1 b 2 c 3
    r flushdb
    r flushdb
    set after_flushdb [expr {[info_field [r info persistence] rdb_changes_since_last_save] - $before}]
    r set d 4
    r config set save "3600 1"
    r flushall
    set after_flushall [info_field [r info persistence] rdb_changes_since_last_save]
    r config set save $saved
    list $after_flushdb $after_flushall
  } {6 0}

  test {SWAPDB exchanges two databases} {
    r flushall
    r set k in0
    r select 1
    r set k in1
    r set only1 x
    r select 0
    assert_equal [r swapdb 0 1] OK
    assert_equal [r get k] in1
    assert_equal [r dbsize] 2
    r select 1
    set v [r get k]
    r select 0
    set v
  } {in0}

  test {SWAPDB errors} {
    assert_error {ERR invalid first DB index} {r swapdb x 0}
    assert_error {ERR invalid second DB index} {r swapdb 0 x}
    assert_error {ERR DB index is out of range} {r swapdb 0 99}
    assert_error {ERR wrong number of arguments for 'swapdb' command} {r swapdb 0}
  }

  test {OBJECT ENCODING of a missing key is nil, unknown subcommand errors} {
    r del nokey
    assert_equal [r object encoding nokey] {}
    assert_error {ERR unknown subcommand 'bogus'. Try OBJECT HELP.} {r object bogus x}
  }

  test {Commands on a missing key in another DB do not see keys of DB 0} {
    r flushall
    r set shared 1
    r select 5
    set r1 [r exists shared]
    set r2 [r keys *]
    r select 0
    list $r1 $r2
  } {0 {}}

  test {Each connection has its own selected DB} {
    r flushall
    set c [redis_client]
    $c select 7
    $c set k in7
    r set k in0
    set a [$c get k]
    $c close
    list $a [r get k]
  } {in7 in0}

  test {DEL and EXISTS of an expired key count nothing} {
    r set k v px 5
    after 30
    list [r exists k] [r del k]
  } {0 0}

  test {Key names are binary safe and may be large} {
    set big [string repeat "k\x00" 50000]
    r set $big v
    assert_equal [r get $big] v
    assert_equal [r exists $big] 1
    r del $big
  } {1}

  test {Arity errors of keyspace commands} {
    assert_error {ERR wrong number of arguments for 'exists' command} {r exists}
    assert_error {ERR wrong number of arguments for 'del' command} {r del}
    assert_error {ERR wrong number of arguments for 'rename' command} {r rename a}
    assert_error {ERR wrong number of arguments for 'keys' command} {r keys}
  }
}
