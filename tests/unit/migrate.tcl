# MIGRATE between two servers of ours: the inner server (r) is the source,
# the outer one (r -1) the target. What moves and what stays, the options,
# the target's errors passed back, unreachable and stalled targets, the
# kept links and what the source streams to its replicas.

source [file join $::support_dir repl_stream.tcl]

proc migrate_links {} {
  info_field [r info stats] migrate_cached_sockets
}

start_server {tags {migrate external:skip} overrides {enable-debug-command yes}} {
  set tport [srv 0 port]
  start_server {overrides {enable-debug-command yes}} {
    test {MIGRATE moves a key with its TTL into the target's db; the source loses it} {
      r -1 flushall
      r set k hello
      r pexpire k 200000
      assert_equal OK [r migrate 127.0.0.1 $tport k 5 2000]
      list [r exists k] [r -1 select 5] [r -1 get k] [expr {[r -1 pttl k] > 190000}] [r -1 select 9]
    } {0 OK hello 1 OK}

    test {MIGRATE answers NOKEY when no key named exists, and keeps one link per target} {
      assert_equal NOKEY [r migrate 127.0.0.1 $tport nosuchkey 0 2000]
      set before [info_field [r -1 info stats] total_connections_received]
      foreach i {1 2 3} {
        r rpush l$i a b c
        assert_equal OK [r migrate 127.0.0.1 $tport l$i 9 2000]
      }
      list [migrate_links] [expr {[info_field [r -1 info stats] total_connections_received] - $before}] \
        [r -1 lrange l3 0 -1]
    } {1 0 {a b c}}

    test {MIGRATE COPY keeps the source; an existing target key needs REPLACE} {
      r -1 flushall
      r set c v1
      assert_equal OK [r migrate 127.0.0.1 $tport c 9 2000 copy]
      r set c v2
      catch {r migrate 127.0.0.1 $tport c 9 2000 copy} err
      assert_match {ERR Target instance replied with error: BUSYKEY*} $err
      assert_equal OK [r migrate 127.0.0.1 $tport c 9 2000 copy replace]
      list [r get c] [r -1 get c]
    } {v2 v2}

    test {MIGRATE KEYS moves the keys that exist; the key argument must then be empty} {
      r -1 flushall
      r mset a 1 b 2
      assert_error {*must be set to the empty string*} {r migrate 127.0.0.1 $tport a 9 2000 keys a b}
      assert_equal OK [r migrate 127.0.0.1 $tport "" 9 2000 keys a missing b]
      list [r exists a b] [r -1 mget a b]
    } {0 {1 2}}

    test {MIGRATE's keys for COMMAND GETKEYS and ACL: after KEYS, skipping AUTH values} {
    list [r command getkeys migrate h 1 k 0 10] \
      [r command getkeys migrate h 1 "" 0 10 auth KEYS KEYS a b] \
      [r command getkeys migrate h 1 "" 0 10 auth2 u p copy keys c]
  } {k {a b} c}

  test {MIGRATE rejects bad numbers and unknown options} {
      r set x 1
      assert_error {*not an integer*} {r migrate 127.0.0.1 $tport x notadb 2000}
      assert_error {*not an integer*} {r migrate 127.0.0.1 $tport x 9 soon}
      assert_error {*syntax error*} {r migrate 127.0.0.1 $tport x 9 2000 nosuchoption}
      assert_error {*syntax error*} {r migrate 127.0.0.1 $tport x 9 2000 auth}
      r exists x
    } {1}

    test {MIGRATE AUTH and AUTH2 reach the target; a wrong password comes back as its error} {
      r -1 config set requirepass pw
      r -1 auth pw
      # The kept link was authenticated before the password: a new one is not.
      r -1 client kill type normal skipme yes
      r -1 acl setuser mover on >mpw allcommands allkeys
      r set x 1
      catch {r migrate 127.0.0.1 $tport x 9 2000 auth wrong} err
      assert_match {ERR Target instance replied with error: WRONGPASS*} $err
      assert_equal OK [r migrate 127.0.0.1 $tport x 9 2000 copy auth pw]
      assert_equal OK [r migrate 127.0.0.1 $tport x 9 2000 replace auth2 mover mpw]
      r -1 config set requirepass ""
      r -1 acl deluser mover
      list [r exists x] [r -1 get x]
    } {0 1}

    test {MIGRATE hides its passwords in SLOWLOG} {
      r config set slowlog-log-slower-than 0
      r slowlog reset
      r set x 1
      catch {r migrate 127.0.0.1 $tport x 9 2000 replace auth2 someone secret}
      set entry [lindex [r slowlog get 1] 0]
      r config set slowlog-log-slower-than 10000
      lindex $entry 3
    } [list migrate 127.0.0.1 $tport x 9 2000 replace auth2 (redacted) (redacted)]

    test {MIGRATE to a closed port fails at connect; the key stays} {
      r set y 1
      set port [find_free_port]
      assert_error {IOERR error or timeout connecting*} {r migrate 127.0.0.1 $port y 9 500}
      r exists y
    } {1}

    test {MIGRATE to a target that stops answering fails within its timeout; the key stays} {
      r set y 1
      r -1 debug sleep 0   ;# the kept link is alive
      set rd [redis_client -1]
      $rd write "*3\r\n\$5\r\nDEBUG\r\n\$5\r\nSLEEP\r\n\$1\r\n2\r\n"
      $rd flush
      after 100
      set t0 [clock milliseconds]
      assert_error {IOERR error or timeout reading*} {r migrate 127.0.0.1 $tport y 9 300}
      set took [expr {[clock milliseconds] - $t0}]
      $rd read
      $rd close
      list [r exists y] [expr {$took < 1500}] [migrate_links]
    } {1 1 0}

    test {MIGRATE reconnects once when its kept link was closed by the target} {
      r set z 1
      assert_equal OK [r migrate 127.0.0.1 $tport z 9 2000 copy replace]
      r -1 client kill type normal skipme yes
      list [r migrate 127.0.0.1 $tport z 9 2000 replace] [r -1 get z] [migrate_links]
    } {OK 1 1}

    test {MIGRATE carries a value of several megabytes} {
      r set big [string repeat abcdefgh 1000000]
      r migrate 127.0.0.1 $tport big 9 5000
      list [r exists big] [r -1 strlen big]
    } {0 8000000}

    test {Kept links are closed after about 10 s idle} {
      r set w 1
      r migrate 127.0.0.1 $tport w 9 2000
      assert_equal 1 [migrate_links]
      wait_for_condition 150 100 {[migrate_links] == 0} { fail "the link was kept" }
    } {}

    test {MIGRATE streams DEL for the keys moved, nothing for COPY} {
      if {![repl_stream_supported]} { return }
      set s [repl_stream_open]
      r mset m1 a m2 b
      r migrate 127.0.0.1 $tport "" 9 2000 replace keys m1 m2 missing
      r set m3 c
      r migrate 127.0.0.1 $tport m3 9 2000 copy replace
      set got [repl_stream_take $s]
      repl_stream_close $s
      lrange $got end-2 end
    } {{mset m1 a m2 b} {DEL m1 m2} {set m3 c}}
  }
}

# Mixed deployments: keys move between this server and Debian's redis-server
# 7.0.15 both ways (its RESTORE reads our payloads, its MIGRATE drives ours).
start_server {tags {migrate external:skip}} {
  test {MIGRATE moves keys to Debian's redis-server and back} {
    set port [find_free_port]
    set dir [new_tmp_dir migrate-redis]
    set pid [exec /usr/bin/redis-server --port $port --save "" --dir $dir \
               --logfile $dir/log >/dev/null 2>/dev/null &]
    wait_for_condition 100 50 {![catch {exec redis-cli -p $port ping}]} {
      fail "redis-server did not start"
    }
    r del h z
    r hset h f1 v1 f2 v2
    r zadd z 1 a 2 b
    r pexpire z 300000
    set out [r migrate 127.0.0.1 $port "" 0 5000 keys h z]
    set there [list [split [exec redis-cli -p $port hgetall h] \n] \
                 [split [exec redis-cli -p $port zrange z 0 -1] \n]]
    set back [exec redis-cli -p $port migrate 127.0.0.1 [srv 0 port] "" 0 5000 keys h z]
    set here [list [r hgetall h] [r zrange z 0 -1] [expr {[r pttl z] > 200000}]]
    exec kill $pid
    list $out $there $back $here
  } {OK {{f1 v1 f2 v2} {a b}} OK {{f1 v1 f2 v2} {a b} 1}}
}
