# Sorted sets: every command on both encodings (listpack and skiplist),
# conversions between them, score and range parsing, exact error texts and
# reply shapes (Redis 7.0), and a randomized comparison against a Tcl model.

# Sorted copy of a model dict (member -> integer score) as ZRANGE WITHSCORES
# returns it: by score, then member bytes.
proc zset_model_range {model} {
  set pairs {}
  dict for {m s} $model { lappend pairs [list $s $m] }
  set pairs [lsort -command {apply {{a b} {
    set d [expr {[lindex $a 0] - [lindex $b 0]}]
    if {$d != 0} { return [expr {$d < 0 ? -1 : 1}] }
    string compare [lindex $a 1] [lindex $b 1]
  }}} $pairs]
  set out {}
  foreach p $pairs { lappend out [lindex $p 1] [lindex $p 0] }
  return $out
}

start_server {tags {zset}} {
  # skiplist: entries 0 makes every new sorted set a skiplist.
  foreach {encoding entries} {listpack 128 skiplist 0} {
    r config set zset-max-listpack-entries $entries

    test "ZADD, ZCARD, ZSCORE and the encoding - $encoding" {
      r del z
      assert_equal [r zadd z 10 x 20 y 30 z] 3
      assert_encoding $encoding z
      assert_equal [r zcard z] 3
      assert_equal [r zscore z y] 20
      assert_equal [r zscore z nosuch] {}
      assert_equal [r zmscore z z nosuch x] {30 {} 10}
      assert_equal [r zcard nosuch] 0
      assert_equal [r zadd z 15 x 40 w] 1
      r zrange z 0 -1 withscores
    } {x 15 y 20 z 30 w 40}

    test "ZADD NX, XX, CH, GT, LT - $encoding" {
      r del z
      r zadd z 1 a 2 b
      assert_equal [r zadd z nx 10 a 3 c] 1
      assert_equal [r zscore z a] 1
      assert_equal [r zadd z xx 10 a 4 d] 0
      assert_equal [r zscore z a] 10
      assert_equal [r zscore z d] {}
      assert_equal [r zadd z ch 11 a 2 b 5 e] 2
      assert_equal [r zadd z gt ch 5 a 7 b] 1
      assert_equal [r zadd z lt ch 50 a 1 b] 1
      assert_equal [r zadd z xx 99 nokey] 0
      assert_equal [r zadd nokey xx 1 a] 0
      assert_equal [r exists nokey] 0
      r zrange z 0 -1 withscores
    } {b 1 c 3 e 5 a 11}

    test "ZADD INCR and ZINCRBY - $encoding" {
      r del z
      assert_equal [r zadd z incr 5 a] 5
      assert_equal [r zadd z incr -2.5 a] 2.5
      assert_equal [r zadd z nx incr 1 a] {}
      assert_equal [r zadd z xx incr 1 b] {}
      assert_equal [r zadd z gt incr -1 a] {}
      assert_equal [r zincrby z 1.5 a] 4
      assert_equal [r zincrby z 3 fresh] 3
      assert_equal [r zincrby z inf a] inf
      assert_error {ERR resulting score is not a number (NaN)} {r zincrby z -inf a}
      assert_error {ERR resulting score is not a number (NaN)} {r zadd z incr -inf a}
      r zrange z 0 -1 withscores
    } {fresh 3 a inf}

    test "ZREM removes members and the key with the last one - $encoding" {
      r del z
      r zadd z 1 a 2 b 3 c
      assert_equal [r zrem z a nosuch b] 2
      assert_equal [r zrem z a] 0
      assert_equal [r zrem nosuch a] 0
      assert_equal [r zrem z c] 1
      r exists z
    } {0}

    test "ZRANGE by rank with negative and out-of-range indexes - $encoding" {
      r del z
      r zadd z 1 a 2 b 3 c 4 d
      assert_equal [r zrange z 0 -1] {a b c d}
      assert_equal [r zrange z -2 -1] {c d}
      assert_equal [r zrange z -100 1] {a b}
      assert_equal [r zrange z 2 100] {c d}
      assert_equal [r zrange z 3 1] {}
      assert_equal [r zrange z 4 10] {}
      assert_equal [r zrange nosuch 0 -1] {}
      assert_equal [r zrevrange z 0 1 withscores] {d 4 c 3}
      assert_equal [r zrange z 0 -1 rev] {d c b a}
      assert_equal [r zrange z 0 -1 limit 0 -1] {a b c d}
      r zrevrange z -1 -1
    } {a}

    test "ZRANGEBYSCORE with inf, exclusive bounds, LIMIT and REV - $encoding" {
      r del z
      r zadd z -inf ninf 1 a 2 b 3 c 4 d inf pinf
      assert_equal [r zrangebyscore z -inf +inf] {ninf a b c d pinf}
      assert_equal [r zrangebyscore z (1 (4] {b c}
      assert_equal [r zrangebyscore z (-inf (inf withscores] {a 1 b 2 c 3 d 4}
      assert_equal [r zrangebyscore z 2 3 withscores] {b 2 c 3}
      assert_equal [r zrangebyscore z 3 2] {}
      assert_equal [r zrangebyscore z (2 2] {}
      assert_equal [r zrangebyscore z -inf inf limit 1 2] {a b}
      assert_equal [r zrangebyscore z -inf inf limit 4 -1] {d pinf}
      assert_equal [r zrangebyscore z -inf inf limit -1 2] {}
      assert_equal [r zrangebyscore z -inf inf limit 0 0] {}
      assert_equal [r zrangebyscore z -inf inf limit 10 1] {}
      assert_equal [r zrevrangebyscore z 3 1 withscores] {c 3 b 2 a 1}
      assert_equal [r zrevrangebyscore z +inf -inf limit 1 2] {d c}
      assert_equal [r zrange z (4 1 byscore rev] {c b a}
      assert_equal [r zrange z 1 4 byscore limit 1 2 withscores] {b 2 c 3}
      assert_equal [r zcount z -inf inf] 6
      assert_equal [r zcount z (1 4] 3
      assert_equal [r zcount z 5 1] 0
      r zcount nosuch 0 1
    } {0}

    test "ZRANGEBYLEX, ZREVRANGEBYLEX and ZLEXCOUNT - $encoding" {
      r del z
      r zadd z 0 a 0 b 0 c 0 d 0 e 0 f
      assert_equal [r zrangebylex z - +] {a b c d e f}
      assert_equal [r zrangebylex z {[b} {(e}] {b c d}
      assert_equal [r zrangebylex z {(b} {[e} limit 1 2] {d e}
      assert_equal [r zrangebylex z + -] {}
      assert_equal [r zrangebylex z {[d} {[b}] {}
      assert_equal [r zrevrangebylex z + - limit 0 2] {f e}
      assert_equal [r zrevrangebylex z {[e} {(b}] {e d c}
      assert_equal [r zrange z {[e} {(b} bylex rev] {e d c}
      assert_equal [r zlexcount z - +] 6
      assert_equal [r zlexcount z {[b} {[d}] 3
      assert_equal [r zlexcount z {(b} {(b}] 0
      r zlexcount nosuch - +
    } {0}

    test "ZRANK and ZREVRANK - $encoding" {
      r del z
      r zadd z 1 a 2 b 3 c
      list [r zrank z a] [r zrank z c] [r zrevrank z a] [r zrevrank z c] \
          [r zrank z nosuch] [r zrank nosuch a]
    } {0 2 2 0 {} {}}

    test "ZREMRANGEBYRANK, BYSCORE and BYLEX - $encoding" {
      r del z
      r zadd z 1 a 2 b 3 c 4 d 5 e 6 f
      assert_equal [r zremrangebyrank z 0 0] 1
      assert_equal [r zremrangebyrank z -1 -1] 1
      assert_equal [r zremrangebyrank z 10 20] 0
      assert_equal [r zremrangebyscore z (2 3] 1
      assert_equal [r zremrangebyscore z 10 1] 0
      assert_equal [r zremrangebylex z {[a} {[b}] 1
      assert_equal [r zrange z 0 -1] {d e}
      assert_equal [r zremrangebyscore z -inf +inf] 2
      assert_equal [r exists z] 0
      r zremrangebyrank nosuch 0 -1
    } {0}

    test "ZPOPMIN and ZPOPMAX - $encoding" {
      r del z
      r zadd z 1 a 2 b 3 c 4 d
      assert_equal [r zpopmin z] {a 1}
      assert_equal [r zpopmax z] {d 4}
      assert_equal [r zpopmin z 0] {}
      assert_equal [r zpopmax z 10] {c 3 b 2}
      assert_equal [r exists z] 0
      assert_equal [r zpopmin z] {}
      r zpopmin z 3
    } {}

    test "ZMPOP takes the first non-empty key - $encoding" {
      r del z1 z2
      r zadd z2 1 a 2 b 3 c
      assert_equal [r zmpop 2 z1 z2 min] {z2 {{a 1}}}
      assert_equal [r zmpop 2 z1 z2 max count 10] {z2 {{c 3} {b 2}}}
      assert_equal [r exists z2] 0
      r zmpop 2 z1 z2 min
    } {}

    test "ZRANDMEMBER with and without count - $encoding" {
      r del z
      r zadd z 1 a 2 b 3 c 4 d 5 e
      assert_match {[a-e]} [r zrandmember z]
      assert_equal [r zrandmember nosuch] {}
      assert_equal [r zrandmember nosuch 3] {}
      assert_equal [r zrandmember z 0] {}
      assert_equal [r zrandmember z 10] {e d c b a}
      assert_equal [r zrandmember z 5 withscores] {e 5 d 4 c 3 b 2 a 1}
      assert_equal [llength [lsort -unique [r zrandmember z 3]]] 3
      assert_equal [llength [lsort -unique [r zrandmember z 2]]] 2
      assert_equal [llength [r zrandmember z -20]] 20
      set pairs [r zrandmember z -10 withscores]
      assert_equal [llength $pairs] 20
      foreach {m s} $pairs { assert_equal [r zscore z $m] $s }
      foreach {m s} [r zrandmember z 4 withscores] { assert_equal [r zscore z $m] $s }
      # Repetitions past proto-max-bulk-len are refused, not built.
      assert_error {ERR count is too large: *} {r zrandmember z -4611686018427387903 withscores}
      assert_error {ERR count is too large: *} {r zrandmember z -9223372036854775807}
      dict size [dict create {*}[r zrandmember z 5 withscores]]
    } {5}

    test "ZUNION, ZINTER, ZDIFF with WEIGHTS and AGGREGATE - $encoding" {
      r del a b
      r zadd a 1 x 2 y 3 z
      r zadd b 10 y 20 z 30 w
      assert_equal [r zunion 2 a b withscores] {x 1 y 12 z 23 w 30}
      assert_equal [r zunion 2 a b weights 2 3 withscores] {x 2 y 34 z 66 w 90}
      assert_equal [r zunion 2 a b aggregate min withscores] {x 1 y 2 z 3 w 30}
      assert_equal [r zunion 2 a b aggregate max withscores] {x 1 y 10 z 20 w 30}
      assert_equal [r zinter 2 a b withscores] {y 12 z 23}
      assert_equal [r zinter 2 a b weights 1 0] {y z}
      assert_equal [r zdiff 2 a b withscores] {x 1}
      assert_equal [r zdiff 2 b a] {w}
      assert_equal [r zunion 2 a nosuch] {x y z}
      assert_equal [r zinter 2 a nosuch] {}
      assert_equal [r zintercard 2 a b] 2
      assert_equal [r zintercard 2 a b limit 1] 1
      r zintercard 2 a nosuch
    } {0}

    test "ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE - $encoding" {
      r del a b out
      r zadd a 1 x 2 y 3 z
      r zadd b 10 y 20 z
      assert_equal [r zunionstore out 2 a b] 3
      assert_equal [r zrange out 0 -1 withscores] {x 1 y 12 z 23}
      assert_equal [r zinterstore out 2 a b aggregate max] 2
      assert_equal [r zrange out 0 -1 withscores] {y 10 z 20}
      assert_equal [r zdiffstore out 2 a b] 1
      assert_equal [r zrange out 0 -1 withscores] {x 1}
      # An empty result deletes the destination.
      assert_equal [r zinterstore out 2 a nosuch] 0
      r exists out
    } {0}

    test "ZRANGESTORE - $encoding" {
      r del z dst
      r zadd z 1 a 2 b 3 c 4 d
      assert_equal [r zrangestore dst z 1 2] 2
      assert_equal [r zrange dst 0 -1 withscores] {b 2 c 3}
      assert_equal [r zrangestore dst z 4 (2 byscore rev limit 0 1] 1
      assert_equal [r zrange dst 0 -1 withscores] {d 4}
      assert_equal [r zrangestore dst z {[b} {[c} bylex] 2
      assert_equal [r zrange dst 0 -1] {b c}
      assert_equal [r zrangestore dst nosuch 0 -1] 0
      r exists dst
    } {0}

    test "ZSCAN returns every member with its score - $encoding" {
      r del z
      for {set i 0} {$i < 100} {incr i} { r zadd z $i m$i }
      assert_encoding $encoding z
      set cursor 0
      set seen {}
      while 1 {
        lassign [r zscan z $cursor count 20] cursor items
        foreach {m s} $items { dict set seen $m $s }
        if {$cursor == 0} break
      }
      assert_equal [dict size $seen] 100
      assert_equal [dict get $seen m50] 50
      lassign [r zscan z 0 match m1* count 1000] c items
      lsort [dict keys [dict create {*}$items]]
    } {m1 m10 m11 m12 m13 m14 m15 m16 m17 m18 m19}

    test "Randomized ZADD/ZREM/ZINCRBY against a model - $encoding" {
      set seed 4242
      expr {srand($seed)}
      r del z
      set model {}
      for {set op 0} {$op < 3000} {incr op} {
        set m "m[expr {int(rand() * 60)}]"
        set s [expr {int(rand() * 21) - 10}]
        switch [expr {int(rand() * 8)}] {
          0 - 1 {
            set want [expr {[dict exists $model $m] ? 0 : 1}]
            set got [r zadd z $s $m]
            dict set model $m $s
          }
          2 {
            set want [expr {[dict exists $model $m] ? 1 : 0}]
            set got [r zrem z $m]
            dict unset model $m
          }
          3 {
            set want [expr {[dict exists $model $m] ? [dict get $model $m] + $s : $s}]
            set got [r zincrby z $s $m]
            dict set model $m $want
          }
          4 {
            set want [expr {[dict exists $model $m] ? [dict get $model $m] : {}}]
            set got [r zscore z $m]
          }
          5 {
            set range [zset_model_range $model]
            set want {}
            set i 0
            foreach {mm ss} $range { if {$mm eq $m} { set want $i }; incr i }
            set got [r zrank z $m]
          }
          6 {
            set lo [expr {$s - 3}]
            set want {}
            foreach {mm ss} [zset_model_range $model] {
              if {$ss > $lo && $ss <= $s} { lappend want $mm $ss }
            }
            set got [r zrangebyscore z ($lo $s withscores]
          }
          7 {
            set want [zset_model_range $model]
            set got [r zrange z 0 -1 withscores]
          }
        }
        if {$got ne $want} {
          fail "seed $seed op $op on $m: got {$got}, expected {$want}"
        }
      }
      assert_equal [r zcard z] [dict size $model]
      assert_equal [r zrange z 0 -1 withscores] [zset_model_range $model]
    }
  }
  r config set zset-max-listpack-entries 128

  test {listpack converts to skiplist past zset-max-listpack-entries} {
    r del z
    for {set i 0} {$i < 128} {incr i} { r zadd z $i m$i }
    assert_encoding listpack z
    r zadd z 128 m128
    assert_encoding skiplist z
    # Deleting does not convert back.
    r zremrangebyrank z 0 100
    assert_encoding skiplist z
    r zcard z
  } {28}

  test {listpack converts to skiplist past zset-max-listpack-value} {
    r del z
    r zadd z 1 [string repeat x 64]
    assert_encoding listpack z
    r zadd z 2 [string repeat y 65]
    assert_encoding skiplist z
    r del z
    r zadd z 1 [string repeat y 65]
    assert_encoding skiplist z
  }

  test {A ZADD of more elements than the limit creates a skiplist} {
    r config set zset-max-listpack-entries 2
    r del z
    r zadd z 1 a 2 b 3 c
    set enc [r object encoding z]
    r config set zset-max-listpack-entries 128
    set enc
  } {skiplist}

  test {Store results choose their encoding by size (back to listpack)} {
    r del big small dst
    for {set i 0} {$i < 200} {incr i} { r zadd big $i m$i }
    assert_encoding skiplist big
    r zrangestore dst big 0 9
    assert_encoding listpack dst
    r zunionstore dst 1 big
    assert_encoding skiplist dst
    r zinterstore dst 1 big weights 2
    assert_equal [r zscore dst m10] 20
    r zrangebyscore big 5 10
  } {m5 m6 m7 m8 m9 m10}

  test {zset-max-ziplist-* are aliases of zset-max-listpack-*} {
    r config set zset-max-ziplist-entries 5
    assert_equal [r config get zset-max-listpack-entries] {zset-max-listpack-entries 5}
    r config set zset-max-listpack-value 10
    set v [r config get zset-max-ziplist-value]
    r config set zset-max-listpack-entries 128
    r config set zset-max-listpack-value 64
    assert_error {*argument must be between 0 and 9223372036854775807*} \
        {r config set zset-max-listpack-entries -1}
    set v
  } {zset-max-ziplist-value 10}

  test {Scores are formatted as Redis 7.0 (%.17g)} {
    r del z
    r zadd z 1.5 a 0.1 b 3.0 c inf d -inf e 1e20 f -0.5 g
    r zrange z 0 -1 withscores
  } {e -inf g -0.5 b 0.10000000000000001 a 1.5 c 3 f 1e+20 d inf}

  test {-0 is stored as 0 in a listpack, kept as -0 in a skiplist} {
    r del z
    r zadd z -0 a
    set lp [r zscore z a]
    r config set zset-max-listpack-entries 0
    r del z
    r zadd z -0 a
    set sl [r zscore z a]
    r config set zset-max-listpack-entries 128
    list $lp $sl
  } {0 -0}

  test {Equal scores order by member bytes} {
    r del z
    r zadd z 1 b 1 a 1 B 1 ab 1 10 1 9
    r zrange z 0 -1
  } {10 9 B a ab b}

  test {Score parsing errors} {
    r del z
    assert_error {ERR value is not a valid float} {r zadd z nan a}
    assert_error {ERR value is not a valid float} {r zadd z abc a}
    assert_error {ERR value is not a valid float} {r zadd z "" a}
    assert_error {ERR value is not a valid float} {r zincrby z x a}
    assert_error {ERR min or max is not a float} {r zrangebyscore z a 1}
    assert_error {ERR min or max is not a float} {r zcount z 1 (x}
    assert_error {ERR min or max is not a float} {r zremrangebyscore z nan 1}
    assert_error {ERR min or max not valid string range item} {r zrangebylex z a b}
    assert_error {ERR min or max not valid string range item} {r zlexcount z - ++}
    assert_error {ERR min or max not valid string range item} {r zremrangebylex z "" +}
    r exists z
  } {0}

  test {ZADD option errors} {
    assert_error {ERR XX and NX options at the same time are not compatible} {r zadd z nx xx 1 a}
    assert_error {ERR GT, LT, and/or NX options at the same time are not compatible} \
        {r zadd z gt lt 1 a}
    assert_error {ERR GT, LT, and/or NX options at the same time are not compatible} \
        {r zadd z nx gt 1 a}
    assert_error {ERR INCR option supports a single increment-element pair} \
        {r zadd z incr 1 a 2 b}
    assert_error {ERR syntax error} {r zadd z 1 a 2}
    assert_error {ERR syntax error} {r zadd z foo 1 a}
    assert_error {ERR wrong number of arguments for 'zadd' command} {r zadd z 1}
    r exists z
  } {0}

  test {ZRANGE option errors} {
    r del z
    r zadd z 1 a
    assert_error {ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX} \
        {r zrange z 0 -1 limit 0 1}
    assert_error {ERR syntax error, WITHSCORES not supported in combination with BYLEX} \
        {r zrange z - + bylex withscores}
    assert_error {ERR syntax error, WITHSCORES not supported in combination with BYLEX} \
        {r zrangebylex z - + withscores}
    assert_error {ERR syntax error} {r zrange z 0 -1 byscore bylex}
    assert_error {ERR syntax error} {r zrange z 0 -1 rev rev}
    assert_error {ERR syntax error} {r zrevrange z 0 -1 rev}
    assert_error {ERR syntax error} {r zrangebyscore z 0 1 byscore}
    assert_error {ERR syntax error} {r zrange z 0 1 byscore limit 0}
    assert_error {ERR syntax error} {r zrangestore d z 0 -1 withscores}
    assert_error {ERR value is not an integer or out of range} {r zrange z a 1}
    assert_error {ERR value is not an integer or out of range} {r zrange z 0 1 byscore limit x 1}
    r zrange z 0 1 limit 5 -1
  } {a}

  test {Pop, random and scan argument errors} {
    r del z
    r zadd z 1 a
    assert_error {ERR value is out of range, must be positive} {r zpopmin z -1}
    assert_error {ERR value is out of range, must be positive} {r zpopmax z x}
    assert_error {ERR syntax error} {r zpopmin z 1 2}
    assert_error {ERR numkeys should be greater than 0} {r zmpop 0 z min}
    assert_error {ERR count should be greater than 0} {r zmpop 1 z min count 0}
    assert_error {ERR syntax error} {r zmpop 1 z middle}
    assert_error {ERR syntax error} {r zmpop 2 z min}
    assert_error {ERR syntax error} {r zmpop 1 z min count 1 count 2}
    assert_error {ERR syntax error} {r zrandmember z 1 2}
    assert_error {ERR value is out of range} {r zrandmember z -9223372036854775807 withscores}
    assert_error {ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807} \
        {r zrandmember z -9223372036854775808}
    assert_error {ERR value is not an integer or out of range} {r zrandmember z x}
    assert_error {ERR invalid cursor} {r zscan z x}
    assert_error {ERR syntax error} {r zscan z 0 count 0}
    assert_error {ERR syntax error} {r zscan z 0 type zset}
    r zcard z
  } {1}

  test {Set operation argument errors} {
    r del a
    r zadd a 1 x
    assert_error {ERR at least 1 input key is needed for 'zunion' command} {r zunion 0 a}
    assert_error {ERR at least 1 input key is needed for 'zunionstore' command} {r zunionstore d 0 a}
    assert_error {ERR at least 1 input key is needed for 'zintercard' command} {r zintercard 0 a}
    assert_error {ERR syntax error} {r zunion 2 a}
    assert_error {ERR weight value is not a float} {r zunion 1 a weights x}
    assert_error {ERR syntax error} {r zunion 1 a weights 1 2}
    assert_error {ERR syntax error} {r zunion 1 a aggregate avg}
    assert_error {ERR syntax error} {r zdiff 1 a weights 1}
    assert_error {ERR syntax error} {r zunionstore d 1 a withscores}
    assert_error {ERR LIMIT can't be negative} {r zintercard 1 a limit -1}
    r exists d
  } {0}

  test {Infinite weights and sums give 0 instead of NaN} {
    r del a b
    r zadd a 1 x
    r zadd b -inf x
    # 1 * inf + (-inf * 0 = NaN, counted as 0)
    assert_equal [r zunion 2 a b weights inf 0 withscores] {x inf}
    r zadd a inf x
    r zunion 2 a b withscores
  } {x 0}

  test {WRONGTYPE for every kind of sorted-set command} {
    r del s
    r set s str
    foreach cmd {
      {zadd s 1 a} {zincrby s 1 a} {zrem s a} {zscore s a} {zmscore s a} {zcard s}
      {zcount s 0 1} {zlexcount s - +} {zrange s 0 -1} {zrangebyscore s 0 1}
      {zrangebylex s - +} {zrank s a} {zremrangebyrank s 0 1} {zpopmin s}
      {zmpop 1 s min} {zrandmember s} {zunion 1 s} {zinterstore d 1 s} {zintercard 1 s}
      {zscan s 0} {zrangestore d s 0 -1}
    } {
      assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} \
          [list r {*}$cmd]
    }
    list [r get s] [r exists d]
  } {str 0}

  test {ZMSCORE} {
    r del z
    r zadd z 1 a 2.5 b
    list [r zmscore z a nosuch b] [r zmscore nosuch a]
  } {{1 {} 2.5} {{}}}

  test {Wrong arity} {
    assert_error {ERR wrong number of arguments for 'zscore' command} {r zscore z}
    assert_error {ERR wrong number of arguments for 'zrank' command} {r zrank z a b}
    assert_error {ERR wrong number of arguments for 'zrangestore' command} {r zrangestore d z 0}
    assert_error {ERR wrong number of arguments for 'zmpop' command} {r zmpop 1 z}
  }

  test {COMMAND GETKEYS for the numkeys forms} {
    list [r command getkeys zunion 2 a b withscores] \
        [r command getkeys zunionstore dst 2 a b] \
        [r command getkeys zmpop 2 a b min] \
        [r command getkeys zintercard 1 a limit 1]
  } {{a b} {dst a b} {a b} a}

  test {RESP3 reply shapes: doubles, pairs, nulls} {
    set c [redis_client]
    $c hello 3
    $c del z
    $c zadd z 1.5 a 2 b
    $c readraw 1
    set out {}
    lappend out [$c zscore z a]
    lappend out [$c zscore z nosuch]
    lappend out [$c zrange z 0 0 withscores] [$c read] [$c read] [$c read] [$c read]
    lappend out [$c zpopmin z] [$c read] [$c read] [$c read]
    $c readraw 0
    lappend out [$c zrank z nosuch] [$c zpopmax z 1] [$c zrandmember z 1 withscores]
    $c close
    set out
  } {,1.5 _ *1 *2 {$1} a ,1.5 *2 {$1} a ,1.5 {} {{b 2}} {}}
}

start_server {tags {zset set}} {
  test {ZUNION, ZINTER and ZDIFF take plain sets as inputs with score 1} {
    r del zs s1 s2 out
    r zadd zs 5 a 2 b
    r sadd s1 a c
    r sadd s2 1 2 3
    assert_equal [r zunion 2 zs s1 withscores] {c 1 b 2 a 6}
    assert_equal [r zinter 2 zs s1 weights 1 10 withscores] {a 15}
    assert_equal [r zdiff 2 s1 zs withscores] {c 1}
    assert_equal [r zunionstore out 3 s1 s2 zs aggregate max] 6
    assert_equal [r zrange out 0 -1 withscores] {1 1 2 1 3 1 c 1 b 2 a 5}
    assert_equal [r zintercard 2 s1 zs] 1
    r set str x
    assert_error {WRONGTYPE*} {r zunion 2 zs str}
  }

  test {ZSCAN of a missing key answers an empty scan before looking at the options} {
    r del nosuch
    list [r zscan nosuch 0 count 0] [catch {r zscan nosuch x} e] $e
  } {{0 {}} 1 {ERR invalid cursor}}
}
