# RDB snapshots: SAVE / BGSAVE / DEBUG RELOAD / restart round trips of every
# type and encoding, save points, SHUTDOWN and SIGTERM saves, INFO
# persistence, stop-writes-on-bgsave-error, corrupt and truncated files.
# Expectations from Redis 7.0.15 (the file also passes against it).

source [file join $::support_dir datasets.tcl]

proc wait_bgsave_done {} {
  wait_for_condition 500 20 {[info_field [r info persistence] rdb_bgsave_in_progress] == 0} {
    fail "BGSAVE did not finish"
  }
}

start_server {tags {rdb external:skip needs:debug} overrides {enable-debug-command yes enable-protected-configs yes}} {
  test {DEBUG RELOAD keeps every type and encoding, value and TTL} {
    set encs [make_every_encoding]
    r expire enc:hash:lp 10000
    r select 5
    r set in-db-5 x
    r select 0
    set digest [r debug digest]
    set contents {}
    foreach key [lsort [r keys enc:*]] { dict set contents $key [key_contents $key] }
    assert_equal [r debug reload] OK
    assert_equal [r debug digest] $digest
    foreach key [lsort [r keys enc:*]] {
      assert_equal [key_contents $key] [dict get $contents $key] "contents of $key"
    }
    dict for {key enc} $encs {
      if {$key eq "enc:list:lp"} continue  ;# quicklist in Redis 7.0
      assert_equal [r object encoding $key] $enc "encoding of $key after reload"
    }
    assert_range [r ttl enc:hash:lp] 9990 10000
    r select 5
    set v [r get in-db-5]
    r select 0
    set v
  } {x}

  test {SAVE writes dbfilename in dir; LASTSAVE and INFO follow} {
    r config set dbfilename other.rdb
    set dir [lindex [r config get dir] 1]
    file delete $dir/other.rdb
    r set k v
    assert_morethan [info_field [r info persistence] rdb_changes_since_last_save] 0
    set before [r lastsave]
    after 1100
    assert_equal [r save] OK
    assert {[file exists $dir/other.rdb]}
    assert_morethan [r lastsave] $before
    set info [r info persistence]
    assert_equal [info_field $info rdb_changes_since_last_save] 0
    assert_equal [info_field $info rdb_last_bgsave_status] ok
    r config set dbfilename dump.rdb
    assert_error {*can't be a path*} {r config set dbfilename ../x.rdb}
    r config get dbfilename
  } {dbfilename dump.rdb}

  test {BGSAVE forks, reports progress in INFO and saves the data as of the fork} {
    r flushall
    for {set i 0} {$i < 200} {incr i} { r set key:$i [string repeat x 100] }
    set digest [r debug digest]
    # 2 ms per key: the child runs ~0.4 s while the parent keeps writing.
    r config set rdb-key-save-delay 2000
    assert_equal [r bgsave] {Background saving started}
    assert_equal [info_field [r info persistence] rdb_bgsave_in_progress] 1
    assert_error {*Background save already in progress*} {r bgsave}
    assert_error {*Background save already in progress*} {r save}
    for {set i 0} {$i < 2000} {incr i} { r set key:[expr {$i % 300}] [string repeat y 200] }
    wait_bgsave_done
    r config set rdb-key-save-delay 0
    set info [r info persistence]
    assert_equal [info_field $info rdb_last_bgsave_status] ok
    assert_morethan [info_field [r info stats] total_forks] 0
    # The parent's writes made the child's pages private: copy-on-write.
    assert_morethan [info_field $info rdb_last_cow_size] 0
    assert_equal [r debug reload nosave] OK
    assert_equal [r debug digest] $digest
  }
}

start_server {tags {rdb external:skip needs:debug} overrides {enable-debug-command yes enable-protected-configs yes}} {
  set dir [lindex [r config get dir] 1]

  test {Data survives SHUTDOWN SAVE and a restart (every type and encoding)} {
    make_every_encoding
    r pexpire enc:embstr 500000
    set digest [r debug digest]
    catch {r shutdown save}
    wait_server_exit [srv dir] 5000
    start_server [list overrides [list dir $dir enable-debug-command yes]] {
      assert_equal [r debug digest] $digest
      assert_range [r pttl enc:embstr] 400000 500000
      assert_equal [info_field [r info persistence] rdb_last_load_keys_loaded] [r dbsize]
      set count [r pfcount enc:hll]
    }
    set count
  } {3}
}

start_server {tags {rdb external:skip} overrides {save {900 1}}} {
  set dir [lindex [r config get dir] 1]
  test {SIGTERM saves when save points exist} {
    r set survives yes
    exec kill -TERM [srv pid]
    wait_server_exit [srv dir] 5000
    start_server [list overrides [list dir $dir]] {
      set v [r get survives]
    }
    set v
  } {yes}
}

start_server {tags {rdb external:skip} overrides {save {900 1}}} {
  set dir [lindex [r config get dir] 1]
  test {SHUTDOWN NOSAVE does not save, even with save points} {
    r set lost yes
    catch {r shutdown nosave}
    wait_server_exit [srv dir] 5000
    file exists $dir/dump.rdb
  } {0}
}

start_server {tags {rdb external:skip}} {
  test {CONFIG SET save, and a save point triggers a BGSAVE} {
    r config set save "1 1"
    assert_equal [lindex [r config get save] 1] "1 1"
    set saves [info_field [r info persistence] rdb_saves]
    r set k v
    wait_for_condition 200 50 {[info_field [r info persistence] rdb_saves] > $saves} {
      fail "the save point did not fire"
    }
    wait_bgsave_done
    r config set save ""
    info_field [r info persistence] rdb_changes_since_last_save
  } {0}

  test {save lines in a config file add up; save "" clears} {
    start_server {overrides {save {100 10} save {50 5}}} {
      assert_equal [lindex [r config get save] 1] "100 10 50 5"
    }
    assert_error {*Invalid save parameters*} {r config set save "100"}
    r config set save ""
    lindex [r config get save] 1
  } {}
}

start_server {tags {rdb external:skip} overrides {enable-protected-configs yes save {900 1}}} {
  test {stop-writes-on-bgsave-error: -MISCONF after a failed BGSAVE, until one succeeds} {
    set dir [lindex [r config get dir] 1]
    file mkdir $dir/gone
    r config set dir $dir/gone
    file delete -force $dir/gone
    r bgsave
    wait_for_condition 500 20 {[info_field [r info persistence] rdb_last_bgsave_status] eq "err"} {
      fail "the BGSAVE did not fail"
    }
    assert_error {MISCONF Redis is configured to save RDB snapshots*} {r set k v}
    assert_error {MISCONF*} {r ping}
    assert_equal [r get k] {}
    # A script's writes are refused the same way, whether the script
    # declares flags or not; its reads go on.
    assert_error {MISCONF*} {r eval {return redis.call('set', KEYS[1], 1)} 1 k}
    assert_error {MISCONF*} {r eval "#!lua\nreturn redis.call('set', KEYS\[1\], 1)" 1 k}
    assert_equal [r eval "#!lua flags=no-writes\nreturn redis.call('get', KEYS\[1\])" 1 k] {}
    r config set stop-writes-on-bgsave-error no
    assert_equal [r set k v] OK
    r config set stop-writes-on-bgsave-error yes
    assert_error {MISCONF*} {r set k v}
    # A new directory of the same name: dir must be set again (the old
    # working directory was deleted).
    file mkdir $dir/gone
    r config set dir $dir/gone
    r bgsave
    wait_for_condition 500 20 {[info_field [r info persistence] rdb_last_bgsave_status] eq "ok"} {
      fail "the BGSAVE did not succeed"
    }
    r set k v2
  } {OK}
}

start_server {tags {rdb external:skip needs:debug} overrides {enable-debug-command yes}} {
  set dir [lindex [r config get dir] 1]
  test {A corrupt or truncated file is refused by DEBUG RELOAD and nothing is lost} {
    make_every_encoding
    r save
    set good [read_file $dir/dump.rdb]
    set digest [r debug digest]
    set n [string length $good]
    # Truncations at many points, and single byte flips (the CRC catches
    # those; rdb-fuzz below turns the CRC off).
    # Redis 7.0 empties the dataset before it loads; this server loads into
    # fresh databases and keeps the data when the file is bad.
    set keeps [string match */src/redis-server [info_field [r info server] executable]]
    foreach cut [list 0 5 9 20 [expr {$n / 2}] [expr {$n - 9}] [expr {$n - 1}]] {
      write_bytes $dir/dump.rdb [string range $good 0 [expr {$cut - 1}]]
      assert_error {*Error trying to load the RDB dump*} {r debug reload nosave}
      if {$keeps} { assert_equal [r debug digest] $digest }
    }
    for {set i 0} {$i < 20} {incr i} {
      set pos [expr {9 + int(rand() * ($n - 9))}]
      set byte [expr {[scan [string index $good $pos] %c] ^ (1 + int(rand() * 255))}]
      write_bytes $dir/dump.rdb [string replace $good $pos $pos [format %c $byte]]
      assert_error {*Error trying to load the RDB dump*} {r debug reload nosave}
    }
    if {$keeps} { assert_equal [r debug digest] $digest }
    write_bytes $dir/dump.rdb $good
    assert_equal [r debug reload nosave] OK
    assert_equal [r debug digest] $digest
  }

  test {The server refuses to start on a corrupt dump.rdb, saying why} {
    set bad [string replace $good 0 4 XXXXX]
    set d2 [new_tmp_dir corrupt]
    write_bytes $d2/dump.rdb $bad
    set port [find_free_port]
    catch {exec timeout 10 $::cfg(server_bin) --port $port --bind 127.0.0.1 --dir $d2 \
             --logfile "" 2>@1} out
    assert_match {*Wrong signature trying to load DB from file*} $out
    write_bytes $d2/dump.rdb [string range $good 0 100]
    catch {exec timeout 10 $::cfg(server_bin) --port $port --bind 127.0.0.1 --dir $d2 \
             --logfile "" 2>@1} out
    assert_match {*Short read or OOM loading DB*} $out
    set ok 1
  } {1}
}

start_server {tags {rdb external:skip needs:debug} overrides {enable-debug-command yes rdbchecksum no}} {
  set dir [lindex [r config get dir] 1]
  test {Fuzz: byte flips and truncations of a real file without checksum never crash} {
    make_every_encoding
    r save
    set good [read_file $dir/dump.rdb]
    set n [string length $good]
    set loaded 0
    for {set i 0} {$i < 300} {incr i} {
      set data $good
      for {set k 0} {$k < 1 + int(rand() * 4)} {incr k} {
        set pos [expr {9 + int(rand() * ($n - 9))}]
        set data [string replace $data $pos $pos [format %c [expr {int(rand() * 256)}]]]
      }
      if {rand() < 0.2} { set data [string range $data 0 [expr {int(rand() * $n)}]] }
      write_bytes $dir/dump.rdb $data
      if {![catch {r debug reload nosave}]} { incr loaded }
      assert_equal [r ping] PONG
    }
    write_bytes $dir/dump.rdb $good
    r debug reload nosave
    r dbsize
  } {12}
}

start_server {tags {rdb external:skip needs:debug} overrides {enable-debug-command yes}} {
  test {While the RDB loads at start: -LOADING, INFO loading fields, then the data} {
    for {set i 0} {$i < 3000} {incr i} { r set key:$i value:$i }
    set digest [r debug digest]
    r save
    set dir [lindex [r config get dir] 1]
    set d2 [new_tmp_dir loading]
    file copy $dir/dump.rdb $d2/dump.rdb
    set port [find_free_port]
    # 1 ms per key: about 3 s of loading.
    set pid [spawn_server $::cfg(server_bin) [list --port $port --bind 127.0.0.1 --dir $d2 \
               --save "" --key-load-delay 1000 --enable-debug-command yes] $d2]
    set c {}
    wait_for_condition 500 20 {![catch {::redis::connect 127.0.0.1 $port} c]} {
      fail "the server did not accept connections while loading"
    }
    catch {$c ping} e
    assert_match {LOADING*} $e
    set info [$c info persistence]
    assert_equal [info_field $info loading] 1
    assert_morethan [info_field $info loading_total_bytes] 0
    catch {$c set k v} e
    assert_match {LOADING*} $e
    wait_for_condition 500 20 {[info_field [$c info persistence] loading] == 0} {
      fail "loading did not finish"
    }
    assert_equal [$c dbsize] 3000
    assert_equal [$c debug digest] $digest
    assert_equal [info_field [$c info persistence] rdb_last_load_keys_loaded] 3000
    catch {$c shutdown nosave}
    $c close
    wait_server_exit $d2 5000
  } {0}
}

start_server {tags {rdb external:skip} overrides {save {900 1}}} {
  set dir [lindex [r config get dir] 1]
  test {FLUSHALL with save points saves the empty data set at once} {
    r set k v
    r save
    r flushall
    # A crash now must not bring k back.
    mark_server_killed
    exec kill -9 [srv pid]
    wait_server_exit [srv dir] 5000
    start_server [list overrides [list dir $dir]] {
      set n [r dbsize]
    }
    set n
  } {0}
}
