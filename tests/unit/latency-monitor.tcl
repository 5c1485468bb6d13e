# LATENCY (monitor events, history, graph, doctor, reset, per-command
# histograms) and INFO latencystats, with Redis 7.0's reply shapes.

start_server {tags {latency-monitor needs:debug} overrides {enable-debug-command yes}} {
  test {LATENCY HISTOGRAM: calls and cumulative counts per power-of-two microseconds} {
    r config resetstat
    for {set i 0} {$i < 5} {incr i} { r set lat$i x }
    set h [dict get [r latency histogram set] set]
    assert_equal [dict get $h calls] 5
    set buckets [dict get $h histogram_usec]
    # Keys grow, counts are cumulative and end at the number of calls.
    set prev_k 0
    set prev_n 0
    foreach {k n} $buckets {
      assert_morethan $k $prev_k
      assert_morethan $n $prev_n
      set prev_k $k
      set prev_n $n
    }
    assert_equal $prev_n 5
    # Commands never called are left out.
    r latency histogram lpush
  } {}

  test {INFO latencystats reports the configured percentiles} {
    r config resetstat
    r set k v
    assert_match "*latency_percentiles_usec_set:p50=*.???,p99=*.???,p99.9=*.???*" [r info latencystats]
    r config set latency-tracking-info-percentiles "50.5 0 100"
    assert_equal [r config get latency-tracking-info-percentiles] {latency-tracking-info-percentiles {50.5 0 100}}
    assert_match "*latency_percentiles_usec_set:p50.5=*,p0=*,p100=*" [r info latencystats]
    assert_error "*latency-tracking-info-percentiles parameters should sit between \\\[0.0,100.0\\\]*" \
      {r config set latency-tracking-info-percentiles 101}
    assert_error "*Invalid latency-tracking-info-percentiles parameters*" \
      {r config set latency-tracking-info-percentiles abc}
    r config set latency-tracking-info-percentiles "50 99 99.9"
    r config set latency-tracking no
    set info [r info latencystats]
    r config set latency-tracking yes
    assert_no_match "*latency_percentiles_usec*" $info
  }

  test {latency-monitor-threshold: a slow command is a "command" event} {
    r config set latency-monitor-threshold 20
    r latency reset
    r debug sleep 0.05
    set latest [r latency latest]
    assert_equal [llength $latest] 1
    lassign [lindex $latest 0] event when last max
    assert_equal $event command
    assert_range $last 50 2000
    assert_equal $max $last
    assert_range $when [expr {[clock seconds] - 5}] [expr {[clock seconds] + 1}]
    set hist [r latency history command]
    assert_equal [llength $hist] 1
    assert_equal [lindex $hist 0 1] $last
    assert_equal [r latency history nosuch] {}
  }

  test {LATENCY GRAPH and DOCTOR describe the events} {
    set g [r latency graph command]
    assert_match "command - high * ms, low * ms (all time high * ms)\n[string repeat - 80]\n*" $g
    assert_error {ERR No samples available for event 'nosuch'} {r latency graph nosuch}
    assert_match "*command*" [r latency doctor]
  }

  test {LATENCY RESET counts the events it forgot} {
    assert_equal [r latency reset nosuch] 0
    assert_equal [r latency reset command] 1
    r latency latest
  } {}

  test {Below the threshold, or with it at 0, nothing is recorded} {
    r debug sleep 0.005
    assert_equal [r latency latest] {}
    r config set latency-monitor-threshold 0
    r debug sleep 0.03
    r latency latest
  } {}
}
