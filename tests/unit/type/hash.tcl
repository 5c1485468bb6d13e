# Hashes: every H* command, the listpack -> hashtable conversion (entries,
# long fields/values, never back), errors with Redis 7.0's exact text, and a
# randomized comparison against a Tcl dict model.

proc sorted_pairs {flat} {
  set pairs {}
  foreach {f v} $flat { lappend pairs [list $f $v] }
  return [lsort -index 0 $pairs]
}

# Whether running cmd after WATCH key makes the next EXEC fail.
proc watch_broken {key cmd} {
  r watch $key
  catch {r {*}$cmd}
  r multi
  r ping
  expr {[r exec] eq ""}
}

start_server {tags {hash}} {
  test {HSET/HGET basics and the reply counts new fields only} {
    r del h
    assert_equal [r hset h a 1 b 2] 2
    assert_equal [r hset h a 10 c 3] 1
    assert_encoding listpack h
    list [r hget h a] [r hget h b] [r hget h c] [r hget h nope] [r hget nokey a]
  } {10 2 3 {} {}}

  test {HSET with an odd number of arguments is a wrong-arity error} {
    assert_error {ERR wrong number of arguments for 'hset' command} {r hset h a}
    assert_error {ERR wrong number of arguments for 'hset' command} {r hset h a 1 b}
    assert_error {ERR wrong number of arguments for 'hmset' command} {r hmset h a 1 b}
    assert_error {ERR wrong number of arguments for 'hget' command} {r hget h}
    assert_error {ERR wrong number of arguments for 'hsetnx' command} {r hsetnx h a}
    assert_error {ERR wrong number of arguments for 'hgetall' command} {r hgetall h x}
    assert_error {ERR wrong number of arguments for 'hstrlen' command} {r hstrlen h a b}
    assert_equal [r exists nokey] 0
  }

  test {HMSET replies OK and HMGET returns nil for missing fields and keys} {
    r del h
    assert_equal [r hmset h a 1 b 2] OK
    list [r hmget h a x b] [r hmget nokey a b]
  } {{1 {} 2} {{} {}}}

  test {HSETNX sets only absent fields} {
    r del h
    list [r hsetnx h a 1] [r hsetnx h a 2] [r hget h a]
  } {1 0 1}

  test {HGETALL HKEYS HVALS, and empty replies for a missing key} {
    r del h
    r hset h x 1 y 2 z 3
    list [sorted_pairs [r hgetall h]] [lsort [r hkeys h]] [lsort [r hvals h]] \
        [r hgetall nokey] [r hkeys nokey] [r hvals nokey]
  } {{{x 1} {y 2} {z 3}} {x y z} {1 2 3} {} {} {}}

  test {HDEL counts removed fields and deletes the key with the last one} {
    r del h
    r hset h a 1 b 2 c 3
    assert_equal [r hdel h a nope a] 1
    assert_equal [r hlen h] 2
    assert_equal [r hdel h b c d] 2
    list [r exists h] [r hdel h a] [r hdel nokey a]
  } {0 0 0}

  test {HEXISTS HLEN HSTRLEN, integer-looking values included} {
    r del h
    r hset h s hello n 123 neg -1 big 9223372036854775807 z 0012
    list [r hexists h s] [r hexists h x] [r hexists nokey s] [r hlen h] [r hlen nokey] \
        [r hstrlen h s] [r hstrlen h n] [r hstrlen h neg] [r hstrlen h big] \
        [r hstrlen h z] [r hstrlen h x] [r hstrlen nokey x] [r hget h z] [r hget h neg]
  } {1 0 0 5 0 5 3 2 19 4 0 0 0012 -1}

  test {Lookups match fields only, never values; integer-like fields} {
    r del h
    r hset h a b b c 1 2 2 -3 01 x
    assert_encoding listpack h
    list [r hget h b] [r hget h c] [r hget h 1] [r hget h 2] [r hget h -3] [r hget h 01] \
        [r hexists h x] [r hdel h c x] [r hlen h] [lsort [r hkeys h]]
  } {c {} 2 -3 {} x 0 0 5 {01 1 2 a b}}

  test {Binary-safe fields and values, the empty string included} {
    r del h
    r hset h "" "" "a\x00b" "c\r\nd"
    list [r hget h ""] [r hget h "a\x00b"] [r hstrlen h "a\x00b"] [r hlen h]
  } [list {} "c\r\nd" 4 2]

  test {Listpack up to hash-max-listpack-entries, hashtable one past it} {
    assert_equal [lindex [r config get hash-max-listpack-entries] 1] 512
    r del h
    for {set i 0} {$i < 512} {incr i} { r hset h f$i $i }
    assert_encoding listpack h
    r hset h f511 again
    assert_encoding listpack h
    r hset h f512 512
    assert_encoding hashtable h
    assert_equal [r hlen h] 513
    assert_equal [r hget h f100] 100
    # Never converts back.
    for {set i 0} {$i < 510} {incr i} { r hdel h f$i }
    assert_equal [r hlen h] 3
    assert_encoding hashtable h
    lsort [r hkeys h]
  } {f510 f511 f512}

  test {A field or value longer than hash-max-listpack-value converts} {
    r del h1 h2 h3
    r hset h1 a [string repeat x 64]
    assert_encoding listpack h1
    r hset h1 b [string repeat x 65]
    assert_encoding hashtable h1
    r hset h2 [string repeat k 65] v
    assert_encoding hashtable h2
    r hsetnx h3 a [string repeat y 100]
    assert_encoding hashtable h3
    list [r hstrlen h1 b] [r hget h2 [string repeat k 65]] [r hstrlen h3 a]
  } {65 v 100}

  test {HINCRBYFLOAT producing a long value converts the hash} {
    r del h
    r hset h f 1
    r hincrbyfloat h f 1e70
    assert_encoding hashtable h
    r hstrlen h f
  } {71}

  test {CONFIG SET of the limits, and the ziplist aliases} {
    r config set hash-max-ziplist-entries 4
    r config set hash-max-ziplist-value 8
    set got [list [lindex [r config get hash-max-listpack-entries] 1] \
                 [lindex [r config get hash-max-listpack-value] 1]]
    r del h
    r hset h a 1 b 2 c 3 d 4
    assert_encoding listpack h
    r hset h e 5
    assert_encoding hashtable h
    r del h
    r hset h a 12345678
    assert_encoding listpack h
    r hset h b 123456789
    assert_encoding hashtable h
    # CONFIG GET lists both names.
    set listed [lsort -stride 2 -index 0 [r config get hash-max-*]]
    r config set hash-max-listpack-entries 512
    r config set hash-max-listpack-value 64
    assert_error {*argument must be between 0 and 9223372036854775807 inclusive*} \
        {r config set hash-max-listpack-entries -1}
    list {*}$got $listed
  } {4 8 {hash-max-listpack-entries 4 hash-max-listpack-value 8 hash-max-ziplist-entries 4 hash-max-ziplist-value 8}}

  test {HINCRBY creates fields and keys, and checks values and overflow} {
    r del h
    assert_equal [r hincrby h n 5] 5
    assert_equal [r hincrby h n -10] -5
    r hset h s abc z 0012 sp " 1" max 9223372036854775807 min -9223372036854775808
    assert_error {ERR hash value is not an integer} {r hincrby h s 1}
    assert_error {ERR hash value is not an integer} {r hincrby h z 1}
    assert_error {ERR hash value is not an integer} {r hincrby h sp 1}
    assert_error {ERR increment or decrement would overflow} {r hincrby h max 1}
    assert_error {ERR increment or decrement would overflow} {r hincrby h min -1}
    assert_error {ERR value is not an integer or out of range} {r hincrby h n x}
    assert_error {ERR value is not an integer or out of range} {r hincrby h n 1.5}
    assert_error {ERR value is not an integer or out of range} {r hincrby nokey n x}
    list [r hget h max] [r hincrby h min 1] [r exists nokey]
  } {9223372036854775807 -9223372036854775807 0}

  test {HINCRBY on a hashtable-encoded hash} {
    r del h
    r hset h big [string repeat x 100] n 10
    assert_encoding hashtable h
    list [r hincrby h n 5] [r hincrby h m 1] [r hget h n]
  } {15 1 15}

  test {HINCRBYFLOAT formats results as INCRBYFLOAT does} {
    r del h
    list [r hincrbyfloat h f 10.5] [r hincrbyfloat h f 0.1] [r hincrbyfloat h g 3.0e3] \
        [r hincrbyfloat h g -3000] [r hincrbyfloat h n 5] [r hincrbyfloat h n 1.5]
  } {10.5 10.6 3000 0 5 6.5}

  test {HINCRBYFLOAT errors} {
    r del h
    r hset h s abc n 1 big 1e308
    assert_error {ERR hash value is not a float} {r hincrbyfloat h s 1}
    assert_error {ERR value is not a valid float} {r hincrbyfloat h n x}
    assert_error {ERR value is not a valid float} {r hincrbyfloat h n ""}
    assert_error {ERR value is NaN or Infinity} {r hincrbyfloat h n inf}
    assert_error {ERR value is NaN or Infinity} {r hincrbyfloat h n -inf}
    assert_error {ERR value is not a valid float} {r hincrbyfloat nokey n x}
    assert_equal [r exists nokey] 0
    r hget h n
  } {1}

  test {HRANDFIELD without a count} {
    r del h
    assert_equal [r hrandfield nokey] {}
    r hset h a 1
    r hrandfield h
  } {a}

  test {HRANDFIELD argument errors} {
    r del h
    r hset h a 1
    assert_error {ERR value is not an integer or out of range} {r hrandfield h withvalues}
    assert_error {ERR syntax error} {r hrandfield h 1 foo}
    assert_error {ERR syntax error} {r hrandfield h 1 withvalues x}
    assert_error {ERR syntax error} {r hrandfield nokey 1 foo}
    assert_error {ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807} \
        {r hrandfield h -9223372036854775808}
    assert_error {ERR value is out of range} {r hrandfield h -4611686018427387904 withvalues}
    assert_error {ERR value is out of range} {r hrandfield h 4611686018427387904 withvalues}
    assert_equal [r hrandfield h 4611686018427387903 withvalues] {a 1}
    # Repetitions: a reply past proto-max-bulk-len is refused, not built
    # (Redis 7.0 runs out of memory on these).
    assert_error {ERR count is too large: the reply would take about * bytes, more than proto-max-bulk-len*} \
        {r hrandfield h -9223372036854775807}
    assert_error {ERR count is too large: *} {r hrandfield h -4611686018427387903 withvalues}
    assert_equal [llength [r hrandfield h -1000 withvalues]] 2000
    list [r hrandfield nokey 5] [r hrandfield nokey -5 withvalues] [r hrandfield h 0]
  } {{} {} {}}

  foreach enc {listpack hashtable} {
    test "HRANDFIELD with a count - $enc" {
      r del h
      set model {}
      for {set i 0} {$i < 50} {incr i} {
        set v v$i
        if {$enc eq "hashtable"} { set v [string repeat v 70]$i }
        r hset h f$i $v
        dict set model f$i $v
      }
      assert_encoding $enc h
      # A count at least the size gives every field once.
      assert_equal [lsort [r hrandfield h 50]] [lsort [dict keys $model]]
      assert_equal [lsort [r hrandfield h 1000]] [lsort [dict keys $model]]
      # Positive counts: distinct fields; WITHVALUES pairs match the hash.
      foreach count {1 5 20 49} {
        set res [r hrandfield h $count withvalues]
        assert_equal [llength $res] [expr {$count * 2}]
        set fields {}
        foreach {f v} $res {
          assert_equal $v [dict get $model $f]
          lappend fields $f
        }
        assert_equal [llength [lsort -unique $fields]] $count
      }
      # Negative counts repeat; all fields show up over enough picks.
      set res [r hrandfield h -1000]
      assert_equal [llength $res] 1000
      assert_equal [lsort -unique $res] [lsort [dict keys $model]]
      set res [r hrandfield h -3 withvalues]
      assert_equal [llength $res] 6
      foreach {f v} $res { assert_equal $v [dict get $model $f] }
      # Single picks also reach every field.
      set seen {}
      for {set i 0} {$i < 1000} {incr i} { dict set seen [r hrandfield h] 1 }
      assert_equal [lsort [dict keys $seen]] [lsort [dict keys $model]]
    }
  }

  test {HRANDFIELD WITHVALUES replies with pairs in RESP3} {
    set c [redis_client]
    $c hello 3
    $c del h
    $c hset h a 1
    set pos [$c hrandfield h 1 withvalues]
    set neg [$c hrandfield h -2 withvalues]
    set plain [$c hrandfield h 2]
    $c readraw 1
    set raw [$c hrandfield h 1 withvalues]
    set inner [$c read]
    $c readraw 0
    $c read
    $c read
    $c close
    list $pos $neg $plain $raw $inner
  } {{{a 1}} {{a 1} {a 1}} a *1 *2}

  test {HGETALL is a map in RESP3} {
    set c [redis_client]
    $c hello 3
    $c del h
    $c hset h a 1
    $c readraw 1
    set raw2 [$c hgetall nokey]
    set raw [$c hgetall h]
    for {set i 0} {$i < 4} {incr i} { $c read }
    $c readraw 0
    $c close
    list $raw $raw2
  } {%1 %0}

  test {HSCAN of a listpack returns everything with cursor 0} {
    r del h
    r hset h a 1 b 2 c 3
    set res [r hscan h 0 count 1]
    list [lindex $res 0] [sorted_pairs [lindex $res 1]] [r hscan h 0 match b*]
  } {0 {{a 1} {b 2} {c 3}} {0 {b 2}}}

  test {HSCAN of a hashtable visits every field} {
    r del h
    for {set i 0} {$i < 1000} {incr i} { r hset h f$i v$i }
    r hset h long [string repeat x 100]
    assert_encoding hashtable h
    set cursor 0
    set seen {}
    set calls 0
    while 1 {
      set res [r hscan h $cursor count 20]
      set cursor [lindex $res 0]
      foreach {f v} [lindex $res 1] { dict set seen $f $v }
      incr calls
      if {$cursor == 0} break
    }
    assert_morethan $calls 10
    assert_equal [dict size $seen] 1001
    assert_equal [dict get $seen f77] v77
    # MATCH filters on the field.
    set cursor 0
    set matched {}
    while 1 {
      set res [r hscan h $cursor match f99* count 100]
      set cursor [lindex $res 0]
      foreach {f v} [lindex $res 1] { lappend matched $f }
      if {$cursor == 0} break
    }
    lsort $matched
  } {f99 f990 f991 f992 f993 f994 f995 f996 f997 f998 f999}

  test {HSCAN errors and a missing key} {
    r del h
    r hset h a 1
    assert_error {ERR invalid cursor} {r hscan h x}
    assert_error {ERR syntax error} {r hscan h 0 count 0}
    assert_error {ERR syntax error} {r hscan h 0 count}
    assert_error {ERR syntax error} {r hscan h 0 type string}
    assert_error {ERR value is not an integer or out of range} {r hscan h 0 count x}
    # Redis answers a missing key before reading the options.
    r hscan nokey 0 foo
  } {0 {}}

  test {Hash commands against a key of another type} {
    r del s
    r set s x
    foreach cmd {
      {hset s a 1} {hsetnx s a 1} {hmset s a 1} {hget s a} {hmget s a} {hgetall s}
      {hkeys s} {hvals s} {hdel s a} {hexists s a} {hlen s} {hstrlen s a}
      {hincrby s a 1} {hincrbyfloat s a 1} {hrandfield s} {hrandfield s 2} {hscan s 0}
    } {
      assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} \
          [list r {*}$cmd]
    }
    r get s
  } {x}

  test {Writes that change a hash break WATCH, the others do not} {
    set out {}
    foreach cmd {
      {hset h a 1} {hmset h a 1} {hsetnx h new 1} {hsetnx h a 2} {hdel h a} {hdel h nope}
      {hincrby h n 1} {hincrbyfloat h n 1.5} {hincrby h s 1} {hget h a} {hrandfield h 2}
    } {
      r del h
      r hset h a 1 s str
      lappend out [watch_broken h $cmd]
    }
    set out
  } {1 1 1 0 1 0 1 1 0 0 0}

  test {OBJECT ENCODING, TYPE, COPY and DEL of hashes} {
    r del h h2 h3
    r hset h a 1
    r hset h2 big [string repeat z 80]
    r copy h h3
    r hset h3 b 2
    list [r type h] [r object encoding h] [r object encoding h2] [r hlen h] [r hlen h3] \
        [r del h h2 h3]
  } {hash listpack hashtable 1 2 3}

  test {Randomized HSET/HDEL/HINCRBY... against a Tcl dict} {
    # Small limits so both encodings and the conversion are exercised.
    r config set hash-max-listpack-entries 16
    r config set hash-max-listpack-value 10
    set seed 20261122
    expr {srand($seed)}
    set model {}
    r del h
    for {set i 0} {$i < 4000} {incr i} {
      set f "f[expr {int(rand() * 40)}]"
      set op [expr {int(rand() * 9)}]
      switch $op {
        0 - 1 {
          set v [expr {rand() < 0.1 ? [string repeat x [expr {int(rand() * 20)}]] : int(rand() * 1000)}]
          set exp [expr {[dict exists $model $f] ? 0 : 1}]
          set got [r hset h $f $v]
          dict set model $f $v
        }
        2 {
          set exp [expr {[dict exists $model $f] ? 1 : 0}]
          set got [r hdel h $f]
          dict unset model $f
        }
        3 {
          set exp [expr {[dict exists $model $f] ? [dict get $model $f] : ""}]
          set got [r hget h $f]
        }
        4 {
          if {[dict exists $model $f] && ![string is integer -strict [dict get $model $f]]} {
            set exp "ERR hash value is not an integer"
            catch {r hincrby h $f 3} got
          } else {
            set exp [expr {([dict exists $model $f] ? [dict get $model $f] : 0) + 3}]
            set got [r hincrby h $f 3]
            dict set model $f $exp
          }
        }
        5 {
          set exp [expr {[dict exists $model $f] ? 0 : 1}]
          set got [r hsetnx h $f new]
          if {$exp} { dict set model $f new }
        }
        6 {
          set exp [expr {[dict exists $model $f] ? [string length [dict get $model $f]] : 0}]
          set got [r hstrlen h $f]
        }
        7 {
          set exp [dict size $model]
          set got [r hlen h]
        }
        8 {
          set exp [lsort -index 0 [lmap {k v} $model { list $k $v }]]
          set got [sorted_pairs [r hgetall h]]
        }
      }
      if {$got ne $exp} {
        fail "seed $seed op $i ($op on $f): expected '$exp', got '$got'"
      }
    }
    r config set hash-max-listpack-entries 512
    r config set hash-max-listpack-value 64
    assert_equal [r exists h] [expr {[dict size $model] > 0}]
  }
}
