# INFO: sections exist, fields have the Redis 7.0 names and move when the
# server does work (commands, connections, hits/misses, expiries, keys).

start_server {tags {info}} {
  test {INFO default sections} {
    set info [r info]
    foreach section {Server Clients Memory Persistence Stats Replication CPU Keyspace} {
      assert_match "*# $section\r\n*" $info
    }
    # commandstats is not part of the default set.
    assert_no_match "*# Commandstats*" $info
  }

  test {INFO server fields} {
    set d [info_dict [r info server]]
    foreach f {redis_version redis_mode os arch_bits process_id run_id tcp_port uptime_in_seconds
               uptime_in_days hz executable config_file} {
      assert {[dict exists $d $f]}
    }
    assert_equal [dict get $d tcp_port] [srv port]
    assert_equal [dict get $d redis_mode] standalone
    assert_match {*.*.*} [dict get $d redis_version]
    assert_equal [string length [dict get $d run_id]] 40
  }

  test {INFO clients: connected_clients follows connections} {
    set before [info_field [r info clients] connected_clients]
    set c1 [redis_client]
    set c2 [redis_client]
    $c1 ping
    $c2 ping
    assert_equal [info_field [r info clients] connected_clients] [expr {$before + 2}]
    $c1 close
    $c2 close
    wait_for_condition 500 20 {[info_field [r info clients] connected_clients] == $before} {
      fail "connected_clients did not fall back to $before"
    }
    assert {[dict exists [info_dict [r info clients]] blocked_clients]}
    info_field [r info clients] maxclients
  } {10000}

  test {INFO memory fields} {
    set d [info_dict [r info memory]]
    foreach f {used_memory used_memory_human used_memory_rss used_memory_peak maxmemory
               maxmemory_policy mem_fragmentation_ratio} {
      assert {[dict exists $d $f]}
    }
    assert_morethan [dict get $d used_memory] 0
    assert_match {*[KMG]} [dict get $d used_memory_human]
  }

  test {INFO memory: used_memory grows with a big value} {
    r del big
    set before [info_field [r info memory] used_memory]
    r set big [string repeat x 4000000]
    set after [info_field [r info memory] used_memory]
    r del big
    assert_morethan [expr {$after - $before}] 3000000
  }

  test {INFO stats: total_commands_processed and connections counters} {
    set n1 [info_field [r info stats] total_commands_processed]
    for {set i 0} {$i < 10} {incr i} { r ping }
    set n2 [info_field [r info stats] total_commands_processed]
    # 10 PINGs plus the first INFO itself.
    assert_equal [expr {$n2 - $n1}] 11
    set c1 [info_field [r info stats] total_connections_received]
    set c [redis_client]
    $c ping
    $c close
    assert_equal [info_field [r info stats] total_connections_received] [expr {$c1 + 1}]
  }

  test {INFO stats: keyspace hits and misses} {
    set d [info_dict [r info stats]]
    set hits [dict get $d keyspace_hits]
    set misses [dict get $d keyspace_misses]
    r set k v
    r get k
    r get k
    r get nokey
    set d [info_dict [r info stats]]
    list [expr {[dict get $d keyspace_hits] - $hits}] [expr {[dict get $d keyspace_misses] - $misses}]
  } {2 1}

  test {INFO stats: expired_keys counts expiries} {
    set before [info_field [r info stats] expired_keys]
    r set e v px 1
    after 20
    r get e
    assert_equal [info_field [r info stats] expired_keys] [expr {$before + 1}]
  }

  test {INFO keyspace lists each non-empty DB} {
    r flushall
    assert_equal [string trim [r info keyspace]] "# Keyspace"
    r mset a 1 b 2
    r select 3
    r set c 3 ex 100
    r select 0
    set info [r info keyspace]
    assert_match "*db0:keys=2,expires=0,avg_ttl=0*" $info
    assert_match "*db3:keys=1,expires=1,avg_ttl=*" $info
    r flushall
  }

  test {INFO commandstats counts calls per command} {
    r config resetstat
    r set a 1
    r set b 2
    r get a
    catch {r get}
    set info [r info commandstats]
    assert_match "*cmdstat_set:calls=2,usec=*,usec_per_call=*,rejected_calls=0,failed_calls=0*" $info
    # The arity error is rejected before the call.
    assert_match "*cmdstat_get:calls=1,usec=*,rejected_calls=1,failed_calls=0*" $info
  }

  test {INFO all and INFO everything include commandstats} {
    assert_match "*# Commandstats*" [r info all]
    assert_match "*# Keyspace*" [r info everything]
  }

  test {INFO with several sections and an unknown section} {
    set info [r info server clients]
    assert_match "*# Server*" $info
    assert_match "*# Clients*" $info
    assert_no_match "*# Memory*" $info
    r info nosuchsection
  } {}

  test {INFO memory: overhead, startup and dataset split used_memory} {
    r del big
    set d [info_dict [r info memory]]
    set before [dict get $d used_memory_dataset]
    assert_morethan [dict get $d used_memory_overhead] [expr {[dict get $d used_memory_startup] - 1}]
    assert_match {*.*%} [dict get $d used_memory_dataset_perc]
    # Made by the server from a small request: no client buffer grows.
    r setrange big 1999999 y
    set d [info_dict [r info memory]]
    r del big
    # The value counts as data, not overhead.
    assert_morethan [expr {[dict get $d used_memory_dataset] - $before}] 1900000
    assert_range [string trimright [dict get $d used_memory_dataset_perc] %] 0 100
  }

  test {INFO stats: instantaneous input and output kbps follow the traffic} {
    set value [string repeat z 20000]
    for {set i 0} {$i < 50} {incr i} {
      r set traffic $value
      r get traffic
    }
    r del traffic
    # The cron samples every 100 ms; the figures average the last 16.
    wait_for_condition 40 50 {
      [info_field [r info stats] instantaneous_input_kbps] > 0 &&
      [info_field [r info stats] instantaneous_output_kbps] > 0
    } {
      fail "kbps stayed at zero: [r info stats]"
    }
    set d [info_dict [r info stats]]
    list [dict get $d instantaneous_input_repl_kbps] [dict get $d instantaneous_output_repl_kbps]
  } {0.00 0.00}

  test {INFO stats: active expiry reports the stale share it finds and its time} {
    r flushall
    r config resetstat
    for {set i 0} {$i < 200} {incr i} { r set stale:$i v px 1 }
    # Each cycle weighs in at 5%: a cycle that finds every sampled key
    # expired lifts the figure from 0.
    wait_for_condition 100 20 {[info_field [r info stats] expired_stale_perc] > 0} {
      fail "expired_stale_perc stayed at zero: [r info stats]"
    }
    wait_for_condition 100 20 {[r dbsize] == 0} { fail "the keys did not expire" }
    set d [info_dict [r info stats]]
    assert_range [dict get $d expired_stale_perc] 0.01 100
    foreach f {expired_time_cap_reached_count expire_cycle_cpu_milliseconds} {
      assert {[string is integer -strict [dict get $d $f]]}
    }
  }

  test {INFO reports the fields of machinery kept idle, as Redis does} {
    assert_equal c11-builtin [info_field [r info server] atomicvar_api]
    set d [info_dict [r info stats]]
    set got {}
    foreach f {slave_expires_tracked_keys active_defrag_hits active_defrag_misses
               active_defrag_key_hits active_defrag_key_misses total_active_defrag_time
               current_active_defrag_time} {
      lappend got [dict get $d $f]
    }
    set got
  } {0 0 0 0 0 0 0}

  test {CONFIG RESETSTAT resets counters} {
    r get nokey
    r config resetstat
    set d [info_dict [r info stats]]
    list [dict get $d keyspace_misses] [dict get $d expired_keys] [expr {[dict get $d total_commands_processed] <= 2}]
  } {0 0 1}
}

start_server {tags {info external:skip} overrides {latency-tracking no enable-debug-command yes}} {
  test {The first INFO memory creates nothing: used_memory holds still across calls} {
    # The Lua states of EVAL and FUNCTION exist from the start (as in
    # Redis), and again right after SCRIPT FLUSH / FUNCTION FLUSH. (This
    # client's reply buffer keeps its size meanwhile.)
    r debug replybuffer resizing 0
    set a [info_field [r info memory] used_memory]
    set b [info_field [r info memory] used_memory]
    r script flush
    r function flush
    set c [info_field [r info memory] used_memory]
    set d [info_field [r info memory] used_memory]
    assert_range [expr {$b - $a}] -2000 2000
    assert_range [expr {$d - $c}] -2000 2000
  }
}

start_server {tags {info external:skip}} {
  start_server {} {
    test {INFO slave_expires_tracked_keys: a writable replica's own TTL keys, by name} {
      r replicaof 127.0.0.1 [srv -1 port]
      wait_for_condition 100 50 {[info_field [r info replication] master_link_status] eq "up"} {
        fail "the replica never linked"
      }
      r config set replica-read-only no
      # One name in two dbs is one record; a key without a TTL is none.
      r select 0
      r set mine 1 ex 1000
      r set plain 1
      r select 1
      r set mine 1 ex 1000
      r set other 1 px 300000
      set tracked [info_field [r info stats] slave_expires_tracked_keys]
      r config set replica-read-only yes
      r replicaof no one
      r select 9
      set tracked
    } {2}
  }
}
