# Sets: every S* command, Redis 7.0's two encodings and the conversion
# between them (intset -> hashtable, never back), errors with Redis 7.0's
# exact text, and a randomized comparison against a Tcl model.

proc smembers_sorted {key} { lsort [r smembers $key] }

proc make_set {key enc {n 20}} {
  r del $key
  for {set i 0} {$i < $n} {incr i} {
    switch $enc {
      intset { r sadd $key $i }
      hashtable { r sadd $key [string repeat h 70]$i }
    }
  }
  assert_encoding $enc $key
}

# Whether running cmd after WATCH key makes the next EXEC fail.
proc watch_broken {key cmd} {
  r watch $key
  catch {r {*}$cmd}
  r multi
  r ping
  expr {[r exec] eq ""}
}

start_server {tags {set}} {
  test {SADD SCARD SISMEMBER SMEMBERS basics} {
    r del s
    assert_equal [r sadd s a b c] 3
    assert_equal [r sadd s a d] 1
    list [r scard s] [r sismember s a] [r sismember s x] [r sismember nokey a] \
        [smembers_sorted s] [r scard nokey] [r smembers nokey]
  } {4 1 0 0 {a b c d} 0 {}}

  test {Arity errors} {
    assert_error {ERR wrong number of arguments for 'sadd' command} {r sadd s}
    assert_error {ERR wrong number of arguments for 'srem' command} {r srem s}
    assert_error {ERR wrong number of arguments for 'smismember' command} {r smismember s}
    assert_error {ERR wrong number of arguments for 'smove' command} {r smove a b}
    assert_error {ERR wrong number of arguments for 'sinterstore' command} {r sinterstore d}
    assert_error {ERR wrong number of arguments for 'sintercard' command} {r sintercard 1}
    assert_error {ERR wrong number of arguments for 'scard' command} {r scard a b}
  }

  test {Integer members make an intset, kept sorted, of any width} {
    r del s
    r sadd s 5 -3 100000 9223372036854775807 -9223372036854775808 0
    assert_encoding intset s
    r smembers s
  } {-9223372036854775808 -3 0 5 100000 9223372036854775807}

  test {Non-canonical integers are strings: the set starts as a hashtable} {
    r del s1 s2 s3
    r sadd s1 01
    r sadd s2 +1
    r sadd s3 "1 "
    list [r object encoding s1] [r object encoding s2] [r object encoding s3] \
        [r sismember s1 1] [r sismember s1 01]
  } {hashtable hashtable hashtable 0 1}

  test {Intset up to set-max-intset-entries, hashtable one past it} {
    r del s
    for {set i 0} {$i < 512} {incr i} { r sadd s $i }
    assert_encoding intset s
    r sadd s 511
    assert_encoding intset s
    r sadd s 512
    assert_encoding hashtable s
    for {set i 0} {$i < 510} {incr i} { r srem s $i }
    assert_encoding hashtable s
    smembers_sorted s
  } {510 511 512}

  test {Any string added to an intset makes a hashtable (no listpack sets in 7.0)} {
    r del s1 s2
    r sadd s1 1 2 3
    r sadd s1 a
    assert_encoding hashtable s1
    r sadd s2 1 2
    r sadd s2 [string repeat x 65]
    assert_encoding hashtable s2
    list [smembers_sorted s1] [r sismember s1 2] [r srem s1 2] [smembers_sorted s1] [r scard s2]
  } {{1 2 3 a} 1 1 {1 3 a} 3}

  test {A set of strings is a hashtable from its first member} {
    r del s
    r sadd s m0
    assert_encoding hashtable s
    r sadd s 1 2 3
    r srem s m0
    # Removing every string does not bring the intset back.
    assert_encoding hashtable s
    smembers_sorted s
  } {1 2 3}

  test {SADD of many integers converts only when the distinct count passes the limit} {
    set args {}
    for {set i 0} {$i < 600} {incr i} { lappend args [expr {$i % 10}] }
    r del s1 s2
    r sadd s1 {*}$args
    for {set i 0} {$i < 513} {incr i} { lappend args $i }
    r sadd s2 {*}$args
    list [r object encoding s1] [r scard s1] [r object encoding s2] [r scard s2]
  } {intset 10 hashtable 513}

  test {CONFIG SET of set-max-intset-entries; the 7.2 listpack limits do not exist} {
    r config set set-max-intset-entries 3
    r del s1
    r sadd s1 1 2 3
    set e1 [r object encoding s1]
    r sadd s1 4
    set e2 [r object encoding s1]
    r config set set-max-intset-entries 512
    assert_equal [r config get set-max-listpack-entries] {}
    assert_error {ERR Unknown option or number of arguments for CONFIG SET - 'set-max-listpack-entries'} \
        {r config set set-max-listpack-entries 10}
    list $e1 $e2
  } {intset hashtable}

  foreach enc {intset hashtable} {
    test "SREM, SMISMEMBER and key deletion - $enc" {
      make_set s $enc 5
      set m [lindex [r smembers s] 0]
      assert_equal [r srem s $m $m nope] 1
      assert_equal [r smismember s $m nope [lindex [r smembers s] 0]] {0 0 1}
      assert_equal [r srem s {*}[r smembers s]] 4
      list [r exists s] [r srem s x] [r smismember nokey a b]
    } {0 0 {0 0}}
  }

  test {SREM of a non-integer from an intset} {
    r del s
    r sadd s 1 2
    list [r srem s a 1.0 01] [r scard s]
  } {0 2}

  foreach enc {intset hashtable} {
    test "SPOP without and with a count - $enc" {
      make_set s $enc 30
      set all [smembers_sorted s]
      set popped [list [r spop s]]
      lappend popped {*}[r spop s 9]
      assert_equal [llength [lsort -unique $popped]] 10
      assert_equal [r scard s] 20
      set rest [r smembers s]
      assert_equal [lsort [concat $popped $rest]] $all
      # A count of at least the size pops everything and deletes the key.
      assert_equal [lsort [r spop s 100]] [lsort $rest]
      r exists s
    } {0}
  }

  test {SPOP of most of a set rebuilds the rest: intset for integers, else hashtable} {
    r del s
    for {set i 0} {$i < 200} {incr i} { r sadd s m$i }
    r expire s 100
    assert_encoding hashtable s
    set popped [r spop s 195]
    assert_equal [llength [lsort -unique $popped]] 195
    set rest [r smembers s]
    assert_equal [llength $rest] 5
    assert_encoding hashtable s
    foreach m $popped { assert_equal [lsearch -exact $rest $m] -1 }
    assert_range [r ttl s] 90 100
    # Integers end as an intset; a count leaving more behind pops one by one.
    r del s
    for {set i 0} {$i < 600} {incr i} { r sadd s $i }
    r spop s 590
    set e1 [r object encoding s]
    r del s
    for {set i 0} {$i < 600} {incr i} { r sadd s $i }
    r spop s 100
    list $e1 [r scard s] [r object encoding s]
  } {intset 500 hashtable}

  test {SPOP edge cases and errors} {
    r del s
    r sadd s a
    assert_error {ERR value is out of range, must be positive} {r spop s -1}
    assert_error {ERR value is out of range, must be positive} {r spop s x}
    assert_error {ERR value is out of range, must be positive} {r spop nokey -1}
    assert_error {ERR syntax error} {r spop s 1 2}
    list [r spop s 0] [r spop nokey] [r spop nokey 0] [r spop nokey 3] [r smembers s] \
        [r spop s] [r exists s]
  } {{} {} {} {} a a 0}

  foreach enc {intset hashtable} {
    test "SRANDMEMBER with counts, all members seen - $enc" {
      make_set s $enc 40
      set all [smembers_sorted s]
      assert_equal [lsort [r srandmember s 40]] $all
      assert_equal [lsort [r srandmember s 1000]] $all
      foreach count {1 5 13 39} {
        set res [r srandmember s $count]
        assert_equal [llength $res] $count
        assert_equal [llength [lsort -unique $res]] $count
        foreach m $res { assert_equal [r sismember s $m] 1 }
      }
      set res [r srandmember s -1000]
      assert_equal [llength $res] 1000
      assert_equal [lsort -unique $res] $all
      set seen {}
      for {set i 0} {$i < 1000} {incr i} { dict set seen [r srandmember s] 1 }
      assert_equal [lsort [dict keys $seen]] $all
      # Many small distinct samples together cover the set.
      set seen {}
      for {set i 0} {$i < 200} {incr i} {
        foreach m [r srandmember s 3] { dict set seen $m 1 }
      }
      assert_equal [lsort [dict keys $seen]] $all
      r scard s
    } {40}
  }

  # Redis 7.0 builds such a reply whole and dies of OOM; here a reply with
  # repetitions larger than proto-max-bulk-len is refused up front.
  test {SRANDMEMBER with a huge negative count is refused, not built} {
    r del s
    r sadd s a
    assert_error {ERR count is too large: the reply would take about * bytes, more than proto-max-bulk-len (536870912)} \
        {r srandmember s -9223372036854775807}
    r config set proto-max-bulk-len 1mb
    # "a" costs 7 bytes a pick: 200000 picks are 1.4MB, 100000 are 0.7MB.
    catch {r srandmember s -200000} e
    set n [llength [r srandmember s -100000]]
    r config set proto-max-bulk-len 512mb
    list $e $n [r ping]
  } {{ERR count is too large: the reply would take about 1400000 bytes, more than proto-max-bulk-len (1048576)} 100000 PONG}

  test {SRANDMEMBER edge cases and errors} {
    r del s
    r sadd s a
    assert_error {ERR value is not an integer or out of range} {r srandmember s x}
    assert_error {ERR syntax error} {r srandmember s 1 2}
    assert_error {ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807} \
        {r srandmember s -9223372036854775808}
    list [r srandmember nokey] [r srandmember nokey 5] [r srandmember nokey -5] \
        [r srandmember s 0] [r srandmember s -3]
  } {{} {} {} {} {a a a}}

  test {SMOVE basics: the source empties, the destination is created} {
    r del src dst
    r sadd src a 1
    assert_equal [r smove src dst a] 1
    assert_equal [r smove src dst nope] 0
    assert_equal [r object encoding dst] hashtable
    assert_equal [r smove src dst 1] 1
    list [r exists src] [smembers_sorted dst]
  } {0 {1 a}}

  test {SMOVE into a new key starts an intset for an integer} {
    r del src dst
    r sadd src x 7
    r smove src dst 7
    list [r object encoding dst] [r smembers dst] [r smembers src]
  } {intset 7 x}

  test {SMOVE converts the destination as SADD would} {
    r del src dst
    r sadd src [string repeat y 70]
    r sadd dst 1 2
    r smove src dst [string repeat y 70]
    list [r object encoding dst] [r scard dst] [r exists src]
  } {hashtable 3 0}

  test {SMOVE of a member the destination already has} {
    r del src dst
    r sadd src a b
    r sadd dst a
    list [r smove src dst a] [r smembers src] [r smembers dst]
  } {1 b a}

  test {SMOVE with the same key, missing keys and wrong types} {
    r del s str
    r sadd s a
    r set str x
    assert_equal [r smove s s a] 1
    assert_equal [r smove s s b] 0
    assert_equal [r smove nokey str a] 0
    assert_error {WRONGTYPE*} {r smove s str a}
    assert_error {WRONGTYPE*} {r smove str s a}
    list [r smembers s] [r get str]
  } {a x}

  foreach {e1 e2} {intset intset intset hashtable hashtable hashtable hashtable intset} {
    test "SINTER SUNION SDIFF - $e1 and $e2" {
      make_set a $e1 20
      make_set b $e2 20
      set ma [r smembers a]
      set mb [r smembers b]
      # A common part: move half of b's members into a.
      foreach m [lrange $mb 0 9] { r sadd a $m }
      set ma [r smembers a]
      set inter {}
      set diff {}
      foreach m $ma {
        if {$m in $mb} { lappend inter $m } else { lappend diff $m }
      }
      set union [lsort -unique [concat $ma $mb]]
      assert_equal [lsort [r sinter a b]] [lsort $inter]
      assert_equal [lsort [r sunion a b]] $union
      assert_equal [lsort [r sdiff a b]] [lsort $diff]
      assert_equal [r sintercard 2 a b] [llength $inter]
      assert_equal [r sinterstore d a b] [llength $inter]
      assert_equal [smembers_sorted d] [lsort $inter]
      assert_equal [r sunionstore d a b] [llength $union]
      assert_equal [smembers_sorted d] $union
      assert_equal [r sdiffstore d a b] [llength $diff]
      assert_equal [smembers_sorted d] [lsort $diff]
      expr {[llength $inter] >= 10 && [llength $union] >= 20}
    } {1}
  }

  test {Set algebra with missing keys} {
    r del a nokey d
    r sadd a 1 2 3
    list [r sinter a nokey] [lsort [r sunion a nokey]] [lsort [r sdiff a nokey]] \
        [r sdiff nokey a] [r sunion nokey] [r sintercard 2 a nokey]
  } {{} {1 2 3} {1 2 3} {} {} 0}

  test {SDIFF with several keys and the first key repeated} {
    r del a b c
    r sadd a 1 2 3 4 5 x
    r sadd b 1 x
    r sadd c 5 6
    list [lsort [r sdiff a b c]] [r sdiff a a] [lsort [r sinter a a]]
  } {{2 3 4} {} {1 2 3 4 5 x}}

  test {STORE results start as an intset and convert on the first string} {
    r del a b d1 d2 d3 d4
    r sadd a 1 2 3 [string repeat z 70]
    r sadd b 1 2 3 x [string repeat z 70]
    assert_encoding hashtable a
    r sinterstore d1 a b
    r sdiffstore d2 b a
    r sadd d3 0
    r sunionstore d3 d1 d3
    r sinterstore d4 a b
    r srem d4 [string repeat z 70]
    list [r object encoding d1] [r object encoding d2] [r object encoding d3] \
        [smembers_sorted d2] [smembers_sorted d3]
  } {hashtable hashtable hashtable x {0 1 2 3 zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz}}

  test {STORE results of integers are intsets, sets with strings hashtables} {
    r del a b d
    r sadd a 1 2 3 x
    r sadd b 1 2 3 y
    r sinterstore d a b
    set e1 [r object encoding d]
    r sunionstore d a b
    list $e1 [r object encoding d] [smembers_sorted d]
  } {intset hashtable {1 2 3 x y}}

  test {STORE with an empty result deletes the destination, whatever its type} {
    r del a b d
    r sadd a 1
    r sadd b 2
    r set d string
    assert_equal [r sinterstore d a b] 0
    assert_equal [r exists d] 0
    r sadd d x
    assert_equal [r sdiffstore d a a] 0
    assert_equal [r exists d] 0
    r set d string
    assert_equal [r sunionstore d nokey nokey2] 0
    assert_equal [r exists d] 0
    # A non-empty result replaces a value of another type, and drops its TTL.
    r set d string ex 100
    assert_equal [r sunionstore d a b] 2
    list [r type d] [r ttl d]
  } {set -1}

  test {STORE with the destination among the sources} {
    r del a b
    r sadd a 1 2 3
    r sadd b 2 3 4
    list [r sinterstore a a b] [smembers_sorted a] [r sunionstore b b a] [smembers_sorted b]
  } {2 {2 3} 3 {2 3 4}}

  test {Set algebra against keys of another type} {
    r del a str
    r sadd a 1
    r set str x
    foreach cmd {
      {sinter a str} {sinter nokey str} {sunion str a} {sdiff a str} {sdiff nokey str}
      {sinterstore d a str} {sunionstore d str} {sdiffstore d a str} {sintercard 2 a str}
      {sintercard 2 nokey str}
    } {
      assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} \
          [list r {*}$cmd]
    }
    r get str
  } {x}

  test {SINTERCARD LIMIT and argument errors} {
    r del a b
    r sadd a 1 2 3 4 5
    r sadd b 1 2 3 4 6
    assert_equal [r sintercard 2 a b] 4
    assert_equal [r sintercard 2 a b limit 0] 4
    assert_equal [r sintercard 2 a b limit 2] 2
    assert_equal [r sintercard 2 a b limit 10] 4
    assert_equal [r sintercard 1 a limit 1 limit 3] 3
    assert_equal [r sintercard 1 nokey] 0
    assert_error {ERR numkeys should be greater than 0} {r sintercard 0 a}
    assert_error {ERR numkeys should be greater than 0} {r sintercard -1 a}
    assert_error {ERR numkeys should be greater than 0} {r sintercard x a}
    assert_error {ERR Number of keys can't be greater than number of args} {r sintercard 3 a b}
    assert_error {ERR LIMIT can't be negative} {r sintercard 2 a b limit -1}
    assert_error {ERR LIMIT can't be negative} {r sintercard 2 a b limit x}
    assert_error {ERR syntax error} {r sintercard 2 a b foo 1}
    assert_error {ERR syntax error} {r sintercard 2 a b limit}
    list [r command getkeys sintercard 2 a b limit 1] [r command getkeys sinterstore d a b] \
        [r command getkeys smove a b m]
  } {{a b} {d a b} {a b}}

  foreach enc {intset} {
    test "SSCAN of a small $enc returns everything with cursor 0" {
      make_set s $enc 10
      set res [r sscan s 0 count 2]
      assert_equal [lsort [lindex $res 1]] [smembers_sorted s]
      list [lindex $res 0] [llength [lindex $res 1]] [lindex [r sscan s 0 match *9] 1]
    } [list 0 10 [expr {$enc eq "intset" ? 9 : "m9"}]]
  }

  test {SSCAN of a hashtable visits every member, MATCH filters} {
    r del s
    for {set i 0} {$i < 1000} {incr i} { r sadd s m$i }
    assert_encoding hashtable s
    set cursor 0
    set seen {}
    set calls 0
    while 1 {
      set res [r sscan s $cursor count 20]
      set cursor [lindex $res 0]
      foreach m [lindex $res 1] { dict set seen $m 1 }
      incr calls
      if {$cursor == 0} break
    }
    assert_morethan $calls 10
    assert_equal [dict size $seen] 1000
    set cursor 0
    set matched {}
    while 1 {
      set res [r sscan s $cursor match m99? count 50]
      set cursor [lindex $res 0]
      lappend matched {*}[lindex $res 1]
      if {$cursor == 0} break
    }
    lsort $matched
  } {m990 m991 m992 m993 m994 m995 m996 m997 m998 m999}

  test {SSCAN errors and a missing key} {
    r del s
    r sadd s a
    assert_error {ERR invalid cursor} {r sscan s x}
    assert_error {ERR syntax error} {r sscan s 0 count 0}
    assert_error {ERR syntax error} {r sscan s 0 type set}
    assert_error {ERR syntax error} {r sscan s 0 match}
    r sscan nokey 0 foo
  } {0 {}}

  test {Set replies in RESP3: sets for SMEMBERS SINTER SUNION SDIFF SPOP, arrays for SRANDMEMBER} {
    set c [redis_client]
    $c hello 3
    $c del s
    $c sadd s a
    $c readraw 1
    set out {}
    foreach cmd {{smembers s} {sinter s} {sunion s} {sdiff s} {srandmember s 1} {spop s 0}
                 {smembers nokey} {spop nokey 2} {srandmember nokey 2}} {
      set head [$c {*}$cmd]
      lappend out $head
      if {$head in {~1 *1}} { $c read; $c read }
    }
    $c readraw 0
    $c close
    set out
  } {~1 ~1 ~1 ~1 *1 ~0 ~0 ~0 *0}

  test {Writes that change a set break WATCH, the others do not} {
    set out {}
    foreach {key cmd} {
      s {sadd s x} s {sadd s a} s {srem s a} s {srem s nope} s {spop s} s {spop s 0}
      s {smove s d a} d {smove s d a} s {smove s d nope} d {sinterstore d s}
      d {sdiffstore d s s} s {sismember s a} s {srandmember s 2} s {sinterstore d s}
    } {
      r del s d
      r sadd s a b
      r sadd d z
      lappend out [watch_broken $key $cmd]
    }
    set out
  } {1 0 1 0 1 0 1 1 0 1 1 0 0 0}

  test {Set commands against a key of another type} {
    r del str
    r set str x
    foreach cmd {
      {sadd str a} {srem str a} {smembers str} {sismember str a} {smismember str a}
      {scard str} {spop str} {spop str 2} {srandmember str} {srandmember str 2} {sscan str 0}
    } {
      assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} \
          [list r {*}$cmd]
    }
    r get str
  } {x}

  test {Randomized SADD/SREM/SPOP/SMOVE... against a Tcl model} {
    # A small limit so both encodings and the conversion are exercised.
    r config set set-max-intset-entries 20
    set seed 7151
    expr {srand($seed)}
    set model [dict create s1 {} s2 {}]
    r del s1 s2 d
    proc rand_member {} {
      set r [expr {rand()}]
      if {$r < 0.6} { return [expr {int(rand() * 60) - 10}] }
      if {$r < 0.9} { return "m[expr {int(rand() * 30)}]" }
      return "long[expr {int(rand() * 5)}]member"
    }
    for {set i 0} {$i < 5000} {incr i} {
      set k [expr {rand() < 0.5 ? "s1" : "s2"}]
      set other [expr {$k eq "s1" ? "s2" : "s1"}]
      set m [rand_member]
      set op [expr {int(rand() * 10)}]
      set cur [dict get $model $k]
      switch $op {
        0 - 1 - 2 {
          set exp [expr {[dict exists $cur $m] ? 0 : 1}]
          set got [r sadd $k $m]
          dict set model $k $m 1
        }
        3 {
          set exp [expr {[dict exists $cur $m] ? 1 : 0}]
          set got [r srem $k $m]
          dict unset model $k $m
        }
        4 {
          set exp [expr {[dict exists $cur $m] ? 1 : 0}]
          set got [r sismember $k $m]
        }
        5 {
          set exp [dict size $cur]
          set got [r scard $k]
        }
        6 {
          set exp [lsort [dict keys $cur]]
          set got [lsort [r smembers $k]]
        }
        7 {
          set got [r spop $k]
          if {[dict size $cur] == 0} {
            set exp {}
          } else {
            set exp [expr {[dict exists $cur $got] ? $got : "(not a member)"}]
            dict unset model $k $got
          }
        }
        8 {
          set exp [expr {[dict exists $cur $m] ? 1 : 0}]
          set got [r smove $k $other $m]
          if {$exp} {
            dict unset model $k $m
            dict set model $other $m 1
          }
        }
        9 {
          set a [dict keys [dict get $model s1]]
          set b [dict keys [dict get $model s2]]
          set exp [list [lsort [lmap x $a { expr {$x in $b ? $x : [continue]} }]] \
                       [lsort -unique [concat $a $b]]]
          set got [list [lsort [r sinter s1 s2]] [lsort [r sunion s1 s2]]]
        }
      }
      if {$got ne $exp} {
        fail "seed $seed op $i ($op on $k, $m): expected '$exp', got '$got'"
      }
      foreach key {s1 s2} {
        if {[r exists $key] != ([dict size [dict get $model $key]] > 0)} {
          fail "seed $seed op $i: $key existence differs from the model"
        }
      }
    }
    r config set set-max-intset-entries 512
  }
}
