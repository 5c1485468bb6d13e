# DUMP / RESTORE: payloads round-trip every type and encoding, and RESTORE
# answers bad input with Redis 7.0's errors. Passes against Redis 7.0.15.

source [file join $::support_dir datasets.tcl]

start_server {tags {dump}} {
  test {DUMP / RESTORE round-trip every type and encoding} {
    set encs [make_every_encoding]
    foreach key [lsort [r keys enc:*]] {
      set before [key_contents $key]
      set enc [r object encoding $key]
      set payload [r dump $key]
      r del $key
      assert_equal [r restore $key 0 $payload] OK
      assert_equal [key_contents $key] $before "contents of $key"
      # The encoding comes back as it was (Redis 7.0 keeps small lists as
      # quicklists where this server, as 7.2, uses a listpack). An HLL is
      # "raw" after PFADD and a plain short string after RESTORE, in both.
      if {[dict exists $encs $key]} {
        assert_equal [r object encoding $key] $enc "encoding of $key"
        if {$key ne "enc:list:lp"} {
          assert_equal $enc [dict get $encs $key] "encoding of $key before DUMP"
        }
      }
      assert_equal [r ttl $key] -1
    }
    r pfcount enc:hll
  } {3}

  test {DUMP of a missing key is nil} {
    r del nokey
    r dump nokey
  } {}

  test {RESTORE with a TTL sets it; ABSTTL takes a unix time in ms} {
    r set k v
    set p [r dump k]
    r del k
    r restore k 100000 $p
    assert_range [r pttl k] 90000 100000
    r del k
    set when [expr {[clock milliseconds] + 200000}]
    r restore k $when $p absttl
    assert_range [r pttl k] 190000 200000
    r get k
  } {v}

  test {RESTORE of an existing key: BUSYKEY, or REPLACE} {
    r set k v1
    set p [r dump k]
    r set k v2
    assert_error {BUSYKEY Target key name already exists.} {r restore k 0 $p}
    assert_equal [r get k] v2
    r restore k 0 $p replace
    r get k
  } {v1}

  test {RESTORE with a TTL in the past creates nothing (REPLACE deletes the old key)} {
    r set k v
    set p [r dump k]
    r restore k 1 $p replace absttl
    r exists k
  } {0}

  test {RESTORE refuses a payload with a wrong checksum or version} {
    r set k hello
    set p [r dump k]
    r del k
    # Flip one byte of the value: the CRC no longer matches.
    set bad [string replace $p 2 2 [format %c [expr {([scan [string index $p 2] %c] ^ 1)}]]]
    assert_error {*DUMP payload version or checksum are wrong*} {r restore k 0 $bad}
    # Version 99 (the 2 bytes before the CRC).
    set n [string length $p]
    set v99 [string replace $p [expr {$n - 10}] [expr {$n - 9}] "\x63\x00"]
    assert_error {*DUMP payload version or checksum are wrong*} {r restore k 0 $v99}
    assert_error {*DUMP payload version or checksum are wrong*} {r restore k 0 short}
    r exists k
  } {0}

  test {RESTORE argument errors} {
    r set k v
    set p [r dump k]
    r del k
    assert_error {*Invalid TTL value*} {r restore k -1 $p}
    assert_error {*not an integer*} {r restore k abc $p}
    assert_error {*syntax error*} {r restore k 0 $p badopt}
    assert_error {*Invalid IDLETIME value*} {r restore k 0 $p idletime -1}
    assert_error {*Invalid FREQ value*} {r restore k 0 $p freq 256}
    assert_error {*syntax error*} {r restore k 0 $p idletime 10 freq 1}
    assert_error {*wrong number of arguments*} {r restore k 0}
    r restore k 0 $p idletime 1000
    assert_morethan [r object idletime k] 999
    r get k
  } {v}
}
