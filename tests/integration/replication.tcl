# This server as a replica (REPLICAOF, the replicaof directive): of
# itself and of Debian's Redis 7.0.15, and Debian's Redis as a replica of
# it. Full syncs with disk and diskless loads, the stream (databases,
# transactions, scripts' effects, expiry), the read-only and stale-data
# rules, ROLE and INFO, and what happens when links break.

source tests/support/datasets.tcl

source [file join $::support_dir replication.tcl]

# Fast full syncs: masters fork at once instead of waiting for company.
set ::master_overrides {repl-diskless-sync-delay 0 enable-debug-command yes}

# Everything a replica must end up with: keys of every type and encoding,
# TTLs, several databases.
proc fill_master {level} {
  r $level select 0
  r $level set str hello
  r $level rpush list a b c
  r $level hset hash f1 v1 f2 v2
  r $level sadd set x y z
  r $level zadd zset 1 one 2 two
  r $level set ttl-key v PX 600000
  r $level select 4
  r $level set in-db4 yes
  r $level select 0
}

proc check_filled {level} {
  r $level select 0
  assert_equal [r $level get str] hello
  assert_equal [r $level lrange list 0 -1] {a b c}
  assert_equal [r $level hget hash f2] v2
  assert_equal [lsort [r $level smembers set]] {x y z}
  assert_equal [r $level zrange zset 0 -1 withscores] {one 1 two 2}
  assert_range [r $level pttl ttl-key] 1 600000
  r $level select 4
  assert_equal [r $level get in-db4] yes
  r $level select 0
}

start_server [list tags {repl external:skip} overrides $::master_overrides] {
  fill_master 0
  foreach load {disabled swapdb on-empty-db} {
    start_server [list overrides [list repl-diskless-load $load enable-debug-command yes]] {
      test "Replica of our server: full sync with repl-diskless-load $load" {
        r replicaof 127.0.0.1 [srv -1 port]
        wait_link_up 0
        check_filled 0
        wait_caught_up -1 0
        assert_equal [r debug digest] [r -1 debug digest]
        set role [r role]
        assert_equal [lrange $role 0 1] [list slave 127.0.0.1]
        assert_equal [lindex $role 2] [srv -1 port]
        assert_equal [lindex $role 3] connected
        if {$load eq "disabled"} {
          assert_match "*receiving streamed RDB from master with EOF to disk*" [log_of 0]
        } else {
          assert_match "*receiving streamed RDB from master with EOF to parser*" [log_of 0]
        }
        r replicaof no one
      }
    }
  }

  start_server {overrides {enable-debug-command yes}} {
    r replicaof 127.0.0.1 [srv -1 port]
    wait_link_up 0

    test {The stream: SELECT, MULTI/EXEC, scripts' effects, expiries, flushes} {
      r -1 select 9
      r -1 set k9 v9
      r -1 multi
      r -1 incr counter
      r -1 lpush q a b
      r -1 exec
      r -1 eval {redis.call('set', KEYS[1], 'from-script'); redis.call('expire', KEYS[1], 100)} 1 sk
      r -1 select 0
      r -1 del str
      r -1 flushdb
      wait_caught_up -1 0
      r select 9
      assert_equal [r get k9] v9
      assert_equal [r get counter] 1
      assert_equal [r lrange q 0 -1] {b a}
      assert_equal [r get sk] from-script
      assert_range [r ttl sk] 1 100
      r select 0
      assert_equal [r dbsize] 0
      assert_equal [r debug digest] [r -1 debug digest]
    }

    test {A replica refuses writes with Redis's -READONLY text, serves reads} {
      assert_error "READONLY You can't write against a read only replica." {r set x y}
      r multi
      catch {r set x y} e
      assert_match "READONLY*" $e
      assert_error "EXECABORT*" {r exec}
      # Scripts: a write inside one, and a script declared able to write.
      assert_error "*READONLY You can't write against a read only replica.*" \
        {r eval {redis.call('set', 'x', 'y')} 0}
      assert_error "READONLY*" {r eval "#!lua\nredis.call('set', 'x', 'y')" 0}
      assert_equal [r eval "#!lua flags=no-writes\nreturn 7" 0] 7
      r config set replica-read-only no
      r set local-write 1
      r config set replica-read-only yes
      r select 9
      r get k9
    } {v9}

    test {A key whose TTL passed reads as missing on the replica until the master's DEL} {
      r -1 debug set-active-expire 0
      r -1 select 0
      r -1 set short v PX 200
      wait_caught_up -1 0
      r select 0
      after 400
      # The replica never deletes it itself, but does not show it.
      assert_equal [r get short] {}
      assert_equal [r exists short] 0
      assert_equal [r dbsize] 2
      # The master's lookup expires it and sends DEL.
      assert_equal [r -1 get short] {}
      r -1 debug set-active-expire 1
      wait_caught_up -1 0
      r dbsize
    } {1}

    test {A writable replica: its own TTL keys expire there, a write replaces an expired key} {
      r -1 debug set-active-expire 0
      r -1 select 6
      r -1 set from-master v PX 100
      r -1 set from-master2 v PX 100
      wait_caught_up -1 0
      r config set replica-read-only no
      r select 6
      # Keys this replica's own clients give a TTL expire on it.
      r set own1 1 PX 100
      r set own2 2
      r pexpire own2 100
      r set own3 3 EX 1000
      after 300
      # A write deletes the master's expired key and makes a new one; a read
      # only sees it as absent.
      assert_equal 1 [r incr from-master]
      assert_equal -1 [r ttl from-master]
      assert_equal {} [r get from-master2]
      wait_for_condition 100 50 {[r dbsize] == 3} {
        fail "the replica's own keys did not expire: [r keys *]"
      }
      set keys [lsort [r keys *]]
      r config set replica-read-only yes
      r -1 debug set-active-expire 1
      r -1 flushdb
      r -1 select 0
      wait_caught_up -1 0
      r select 0
      # KEYS skips expired keys, as Redis's does; DBSIZE counted from-master2.
      set keys
    } {from-master own3}

    test {INFO replication and CLIENT LIST on a replica} {
      set info [r info replication]
      assert_equal [info_field $info role] slave
      assert_equal [info_field $info master_host] 127.0.0.1
      assert_equal [info_field $info master_port] [srv -1 port]
      assert_equal [info_field $info master_sync_in_progress] 0
      assert_equal [info_field $info slave_priority] 100
      assert_equal [info_field $info slave_read_only] 1
      assert_equal [info_field $info replica_announced] 1
      assert_equal [info_field $info master_replid] [repl_field -1 master_replid]
      assert_match "*flags=M*" [r client list type master]
      set m [info_field [r -1 info replication] slave0]
      assert_match "ip=127.0.0.1,port=[srv 0 port],state=online,*" $m
    }

    test {REPLICAOF to the same master is a no-op, bad arguments are refused} {
      assert_equal [r replicaof 127.0.0.1 [srv -1 port]] "OK Already connected to specified master"
      assert_error "*Invalid master port*" {r replicaof 127.0.0.1 notaport}
      assert_error "*Invalid master port*" {r replicaof 127.0.0.1 70000}
      assert_error "*wrong number of arguments*" {r replicaof 127.0.0.1}
      r config get replicaof
    } [list replicaof "127.0.0.1 [srv -1 port]"]

    test {The link comes back after the master drops it} {
      r -1 client kill type replica
      wait_log 0 "*Connection with master lost*"
      wait_link_up 0
      r -1 set after-kill 1
      wait_caught_up -1 0
      r get after-kill
    } {1}

    test {replica-serve-stale-data no refuses data commands while the link is down} {
      r config set replica-serve-stale-data no
      r replicaof 127.0.0.1 1
      assert_error "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'." {r get x}
      assert_equal [lindex [r role] 3] connect
      # Commands flagged "stale" still run (INFO, CONFIG, REPLICAOF, ...).
      assert_match "*role:slave*" [r info replication]
      r config set replica-serve-stale-data yes
      r replicaof no one
      r set writable-again 1
    } {OK}

    test {REPLICAOF NO ONE keeps the data and shifts the replication id} {
      set old [repl_field -1 master_replid]
      r replicaof 127.0.0.1 [srv -1 port]
      wait_caught_up -1 0
      r replicaof no one
      assert_equal [repl_field 0 role] master
      assert_equal [repl_field 0 master_replid2] $old
      assert_not_equal [repl_field 0 master_replid] $old
      assert_match "*MASTER MODE enabled*" [log_of 0]
      r select 9
      r get k9
    } {v9}
  }
}

start_server [list tags {repl external:skip} overrides $::master_overrides] {
  test {REPLICAOF pointing to itself never syncs, the server stays up} {
    r replicaof 127.0.0.1 [srv 0 port]
    after 1500
    assert_equal [repl_field 0 master_link_status] down
    r replicaof no one
    r ping
  } {PONG}
}

start_server [list tags {repl external:skip} overrides $::master_overrides] {
  r set before 1
  start_server {overrides {repl-timeout 2}} {
    test {The replicaof directive: a replica from start, masterauth over AUTH} {
      r -1 config set requirepass secret
      r config set masterauth secret
      r replicaof 127.0.0.1 [srv -1 port]
      wait_link_up 0
      r get before
    } {1}

    test {A master silent past repl-timeout is dropped and reconnected} {
      # SIGSTOP: the link stays open but nothing arrives.
      exec kill -STOP [srv -1 pid]
      wait_log 0 "*MASTER timeout: no data nor PING received*"
      exec kill -CONT [srv -1 pid]
      wait_link_up 0
      r -1 auth secret
      r -1 set after-stop 1
      wait_for_condition 100 50 {[r get after-stop] eq 1} { fail "stream did not resume" }
    }
  }
}

start_server [list tags {repl external:skip} overrides $::master_overrides] {
  start_server {} {
    r replicaof 127.0.0.1 [srv -1 port]
    wait_link_up 0

    test {A stalled replica's queued stream shows in INFO memory and is not evicted for} {
      # The backlog holds what the stream has had so far (nothing yet, or a
      # block or two: it grows up to about repl-backlog-size).
      set m [r -1 info memory]
      assert_range [info_field $m mem_replication_backlog] 0 [lindex [r -1 config get repl-backlog-size] 1]
      # The replica's share is its connection's own (drained) buffer.
      assert_range [info_field $m mem_clients_slaves] 0 65536
      # The replica stops reading: the stream queues on the master.
      exec kill -STOP [srv 0 pid]
      set big [string repeat x 100000]
      # 5 MB: past what the sockets take and the backlog's 1 MB share.
      for {set i 0} {$i < 50} {incr i} { r -1 set big:$i $big }
      wait_for_condition 100 50 {
        [info_field [r -1 info memory] mem_clients_slaves] > 2000000
      } { fail "the replica's output never showed: [r -1 info memory]" }
      set m [r -1 info memory]
      set slaves [info_field $m mem_clients_slaves]
      # The shared buffer is the backlog's share and the replica's; the
      # replica's also counts the stream copied to its connection (at most
      # a window of 128 KiB and its reply buffer).
      set shares [expr {$slaves + [info_field $m mem_replication_backlog]}]
      assert_range [info_field $m mem_total_replication_buffers] [expr {$shares - 300000}] $shares
      # Eviction leaves out the same share, less an allowance for the
      # backlog's block headers.
      assert_range [info_field $m mem_not_counted_for_evict] [expr {$slaves - 65536}] $slaves
      # maxmemory just above the data: the replica's queue alone is over it,
      # yet nothing is evicted for it.
      set used [info_field $m used_memory]
      r -1 config set maxmemory [expr {$used - $slaves + 1000000}] maxmemory-policy allkeys-random
      r -1 set small 1
      set evicted [info_field [r -1 info stats] evicted_keys]
      r -1 config set maxmemory 0
      exec kill -CONT [srv 0 pid]
      wait_caught_up -1 0
      list $evicted [r dbsize]
    } {0 51}

    test {A big write through the stream does not leave its buffer on the replica} {
      r -1 set huge [string repeat y 8000000]
      wait_caught_up -1 0
      # The master link stays quiet (its next PING is seconds away); the
      # replica still gives the request's buffer back within a cron tick or two.
      wait_for_condition 40 50 {
        [info_field [r info memory] mem_clients_normal] < 1000000
      } { fail "the master link kept its query buffer: [r client list]" }
      r strlen huge
    } {8000000}
  }
}

set no_persistence {save "" appendonly no rdb-del-sync-files yes}
start_server [list tags {repl external:skip} \
                overrides [list repl-diskless-sync no {*}$no_persistence {*}$::master_overrides]] {
  r set k v
  start_server [list overrides [list repl-diskless-load disabled {*}$no_persistence]] {
    test {rdb-del-sync-files without persistence: both sides delete the sync's RDB file} {
      r replicaof 127.0.0.1 [srv -1 port]
      wait_link_up 0
      set files {}
      foreach level {-1 0} {
        lappend files [file join [lindex [r $level config get dir] 1] \
                                 [lindex [r $level config get dbfilename] 1]]
      }
      wait_log 0 "*Removing the RDB file obtained from the master*"
      wait_log -1 "*Removing the RDB file used to feed replicas*"
      list [file exists [lindex $files 0]] [file exists [lindex $files 1]] [r get k]
    } {0 0 v}
  }
}

start_server [list tags {repl external:skip} overrides [list repl-timeout 2 {*}$::master_overrides]] {
  test {A replica that never ACKs is dropped by the master's repl-timeout} {
    set fd [socket 127.0.0.1 [srv 0 port]]
    fconfigure $fd -translation binary -blocking 1
    puts -nonewline $fd "*3\r\n\$8\r\nREPLCONF\r\n\$4\r\ncapa\r\n\$3\r\neof\r\n"
    flush $fd
    assert_equal [gets $fd] "+OK\r"
    puts -nonewline $fd "*3\r\n\$5\r\nPSYNC\r\n\$1\r\n?\r\n\$2\r\n-1\r\n"
    flush $fd
    wait_for_condition 100 50 {[info_field [r info replication] connected_slaves] == 1} {
      fail "the fake replica did not attach"
    }
    wait_log 0 "*Disconnecting timedout replica*"
    wait_for_condition 100 50 {[info_field [r info replication] connected_slaves] == 0} {
      fail "the silent replica was kept"
    }
    close $fd
  }
}

if {[file executable $::reference_bin]} {
  with_server_bin $::reference_bin {
    start_server [list tags {repl external:skip} overrides {repl-diskless-sync-delay 0
                                                            enable-debug-command yes}] {
      fill_master 0
      with_server_bin $::our_bin {
        start_server {overrides {enable-debug-command yes}} {
          test {Our server as a replica of Redis 7.0.15: full sync and stream} {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_link_up 0
            check_filled 0
            r -1 select 2
            r -1 multi
            r -1 set in-multi 1
            r -1 incrbyfloat f 1.5
            r -1 exec
            wait_caught_up -1 0
            r select 2
            list [r get in-multi] [r get f]
          } {1 1.5}

          test {Partial resync with Redis 7.0.15 after the link is cut} {
            set full [info_field [r -1 info stats] sync_full]
            r -1 client kill type replica
            wait_log 0 "*Connection with master lost*"
            r -1 select 2
            r -1 set while-down 1
            wait_link_up 0
            wait_caught_up -1 0
            assert_match "*Successful partial resynchronization with master*" [log_of 0]
            assert_equal [info_field [r -1 info stats] sync_full] $full
            assert_equal [info_field [r -1 info stats] sync_partial_ok] 1
            r select 2
            r get while-down
          } {1}

          test {Our server loads a diskless full sync from Redis 7.0.15 as it arrives} {
            r -1 config set repl-diskless-sync yes
            r -1 debug populate 3000 bulk 200
            r config set repl-diskless-load swapdb
            r -1 debug change-repl-id
            r -1 client kill type replica
            wait_log 0 "*receiving streamed RDB from master with EOF to parser*"
            wait_link_up 0
            r -1 select 2
            r -1 set after-diskless 1
            wait_caught_up -1 0
            assert_equal [r debug digest] [r -1 debug digest]
            r select 2
            r get after-diskless
          } {1}
        }
      }
    }
  }

  start_server [list tags {repl external:skip} overrides $::master_overrides] {
    fill_master 0
    with_server_bin $::reference_bin {
      start_server {} {
        test {Redis 7.0.15 as a replica of our server} {
          r replicaof 127.0.0.1 [srv -1 port]
          wait_link_up 0
          check_filled 0
          r -1 select 3
          r -1 lpush l x y
          r -1 eval {redis.call('set', 'scripted', 'yes')} 0
          wait_for_condition 100 50 {[r -1 role] ne "" &&
            [lindex [lindex [lindex [r -1 role] 2] 0] 2] == [repl_field -1 master_repl_offset]} {
            fail "Redis never acknowledged the stream"
          }
          r select 3
          list [r lrange l 0 -1] [r get scripted]
        } {{y x} yes}
      }
    }
  }
}

start_server [list tags {repl external:skip} overrides $::master_overrides] {
  start_server {} {
    r replicaof 127.0.0.1 [srv -1 port]
    wait_caught_up -1 0

    test {An error from the master's stream is logged as CRITICAL (propagation-error-behavior ignore)} {
      r -1 debug replicate not-a-command arg1
      r config set replica-read-only no
      r set counter text
      r -1 set counter 5
      r -1 incr counter
      wait_caught_up -1 0
      set log [log_of 0]
      r config set replica-read-only yes
      list [string match "*== CRITICAL == This replica is sending an error to its master: 'unknown command 'not-a-command'*" $log] \
        [string match "*== CRITICAL == This replica is sending an error to its master: 'value is not an integer or out of range' after processing the command 'incr'*" $log] \
        [r ping]
    } {1 0 PONG}

    test {propagation-error-behavior panic-on-replicas: the replica stops at the first such error} {
      # A replica of its own (launch_server: the crash report it writes is
      # expected here, not a fault of the block).
      set rep [launch_server {propagation-error-behavior panic-on-replicas} {}]
      set c [::redis::connect [dict get $rep host] [dict get $rep port] -timeout 5000]
      $c replicaof 127.0.0.1 [srv -1 port]
      wait_for_condition 200 50 {[info_field [$c info replication] master_link_status] eq "up"} {
        fail "the replica never synced"
      }
      r -1 debug replicate not-a-command
      replica_stopped_with $rep $c "*This replica panicked sending an error to its master*"
    } {1 1}

    test {panic-on-replicas spares a writable replica (its own writes may clash): CRITICAL logged, it runs on} {
      set rep [launch_server {propagation-error-behavior panic-on-replicas replica-read-only no} {}]
      set c [::redis::connect [dict get $rep host] [dict get $rep port] -timeout 5000]
      $c replicaof 127.0.0.1 [srv -1 port]
      wait_for_condition 200 50 {[info_field [$c info replication] master_link_status] eq "up"} {
        fail "the replica never synced"
      }
      r -1 debug replicate not-a-command
      wait_for_condition 200 50 {
        [string match "*== CRITICAL == This replica is sending an error to its master*" [read_file [dict get $rep stdout]]]
      } {
        fail "no CRITICAL line"
      }
      set got [$c ping]
      catch {$c shutdown nosave}
      catch {$c close}
      wait_server_exit [dict get $rep dir] 5000
      set got
    } {PONG}
  }
}
