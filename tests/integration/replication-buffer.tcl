# The replication buffer: the master keeps its stream once, for the backlog
# and every replica. Replicas waiting for the same RDB do not each hold a
# copy; a lagging replica holds what it has not been sent, so the backlog
# outgrows repl-backlog-size meanwhile (and a PSYNC may continue from
# there); the memory goes once nobody needs it. The same steps run with
# Redis 7.0.15 as the master: the figures are its too.

source [file join $::support_dir replication.tcl]

set master_bins [list $::our_bin]
if {[file executable $::reference_bin]} { lappend master_bins $::reference_bin }

# INFO memory / replication field of the server at `level`.
proc mem_field {level field} { return [info_field [r $level info memory] $field] }

# Writes `n` values of `size` bytes on the server at `level`.
proc write_values {level prefix n size} {
  set v [string repeat v $size]
  for {set i 0} {$i < $n} {incr i} { r $level set $prefix:$i $v }
}

foreach bin $master_bins {
  set who [expr {$bin eq $::our_bin ? "our master" : "Redis 7.0.15 as master"}]
  with_server_bin $bin {
    start_server {tags {repl external:skip}
                  overrides {save "" repl-backlog-size 16kb repl-diskless-sync yes
                             repl-diskless-sync-delay 5 repl-diskless-sync-max-replicas 2
                             client-output-buffer-limit {replica 0 0 0}}} {
      r set seed 1
      with_server_bin $::our_bin {
      start_server {} {
        start_server {} {
          # Both replicas wait for one RDB (its fork waits for the second
          # replica) that takes long to make (a second per key, 100 keys),
          # so the stream after its fork is queued for both. The RDB is
          # abandoned when they leave.
          write_values -2 old 100 10
          r -2 config set rdb-key-save-delay 1000000
          r -1 replicaof 127.0.0.1 [srv -2 port]
          r 0 replicaof 127.0.0.1 [srv -2 port]
          wait_for_condition 100 50 {
            [repl_field -2 connected_slaves] == 2 &&
            [string match "*state=wait_bgsave*state=wait_bgsave*" [r -2 info replication]] &&
            [info_field [r -2 info persistence] rdb_bgsave_in_progress] == 1
          } { fail "the replicas never waited for one RDB: [r -2 info replication]" }

          test "$who: replicas waiting for one RDB share one copy of the stream" {
            set before [mem_field -2 used_memory]
            write_values -2 shared 1000 1000
            set buffers [mem_field -2 mem_total_replication_buffers]
            assert_morethan $buffers 1000000
            # A megabyte was stored and queued for two replicas: memory grew
            # by the value and one copy of the stream, not two.
            set grown [expr {[mem_field -2 used_memory] - $before - 1000000}]
            assert_lessthan $grown [expr {2 * $buffers}]
            assert_morethan [repl_field -2 repl_backlog_histlen] 1000000
          }

          test "$who: the shared copy stays while a replica needs it, and goes after" {
            set buffers [mem_field -2 mem_total_replication_buffers]
            r -1 replicaof no one
            wait_for_condition 100 50 {[repl_field -2 connected_slaves] == 1} {
              fail "the first replica never left"
            }
            assert_equal [mem_field -2 mem_total_replication_buffers] $buffers
            r 0 replicaof no one
            wait_for_condition 100 50 {[repl_field -2 connected_slaves] == 0} {
              fail "the second replica never left"
            }
            # The backlog gives blocks back a few at a time (each write and
            # each cron tick), down to about repl-backlog-size.
            wait_for_condition 100 100 {
              [r -2 set tick 1] eq "OK" &&
              [mem_field -2 mem_total_replication_buffers] < 200000
            } { fail "the buffer stayed at [mem_field -2 mem_total_replication_buffers]" }
            assert_range [repl_field -2 repl_backlog_histlen] 16384 200000
          }
          r -2 config set rdb-key-save-delay 0
        }
      }
      }
    }

    start_server {tags {repl external:skip}
                  overrides {save "" repl-backlog-size 16kb repl-diskless-sync yes
                             repl-diskless-sync-delay 0 repl-timeout 120
                             client-output-buffer-limit {replica 0 0 0}}} {
      with_server_bin $::our_bin {
      start_server {} {
        start_server {} {
          # The first replica is online; the second waits for an RDB that
          # takes long to make, holding the stream from its fork on.
          r -1 replicaof 127.0.0.1 [srv -2 port]
          wait_caught_up -2 -1
          write_values -2 old 100 10
          r -2 config set rdb-key-save-delay 1000000
          r 0 replicaof 127.0.0.1 [srv -2 port]
          wait_for_condition 100 50 {
            [string match "*state=wait_bgsave*" [r -2 info replication]] &&
            [info_field [r -2 info persistence] rdb_bgsave_in_progress] == 1
          } { fail "the second replica never waited for its RDB" }

          test "$who: a lagging replica makes the backlog outgrow repl-backlog-size" {
            write_values -2 lag 500 1000
            assert_morethan [repl_field -2 repl_backlog_histlen] 500000
            assert_morethan [mem_field -2 mem_clients_slaves] 400000
            # CLIENT LIST shows it as the lagging replica's output memory.
            set omem 0
            foreach line [split [string trim [r -2 client list type replica]] "\n"] {
              regexp {omem=(\d+)} $line -> m
              set omem [expr {max($omem, $m)}]
            }
            assert_morethan $omem 400000
          }

          test "$who: a PSYNC from beyond repl-backlog-size continues from that copy" {
            wait_caught_up -2 -1
            set partial [stat_field -2 sync_partial_ok]
            set full [stat_field -2 sync_full]
            # The first replica leaves and comes back 300 KB later.
            r -1 replicaof 127.0.0.1 [srv 0 port]
            write_values -2 away 300 1000
            r -1 replicaof 127.0.0.1 [srv -2 port]
            wait_caught_up -2 -1
            assert_equal [stat_field -2 sync_partial_ok] [expr {$partial + 1}]
            assert_equal [stat_field -2 sync_full] $full
            r -1 get away:299
          } [string repeat v 1000]

          test "$who: a replica's hard limit under repl-backlog-size counts as repl-backlog-size" {
            # The waiting replica holds about a megabyte; a 100 KB limit
            # applies since the backlog is smaller, and it is dropped at the
            # next write.
            r -2 config set client-output-buffer-limit "replica 100kb 0 0"
            r -2 set trigger [string repeat t 20000]
            wait_for_condition 100 50 {[repl_field -2 connected_slaves] == 1} {
              fail "the lagging replica was never dropped: [r -2 info replication]"
            }
            # Its share goes, a few blocks per write and per cron tick.
            wait_for_condition 100 100 {
              [r -2 set tick 1] eq "OK" && [repl_field -2 repl_backlog_histlen] < 200000
            } { fail "the backlog kept [repl_field -2 repl_backlog_histlen] bytes" }
          }
          r -2 config set rdb-key-save-delay 0
        }
      }
      }
    }

    start_server {tags {repl external:skip}
                  overrides {save "" repl-backlog-size 16kb repl-diskless-sync-delay 0}} {
      test "$who: a redis-cli --rdb download holds none of the stream" {
        # An rdb-only replica is sent its RDB and nothing after it: the
        # stream written while its RDB is made is not kept for it.
        write_values 0 old 40 10
        r config set rdb-key-save-delay 100000
        set path [file join [tmp_root] rdb-only-[pid].rdb]
        set pid [exec $::cfg(cli_bin) -p [srv 0 port] --rdb $path > /dev/null 2>@1 &]
        wait_for_condition 100 50 {
          [info_field [r info persistence] rdb_bgsave_in_progress] == 1
        } { fail "the download never started" }
        write_values 0 new 1000 1000
        set buffers [mem_field 0 mem_total_replication_buffers]
        r config set rdb-key-save-delay 0
        catch {exec kill $pid}
        file delete $path
        assert_lessthan $buffers 200000
      }
    }

    start_server {tags {repl external:skip}
                  overrides {save "" repl-backlog-size 1mb repl-diskless-sync-delay 0
                             client-output-buffer-limit {replica 64kb 0 0}}} {
      with_server_bin $::our_bin {
      start_server {} {
        r replicaof 127.0.0.1 [srv -1 port]
        wait_caught_up -1 0

        test "$who: a stalled replica under a limit below the backlog's size stays" {
          # 64 KB is under the 1 MB backlog: 500 KB queued for a stopped
          # replica keeps it, and it catches up without a new sync.
          set full [stat_field -1 sync_full]
          exec kill -STOP [srv 0 pid]
          write_values -1 held 500 1000
          after 200
          assert_equal [repl_field -1 connected_slaves] 1
          exec kill -CONT [srv 0 pid]
          wait_caught_up -1 0
          assert_equal [stat_field -1 sync_full] $full
          r get held:499
        } [string repeat v 1000]
      }
      }
    }
  }
}
