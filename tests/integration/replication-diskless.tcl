# Diskless load and the fork children of a full sync. A replica with
# repl-diskless-load loads the RDB straight from its master's connection,
# as the bytes arrive: it never holds the whole file, a slow load slows the
# transfer down, and a transfer cut mid-load is an RDB error that costs this
# attempt only. On the master's side: a disk BGSAVE nobody waits for any
# more stops (without save points), its children die with it, and a replica
# link that asks for keys is refused and dropped.

source [file join $::support_dir replication.tcl]

proc wait_load_started {level} {
  wait_for_condition 200 20 {[string match "*Loading DB in memory*" [log_of $level]]} {
    fail "the load never started"
  }
}

start_server {tags {repl external:skip} overrides {repl-diskless-sync no rdbcompression no
                                                   enable-debug-command yes}} {
  # About 3 MB of RDB, sent with its length: twelve of the loader's 256 KB
  # reads.
  r debug populate 3000 key 1000
  start_server {overrides {repl-diskless-load on-empty-db
                           loading-process-events-interval-bytes 1024}} {
    test {A diskless load reads the RDB as it parses it, not before} {
      # A millisecond per key: the load takes seconds, and INFO is served
      # meanwhile (every key, under key-load-delay).
      r config set key-load-delay 1000
      r replicaof 127.0.0.1 [srv -1 port]
      wait_load_started 0
      after 300
      set info [r info replication]
      set total [info_field $info master_sync_total_bytes]
      set read [info_field $info master_sync_read_bytes]
      r config set key-load-delay 0
      wait_link_up 0
      assert_morethan $total 3000000
      # Loading began long before the last byte was read.
      assert_lessthan $read [expr {$total / 2}]
      assert_match "*Loading DB in memory*Finished with success*" [log_of 0]
      r dbsize
    } {3000}
  }
}

# A master that writes its RDB slowly (a millisecond a key) through the
# pipe: a replica killed on its side is cut mid-load.
start_server {tags {repl external:skip} overrides {repl-diskless-sync yes
                                                   repl-diskless-sync-delay 0
                                                   enable-debug-command yes}} {
  r debug populate 3000 key 100
  r config set rdb-key-save-delay 1000
  start_server {overrides {repl-diskless-load on-empty-db}} {
    test {A transfer cut mid-load: an RDB error in the log, then a new sync} {
      set full [stat_field -1 sync_full]
      r replicaof 127.0.0.1 [srv -1 port]
      wait_load_started 0
      after 200
      r -1 client kill type replica
      wait_log 0 "*Internal error in RDB reading offset*"
      wait_log 0 "*Failed trying to load the MASTER synchronization DB from socket*"
      r -1 config set rdb-key-save-delay 0
      wait_link_up 0
      assert_morethan [stat_field -1 sync_full] [expr {$full + 1}]
      r dbsize
    } {3000}
  }

  start_server {overrides {repl-diskless-load swapdb}} {
    test {swapdb: a load cut short leaves the replica's old data in place} {
      r -1 config set rdb-key-save-delay 1000
      r set mine before
      r replicaof 127.0.0.1 [srv -1 port]
      wait_load_started 0
      after 200
      r -1 client kill type replica
      wait_log 0 "*Failed trying to load the MASTER synchronization DB from socket*"
      r replicaof no one
      r -1 config set rdb-key-save-delay 0
      list [r get mine] [r dbsize]
    } {before 1}
  }
}

start_server {tags {repl external:skip} overrides {repl-diskless-sync-delay 0}} {
  r set a b
  start_server {overrides {enable-debug-command yes}} {
    # A master whose RDB takes ten seconds: a full sync with it never ends.
    r debug populate 10 slow 10
    r config set rdb-key-save-delay 1000000
    start_server {} {
      test {A full sync that fails keeps the replica's history: PSYNC to the old master continues} {
        r replicaof 127.0.0.1 [srv -2 port]
        wait_caught_up -2 0
        set full [stat_field -2 sync_full]
        r replicaof 127.0.0.1 [srv -1 port]
        wait_for_condition 100 50 {[info_field [r -1 info persistence] rdb_bgsave_in_progress] == 1} {
          fail "the second master never started its RDB"
        }
        catch {r -1 shutdown nosave}
        r replicaof 127.0.0.1 [srv -2 port]
        wait_caught_up -2 0
        assert_equal [stat_field -2 sync_full] $full
        assert_equal [stat_field -2 sync_partial_ok] 1
        r get a
      } {b}
    }
  }
}

start_server {tags {repl external:skip} overrides {repl-diskless-sync no save {} enable-debug-command yes}} {
  test {PSYNC with an offset that is not a number is refused} {
    catch {r psync 0123456789012345678901234567890123456789 not-a-number} e
    assert_match "*Replica * asks for synchronization but with a wrong offset*" [log_of 0]
    set e
  } {ERR value is not an integer or out of range}

  test {A keyspace command over a replica link is refused, logged and the link dropped} {
    set rd [redis_deferring_client]
    $rd psync ? -1
    assert_match {FULLRESYNC * *} [$rd read]
    $rd get somekey
    wait_log 0 "*== CRITICAL == This master is sending an error to its replica: 'Replica can't interact with the keyspace' after processing the command 'get'*"
    wait_log 0 "*Replica generated a reply to command 'get', disconnecting it*"
    $rd close
    r ping
  } {PONG}

  r debug populate 10 k 10
  start_server {} {
    start_server {} {
      test {Without save points, a disk BGSAVE stops once no replica waits for it} {
        r -2 config set rdb-key-save-delay 1000000
        r -1 replicaof 127.0.0.1 [srv -2 port]
        r 0 replicaof 127.0.0.1 [srv -2 port]
        wait_for_condition 100 50 {
          [info_field [r -2 info persistence] rdb_bgsave_in_progress] == 1 &&
          [string match "*wait_bgsave*" [r -2 info replication]]
        } { fail "the BGSAVE for the replicas never started" }
        r -1 replicaof no one
        after 300
        # One replica still waits: the child goes on.
        assert_equal [info_field [r -2 info persistence] rdb_bgsave_in_progress] 1
        r 0 replicaof no one
        wait_for_condition 100 50 {[info_field [r -2 info persistence] rdb_bgsave_in_progress] == 0} {
          fail "the BGSAVE nobody waits for kept running"
        }
        # With save points it is a BGSAVE worth finishing.
        r -2 config set save "900 1"
        r 0 replicaof 127.0.0.1 [srv -2 port]
        wait_for_condition 100 50 {[info_field [r -2 info persistence] rdb_bgsave_in_progress] == 1} {
          fail "the BGSAVE never started"
        }
        r 0 replicaof no one
        after 300
        set running [info_field [r -2 info persistence] rdb_bgsave_in_progress]
        r -2 config set save ""
        r -2 config set rdb-key-save-delay 0
        set running
      } {1}
    }
  }
}

tags {repl external:skip} {
  test {A BGSAVE child dies with its parent} {
    set srv [launch_server {save {} rdb-key-save-delay 1000000 enable-debug-command yes} {}]
    set c [::redis::connect [dict get $srv host] [dict get $srv port] -timeout 5000]
    $c debug populate 100 k 10
    $c bgsave
    $c close
    set pid [dict get $srv pid]
    wait_for_condition 100 50 {![catch {exec ps --ppid $pid -o pid=} child]} { fail "no child" }
    set child [string trim $child]
    exec kill -9 $pid
    wait_server_exit [dict get $srv dir] 5000
    wait_for_condition 100 50 {[catch {exec kill -0 $child}]} {
      fail "the child outlived its parent"
    }
    file delete -force [dict get $srv dir]
  }
}
