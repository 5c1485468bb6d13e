# Configuration as Redis 7.0 reads it: Debian's packaged redis.conf starts
# the server unchanged, the process directives have their effect
# (daemonize, pidfile, supervised, logo, process title, oom-score-adj,
# disable-thp, syslog, dynamic-hz, include), and options of features not
# implemented yet are accepted, listed and logged. Every expectation holds
# against Debian's redis-server 7.0.15 too, except the lines our own log
# prints (checked only when the binary is ours).

set ::conf_support [file join $::repo_root tests support]

proc our_server {} {
  expr {![catch {exec $::cfg(server_bin) -v} v] && [string match *rdma-redis* $v]}
}

# True when tests/support/in_container.sh can run here (root, unshare, ip).
proc container_available {} {
  expr {![catch {exec [file join $::conf_support in_container.sh] true}]}
}

# Runs a script of tests/support inside tests/support/in_container.sh.
proc in_container {script args} {
  exec [file join $::conf_support in_container.sh] [file join $::conf_support $script] \
    {*}$args 2>@1
}

# key=value lines of a script's output as a dict (up to a "--- " line).
proc kv_lines {out} {
  set d {}
  foreach line [split $out "\n"] {
    if {[string match "--- *" $line]} break
    if {[regexp {^([a-z_0-9]+)=(.*)$} $line -> k v]} { dict set d $k $v }
  }
  return $d
}

proc skip_line {name why} {
  puts "\[skip\]: $name ($why)"
  flush stdout
}

# The process's argv as ps shows it: NUL-separated, trailing NULs dropped.
proc proc_cmdline {pid} {
  set raw [read_file /proc/$pid/cmdline]
  return [string trimright [string map [list \0 " "] $raw]]
}

proc wait_for_file {path {ms 10000}} {
  set deadline [expr {[clock milliseconds] + $ms}]
  while {[clock milliseconds] < $deadline} {
    if {[file exists $path] && [file size $path] > 0} { return 1 }
    after 20
  }
  return 0
}

# Starts a server from a copy of the current server's redis.conf (its own
# port, dir, log; no Unix socket), sends it `cmd` and returns the reply,
# then shuts it down.
proc with_server_from_file {name cmd} {
  set dir [new_tmp_dir $name]
  file copy [srv dir]/redis.conf $dir/redis.conf
  set port [find_free_port]
  set pid [exec $::cfg(server_bin) $dir/redis.conf --port $port --dir $dir --unixsocket "" \
             --logfile $dir/log --daemonize no >& /dev/null &]
  wait_for_condition 100 50 {[ping_server 127.0.0.1 $port]} {
    catch {exec kill -9 $pid}
    fail "the rewritten file did not start a server: [read_file $dir/log]"
  }
  set c [::redis::connect 127.0.0.1 $port]
  set reply [$c {*}$cmd]
  catch {$c shutdown nosave}
  $c close
  return $reply
}

proc process_alive {pid} {
  expr {![catch {exec kill -0 $pid}]}
}

tags {config external:skip} {
  set name {Debian's /etc/redis/redis.conf starts the server unchanged (daemonized, pidfile, log)}
  if {![file readable /etc/redis/redis.conf]} {
    skip_line $name "no /etc/redis/redis.conf"
  } elseif {![container_available]} {
    skip_line $name "needs root, unshare and ip"
  } else {
    test $name {
      set out [in_container debian_conf.sh $::cfg(server_bin) $::cfg(cli_bin)]
      set d [kv_lines $out]
      assert_equal [dict get $d launcher_exit] 0
      assert_equal [dict get $d ping] PONG
      assert_equal [dict get $d ping6] PONG
      assert_equal [dict get $d daemonize] yes
      assert_equal [dict get $d dir] /var/lib/redis
      assert_equal [dict get $d get] debvalue
      # set-proc-title yes with Debian's template.
      assert_equal [dict get $d title] "$::cfg(server_bin) 127.0.0.1:6379"
      assert_equal [dict get $d stdout] /dev/null
      assert_equal [dict get $d running_after_shutdown] no
      assert_equal [dict get $d pidfile_after_shutdown] no
      # The log file names the daemon's pid, not the launcher's.
      assert_match "*[dict get $d pid]:M * Ready to accept connections*" $out
    }
  }

  set name {syslog-enabled: lines go to /dev/log with syslog-ident and syslog-facility}
  if {![container_available]} {
    skip_line $name "needs root, unshare and ip"
  } else {
    test $name {
      set out [in_container syslog_check.sh $::cfg(server_bin) $::cfg(cli_bin) 6379]
      set pid [dict get [kv_lines $out] pid]
      # local3 (19) * 8 + notice (5) = 157.
      assert_match "*<157>* testident\\\[$pid\\\]: Ready to accept connections*" $out
    }
  }

  test {daemonize yes: the launcher exits 0, the daemon detaches, writes and removes its pidfile} {
    set dir [new_tmp_dir daemon]
    set port [find_free_port]
    exec timeout 10 $::cfg(server_bin) --port $port --bind 127.0.0.1 --daemonize yes \
      --pidfile $dir/redis.pid --logfile "" --dir $dir --save "" --appendonly no
    assert [wait_for_file $dir/redis.pid]
    set pid [string trim [read_file $dir/redis.pid]]
    assert [ping_server 127.0.0.1 $port]
    set c [::redis::connect 127.0.0.1 $port]
    assert_equal [$c config get daemonize] {daemonize yes}
    assert_equal [$c config get pidfile] [list pidfile $dir/redis.pid]
    # Its own session; standard output on /dev/null as logfile is "".
    set sid [string trim [exec ps -o sid= -p $pid]]
    assert_equal $sid $pid
    assert_equal [file readlink /proc/$pid/fd/1] /dev/null
    catch {$c shutdown nosave}
    $c close
    for {set i 0} {$i < 500 && [process_alive $pid]} {incr i} { after 20 }
    assert_equal [process_alive $pid] 0
    assert_equal [file exists $dir/redis.pid] 0
    file delete -force $dir
  }

  test {supervised systemd: STATUS and READY=1 reach NOTIFY_SOCKET, STOPPING=1 at shutdown} {
    set dir [new_tmp_dir notify]
    set port [find_free_port]
    exec python3 [file join $::conf_support dgram_capture.py] $dir/notify.sock $dir/notify.out \
      3 &
    assert [wait_for_file $dir/notify.out]
    set ::env(NOTIFY_SOCKET) $dir/notify.sock
    # Supervised: daemonize yes does not fork, the supervisor tracks this pid.
    set pid [spawn_server $::cfg(server_bin) [list --port $port --bind 127.0.0.1 \
               --supervised systemd --daemonize yes --save "" --dir $dir] $dir]
    unset ::env(NOTIFY_SOCKET)
    for {set i 0} {$i < 500 && ![ping_server 127.0.0.1 $port]} {incr i} { after 20 }
    set c [::redis::connect 127.0.0.1 $port]
    assert_match "*process_supervised:systemd*" [$c info server]
    catch {$c shutdown nosave}
    $c close
    assert_equal [wait_server_exit $dir 10000] 0
    for {set i 0} {$i < 500 && [file exists $dir/notify.sock]} {incr i} { after 20 }
    set msgs [split [string trim [read_file $dir/notify.out]] "\n"]
    assert_equal [lrange $msgs 1 end] \
      {{STATUS=Redis is loading...} {STATUS=Ready to accept connections} READY=1 STOPPING=1}
    file delete -force $dir
  }
}

tags {config external:skip} {
  test {supervised upstart: the server stops itself once (SIGSTOP), then runs on SIGCONT} {
    set dir [new_tmp_dir upstart]
    set port [find_free_port]
    set ::env(UPSTART_JOB) redis-test
    set pid [spawn_server $::cfg(server_bin) [list --port $port --bind 127.0.0.1 \
               --supervised upstart --daemonize yes --save "" --dir $dir] $dir]
    unset ::env(UPSTART_JOB)
    set state ""
    for {set i 0} {$i < 500} {incr i} {
      set stat [read_file /proc/$pid/stat]
      set state [lindex [string range $stat [expr {[string last ")" $stat] + 2}] end] 0]
      if {$state eq "T"} break
      after 20
    }
    assert_equal $state T
    exec kill -CONT $pid
    for {set i 0} {$i < 500 && ![ping_server 127.0.0.1 $port]} {incr i} { after 20 }
    set c [::redis::connect 127.0.0.1 $port]
    assert_match "*process_supervised:upstart*" [$c info server]
    catch {$c shutdown nosave}
    $c close
    assert_equal [wait_server_exit $dir 10000] 0
    file delete -force $dir
  }
}

start_server {tags {config external:skip} overrides {always-show-logo yes}} {
  test {always-show-logo yes: the banner with port and pid is logged at start} {
    set log [read_file [srv stdout]]
    assert_match "*Port: [srv port]*" $log
    assert_match "*PID: [srv pid]*" $log
  }
}

start_server {tags {config external:skip}} {
  test {Without always-show-logo (stdout not a terminal): one "Running mode" line instead} {
    set log [read_file [srv stdout]]
    assert_match "*Running mode=standalone, port=[srv port].*" $log
    assert_no_match "*PID: [srv pid]*" $log
  }

  test {set-proc-title: the process title follows proc-title-template} {
    assert_equal [proc_cmdline [srv pid]] "$::cfg(server_bin) 127.0.0.1:[srv port]"
    # A doubled opening brace is a literal one (escaped here for Tcl).
    set tmpl "\{title\} port=\{port\} \{\{x\}"
    r config set proc-title-template $tmpl
    assert_equal [proc_cmdline [srv pid]] "$::cfg(server_bin) port=[srv port] \{x\}"
    assert_error {*template format is invalid or contains unknown variables*} \
      {r config set proc-title-template "{nosuch}"}
    assert_equal [lindex [r config get proc-title-template] 1] $tmpl
  }

  test {dynamic-hz: the cron speeds up with more than 200 clients per tick} {
    r config set hz 1
    r config set dynamic-hz no
    set clients {}
    for {set i 0} {$i < 250} {incr i} { lappend clients [redis_client] }
    after 1200
    assert_equal [info_field [r info server] hz] 1
    r config set dynamic-hz yes
    wait_for_condition 100 100 {[info_field [r info server] hz] == 2} {
      fail "hz did not double: [info_field [r info server] hz]"
    }
    assert_equal [info_field [r info server] configured_hz] 1
    foreach c $clients { $c close }
    wait_for_condition 100 100 {[info_field [r info server] hz] == 1} {
      fail "hz did not come back"
    }
    r config set hz 10
  }
}

start_server {tags {config external:skip} overrides {set-proc-title no}} {
  test {set-proc-title no: the command line stays as it was run} {
    assert_equal [proc_cmdline [srv pid]] "$::cfg(server_bin) [srv dir]/redis.conf"
  }
}

start_server {tags {config external:skip}
              overrides {oom-score-adj absolute oom-score-adj-values {101 200 800}}} {
  test {oom-score-adj: absolute, relative and no write /proc/<pid>/oom_score_adj} {
    set base [string trim [read_file /proc/[pid]/oom_score_adj]]
    assert_equal [string trim [read_file /proc/[srv pid]/oom_score_adj]] 101
    r config set oom-score-adj-values "150 200 800"
    assert_equal [string trim [read_file /proc/[srv pid]/oom_score_adj]] 150
    r config set oom-score-adj relative
    assert_equal [string trim [read_file /proc/[srv pid]/oom_score_adj]] [expr {$base + 150}]
    # no: back to the score the process had before the server changed it.
    r config set oom-score-adj no
    assert_equal [string trim [read_file /proc/[srv pid]/oom_score_adj]] $base
    assert_error {*Invalid oom-score-adj-values*} {r config set oom-score-adj-values "0 0 5000"}
  }
}

foreach thp {yes no} {
  start_server [list tags {config external:skip} overrides [list disable-thp $thp]] {
    test "disable-thp $thp: THP for the process only when the kernel forces it (always)" {
      set status [read_file /proc/[srv pid]/status]
      if {![regexp {THP_enabled:\s*(\d)} $status -> enabled]} {
        set enabled unknown  ;# kernel without the field: nothing to check
      } else {
        set always [string match {*\[always\]*} \
                      [read_file /sys/kernel/mm/transparent_hugepage/enabled]]
        assert_equal $enabled [expr {$thp eq "yes" && $always ? 0 : 1}]
      }
    }
  }
}

set conf_include [file join [tmp_root] include.[pid].conf]
set fd [open $conf_include w]
puts $fd "maxclients 123\nreplica-priority 7"
close $fd
start_server [list tags {config external:skip} overrides [list include $conf_include]] {
  test {include: the named file's directives apply} {
    list [r config get maxclients] [r config get replica-priority]
  } {{maxclients 123} {replica-priority 7}}
}
file delete $conf_include

start_server {tags {config}} {
  test {CONFIG GET * lists Redis 7.0's parameters, replication, cluster and TLS ones included} {
    set all [dict create {*}[r config get *]]
    assert_morethan [dict size $all] 191
    foreach name {replicaof masterauth cluster-enabled tls-port appendonly appendfsync
                  notify-keyspace-events supervised oom-score-adj-values io-threads
                  latency-tracking-info-percentiles slave-read-only lua-time-limit} {
      assert [dict exists $all $name]
    }
    list [dict get $all cluster-enabled] [dict get $all appendfsync] [dict get $all tls-port]
  } {no everysec 0}
}

start_server {tags {config external:skip} overrides {active-defrag-threshold-lower 5}} {
  test {Options of features not implemented yet: settable, validated, logged once} {
    r config set active-defrag-threshold-upper 30
    r config set active-defrag-threshold-upper 40
    r config set active-defrag-threshold-upper 50
    assert_equal [r config get active-defrag-threshold-upper] {active-defrag-threshold-upper 50}
    assert_error {*argument couldn't be parsed into an integer*} \
      {r config set active-defrag-threshold-upper sometimes}
    assert_error {*can't set immutable config*} {r config set enable-module-command yes}
    if {[our_server]} {
      set log [read_file [srv stdout]]
      assert_match "*'active-defrag-threshold-lower 5': active defragmentation is not implemented yet*" $log
      assert_equal [regexp -all {active-defrag-threshold-upper[^\n]*not implemented yet} $log] 1
    }
  }

  test {The cluster-* directives are settable, old names included, and immutable where Redis says} {
    r config set cluster-node-timeout 40
    assert_equal [r config get cluster-node-timeout] {cluster-node-timeout 40}
    assert_error {*argument couldn't be parsed into an integer*} \
      {r config set cluster-node-timeout sometimes}
    assert_error {*can't set immutable config*} {r config set cluster-enabled yes}
    r config set cluster-slave-validity-factor 9
    assert_equal [r config get cluster-replica-validity-factor] {cluster-replica-validity-factor 9}
    assert_error {*Hostnames may only contain*} {r config set cluster-announce-hostname "a b"}
  }

  test {CONFIG REWRITE writes not-implemented options like the others} {
    r config set active-defrag-threshold-upper 45
    r config rewrite
    set text [read_file [srv dir]/redis.conf]
    assert_match "*\nactive-defrag-threshold-upper 45\n*" $text
    assert_match "*\ncluster-replica-validity-factor 9\n*" $text
  }

  test {A file CONFIG REWRITE wrote starts a server again (the default user's line included)} {
    r config rewrite
    set text [read_file [srv dir]/redis.conf]
    assert_match "*\nuser default on nopass ~\* &\* +@all*" $text
    with_server_from_file rewritten {acl list}
  } {{user default on nopass sanitize-payload ~* &* +@all}}
}

start_server {tags {config external:skip} overrides {loading-process-events-interval-bytes 4096}} {
  test {Hidden test-aid configs: by exact name only, never in CONFIG GET *} {
    foreach name {key-load-delay rdb-key-save-delay use-exit-on-panic
                  loading-process-events-interval-bytes watchdog-period} {
      assert_equal [llength [r config get $name]] 2 $name
      assert_equal [llength [r config get ${name}*]] 0 "$name by pattern"
    }
    assert_equal [lsearch [r config get *] use-exit-on-panic] -1
    assert_error {*must be between 1024 and*} {r config set loading-process-events-interval-bytes 10}
    r config get loading-process-events-interval-bytes
  } {loading-process-events-interval-bytes 4096}
}

start_server {tags {config external:skip} overrides {enable-debug-command yes}} {
  test {DEBUG CONFIG-REWRITE-FORCE-ALL writes every option, and the file starts the same server} {
    set before [r config get *]
    r debug config-rewrite-force-all
    set text [read_file [srv dir]/redis.conf]
    # Defaults too (and no replicaof line on a master).
    assert_match "*\nhz *" $text
    assert_match "*\nlazyfree-lazy-eviction no\n*" $text
    assert_no_match "*\nreplicaof *" $text
    set after [with_server_from_file forceall {config get *}]
    # The same values, but for what the second server was started with.
    set diffs {}
    foreach {k v} $before {
      if {$k in {port dir unixsocket logfile daemonize}} continue
      if {[dict get $after $k] ne $v} { lappend diffs "$k: $v -> [dict get $after $k]" }
    }
    set diffs
  } {}
}
