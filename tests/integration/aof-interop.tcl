# AOF directories moved between Redis 7.0.15 (Debian's /usr/bin/redis-server)
# and the server under test, both ways, with an RDB-preamble base and with a
# command base, each followed by an incr file: compared key by key and by
# DEBUG DIGEST. Skipped when Debian's server is not installed.

source [file join $::support_dir datasets.tcl]

set ::reference_bin /usr/bin/redis-server

proc wait_rewrite_done {} {
  wait_for_condition 500 20 {
    [info_field [r info persistence] aof_rewrite_in_progress] == 0 &&
    [info_field [r info persistence] aof_rewrite_scheduled] == 0
  } {
    fail "AOF rewrite did not finish"
  }
}

proc all_contents {} {
  set out {}
  foreach key [lsort [r keys *]] { dict set out $key [list [r type $key] [key_contents $key]] }
  return $out
}

# Fills a server: half the data in the base (by BGREWRITEAOF), the rest in
# the incr file, keys in two databases, TTLs and a function library.
proc fill_for_interop {} {
  make_every_encoding
  r pexpire enc:hash:ht 900000
  r function load {#!lua name=interop
    redis.register_function('interop_f', function() return 'fn' end)}
  r bgrewriteaof
  wait_rewrite_done
  r select 7
  r set db7-key in-incr
  r select 0
  r rpush enc:list:lp after-base
  r zadd enc:zset:sl 12.75 late-member
  r hset enc:hash:lp late-field late-value
  r incrby enc:int 5
  r pexpire enc:raw 800000
}

# Writes with `writer`, loads with `reader`; returns what the reader saw.
proc move_aof {writer reader preamble} {
  set dir [new_tmp_dir aof-interop]
  set ov [list dir $dir appendonly yes aof-use-rdb-preamble $preamble enable-debug-command yes]
  with_server_bin $writer {
    start_server [list overrides $ov] {
      fill_for_interop
      set digest [r debug digest]
      set contents [all_contents]
      catch {r shutdown nosave}
      wait_server_exit [srv dir] 5000
    }
  }
  with_server_bin $reader {
    start_server [list overrides $ov] {
      assert_equal [all_contents] $contents
      assert_equal [r debug digest] $digest
      assert_range [r pttl enc:raw] 700000 800000
      assert_equal [r fcall interop_f 0] fn
      r select 7
      set v [r get db7-key]
      r select 0
    }
  }
  return $v
}

if {[file executable $::reference_bin]} {
  start_server {tags {aof external:skip needs:debug}} {
    foreach preamble {yes no} {
      test "AOF written by Redis 7.0.15 loads here (aof-use-rdb-preamble $preamble)" {
        move_aof $::reference_bin $::cfg(server_bin) $preamble
      } {in-incr}

      test "AOF written here loads in Redis 7.0.15 (aof-use-rdb-preamble $preamble)" {
        move_aof $::cfg(server_bin) $::reference_bin $preamble
      } {in-incr}
    }
  }
} else {
  puts "\[skip\]: aof-interop.tcl ($::reference_bin not installed)"
}

if {[file executable /usr/bin/redis-check-aof]} {
  foreach preamble {yes no} {
    start_server [list tags {aof external:skip} \
                    overrides [list appendonly yes aof-use-rdb-preamble $preamble]] {
      test "redis-check-aof 7.0.15 finds our files valid (aof-use-rdb-preamble $preamble)" {
        make_every_encoding
        r bgrewriteaof
        wait_rewrite_done
        r set after-base 1
        r select 3
        r rpush l a b c
        r select 0
        set dir [lindex [r config get dir] 1]
        set out [exec /usr/bin/redis-check-aof $dir/appendonlydir/appendonly.aof.manifest]
        assert_match "*INCR AOF appendonly.aof.2.incr.aof is valid*" $out
        assert_match "*All AOF files and manifest are valid*" $out
      }
    }
  }
}
