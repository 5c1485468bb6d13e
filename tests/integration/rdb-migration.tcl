# Moving in from other servers: snapshots of every era (RDB 1 to 12, Valkey
# 9's VALKEY080), DUMP payloads in the old encodings, an AOF whose base was
# written by an old server, corrupted old encodings, and the diagnostics for
# what cannot be loaded. The files are built at test time, byte by byte, by
# support/old_rdb.py; each era file holds the same data as a "reference"
# file written with plain types, which Redis 7.0.15 loads too: where
# Debian's /usr/bin/redis-server is installed, it loads every era file it
# can (RDB <= 10) and must give the same DEBUG DIGEST as this server.

set ::old_rdb [file join $::support_dir old_rdb.py]
set ::reference_bin /usr/bin/redis-server
set ::versions {1 2 3 4 5 6 7 8 9 10 11 12 valkey80}

proc gen_rdb {mode what path} { exec python3 $::old_rdb $mode $what $path }

# Loads `path` into the running server (as its dump.rdb) and returns
# {digest dbsize}, or {error message} when the load failed.
proc reload_from {path} {
  set dir [lindex [r config get dir] 1]
  file copy -force $path $dir/dump.rdb
  if {[catch {r debug reload nosave} e]} { return [list error $e] }
  list [r debug digest] [r dbsize]
}

# A field/value list in a fixed order (hash tables have none).
proc lsort_pairs {l} {
  set pairs {}
  foreach {a b} $l { lappend pairs [list $a $b] }
  concat {*}[lsort $pairs]
}

set gen [new_tmp_dir rdb-gen]
foreach v $::versions {
  gen_rdb file $v $gen/era$v.rdb
  gen_rdb ref $v $gen/ref$v.rdb
}

# Digests Redis 7.0.15 gives: of each reference file, and of the era files
# it can load (RDB <= 10).
set ::redis_digest {}
if {[file executable $::reference_bin]} {
  with_server_bin $::reference_bin {
    start_server {tags {rdb-migration external:skip} overrides {enable-debug-command yes}} {
      foreach v $::versions {
        dict set ::redis_digest ref$v [reload_from $gen/ref$v.rdb]
        if {$v ne "valkey80" && $v <= 10} {
          dict set ::redis_digest era$v [reload_from $gen/era$v.rdb]
        }
      }
    }
  }
}

start_server {tags {rdb-migration external:skip needs:debug} overrides {enable-debug-command yes}} {
  foreach v $::versions {
    test "A snapshot of RDB version $v loads with the data of its reference file" {
      set era [reload_from $gen/era$v.rdb]
      set ref [reload_from $gen/ref$v.rdb]
      assert_equal $era $ref
      assert_morethan [lindex $era 1] 10
      if {[dict exists $::redis_digest ref$v]} {
        assert_equal [dict get $::redis_digest ref$v] $ref "Redis 7.0.15 on the reference file"
      }
      if {[dict exists $::redis_digest era$v]} {
        assert_equal [dict get $::redis_digest era$v] $era "Redis 7.0.15 on the era file"
      }
    }
  }

  test {Old encodings read back element by element, TTLs included} {
    reload_from $gen/era7.rdb
    assert_equal [r lrange list:ziplist 0 -1] \
        [list one 2 three -100000 1099511627776 [string repeat x 300] 12 13 -1]
    assert_range [r ttl list:ziplist] 1 [expr {2114380800 - [clock seconds]}]
    assert_equal [r zrange zset:ziplist 0 -1 withscores] {a 1 b 2.5 c 1e+20 d inf}
    assert_equal [r hget hash:zipmap name] redis
    assert_equal [r hget hash:zipmap long] [string repeat L 300]
    assert_equal [lsort_pairs [r hgetall hash:ziplist]] \
        [lsort_pairs [list f v n 7 big [string repeat B 70]]]
    assert_equal [r lrange list:quicklist 0 4] {n1-a n1-b 3 n2-a 8589934592}
    assert_equal [r llen list:quicklist] 6
    assert_equal [lsort -integer [r smembers set:intset]] {-7 5 70000 1099511627776}
    assert_equal [r get str:lzf] "[string repeat ab 20]xyz"
    assert_equal [r get str:int32] -2000000000
    # Converted to this server's encodings, as Redis 7.0 converts them.
    assert_equal [r object encoding hash:zipmap] hashtable
    assert_equal [r object encoding hash:ziplist] hashtable
    assert_equal [r object encoding zset:ziplist] listpack
    assert_equal [r object encoding set:intset] intset
    r object encoding list:quicklist
  } {quicklist}

  test {RDB 12 and Valkey 9 hashes with field expiry: expired fields dropped, others kept} {
    reload_from $gen/era12.rdb
    assert_equal [lsort [r hkeys hash:ttl-lp]] {keep later}
    assert_equal [lsort [r hkeys hash:ttl-md]] {keep later}
    assert_equal [lsort [r hkeys hash:ttl-lp0]] {a b}
    assert_equal [r hkeys hash:ttl-md0] {a}
    assert_equal [lsort [r smembers set:listpack]] {7 alpha beta}
    reload_from $gen/eravalkey80.rdb
    assert_equal [lsort [r hgetall hash:valkey2]] {1 2 keep later}
    assert_match {*hash fields with an expiry time were loaded without it*} \
        [read_file [srv stdout]]
    assert_match {*Loading RDB produced by Valkey version 9.0.0*} [read_file [srv stdout]]
  }

  test {Saving after loading an old file writes RDB 10, which Redis 7.0.15 loads} {
    set want [reload_from $gen/era12.rdb]
    r save
    set dir [lindex [r config get dir] 1]
    set saved [read_file $dir/dump.rdb]
    assert_equal [string range $saved 0 8] REDIS0010
    file copy -force $dir/dump.rdb $gen/resaved.rdb
    assert_equal [reload_from $gen/resaved.rdb] $want
    if {[file executable $::reference_bin]} {
      with_server_bin $::reference_bin {
        start_server {overrides {enable-debug-command yes}} {
          assert_equal [reload_from $gen/resaved.rdb] $want
        }
      }
    }
  }

}

# Without the checksum, damage inside a value reaches the value parsers.
start_server {tags {rdb-migration external:skip needs:debug} overrides {enable-debug-command yes rdbchecksum no}} {
  test {Corrupted old-encoding files are refused with a reason and nothing is lost} {
    reload_from $gen/ref7.rdb
    set digest [r debug digest]
    set good [read_file $gen/era7.rdb]
    set n [string length $good]
    # The structure is in the first bytes (the last value is one long
    # quicklist node): damage goes there.
    set span [expr {min($n - 30, 1500)}]
    set refused 0
    expr {srand(28)}
    for {set i 0} {$i < 150} {incr i} {
      set data $good
      switch [expr {$i % 3}] {
        0 { set data [string range $good 0 [expr {9 + int(rand() * ($n - 10))}]] }
        1 {
          set pos [expr {9 + int(rand() * $span)}]
          set byte [expr {[scan [string index $good $pos] %c] ^ (1 << int(rand() * 8))}]
          set data [string replace $good $pos $pos [format %c $byte]]
        }
        2 {
          set a [expr {9 + int(rand() * $span)}]
          set b [expr {9 + int(rand() * $span)}]
          set data [string replace $good $a [expr {$a + 7}] [string range $good $b [expr {$b + 7}]]]
        }
      }
      write_bytes $gen/bad.rdb $data
      set res [reload_from $gen/bad.rdb]
      if {[lindex $res 0] eq "error"} {
        incr refused
        assert_match {*Error trying to load the RDB dump*} [lindex $res 1]
        assert_equal [r debug digest] $digest
      } else {
        set digest [r debug digest]  ;# a change that still parses (a byte of a value)
      }
      assert_equal [r ping] PONG
    }
    assert_morethan $refused 80
    assert_match {*Internal error in RDB reading offset*RDB version 7 written by Redis*} \
        [read_file [srv stdout]]
  }
}

start_server {tags {rdb-migration external:skip needs:debug} overrides {enable-debug-command yes}} {
  foreach {kind expected} {
    zipmap {hash a 1 bb 22}
    ziplist-list {list a 1}
    ziplist-zset {zset a 1 b 2.5 c inf}
    ziplist-hash {hash f1 v1 f2 22}
    quicklist {list a b 3 d}
    intset {set 1 2 70000}
    listpack-set {set 1 a b}
    hash-listpack-ex {hash keep 1 later 2}
    valkey-hash-2 {hash keep 1}
  } {
    test "RESTORE of a $kind payload from another server" {
      set p [binary format H* [exec python3 $::old_rdb payload $kind]]
      r del k
      assert_equal [r restore k 0 $p] OK
      set type [lindex $expected 0]
      assert_equal [r type k] $type
      switch $type {
        hash {
          set all [lsort_pairs [r hgetall k]]
          if {[string match *-ex* $kind] || [string match valkey* $kind]} {
            assert_equal $all [lrange $expected 1 end]  ;# the expired field is gone
          } else {
            assert_equal [lrange $all 0 3] [lrange $expected 1 4]
          }
        }
        list { assert_equal [lrange [r lrange k 0 -1] 0 [expr {[llength $expected] - 2}]] \
                   [lrange $expected 1 end] }
        zset { assert_equal [r zrange k 0 -1 withscores] [lrange $expected 1 end] }
        set { assert_equal [lsort [r smembers k]] [lrange $expected 1 end] }
      }
      # What DUMP gives back is Redis 7.0's format, and loads again.
      set again [r dump k]
      assert_equal [r restore k2 0 $again replace] OK
      assert_equal [r debug digest-value k] [r debug digest-value k2]
    }
  }

  test {RESTORE of a payload with field expiry logs what it did with the times} {
    assert_match {*RESTORE of key 'k': 1 hash fields with an expiry time restored without it*1 already expired dropped*} \
        [read_file [srv stdout]]
  }

  test {Corrupted old-encoding payloads are refused, never crash} {
    set ok 0
    set bad 0
    foreach kind {zipmap ziplist-list ziplist-zset ziplist-hash quicklist intset} {
      foreach hex [split [exec python3 $::old_rdb fuzz $kind 120 [string length $kind]] "\n"] {
        r del f
        if {[catch {r restore f 0 [binary format H* $hex]} e]} {
          assert_match {*Bad data format*} $e
          incr bad
        } else {
          incr ok
          # Whatever was accepted is whole: every element reads back.
          switch [r type f] {
            hash { r hgetall f }
            list { r lrange f 0 -1 }
            zset { r zrange f 0 -1 withscores }
            set { r smembers f }
          }
          r debug digest-value f
          r dump f
        }
      }
    }
    assert_equal [r ping] PONG
    assert_morethan $bad 300
    expr {$ok + $bad}
  } {720}
}

tags {rdb-migration external:skip needs:debug} {
  test {An AOF whose RDB base was written by an old server loads} {
    start_server {overrides {enable-debug-command yes}} { set want [reload_from $gen/ref7.rdb] }
    set dir [new_tmp_dir aof-old-base]
    file mkdir $dir/appendonlydir
    file copy $gen/era7.rdb $dir/appendonlydir/appendonly.aof.1.base.rdb
    write_bytes $dir/appendonlydir/appendonly.aof.1.incr.aof \
        "*3\r\n\$3\r\nSET\r\n\$5\r\nafter\r\n\$1\r\nx\r\n"
    write_bytes $dir/appendonlydir/appendonly.aof.manifest \
        "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"
    set port [find_free_port]
    set pid [exec $::cfg(server_bin) --port $port --bind 127.0.0.1 --dir $dir --appendonly yes \
                 --enable-debug-command yes --save "" --logfile $dir/log &]
    wait_for_condition 100 50 {[ping_server 127.0.0.1 $port]} { fail "server did not start" }
    set c [::redis::connect 127.0.0.1 $port]
    set got [list [$c get after] [$c dbsize]]
    $c del after
    set digest [$c debug digest]
    $c close
    exec kill $pid
    wait_for_condition 100 50 {![ping_server 127.0.0.1 $port]} { fail "server did not stop" }
    assert_equal [lindex $got 0] x
    assert_equal $digest [lindex $want 0]
    lindex $got 1
  } {18}
}

tags {rdb-migration external:skip} {
  foreach {name pattern} {
    future-version {*can't handle RDB format version 13*REDIS0012*VALKEY080*}
    redis-magic-valkey-version {*can't handle RDB format version 80 (magic REDIS0080)*}
    module-aux {*AUX module data I can't load: no matching module 'mymodule1'*version 9*}
    module-value {*no matching module type 'modtype-A'*key 'mkey'*}
    unknown-type {*unsupported value type unknown (30)*key 'k', type 30 at offset 38*}
    valkey-slot-import {*slot import*Valkey opcode 243*}
  } {
    test "A file that cannot be loaded names the item and the version: $name" {
      set d [new_tmp_dir rdb-special]
      gen_rdb special $name $d/dump.rdb
      set port [find_free_port]
      catch {exec timeout 10 $::cfg(server_bin) --port $port --bind 127.0.0.1 --dir $d \
               --logfile "" 2>@1} out
      assert_match $pattern $out
      assert_match {*Fatal error loading the DB*} $out
    }
  }
}

tags {rdb-migration external:skip} {
  start_server {overrides {enable-debug-command yes}} {
    test {A Redis 5/6 stream (type 15) loads with its group, as in Redis 7.0.15} {
      set d [new_tmp_dir rdb-stream]
      gen_rdb stream 15 $d/s15.rdb
      set got [reload_from $d/s15.rdb]
      set g [lindex [r xinfo groups s] 0]
      assert_equal [dict get $g name] grp
      assert_equal [dict get $g last-delivered-id] 1700000000000-3
      assert_equal [dict get [lindex [r xinfo consumers s grp] 0] name] alice
      assert_equal [dict get [r xinfo stream s] last-generated-id] 1700000000000-5
      if {[file executable $::reference_bin]} {
        with_server_bin $::reference_bin {
          start_server {overrides {enable-debug-command yes}} {
            set want [reload_from $d/s15.rdb]
          }
        }
        assert_equal $got $want
      }
      lindex $got 1
    } {1}

    test {A Redis 7.2 stream (type 21, RDB 11) loads: metadata kept, active time dropped} {
      set d [new_tmp_dir rdb-stream]
      gen_rdb stream 21 $d/s21.rdb
      set got [reload_from $d/s21.rdb]
      set g [lindex [r xinfo groups s] 0]
      assert_equal [dict get $g entries-read] 4
      assert_equal [dict get [r xinfo stream s] entries-added] 7
      assert_equal [dict get [r xinfo stream s] max-deleted-entry-id] 1700000000000-5
      assert_equal [dict get [lindex [r xinfo consumers s grp] 0] name] alice
      # Saved back in 7.0's format (type 19), which Redis 7.0.15 reads.
      r debug reload
      assert_equal [dict get [lindex [r xinfo groups s] 0] entries-read] 4
      lindex $got 1
    } {1}
  }

  test {After loading an old file, a Redis 7.0.15 replica gets the data over SYNC} {
    if {![file executable $::reference_bin]} { return skipped }
    start_server {overrides {enable-debug-command yes}} {
      set want [reload_from $gen/era6.rdb]
      set mhost [srv host]
      set mport [srv port]
      with_server_bin $::reference_bin {
        start_server {overrides {enable-debug-command yes}} {
          r replicaof $mhost $mport
          wait_for_condition 100 100 {
            [string match *master_link_status:up* [r info replication]]
          } { fail "the replica did not sync" }
          wait_for_condition 50 100 {[r dbsize] == [lindex $want 1]} { fail "keys missing" }
          assert_equal [list [r debug digest] [r dbsize]] $want
        }
      }
    }
    set ok 1
  } {1}
}

start_server {tags {rdb-migration external:skip needs:debug} overrides {enable-debug-command yes rdbcompression no}} {
  test {A file read in chunks (pages given back as it loads) still has its checksum checked} {
    # 24 MB: past the 8 MB chunks the loader gives back while it reads.
    for {set i 0} {$i < 24} {incr i} { r set big:$i [string repeat [format %c [expr {65 + $i}]] 1000000] }
    set digest [r debug digest]
    r save
    assert_equal [r debug reload nosave] OK
    assert_equal [r debug digest] $digest
    set dir [lindex [r config get dir] 1]
    set good [read_file $dir/dump.rdb]
    set pos 20000000  ;# inside a value, in the third chunk
    set byte [expr {[scan [string index $good $pos] %c] ^ 1}]
    write_bytes $dir/dump.rdb [string replace $good $pos $pos [format %c $byte]]
    assert_error {*Error trying to load the RDB dump*} {r debug reload nosave}
    assert_match {*RDB CRC error*} [read_file [srv stdout]]
    assert_equal [r debug digest] $digest
  }
}
