# What a BGSAVE child reports while it runs and when it ends: copy-on-write
# size (current_cow_*, rdb_last_cow_size), keys written (current_save_keys_*,
# current_fork_perc), the fork figures of INFO stats, and the child's log
# line. Expectations from Redis 7.0.15 (the file also passes against it).

proc persistence_field {name} {
  info_field [r info persistence] $name
}

start_server {tags {rdb external:skip}} {
  test {No child: the current_* figures are zero} {
    foreach f {current_cow_peak current_cow_size current_cow_size_age current_save_keys_processed
               current_save_keys_total} {
      assert_equal [persistence_field $f] 0 $f
    }
    assert_equal [persistence_field current_fork_perc] 0.00
    assert_equal [persistence_field rdb_last_cow_size] 0
    assert_equal [info_field [r info stats] total_forks] 0
  }

  test {A slow BGSAVE under writes reports growing copy-on-write and keys written} {
    # 10000 values of ~500 bytes; at 200 us a key the child needs seconds,
    # and it reports about once a second.
    set rd [redis_deferring_client]
    set n 10000
    for {set k 0} {$k < $n} {incr k} { $rd set key$k [string repeat A 500] }
    for {set k 0} {$k < $n} {incr k} { $rd read }
    $rd close
    r config set rdb-key-save-delay 200
    assert_equal [r bgsave] {Background saving started}
    assert_equal [persistence_field current_save_keys_total] $n
    assert_morethan [info_field [r info stats] latest_fork_usec] 0
    assert_equal [info_field [r info stats] total_forks] 1

    set seen 0
    set key 0
    while {$seen < 2 && [persistence_field rdb_bgsave_in_progress] == 1} {
      set cow [persistence_field current_cow_size]
      set done [persistence_field current_save_keys_processed]
      # Rewriting 16 values in place dirties at least two of the parent's
      # pages, which the child then holds alone.
      for {set i 0} {$i < 16} {incr i} {
        r setrange key$key 0 [string repeat B 500]
        incr key
      }
      wait_for_condition 80 100 {
        [persistence_field rdb_bgsave_in_progress] == 0 ||
        ([persistence_field current_cow_size] >= $cow + 4096 &&
         [persistence_field current_save_keys_processed] > $done &&
         [persistence_field current_fork_perc] > 0)
      } {
        fail "no copy-on-write report from the child"
      }
      if {[persistence_field rdb_bgsave_in_progress] == 1} {
        set info [r info persistence]
        assert_range [info_field $info current_save_keys_processed] 1 $n
        assert_range [info_field $info current_cow_size] 4096 [info_field $info current_cow_peak]
        incr seen
      }
    }
    assert_equal $seen 2
    set last_cow [persistence_field current_cow_size]

    # The child keeps its own copy of rdb-key-save-delay: it ends at its
    # pace.
    r config set rdb-key-save-delay 0
    wait_for_condition 300 100 {[persistence_field rdb_bgsave_in_progress] == 0} {
      fail "BGSAVE did not finish"
    }
    set info [r info persistence]
    assert_equal [info_field $info rdb_last_bgsave_status] ok
    # The final figure comes from the child's last reading, taken after
    # those seen while it ran.
    assert_morethan [info_field $info rdb_last_cow_size] [expr {$last_cow * 0.9}]
    foreach f {current_cow_peak current_cow_size current_save_keys_processed
               current_save_keys_total} {
      assert_equal [info_field $info $f] 0 "$f after the child"
    }
    assert_equal [info_field $info current_fork_perc] 0.00
  }

  test {The child logs its copy-on-write size when done} {
    wait_for_condition 50 100 {
      [regexp {:C [^\n]* Fork CoW for RDB: current \d+ MB, peak \d+ MB, average \d+ MB} \
           [exec cat [srv 0 stdout]]]
    } {
      fail "no Fork CoW line from the child"
    }
  }
}
