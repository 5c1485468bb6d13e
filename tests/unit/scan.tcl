# SCAN: full iteration guarantees (every key present throughout is returned,
# also while the table grows), MATCH / COUNT / TYPE filters and errors.

# Iterates SCAN to the end; returns the sorted unique keys seen. `extra` is
# scan options; `during` is run after every step (e.g. to add keys).
proc scan_all {{extra {}} {during {}}} {
  set cursor 0
  set keys {}
  set steps 0
  while 1 {
    lassign [r scan $cursor {*}$extra] cursor batch
    lappend keys {*}$batch
    incr steps
    if {$during ne ""} { uplevel 1 $during }
    if {$cursor eq "0"} break
    if {$steps > 100000} { error "SCAN did not terminate" }
  }
  return [lsort -unique $keys]
}

# Creates n string keys key:0..n-1 with pipelined MSETs.
proc populate {n {prefix key:}} {
  set c [redis_deferring_client]
  set batches 0
  for {set i 0} {$i < $n} {incr i 100} {
    set args {}
    for {set j $i} {$j < min($i + 100, $n)} {incr j} { lappend args $prefix$j $j }
    $c mset {*}$args
    incr batches
  }
  for {set b 0} {$b < $batches} {incr b} { $c read }
  $c close
}

start_server {tags {scan}} {
  test {SCAN on an empty database} {
    r flushall
    r scan 0
  } {0 {}}

  test {SCAN returns every key of a 10k keyspace exactly once per key set} {
    r flushall
    populate 10000
    assert_equal [r dbsize] 10000
    set keys [scan_all]
    llength $keys
  } {10000}

  test {SCAN with COUNT still returns everything} {
    foreach count {1 10 1000} {
      assert_equal [llength [scan_all [list count $count]]] 10000
    }
  }

  test {SCAN COUNT is a hint: large COUNT returns many keys per call} {
    lassign [r scan 0 count 5000] cursor batch
    assert_morethan [llength $batch] 1000
  }

  test {SCAN MATCH} {
    set keys [scan_all {match key:99*}]
    # key:99, key:990..key:999, key:9900..key:9999
    llength $keys
  } {111}

  test {SCAN MATCH with no match finishes with an empty set} {
    scan_all {match nothing*}
  } {}

  test {SCAN TYPE string and unknown type} {
    assert_equal [llength [scan_all {type string count 500}]] 10000
    scan_all {type list}
  } {}

  test {SCAN keeps returning keys that exist throughout while the table grows} {
    r flushall
    populate 500 old:
    set n 0
    set keys [scan_all {count 20} {
      # Add keys during the first steps so the hash table grows and
      # rehashes (500 -> 8500 keys) while the cursor is mid-table.
      if {$n < 40} { populate 200 new$n: }
      incr n
    }]
    set old [lsearch -all -inline -glob $keys old:*]
    assert_equal [r dbsize] 8500
    llength $old
  } {500}

  test {SCAN with keys deleted during iteration still returns the survivors} {
    r flushall
    populate 1000
    set i 0
    set keys [scan_all {count 50} {
      # Delete keys that were never part of the survivor set (key:5xx).
      if {$i < 100} { r del key:5[format %02d $i] }
      incr i
    }]
    set survivors {}
    foreach k $keys { if {![string match key:5?? $k]} { lappend survivors $k } }
    llength $survivors
  } {900}

  test {SCAN in another DB only sees that DB} {
    r flushall
    r set a 1
    r select 4
    r mset x 1 y 2
    set keys [scan_all]
    r select 0
    set keys
  } {x y}

  test {SCAN does not return expired keys} {
    r flushall
    r set live 1
    r set dead 1 px 5
    after 30
    scan_all
  } {live}

  test {SCAN errors} {
    assert_error {ERR invalid cursor} {r scan x}
    assert_error {ERR invalid cursor} {r scan 18446744073709551616}
    assert_error {ERR syntax error} {r scan 0 count 0}
    assert_error {ERR syntax error} {r scan 0 count}
    assert_error {ERR syntax error} {r scan 0 bogus 1}
    assert_error {ERR value is not an integer or out of range} {r scan 0 count x}
  }
}
