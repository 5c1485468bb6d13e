# Random picks from hash tables are uniform: RANDOMKEY, SRANDMEMBER, SPOP,
# HRANDFIELD and ZRANDMEMBER (positive and negative counts) must not favour
# members by how they are laid out in the table. Each test bounds Pearson's
# chi-square of the pick counts of 10 members at 40, as Redis's own tests
# do (9 degrees of freedom: a uniform source stays under 40 but for about
# one run in a million).

# Chi-square of the counts of `picks` against a uniform spread over `members`.
proc chi_square_of {members picks} {
  foreach m $members { set count($m) 0 }
  foreach p $picks {
    if {![info exists count($p)]} { fail "picked '$p', not a member" }
    incr count($p)
  }
  set expected [expr {double([llength $picks]) / [llength $members]}]
  set chi 0.0
  foreach m $members {
    set chi [expr {$chi + ($count($m) - $expected) ** 2 / $expected}]
  }
  return $chi
}

set ::pick_members {m0 m1 m2 m3 m4 m5 m6 m7 m8 m9}

start_server {tags {random-picks}} {
  test {RANDOMKEY picks keys uniformly} {
    r flushdb
    foreach m $::pick_members { r set $m 1 }
    set picks {}
    for {set i 0} {$i < 10000} {incr i} { lappend picks [r randomkey] }
    assert_lessthan [chi_square_of $::pick_members $picks] 40
  }

  test {SRANDMEMBER with a negative count picks hashtable members uniformly} {
    r del s
    r sadd s {*}$::pick_members
    assert_encoding hashtable s
    assert_lessthan [chi_square_of $::pick_members [r srandmember s -10000]] 40
  }

  test {SRANDMEMBER without a count picks hashtable members uniformly} {
    set picks {}
    for {set i 0} {$i < 10000} {incr i} { lappend picks [r srandmember s] }
    assert_lessthan [chi_square_of $::pick_members $picks] 40
  }

  test {SPOP pops hashtable members uniformly} {
    set picks {}
    for {set i 0} {$i < 5000} {incr i} {
      set m [r spop s]
      lappend picks $m
      r sadd s $m
    }
    assert_encoding hashtable s
    assert_lessthan [chi_square_of $::pick_members $picks] 40
  }

  test {HRANDFIELD with a negative count picks hashtable fields uniformly} {
    r del h
    r config set hash-max-listpack-entries 0
    foreach m $::pick_members { r hset h $m 1 }
    assert_encoding hashtable h
    set picks [r hrandfield h -10000]
    r config set hash-max-listpack-entries 128
    assert_lessthan [chi_square_of $::pick_members $picks] 40
  }

  test {HRANDFIELD without a count picks hashtable fields uniformly} {
    set picks {}
    for {set i 0} {$i < 10000} {incr i} { lappend picks [r hrandfield h] }
    assert_lessthan [chi_square_of $::pick_members $picks] 40
  }

  test {ZRANDMEMBER with a negative count picks skiplist members uniformly} {
    r del z
    r config set zset-max-listpack-entries 0
    set i 0
    foreach m $::pick_members { r zadd z [incr i] $m }
    assert_encoding skiplist z
    set picks [r zrandmember z -10000]
    r config set zset-max-listpack-entries 128
    assert_lessthan [chi_square_of $::pick_members $picks] 40
  }

  test {ZRANDMEMBER without a count picks skiplist members uniformly} {
    set picks {}
    for {set i 0} {$i < 10000} {incr i} { lappend picks [r zrandmember z] }
    assert_lessthan [chi_square_of $::pick_members $picks] 40
  }
}
