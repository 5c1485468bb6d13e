# Lists: every list answers OBJECT ENCODING "quicklist" (Redis 7.0), whether
# it sits in one listpack or in many nodes; every list command's replies and
# errors (Redis 7.0), plus a randomized test against a Tcl list model.

proc raw_reply {args} {
  # The first protocol line of the reply (null vs empty details).
  r readraw 1
  set line [r {*}$args]
  r readraw 0
  return $line
}

start_server {tags {list}} {
  test {LPUSH, RPUSH, LLEN, LRANGE} {
    r del l
    assert_equal [r lpush l b a] 2
    assert_equal [r rpush l c d] 4
    list [r llen l] [r lrange l 0 -1] [r llen nokey] [r lrange nokey 0 -1]
  } {4 {a b c d} 0 {}}

  test {LPUSHX and RPUSHX only touch existing lists} {
    r del l
    assert_equal [r lpushx l a] 0
    assert_equal [r rpushx l a] 0
    assert_equal [r exists l] 0
    r rpush l m
    list [r lpushx l a b] [r rpushx l y z] [r lrange l 0 -1]
  } {3 5 {b a m y z}}

  test {Small and large lists alike report the quicklist encoding} {
    r del l
    r rpush l a b c
    assert_encoding quicklist l
    r config set list-max-listpack-size 4
    r rpush l d
    assert_encoding quicklist l
    r rpush l e
    assert_encoding quicklist l
    r config set list-max-listpack-size -2
    r lrange l 0 -1
  } {a b c d e}

  test {A big element makes the list a quicklist (byte limit)} {
    r del l
    r rpush l a
    r rpush l [string repeat x 9000]
    assert_encoding quicklist l
    r llen l
  } {2}

  test {Quicklist goes back to listpack only below half the limit} {
    r config set list-max-listpack-size 8
    r del l
    for {set i 0} {$i < 20} {incr i} { r rpush l $i }
    assert_encoding quicklist l
    r ltrim l 0 5
    # 6 elements: over half of 8.
    assert_encoding quicklist l
    r rpop l 2
    assert_encoding quicklist l
    r rpush l a b c d
    assert_encoding quicklist l
    r rpush l e
    assert_encoding quicklist l
    set r [r lrange l 0 -1]
    r config set list-max-listpack-size -2
    set r
  } {0 1 2 3 a b c d e}

  test {Byte-limited quicklist shrinks back with LPOP and LREM} {
    r del l
    r rpush l [string repeat a 5000] [string repeat b 5000] c
    assert_encoding quicklist l
    r lpop l
    assert_encoding quicklist l
    r lrem l 0 [string repeat b 5000]
    assert_encoding quicklist l
    r lrange l 0 -1
  } {c}

  test {LINSERT, LSET and LMOVE convert a listpack destination} {
    r config set list-max-listpack-size 3
    r del lst src dst
    r rpush lst a b c
    r linsert lst after b d
    assert_encoding quicklist lst
    r del lst
    r rpush lst a b c
    r lset lst 0 [string repeat d 9000]
    assert_encoding quicklist lst
    r rpush src a b c [string repeat d 9000]
    r rpush dst d e f
    assert_encoding quicklist dst
    r lmove src dst right right
    assert_encoding quicklist dst
    r config set list-max-listpack-size -2
    r llen dst
  } {4}

  test {RPOP, LREM, LTRIM and LSET convert a quicklist back} {
    r config set list-max-listpack-size 3
    set res {}
    foreach {cmd} {{rpop lst 3} {lrem lst 3 a} {ltrim lst 1 1}} {
      r del lst
      if {[lindex $cmd 0] eq "lrem"} { r rpush lst a a a d } else { r rpush lst a b c d }
      assert_encoding quicklist lst
      r {*}$cmd
      lappend res [r object encoding lst]
    }
    r config set list-max-listpack-size -1
    r del lst
    r rpush lst a b c [string repeat d 4096]
    assert_encoding quicklist lst
    r lset lst 3 e
    lappend res [r object encoding lst]
    r config set list-max-listpack-size -2
    set res
  } {quicklist quicklist quicklist quicklist}

  test {list-max-ziplist-size is an alias and list-compress-depth is kept} {
    r config set list-max-ziplist-size 16
    set a [r config get list-max-listpack-size]
    r config set list-max-listpack-size -2
    r config set list-compress-depth 2
    set b [r config get list-compress-depth]
    r config set list-compress-depth 0
    assert_error {*must be between*} {r config set list-compress-depth -1}
    list $a $b [r config get list-max-ziplist-size]
  } {{list-max-listpack-size 16} {list-compress-depth 2} {list-max-ziplist-size -2}}

  foreach {enc layout} {quicklist one-node quicklist many-nodes} {
    # The same element values in one node and, with a tiny node limit, in
    # many nodes.
    if {$layout eq "many-nodes"} {
      r config set list-max-listpack-size 2
    } else {
      r config set list-max-listpack-size -2
    }

    test "LINDEX and LSET with negative and out of range indexes - $layout" {
      r del l
      r rpush l a b c 1 2
      assert_encoding $enc l
      assert_equal [r lindex l 0] a
      assert_equal [r lindex l -1] 2
      assert_equal [r lindex l -5] a
      assert_equal [r lindex l 5] {}
      assert_equal [r lindex l -6] {}
      assert_equal [r lindex nokey 0] {}
      assert_equal [r lset l -1 z] OK
      assert_equal [r lset l 1 [string repeat y 100]] OK
      assert_error {ERR index out of range} {r lset l 5 x}
      assert_error {ERR index out of range} {r lset l -6 x}
      assert_error {ERR no such key} {r lset nokey 0 x}
      assert_error {ERR value is not an integer or out of range} {r lindex l x}
      r lrange l 0 -1
    } [list a [string repeat y 100] c 1 z]

    test "LRANGE ranges - $layout" {
      r del l
      r rpush l 0 1 2 3 4 5 6
      list [r lrange l 1 3] [r lrange l -3 -1] [r lrange l -100 1] [r lrange l 5 100] \
           [r lrange l 4 2] [r lrange l 7 10] [r lrange l -1 -2]
    } {{1 2 3} {4 5 6} {0 1} {5 6} {} {} {}}

    test "LPOP and RPOP with and without count - $layout" {
      r del l
      r rpush l a b c d e
      assert_equal [r lpop l] a
      assert_equal [r rpop l] e
      assert_equal [r lpop l 2] {b c}
      assert_equal [r lpop l 0] {}
      assert_equal [r rpop l 10] {d}
      assert_equal [r exists l] 0
      assert_equal [r lpop l] {}
      assert_error {ERR value is out of range, must be positive} {r lpop l -1}
      assert_error {ERR value is out of range, must be positive} {r rpop l x}
      assert_error {ERR wrong number of arguments for 'lpop' command} {r lpop l 1 2}
    }

    test "LINSERT before and after, missing pivot and key - $layout" {
      r del l
      r rpush l a b c
      assert_equal [r linsert l before a x] 4
      assert_equal [r linsert l after c y] 5
      assert_equal [r linsert l AFTER b z] 6
      assert_equal [r linsert l before nothere q] -1
      assert_equal [r linsert nokey before a q] 0
      assert_error {ERR syntax error} {r linsert l middle a q}
      r lrange l 0 -1
    } {x a b z c y}

    test "LREM from head, tail and all - $layout" {
      r del l
      r rpush l a b a c a b a
      assert_equal [r lrem l 2 a] 2
      assert_equal [r lrange l 0 -1] {b c a b a}
      assert_equal [r lrem l -1 a] 1
      assert_equal [r lrange l 0 -1] {b c a b}
      assert_equal [r lrem l 0 b] 2
      assert_equal [r lrem l 0 nothere] 0
      assert_equal [r lrem nokey 0 a] 0
      assert_equal [r lrem l -10 c] 1
      assert_equal [r lrem l 10 a] 1
      r exists l
    } {0}

    test "LTRIM - $layout" {
      r del l
      r rpush l 0 1 2 3 4 5
      r ltrim l 1 -2
      assert_equal [r lrange l 0 -1] {1 2 3 4}
      r ltrim l -100 100
      assert_equal [r lrange l 0 -1] {1 2 3 4}
      r ltrim l 2 1
      assert_equal [r exists l] 0
      assert_equal [r ltrim nokey 0 1] OK
    }

    test "LPOS with RANK, COUNT and MAXLEN - $layout" {
      r del l
      r rpush l a b c 1 2 3 c c
      assert_equal [r lpos l c] 2
      assert_equal [r lpos l c rank 2] 6
      assert_equal [r lpos l c rank -1] 7
      assert_equal [r lpos l c rank -3] 2
      assert_equal [r lpos l c count 0] {2 6 7}
      assert_equal [r lpos l c count 2] {2 6}
      assert_equal [r lpos l c count 2 rank -1] {7 6}
      assert_equal [r lpos l c count 0 maxlen 7] {2 6}
      assert_equal [r lpos l c maxlen 2] {}
      assert_equal [r lpos l 1] 3
      assert_equal [r lpos l x] {}
      assert_equal [r lpos l x count 0] {}
      assert_equal [r lpos l c rank 4] {}
    }

    test "LMOVE all directions, same key rotation - $layout" {
      r del l d x
      r rpush l a b c
      assert_equal [r lmove l d left left] a
      assert_equal [r lmove l d right right] c
      assert_equal [r lmove l d left right] b
      assert_equal [r exists l] 0
      assert_equal [r lrange d 0 -1] {a c b}
      assert_equal [r lmove d d left right] a
      assert_equal [r lrange d 0 -1] {c b a}
      assert_equal [r rpoplpush d d] a
      assert_equal [r rpoplpush d x] b
      list [r lrange d 0 -1] [r lrange x 0 -1] [r lmove nokey d left left]
    } {{a c} b {}}

    test "LMPOP from the first non-empty key - $layout" {
      r del l1 l2
      r rpush l2 a b c d
      assert_equal [r lmpop 2 l1 l2 left] {l2 a}
      assert_equal [r lmpop 2 l1 l2 right count 2] {l2 {d c}}
      assert_equal [r lmpop 1 l2 LEFT COUNT 10] {l2 b}
      assert_equal [r lmpop 2 l1 l2 left] {}
      r exists l2
    } {0}
  }
  r config set list-max-listpack-size -2

  test {Null and empty replies (RESP2 and RESP3)} {
    r del l
    r rpush l a
    set res {}
    foreach proto {2 3} {
      r hello $proto
      lappend res [raw_reply lpop nokey] [raw_reply lpop nokey 1] [raw_reply lpop l 0] \
          [raw_reply lindex l 9] [raw_reply lpos l z] [raw_reply lpos l z count 0] \
          [raw_reply lmpop 1 nokey left] [raw_reply lmove nokey l left left]
    }
    r hello 2
    set res
  } {{$-1} *-1 *0 {$-1} {$-1} *0 *-1 {$-1} _ _ *0 _ _ *0 _ _}

  test {LPOS errors} {
    r del l
    r rpush l a
    assert_error {ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list} {r lpos l a rank 0}
    assert_error {ERR COUNT can't be negative} {r lpos l a count -1}
    assert_error {ERR MAXLEN can't be negative} {r lpos l a maxlen -1}
    assert_error {ERR value is not an integer or out of range} {r lpos l a rank x}
    assert_error {ERR syntax error} {r lpos l a foo}
    assert_error {ERR syntax error} {r lpos l a rank}
  }

  test {LMPOP errors} {
    assert_error {ERR numkeys should be greater than 0} {r lmpop 0 l left}
    assert_error {ERR numkeys should be greater than 0} {r lmpop x l left}
    assert_error {ERR syntax error} {r lmpop 2 l left}
    assert_error {ERR syntax error} {r lmpop 1 l up}
    assert_error {ERR count should be greater than 0} {r lmpop 1 l left count 0}
    assert_error {ERR count should be greater than 0} {r lmpop 1 l left count -1}
    assert_error {ERR syntax error} {r lmpop 1 l left foo}
    assert_error {ERR syntax error} {r lmpop 1 l left count 1 count 2}
    assert_error {ERR wrong number of arguments for 'lmpop' command} {r lmpop 1 l}
  }

  test {LMOVE errors and WRONGTYPE} {
    r del l s
    r rpush l a
    r set s x
    assert_error {ERR syntax error} {r lmove l d up left}
    assert_error {WRONGTYPE*} {r lmove l s left left}
    assert_error {WRONGTYPE*} {r lmove s l left left}
    assert_equal [r lrange l 0 -1] {a}
    # A missing source does not look at the destination.
    r lmove nokey s left left
  } {}

  test {Every list command refuses a key of another type} {
    r set s x
    foreach cmd {
      {lpush s a} {rpush s a} {lpushx s a} {rpushx s a} {lpop s} {rpop s 2} {llen s}
      {lindex s 0} {lrange s 0 1} {lset s 0 a} {linsert s before a b} {lrem s 0 a}
      {ltrim s 0 1} {lpos s a} {rpoplpush s l} {lmpop 1 s left}
    } {
      assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} {r {*}$cmd}
    }
  }

  test {COMMAND GETKEYS for LMPOP and BLMPOP} {
    list [r command getkeys lmpop 2 a b left] [r command getkeys blmpop 0 1 c left count 2]
  } {{a b} c}

  foreach fill {-2 3} {
    test "Randomized list operations against a Tcl model (fill $fill)" {
      r config set list-max-listpack-size $fill
      r del l
      set model {}
      set seed 4242
      expr {srand($seed)}
      set values {a b c 1 2 -7 100000 foo bar}
      lappend values [string repeat z 300] [string repeat w 3000]
      for {set i 0} {$i < 8000} {incr i} {
        set v [lindex $values [expr {int(rand()*[llength $values])}]]
        set op [expr {int(rand()*12)}]
        set n [llength $model]
        set idx [expr {$n > 0 ? int(rand()*$n) : 0}]
        switch $op {
          0 { set got [r lpush l $v]; set model [linsert $model 0 $v]; set want [llength $model] }
          1 { set got [r rpush l $v]; lappend model $v; set want [llength $model] }
          2 {
            set got [r lpop l]
            set want [lindex $model 0]
            set model [lrange $model 1 end]
          }
          3 {
            set got [r rpop l]
            set want [lindex $model end]
            set model [lrange $model 0 end-1]
          }
          4 { set got [r lindex l $idx]; set want [lindex $model $idx] }
          5 {
            if {$n == 0} { set got {}; set want {} } else {
              set got [r lset l $idx $v]; lset model $idx $v; set want OK
            }
          }
          6 {
            set where [expr {rand() < 0.5 ? "before" : "after"}]
            set pivot [lindex $values [expr {int(rand()*[llength $values])}]]
            set got [r linsert l $where $pivot $v]
            set p [lsearch -exact $model $pivot]
            if {$n == 0} {
              set want 0
            } elseif {$p < 0} {
              set want -1
            } else {
              if {$where eq "after"} { incr p }
              set model [linsert $model $p $v]
              set want [llength $model]
            }
          }
          7 {
            set cnt [expr {int(rand()*5)-2}]
            set got [r lrem l $cnt $v]
            set want 0
            if {$cnt >= 0} {
              set out {}
              foreach e $model {
                if {$e eq $v && ($cnt == 0 || $want < $cnt)} { incr want } else { lappend out $e }
              }
              set model $out
            } else {
              set out {}
              foreach e [lreverse $model] {
                if {$e eq $v && $want < -$cnt} { incr want } else { lappend out $e }
              }
              set model [lreverse $out]
            }
          }
          8 {
            set s [expr {int(rand()*10)-3}]
            set e [expr {int(rand()*($n+5))-3}]
            set got [r lrange l $s $e]
            set ms [expr {$s < 0 ? $s + $n : $s}]
            set me [expr {$e < 0 ? $e + $n : $e}]
            if {$ms < 0} { set ms 0 }
            set want [lrange $model $ms $me]
          }
          9 {
            if {$n > 3 && rand() < 0.1} {
              set s [expr {int(rand()*3)}]
              set e [expr {$n - 1 - int(rand()*3)}]
              set got [r ltrim l $s $e]
              set want OK
              set model [lrange $model $s $e]
            } else {
              set got [r llen l]
              set want $n
            }
          }
          10 {
            set got [r lpos l $v count 0]
            set want [lsearch -all -exact $model $v]
          }
          11 {
            set got [r lmove l l right left]
            if {$n == 0} { set want {} } else {
              set want [lindex $model end]
              set model [linsert [lrange $model 0 end-1] 0 $want]
            }
          }
        }
        if {$got ne $want} {
          fail "seed $seed op $i (type $op): got '$got' want '$want'"
        }
      }
      set final [r lrange l 0 -1]
      r config set list-max-listpack-size -2
      assert_equal $final $model
    }
  }

  # Compressed interior nodes: the same commands on a list made with
  # list-compress-depth 1 and one made without must answer alike, and the
  # compressed one must be much smaller.
  test {list-compress-depth compresses long lists and keeps every command's answers} {
    r config set list-max-listpack-size 16
    r config set list-compress-depth 0
    r del plain packed
    set items {}
    for {set i 0} {$i < 3000} {incr i} { lappend items "item-[string repeat x 24]-[expr {$i % 7}]" }
    r rpush plain {*}$items
    r config set list-compress-depth 1
    r rpush packed {*}$items
    set plain_mem [r memory usage plain samples 0]
    set packed_mem [r memory usage packed samples 0]
    assert {$packed_mem * 3 < $plain_mem}
    foreach k {plain packed} {
      r lset $k 1500 middle
      r linsert $k before middle before-middle
      r lrem $k -3 "item-[string repeat x 24]-3"
      r lrem $k 2 "item-[string repeat x 24]-5"
      r lpush $k head
      r rpush $k tail
      r ltrim $k 5 -5
    }
    foreach {a b} {0 -1 100 200 1490 1510 -300 -1} {
      assert_equal [r lrange packed $a $b] [r lrange plain $a $b]
    }
    set answers {}
    foreach k {plain packed} {
      lappend answers [list [r lindex $k 1497] [r lpos $k middle] [r llen $k] \
          [r lpos $k "item-[string repeat x 24]-6" rank -2]]
    }
    r config set list-compress-depth 0
    r config set list-max-listpack-size -2
    assert_equal [lindex $answers 0] [lindex $answers 1]
    assert_equal [r lrange packed 0 -1] [r lrange plain 0 -1]
    r llen packed
  } {2989}
}
