# SORT and SORT_RO over lists, sets and sorted sets: numeric and ALPHA
# order, BY (keys and hash fields, "nosort"), GET (#, keys, hash fields),
# LIMIT windows, STORE, errors; and a randomized check against a Tcl model.

start_server {tags {sort}} {
  proc setup_weights {} {
    r flushdb
    r rpush l 3 1 2 10
    foreach {id w name} {3 30 c 1 20 a 2 10 b 10 5 j} {
      r set w_$id $w
      r hset h_$id weight $w name $name
      r set name_$id $name
    }
  }

  test {SORT numeric, DESC, ALPHA on a list} {
    setup_weights
    list [r sort l] [r sort l desc] [r sort l alpha] [r sort l alpha desc]
  } {{1 2 3 10} {10 3 2 1} {1 10 2 3} {3 2 10 1}}

  test {SORT BY key pattern and BY hash field} {
    setup_weights
    list [r sort l by w_*] [r sort l by h_*->weight desc] [r sort l by name_* alpha]
  } {{10 2 1 3} {3 1 2 10} {1 2 3 10}}

  test {SORT GET #, keys and hash fields; missing ones are nulls} {
    setup_weights
    r rpush l 99
    list [r sort l get # get name_* get h_*->weight] [r sort l by w_* get nosuch_*]
  } {{1 a 20 2 b 10 3 c 30 10 j 5 99 {} {}} {{} {} {} {} {}}}

  test {SORT BY without '*' keeps the natural order (DESC reverses a list)} {
    setup_weights
    list [r sort l by nosort] [r sort l by nosort desc] [r sort l by nosort limit 1 2]
  } {{3 1 2 10} {10 2 1 3} {1 2}}

  test {SORT LIMIT windows are clamped} {
    setup_weights
    list [r sort l limit 1 2] [r sort l limit 0 0] [r sort l limit 3 10] \
      [r sort l limit 4 1] [r sort l limit -5 2] [r sort l limit 2 -1]
  } {{2 3} {} 10 {} {1 2} {3 10}}

  test {SORT on sets and sorted sets} {
    r flushdb
    r sadd s 5 -1 3.5 20
    r zadd z 1 c 2 a 3 b
    list [r sort s] [r sort s desc limit 0 2] [r sort z alpha] [r sort z by nosort] \
      [r sort z by nosort desc]
  } {{-1 3.5 5 20} {20 5} {a b c} {c a b} {b a c}}

  test {SORT numeric ties are ordered by the elements' bytes} {
    r flushdb
    r rpush l b a c
    r mset w_a 1 w_b 1 w_c 0
    list [r sort l by w_* alpha] [r sort l by w_*] [r sort l by w_* desc]
  } {{c b a} {c a b} {b a c}}

  test {SORT ALPHA BY: missing compare values sort first} {
    r flushdb
    r rpush l x y z
    r mset k_x b k_z a
    r sort l by k_* alpha
  } {y z x}

  test {SORT STORE writes a list and returns its length; empty result deletes} {
    setup_weights
    assert_equal [r sort l by w_* get name_* store dst] 4
    assert_equal [r lrange dst 0 -1] {j b a c}
    assert_equal [r type dst] list
    r rpush l 77
    assert_equal [r sort l get nosuch_* store dst2] 5
    assert_equal [r lrange dst2 0 -1] {{} {} {} {} {}}
    assert_equal [r sort nosuchkey store dst] 0
    r exists dst
  } {0}

  test {SORT STORE of a set BY nosort is sorted ALPHA (deterministic)} {
    r flushdb
    r sadd s c a b 10
    r sort s by nosort store dst
    r lrange dst 0 -1
  } {10 a b c}

  test {SORT STORE replaces a key of another type and its TTL} {
    r flushdb
    r rpush l 2 1
    r set dst x ex 100
    r sort l store dst
    list [r lrange dst 0 -1] [r ttl dst]
  } {{1 2} -1}

  test {SORT errors} {
    r flushdb
    r rpush l 1 a
    r set str x
    assert_error {*One or more scores can't be converted into double*} {r sort l}
    assert_error {WRONGTYPE*} {r sort str}
    assert_error {*syntax error*} {r sort l limit 1}
    assert_error {*syntax error*} {r sort l foo}
    assert_error {*value is not an integer*} {r sort l limit a 1}
    assert_error {*syntax error*} {r sort_ro l store dst}
    assert_error {*wrong number of arguments*} {r sort}
    r rpush n 1 inf -inf 2
    r rpush m 1 2
    r mset w_1 5 w_2 x
    assert_error {*One or more scores*} {r sort m by w_*}
    # ALPHA compares bytes: nothing is converted.
    assert_equal [r sort m by w_* alpha] {1 2}
    r sort n
  } {-inf 1 2 inf}

  test {SORT_RO reads like SORT; SORT on a missing key is empty} {
    setup_weights
    list [r sort_ro l by h_*->weight get h_*->name] [r sort nosuch] [r sort_ro nosuch]
  } {{j b a c} {} {}}

  test {COMMAND GETKEYS for SORT includes the STORE destination} {
    list [r command getkeys sort a by w_* store b] [r command getkeys sort_ro a]
  } {{a b} a}

  test {COMMAND GETKEYS for SORT with several STOREs names only the last, the one SORT writes} {
    r flushdb
    r rpush src 2 1
    set keys [r command getkeys sort src store first store second store third]
    r sort src store first store third
    list $keys [r exists first] [r lrange third 0 -1]
  } {{src third} 0 {1 2}}

  test {SORT STORE wakes a client blocked on the destination} {
    r flushdb
    r rpush l 3 1 2
    set rd [redis_deferring_client]
    $rd blpop dst 5
    wait_for_condition 500 20 {[info_field [r info clients] blocked_clients] == 1} { fail "not blocked" }
    r sort l store dst
    set got [$rd read]
    $rd close
    list $got [r lrange dst 0 -1]
  } {{dst 1} {2 3}}

  test {Randomized SORT against a Tcl model} {
    set seed 9127
    expr {srand($seed)}
    for {set round 0} {$round < 60} {incr round} {
      r flushdb
      set elems {}
      set n [expr {int(rand() * 40)}]
      for {set i 0} {$i < $n} {incr i} {
        set e [expr {int(rand() * 1000) - 500}]
        lappend elems $e
        r set w_$e [expr {int(rand() * 5)}]
      }
      if {$n > 0} { r rpush l {*}$elems }
      set desc [expr {rand() < 0.5}]
      set off [expr {int(rand() * 10) - 2}]
      set cnt [expr {int(rand() * 12) - 2}]
      # Model: by weight, ties by element bytes, then window.
      set pairs {}
      foreach e $elems { lappend pairs [list [r get w_$e] $e] }
      set sorted [lsort -command {apply {{a b} {
        set d [expr {[lindex $a 0] - [lindex $b 0]}]
        if {$d != 0} { return [expr {$d < 0 ? -1 : 1}] }
        return [string compare [lindex $a 1] [lindex $b 1]]
      }}} $pairs]
      if {$desc} { set sorted [lreverse $sorted] }
      set start [expr {$off < 0 ? 0 : $off}]
      set end [expr {$cnt < 0 ? $n - 1 : $start + $cnt - 1}]
      set want {}
      for {set i $start} {$i <= $end && $i < $n} {incr i} {
        lappend want [lindex [lindex $sorted $i] 1]
      }
      set args [list l by w_* limit $off $cnt]
      if {$desc} { lappend args desc }
      set got [r sort {*}$args]
      if {$got ne $want} { fail "seed $seed round $round: SORT $args -> '$got', model '$want'" }
    }
  }
}
