# Append-only file as Redis 7.0: multi-part files and manifest, round trips
# of every type and encoding through restarts (RDB preamble and command
# bases, incr files), BGREWRITEAOF, automatic rewrites, truncated and corrupt
# files, kill -9 with appendfsync always. Expectations from Redis 7.0.15
# (the file also passes against it: --server-bin /usr/bin/redis-server).

source [file join $::support_dir datasets.tcl]

proc wait_rewrite_done {{level 0}} {
  wait_for_condition 500 20 {
    [info_field [r $level info persistence] aof_rewrite_in_progress] == 0 &&
    [info_field [r $level info persistence] aof_rewrite_scheduled] == 0
  } {
    fail "AOF rewrite did not finish"
  }
}

proc manifest_text {dir} {
  return [read_file $dir/appendonlydir/appendonly.aof.manifest]
}

proc append_bytes {path data} {
  set fd [open $path a]
  fconfigure $fd -translation binary
  puts -nonewline $fd $data
  close $fd
}

# Contents of every enc:* key, for comparisons across restarts.
proc all_contents {} {
  set out {}
  foreach key [lsort [r keys enc:*]] { dict set out $key [key_contents $key] }
  return $out
}

# Stops the server (flushing its AOF as SHUTDOWN does) and waits.
proc shutdown_and_wait {} {
  catch {r shutdown nosave}
  wait_server_exit [srv dir] 5000
}

set aof_overrides {appendonly yes enable-debug-command yes aof-disable-auto-gc no}

start_server [list tags {aof external:skip needs:debug} overrides $aof_overrides] {
  set dir [lindex [r config get dir] 1]

  test {AOF on at start: base and incr files and the manifest, as 7.0 names them} {
    assert_equal [manifest_text $dir] \
      "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"
    assert_equal [info_field [r info persistence] aof_enabled] 1
    r set k v
    r select 3
    r set k3 v3
    r select 0
    # Effects are in the incr file as RESP commands, with SELECT on db changes.
    set incr [read_file $dir/appendonlydir/appendonly.aof.1.incr.aof]
    assert_match "*\$6\r\nSELECT\r\n\$1\r\n0\r\n*\$1\r\nk\r\n\$1\r\nv\r\n*SELECT\r\n\$1\r\n3\r\n*\$2\r\nk3\r\n\$2\r\nv3\r\n" $incr
  }

  test {Every type and encoding survives a restart through the incr file} {
    make_every_encoding
    r pexpire enc:embstr 500000
    r select 5
    r set in-db-5 x
    r select 0
    set digest [r debug digest]
    set contents [all_contents]
    assert_equal [r debug loadaof] OK
    assert_equal [r debug digest] $digest
    shutdown_and_wait
    start_server [list overrides [list dir $dir appendonly yes enable-debug-command yes]] {
      assert_equal [r debug digest] $digest
      assert_equal [all_contents] $contents
      assert_range [r pttl enc:embstr] 400000 500000
      r select 5
      assert_equal [r get in-db-5] x
      r select 0
    }
  }
}

start_server [list tags {aof external:skip} overrides {appendonly yes}] {
  set dir [lindex [r config get dir] 1]
  test {Transactions, scripts and blocking pops replay to the same data} {
    r multi
    r set t1 a
    r incr t2
    r exec
    r eval {redis.call('rpush', KEYS[1], 'x', 'y'); redis.call('lpop', KEYS[1]); return 1} 1 s1
    set c [redis_deferring_client]
    $c blpop q1 0
    wait_for_condition 50 20 {[info_field [r info clients] blocked_clients] == 1} {
      fail "BLPOP did not block"
    }
    r rpush q1 first second
    assert_equal [$c read] {q1 first}
    $c close
    set before [list [r get t1] [r get t2] [r lrange s1 0 -1] [r lrange q1 0 -1]]
    shutdown_and_wait
    start_server [list overrides [list dir $dir appendonly yes]] {
      set after [list [r get t1] [r get t2] [r lrange s1 0 -1] [r lrange q1 0 -1]]
    }
    assert_equal $after $before
    set after
  } {a 1 y second}
}

foreach preamble {yes no} {
  start_server [list tags {aof external:skip needs:debug} \
                  overrides [concat $aof_overrides [list aof-use-rdb-preamble $preamble]]] {
    set dir [lindex [r config get dir] 1]
    test "BGREWRITEAOF with aof-use-rdb-preamble $preamble: new base, round trip of every encoding" {
      make_every_encoding
      r pexpire enc:hash:lp 500000
      r function load {#!lua name=aoflib
        redis.register_function('aoff', function() return 'from-aof' end)}
      assert_equal [r bgrewriteaof] {Background append only file rewriting started}
      wait_rewrite_done
      set ext [expr {$preamble eq "yes" ? "rdb" : "aof"}]
      assert_equal [manifest_text $dir] \
        "file appendonly.aof.2.base.$ext seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n"
      # History files are gone (aof-disable-auto-gc no).
      assert_equal [lsort [glob -tails -directory $dir/appendonlydir *]] \
        [list appendonly.aof.2.base.$ext appendonly.aof.2.incr.aof appendonly.aof.manifest]
      set base [read_file $dir/appendonlydir/appendonly.aof.2.base.$ext]
      if {$preamble eq "yes"} {
        assert_equal [string range $base 0 8] REDIS0010
      } else {
        assert_equal [string index $base 0] "*"
      }
      # Writes after the rewrite go to the new incr file.
      r rpush enc:list:lp after-rewrite
      set digest [r debug digest]
      set contents [all_contents]
      shutdown_and_wait
      start_server [list overrides [list dir $dir appendonly yes enable-debug-command yes \
                                      aof-use-rdb-preamble $preamble]] {
        assert_equal [r debug digest] $digest
        assert_equal [all_contents] $contents
        assert_range [r pttl enc:hash:lp] 400000 500000
        assert_equal [r fcall aoff 0] from-aof
        set info [r info persistence]
        assert_equal [info_field $info aof_last_bgrewrite_status] ok
      }
    }
  }
}

start_server [list tags {aof external:skip} overrides {appendonly yes aof-disable-auto-gc yes}] {
  set dir [lindex [r config get dir] 1]
  test {History files stay with aof-disable-auto-gc yes, listed newest first, and go when it is off} {
    r set a 1
    r bgrewriteaof
    wait_rewrite_done
    r set b 2
    r bgrewriteaof
    wait_rewrite_done
    assert_equal [manifest_text $dir] [join {
      "file appendonly.aof.3.base.rdb seq 3 type b"
      "file appendonly.aof.2.incr.aof seq 2 type h"
      "file appendonly.aof.2.base.rdb seq 2 type h"
      "file appendonly.aof.1.incr.aof seq 1 type h"
      "file appendonly.aof.1.base.rdb seq 1 type h"
      "file appendonly.aof.3.incr.aof seq 3 type i" ""} "\n"]
    assert_equal [llength [glob -directory $dir/appendonlydir *]] 7
    r config set aof-disable-auto-gc no
    wait_for_condition 100 50 {[llength [glob -directory $dir/appendonlydir *]] == 3} {
      fail "history files were not deleted"
    }
    manifest_text $dir
  } "file appendonly.aof.3.base.rdb seq 3 type b\nfile appendonly.aof.3.incr.aof seq 3 type i\n"

  test {BGREWRITEAOF while BGSAVE runs is scheduled, then runs} {
    for {set i 0} {$i < 200} {incr i} { r set key:$i $i }
    r config set rdb-key-save-delay 5000
    assert_equal [r bgsave] {Background saving started}
    assert_equal [r bgrewriteaof] {Background append only file rewriting scheduled}
    assert_equal [info_field [r info persistence] aof_rewrite_scheduled] 1
    assert_equal [r bgrewriteaof] {Background append only file rewriting scheduled}
    r config set rdb-key-save-delay 0
    wait_for_condition 500 20 {[info_field [r info persistence] rdb_bgsave_in_progress] == 0} {
      fail "BGSAVE did not finish"
    }
    wait_rewrite_done
    set info [r info persistence]
    list [info_field $info aof_rewrites] [info_field $info aof_last_bgrewrite_status]
  } {3 ok}

  test {BGSAVE during an AOF rewrite: refused, or scheduled with SCHEDULE} {
    r config set rdb-key-save-delay 5000
    assert_equal [r bgrewriteaof] {Background append only file rewriting started}
    assert_error {*Background append only file rewriting already in progress*} {r bgrewriteaof}
    assert_error {*Another child process is active (AOF?): can't BGSAVE right now*} {r bgsave}
    assert_equal [r bgsave schedule] {Background saving scheduled}
    r config set rdb-key-save-delay 0
    wait_rewrite_done
    wait_for_condition 500 20 {[info_field [r info persistence] rdb_bgsave_in_progress] == 0 &&
                               [file exists $dir/dump.rdb]} {
      fail "the scheduled BGSAVE did not run"
    }
  }
}

start_server [list tags {aof external:skip} overrides {appendonly yes}] {
  test {INFO persistence shows the aof_* fields of an enabled AOF} {
    set info [r info persistence]
    foreach f {aof_enabled aof_rewrite_in_progress aof_rewrite_scheduled aof_last_rewrite_time_sec
               aof_current_rewrite_time_sec aof_last_bgrewrite_status aof_rewrites
               aof_rewrites_consecutive_failures aof_last_write_status aof_last_cow_size
               module_fork_in_progress module_fork_last_cow_size aof_current_size aof_base_size
               aof_pending_rewrite aof_buffer_length aof_pending_bio_fsync aof_delayed_fsync} {
      assert {[info_field $info $f] ne ""}
    }
    set before [info_field $info aof_current_size]
    r set k [string repeat x 1000]
    assert_morethan [info_field [r info persistence] aof_current_size] [expr {$before + 1000}]
  }

  test {Automatic rewrite on growth (auto-aof-rewrite-percentage / min-size)} {
    r config set auto-aof-rewrite-min-size 20000
    r config set auto-aof-rewrite-percentage 100
    set before [info_field [r info persistence] aof_rewrites]
    for {set i 0} {$i < 100} {incr i} { r set key:$i [string repeat y 500] }
    wait_for_condition 100 50 {[info_field [r info persistence] aof_rewrites] > $before} {
      fail "no automatic rewrite"
    }
    wait_rewrite_done
    r config set auto-aof-rewrite-percentage 0
    r dbsize
  } {101}
}

start_server [list tags {aof external:skip needs:debug} overrides {enable-debug-command yes}] {
  set dir [lindex [r config get dir] 1]
  test {CONFIG SET appendonly yes at runtime: a rewrite makes the base; later writes follow} {
    r set before-on 1
    assert_equal [info_field [r info persistence] aof_enabled] 0
    r config set appendonly yes
    r set during-rewrite 2
    wait_rewrite_done
    r set after-on 3
    assert_equal [info_field [r info persistence] aof_enabled] 1
    set m [manifest_text $dir]
    assert_match "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" $m
    set digest [r debug digest]
    shutdown_and_wait
    start_server [list overrides [list dir $dir appendonly yes enable-debug-command yes]] {
      assert_equal [r debug digest] $digest
      set v [r mget before-on during-rewrite after-on]
    }
    set v
  } {1 2 3}
}

start_server [list tags {aof external:skip} overrides {appendonly yes}] {
  set dir [lindex [r config get dir] 1]
  test {CONFIG SET appendonly no stops appending} {
    r set k1 v1
    r config set appendonly no
    assert_equal [info_field [r info persistence] aof_enabled] 0
    set size [file size $dir/appendonlydir/appendonly.aof.1.incr.aof]
    r set k2 v2
    assert_equal [file size $dir/appendonlydir/appendonly.aof.1.incr.aof] $size
    r config set appendonly yes
    wait_rewrite_done
    set m [manifest_text $dir]
  } "file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n"
}

# Truncated and corrupt files.
start_server [list tags {aof external:skip} overrides {appendonly yes}] {
  set dir [lindex [r config get dir] 1]
  r set k1 v1
  r set k2 v2
  shutdown_and_wait
  set incr $dir/appendonlydir/appendonly.aof.1.incr.aof
  set good [read_file $incr]

  test {A torn last command is cut off with aof-load-truncated yes} {
    append_bytes $incr "*3\r\n\$3\r\nset\r\n\$2\r\nk3\r\n\$1"
    start_server [list overrides [list dir $dir appendonly yes]] {
      set log [read_file [srv stdout]]
      assert_match "*!!! Warning: short read while loading the AOF file appendonly.aof.1.incr.aof!!!*" $log
      assert_match "*!!! Truncating the AOF appendonly.aof.1.incr.aof at offset [string length $good] !!!*" $log
      assert_match "*AOF appendonly.aof.1.incr.aof loaded anyway because aof-load-truncated is enabled*" $log
      set v [r mget k1 k2 k3]
      # Appends continue after the cut.
      r set k4 v4
    }
    assert_equal [string range [read_file $incr] 0 [expr {[string length $good] - 1}]] $good
    set v
  } {v1 v2 {}}

  test {A MULTI without its EXEC at the end is dropped as a torn write} {
    append_bytes $incr "*1\r\n\$5\r\nMULTI\r\n*3\r\n\$3\r\nset\r\n\$2\r\nk5\r\n\$1\r\nx\r\n"
    start_server [list overrides [list dir $dir appendonly yes]] {
      set v [r mget k4 k5]
    }
    set v
  } {v4 {}}

  test {A torn file is refused with aof-load-truncated no} {
    set size [file size $incr]
    append_bytes $incr "*2\r\n\$3\r\ndel"
    catch {exec $::cfg(server_bin) --port [find_free_port] --bind 127.0.0.1 --dir $dir --appendonly yes --aof-load-truncated no \
             --logfile "" 2>@1} out
    assert_match "*Unexpected end of file reading the append only file appendonly.aof.1.incr.aof*" $out
    # Nothing was cut.
    assert_equal [file size $incr] [expr {$size + 11}]
    write_bytes $incr [string range [read_file $incr] 0 [expr {$size - 1}]]
  }

  test {A corrupt AOF is refused with a clear message} {
    set saved [read_file $incr]
    append_bytes $incr "garbage\r\n"
    catch {exec $::cfg(server_bin) --port [find_free_port] --bind 127.0.0.1 --dir $dir --appendonly yes --logfile "" 2>@1} out
    assert_match "*Bad file format reading the append only file appendonly.aof.1.incr.aof*" $out
    write_bytes $incr $saved
  }

  test {An unknown command in the AOF is refused} {
    set saved [read_file $incr]
    append_bytes $incr "*1\r\n\$10\r\nnosuchcmd1\r\n"
    catch {exec $::cfg(server_bin) --port [find_free_port] --bind 127.0.0.1 --dir $dir --appendonly yes --logfile "" 2>@1} out
    assert_match "*Unknown command 'nosuchcmd1' reading the append only file appendonly.aof.1.incr.aof*" $out
    write_bytes $incr $saved
  }
}

start_server [list tags {aof external:skip} overrides {appendonly yes}] {
  set dir [lindex [r config get dir] 1]
  test {A corrupt RDB base file is refused, never a crash} {
    r set k v
    shutdown_and_wait
    set base $dir/appendonlydir/appendonly.aof.1.base.rdb
    set data [read_file $base]
    write_bytes $base [string range $data 0 20]
    catch {exec $::cfg(server_bin) --port [find_free_port] --bind 127.0.0.1 --dir $dir --appendonly yes --logfile "" 2>@1} out
    assert_no_match "*crashed*" $out
    assert_match "*appendonly.aof.1.base.rdb*" $out
  }
}

start_server [list tags {aof external:skip} overrides {appendonly no}] {
  set dir [lindex [r config get dir] 1]
  test {appendonly yes with only a dump.rdb starts empty and creates the AOF (as 7.0)} {
    r set from-rdb 1
    r save
    shutdown_and_wait
    start_server [list overrides [list dir $dir appendonly yes]] {
      set n [r dbsize]
      assert_equal [manifest_text $dir] \
        "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"
    }
    set n
  } {0}

  test {An old single appendonly.aof in dir is moved into appenddirname as the base} {
    file delete -force $dir/appendonlydir
    write_bytes $dir/appendonly.aof "*3\r\n\$3\r\nset\r\n\$3\r\nold\r\n\$5\r\nstyle\r\n"
    start_server [list overrides [list dir $dir appendonly yes]] {
      set v [r get old]
      assert_equal [manifest_text $dir] \
        "file appendonly.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"
      assert {![file exists $dir/appendonly.aof]}
      assert {[file exists $dir/appendonlydir/appendonly.aof]}
    }
    set v
  } {style}
}

start_server [list tags {aof external:skip} overrides {appendonly yes appendfsync always}] {
  set dir [lindex [r config get dir] 1]
  test {kill -9 with appendfsync always loses no acknowledged write} {
    set c [redis_deferring_client]
    set n 3000
    for {set i 0} {$i < $n} {incr i} { $c set key:$i $i }
    $c flush
    # Read about half of the replies, then kill the server at once.
    set acked 0
    for {set i 0} {$i < $n / 2} {incr i} {
      assert_equal [$c read] OK
      incr acked
    }
    mark_server_killed
    exec kill -9 [srv pid]
    wait_server_exit [srv dir] 5000
    $c close
    start_server [list overrides [list dir $dir appendonly yes]] {
      set missing 0
      for {set i 0} {$i < $acked} {incr i} {
        if {[r get key:$i] ne $i} { incr missing }
      }
      assert_morethan [r dbsize] [expr {$acked - 1}]
    }
    set missing
  } {0}
}

start_server [list tags {aof external:skip} overrides {appendonly yes aof-timestamp-enabled yes}] {
  set dir [lindex [r config get dir] 1]
  test {aof-timestamp-enabled writes #TS annotations that loading skips} {
    r set k v
    set incr [read_file $dir/appendonlydir/appendonly.aof.1.incr.aof]
    assert_match "#TS:*\r\n*" $incr
    shutdown_and_wait
    start_server [list overrides [list dir $dir appendonly yes]] {
      set v [r get k]
    }
    set v
  } {v}
}

start_server [list tags {aof external:skip needs:debug} overrides {appendonly yes enable-debug-command yes}] {
  set dir [lindex [r config get dir] 1]
  test {A failed rewrite keeps its incr file: both incr files load after a restart} {
    for {set i 0} {$i < 500} {incr i} { r set key:$i $i }
    r config set rdb-key-save-delay 10000
    assert_equal [r bgrewriteaof] {Background append only file rewriting started}
    set child [exec pgrep -P [srv pid]]
    r set during-failed-rewrite yes
    exec kill -9 $child
    wait_rewrite_done
    r config set rdb-key-save-delay 0
    set info [r info persistence]
    assert_equal [info_field $info aof_last_bgrewrite_status] err
    assert_equal [info_field $info aof_rewrites_consecutive_failures] 1
    assert_equal [manifest_text $dir] [join {
      "file appendonly.aof.1.base.rdb seq 1 type b"
      "file appendonly.aof.1.incr.aof seq 1 type i"
      "file appendonly.aof.2.incr.aof seq 2 type i" ""} "\n"]
    assert {[glob -nocomplain $dir/temp-rewriteaof-bg-*] eq ""}
    r set after-failed-rewrite yes
    set digest [r debug digest]
    shutdown_and_wait
    start_server [list overrides [list dir $dir appendonly yes enable-debug-command yes]] {
      assert_equal [r debug digest] $digest
      set v [r mget key:499 during-failed-rewrite after-failed-rewrite]
      # The next rewrite retires both incr files.
      r bgrewriteaof
      wait_rewrite_done
      assert_equal [manifest_text $dir] \
        "file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.3.incr.aof seq 3 type i\n"
    }
    set v
  } {499 yes yes}
}

start_server [list tags {aof external:skip needs:debug} overrides {appendonly yes enable-debug-command yes}] {
  set dir [lindex [r config get dir] 1]
  test {While the AOF loads at start: -LOADING, INFO loading fields, then the data} {
    for {set i 0} {$i < 3000} {incr i} { r set key:$i value:$i }
    r bgrewriteaof
    wait_rewrite_done
    r set in-incr 1
    set digest [r debug digest]
    shutdown_and_wait
    set port [find_free_port]
    # 2 ms per key of the RDB base: about 6 s of loading (room for a slow
    # start on a loaded machine).
    set pid [spawn_server $::cfg(server_bin) [list --port $port --bind 127.0.0.1 --dir $dir \
               --save "" --appendonly yes --key-load-delay 2000 --enable-debug-command yes] $dir]
    set c {}
    wait_for_condition 200 20 {![catch {::redis::connect 127.0.0.1 $port} c]} {
      fail "the server did not accept connections while loading"
    }
    catch {$c ping} e
    assert_match {LOADING*} $e
    set info [$c info persistence]
    assert_equal [info_field $info loading] 1
    assert_morethan [info_field $info loading_total_bytes] 0
    wait_for_condition 500 20 {[info_field [$c info persistence] loading] == 0} {
      fail "loading did not finish"
    }
    assert_equal [$c debug digest] $digest
    set n [$c dbsize]
    catch {$c shutdown nosave}
    $c close
    set n
  } {3001}
}

# Replaying an AOF is replaying data: a TTL already past leaves the key in
# place while loading (later commands of the file find it), and it reads as
# gone once loaded; a slow script in the file makes clients wait with
# -LOADING, not -BUSY. DEBUG AOF-FLUSH-SLEEP delays each write of the AOF.
proc resp_command {args} {
  set out "*[llength $args]\r\n"
  foreach a $args { append out "\$[string length $a]\r\n$a\r\n" }
  return $out
}

start_server [list tags {aof external:skip needs:debug} overrides {appendonly yes enable-debug-command yes aof-use-rdb-preamble no}] {
  set dir [lindex [r config get dir] 1]
  set incr $dir/appendonlydir/appendonly.aof.1.incr.aof
  test {DEBUG AOF-FLUSH-SLEEP delays the reply of a write by the sleep} {
    r debug aof-flush-sleep 300000
    set t0 [clock milliseconds]
    r set slow 1
    set took [expr {[clock milliseconds] - $t0}]
    r debug aof-flush-sleep 0
    assert_morethan $took 290
    r get slow
  } {1}

  test {An AOF's PEXPIREAT in the past: the key stays while loading, and is gone once loaded} {
    r set x 0
    shutdown_and_wait
    append_bytes $incr [resp_command rpush list foo][resp_command pexpireat list 1000][resp_command rpush list bar]
    start_server [list overrides [list dir $dir appendonly yes aof-use-rdb-preamble no enable-debug-command yes]] {
      set got [list [r llen list] [r exists list] [r get x]]
      shutdown_and_wait
    }
    set got
  } {0 0 0}

  test {A slow script in the AOF: clients get -LOADING while it runs, then its writes are there} {
    append_bytes $incr [resp_command eval "redis.call('set',KEYS\[1\],'y'); for i=1,1500000 do redis.call('ping') end return 'ok'" 1 x]
    set port [find_free_port]
    set pid [spawn_server $::cfg(server_bin) [list --port $port --bind 127.0.0.1 --dir $dir \
               --save "" --appendonly yes --aof-use-rdb-preamble no --lua-time-limit 1] $dir]
    set c {}
    wait_for_condition 200 20 {![catch {::redis::connect 127.0.0.1 $port} c]} {
      fail "the server did not accept connections while loading"
    }
    set seen {}
    set deadline [expr {[clock milliseconds] + 30000}]
    while {[catch {$c ping} e]} {
      lappend seen [lindex [split $e] 0]
      if {[clock milliseconds] > $deadline} { fail "the load never ended" }
      after 10
    }
    set errors [lsort -unique [lmap e $seen {expr {$e eq "PONG" ? [continue] : $e}}]]
    set v [$c get x]
    catch {$c shutdown nosave}
    $c close
    list $errors $v
  } {LOADING y}
}

# Redis 7.0.15 exits when DEBUG LOADAOF meets a bad file: ours only.
proc our_server {} {
  expr {![catch {exec $::cfg(server_bin) -v} v] && [string match *rdma-redis* $v]}
}

if {![our_server]} {
  puts "\[skip\]: aof.tcl fuzz (DEBUG LOADAOF of bad files exits Redis 7.0.15)"
} else {
start_server [list tags {aof external:skip needs:debug} overrides {appendonly yes enable-debug-command yes aof-use-rdb-preamble no}] {
  set dir [lindex [r config get dir] 1]
  test {Fuzz: byte flips and truncations of an incr file never crash DEBUG LOADAOF} {
    make_every_encoding
    r config set appendonly no
    set incr $dir/appendonlydir/appendonly.aof.1.incr.aof
    set good [read_file $incr]
    set n [string length $good]
    set loaded 0
    for {set i 0} {$i < 200} {incr i} {
      set data $good
      for {set k 0} {$k < 1 + int(rand() * 4)} {incr k} {
        set pos [expr {int(rand() * $n)}]
        set data [string replace $data $pos $pos [format %c [expr {int(rand() * 256)}]]]
      }
      if {rand() < 0.3} { set data [string range $data 0 [expr {int(rand() * $n)}]] }
      write_bytes $incr $data
      if {![catch {r debug loadaof}]} { incr loaded }
      assert_equal [r ping] PONG
    }
    write_bytes $incr $good
    assert_equal [r debug loadaof] OK
    r dbsize
  } {12}
}
}
