# Server lifecycle for tests.
#
#   start_server {tags {...} overrides {name value ...} args {--opt val ...}} { body }
#
# Writes a config file into a fresh directory under tests/tmp/, picks a free
# TCP port, starts the server binary with that file (plus `args` on its
# command line), waits until PING answers, runs body, then stops the server
# (SIGTERM; SIGKILL after kShutdownWaitMs) and inspects its stdout. The block
# fails (one "[err]" line) if the server died on its own with a non-zero
# status or a signal, did not exit on SIGTERM, or printed a sanitizer report.
#
# Blocks nest: inside, `srv 0 port` is the innermost server, `srv -1 port`
# the enclosing one; `r ?level? cmd ...` talks to them. Against an external
# server (--host/--port) nothing is started and blocks tagged external:skip
# are skipped whole.

set ::servers {}
set ::kShutdownWaitMs 10000
set ::kStartWaitMs 20000

# The config the brief fixes; overrides are appended after these lines.
proc base_config {dir port} {
  set pairs [list \
    port $port bind 127.0.0.1 unixsocket $dir/socket unixsocketperm 700 \
    dir $dir logfile {""} loglevel verbose save {""} appendonly no]
  # ./runtest --io-threads N: the threaded pass.
  if {$::cfg(io_threads) > 1} {
    lappend pairs io-threads $::cfg(io_threads) io-threads-do-reads yes
  }
  return $pairs
}

proc tmp_root {} {
  set root [file join $::repo_root tests tmp]
  file mkdir $root
  return $root
}

proc new_tmp_dir {prefix} {
  set dir [file join [tmp_root] "$prefix.[pid].[incr ::tmp_counter]"]
  file delete -force $dir
  file mkdir $dir
  return $dir
}

proc port_is_free {port} {
  if {![catch {close [socket 127.0.0.1 $port]}]} { return 0 }
  if {[catch {close [socket -server {apply {args {}}} -myaddr 127.0.0.1 $port]}]} { return 0 }
  return 1
}

# A random free port in 21000-29999 (several suites may run side by side).
proc find_free_port {} {
  for {set i 0} {$i < 200} {incr i} {
    set port [expr {21000 + int(rand() * 9000)}]
    if {[port_is_free $port]} { return $port }
  }
  error "no free port found"
}

proc write_config {path pairs} {
  set fd [open $path w]
  foreach {name value} $pairs { puts $fd "$name $value" }
  close $fd
}

# Quotes a config value the way the server's config parser expects.
proc config_quote {value} {
  if {$value eq ""} { return {""} }
  if {[regexp {[\s"']} $value]} { return "\"[string map {\\ \\\\ \" \\\"} $value]\"" }
  return $value
}

# Launches `bin args...` with stdout+stderr to $dir/stdout through a shell
# that records the server pid and, once it exits, its status in $dir/status.
proc spawn_server {bin argv dir} {
  set script {"$0" "$@" >"$STDOUT_FILE" 2>&1 & echo $! >"$PID_FILE"; wait $!; echo $? >"$STATUS_FILE"}
  set ::env(STDOUT_FILE) $dir/stdout
  set ::env(PID_FILE) $dir/pid
  set ::env(STATUS_FILE) $dir/status
  exec /bin/sh -c $script $bin {*}$argv 2>/dev/null &
  for {set i 0} {$i < 2000} {incr i} {
    if {[file exists $dir/pid] && [file size $dir/pid] > 0} break
    after 10
  }
  set fd [open $dir/pid]
  set pid [string trim [read $fd]]
  close $fd
  puts "\[server-pid\]: $pid"
  flush stdout
  return $pid
}

proc read_file {path} {
  if {![file exists $path]} { return "" }
  set fd [open $path]
  fconfigure $fd -translation binary
  set data [read $fd]
  close $fd
  return $data
}

# Writes data to path as raw bytes (read_file reads them back).
proc write_bytes {path data} {
  set fd [open $path w]
  fconfigure $fd -translation binary
  puts -nonewline $fd $data
  close $fd
}

# Runs code with start_server launching `bin` (another server's binary).
proc with_server_bin {bin code} {
  set saved $::cfg(server_bin)
  set ::cfg(server_bin) $bin
  set rc [catch {uplevel 1 $code} res opts]
  set ::cfg(server_bin) $saved
  return -options $opts $res
}

# Exit status of a spawned server, or "" while it runs.
proc server_status {dir} {
  set s [string trim [read_file $dir/status]]
  return $s
}

# Waits up to ms for the server to exit; returns its status or "".
proc wait_server_exit {dir ms} {
  set deadline [expr {[clock milliseconds] + $ms}]
  while {[clock milliseconds] < $deadline} {
    set s [server_status $dir]
    if {$s ne ""} { return $s }
    after 20
  }
  return ""
}

# True when the server answers PING (NOAUTH counts: it is up, needing AUTH).
proc ping_server {host port} {
  if {[catch {::redis::connect $host $port -timeout 1000} c]} { return 0 }
  set rc [catch {$c ping} reply]
  $c close
  if {$rc == 0} { return [expr {$reply eq "PONG"}] }
  return [string match "NOAUTH*" $reply]
}

# Starts a server and returns its description dict; errors if it never
# answers PING (e.g. a bad config). A port found free may be bound by a
# server of the test file running beside this one before ours binds it:
# ours then exits ("Address already in use") and is started again on
# another port. A PONG counts only once our unix socket exists (when one is
# configured), so that a PONG from that other server is not taken for ours.
proc launch_server {overrides argv} {
  for {set attempt 1} {1} {incr attempt} {
    set dir [new_tmp_dir server]
    # A fixed port (a server restarted where its replicas look for it).
    set port [expr {[dict exists $overrides port] ? [dict get $overrides port] : [find_free_port]}]
    set pairs [base_config $dir $port]
    foreach {name value} $overrides { lappend pairs $name [config_quote $value] }
    write_config $dir/redis.conf $pairs
    set pid [spawn_server $::cfg(server_bin) [list $dir/redis.conf {*}$argv] $dir]
    # The unix socket the server is configured with (the RDMA suite turns
    # it off: its tests/tmp is a 9p share in the VM).
    set sock $dir/socket
    if {[dict exists $overrides unixsocket]} { set sock [dict get $overrides unixsocket] }
    set deadline [expr {[clock milliseconds] + $::kStartWaitMs}]
    while {[clock milliseconds] < $deadline} {
      if {[server_status $dir] ne ""} break
      if {($sock eq "" || [file exists $sock]) && [ping_server 127.0.0.1 $port]} {
        return [dict create host 127.0.0.1 port $port unixsocket $dir/socket pid $pid \
                  dir $dir stdout $dir/stdout client {} killed 0]
      }
      after 20
    }
    set log [read_file $dir/stdout]
    if {$attempt < 5 && [server_status $dir] ne "" &&
        [string first "Address already in use" $log] >= 0} {
      file delete -force $dir
      continue
    }
    catch {exec kill -9 $pid}
    set log [join [lrange [split $log "\n"] end-30 end] "\n"]
    error "server did not start (status '[server_status $dir]'), output (tail):\n$log"
  }
}

# Stops a server; returns a list of problems found (empty when clean).
proc stop_server {srv} {
  set dir [dict get $srv dir]
  set pid [dict get $srv pid]
  set problems {}
  set status [server_status $dir]
  if {$status eq ""} {
    catch {exec kill -TERM $pid}
    set status [wait_server_exit $dir $::kShutdownWaitMs]
    if {$status eq ""} {
      catch {exec kill -KILL $pid}
      wait_server_exit $dir 2000
      lappend problems "server did not exit within $::kShutdownWaitMs ms of SIGTERM"
    } elseif {$status != 0} {
      lappend problems "server exited with status $status after SIGTERM"
    }
  } elseif {$status != 0 && ![dict get $srv killed]} {
    lappend problems "server died on its own with status $status"
  }
  puts "\[server-done\]: $pid"
  set log [read_file [dict get $srv stdout]]
  foreach marker {AddressSanitizer LeakSanitizer ThreadSanitizer "runtime error:" "REDIS BUG REPORT" "crashed by signal"} {
    if {[string first $marker $log] >= 0} { lappend problems "server output contains '$marker'" }
  }
  if {[llength $problems]} {
    lappend problems "--- server output (last 40 lines) ---" {*}[lrange [split $log "\n"] end-40 end]
  }
  return $problems
}

proc start_server {options code} {
  set opts [dict merge {tags {} overrides {} args {}} $options]
  set saved_tags $::tags
  lappend ::tags {*}[dict get $opts tags]
  set rc 0
  if {$::cfg(external)} {
    if {[block_fully_skipped]} {
      set ::tags $saved_tags
      return
    }
    set srv [dict create host $::cfg(host) port $::cfg(port) unixsocket "" pid 0 dir "" \
              stdout "" client {} killed 0]
    lappend ::servers $srv
    reconnect
    r flushall
    set rc [catch {uplevel 1 $code} result opts_out]
  } else {
    if {[block_fully_skipped]} {
      set ::tags $saved_tags
      return
    }
    if {[catch {launch_server [dict get $opts overrides] [dict get $opts args]} srv]} {
      # One block failing to start costs that block, not the rest of the file.
      puts "\[err\]: server start ([file tail $::cfg(current_file)], tags {[dict get $opts tags]})"
      foreach line [split $srv "\n"] { puts "    $line" }
      flush stdout
      set ::tags $saved_tags
      return
    }
    lappend ::servers $srv
    set failed_before $::failed_tests
    reconnect
    set rc [catch {uplevel 1 $code} result opts_out]
    set srv [lindex $::servers end]
    catch {[dict get $srv client] close}
    set problems [stop_server $srv]
    if {[llength $problems]} {
      puts "\[err\]: server health check ([file tail $::cfg(current_file)], tags {[dict get $opts tags]})"
      foreach p $problems { puts "    $p" }
      flush stdout
    } elseif {$rc == 0 && $::failed_tests == $failed_before} {
      # Directories of clean blocks go; failing ones stay for inspection.
      file delete -force [dict get $srv dir]
    }
  }
  set srv [lindex $::servers end]
  catch {[dict get $srv client] close}
  set ::servers [lrange $::servers 0 end-1]
  set ::tags $saved_tags
  if {[llength $::servers]} { catch {reconnect} }
  if {$rc == 1} { return -options $opts_out $result }
}

# A block whose tags alone make every test in it skip (external:skip against
# an external server, a denied tag, an opt-in tag not requested) is not run
# at all: no server is started and one "[skip]" line stands for the block.
proc block_fully_skipped {} {
  set reason [skip_reason $::tags]
  if {$reason eq "" || $reason eq "no requested tag"} { return 0 }
  puts "\[skip\]: [file tail $::cfg(current_file)] block {$::tags} ($reason)"
  flush stdout
  return 1
}

# srv ?level? key: a property (host, port, unixsocket, pid, dir, stdout) of
# the innermost server (level 0) or an enclosing one (-1, -2, ...).
proc srv {args} {
  set level 0
  if {[llength $args] == 2} { lassign $args level key } else { set key [lindex $args 0] }
  set srv [lindex $::servers end+$level]
  return [dict get $srv $key]
}

# Marks the current server (or an enclosing one: -1, -2, ...) as stopped
# on purpose (SHUTDOWN tests, a master killed under its replica).
proc mark_server_killed {{level 0}} {
  set srv [lindex $::servers end+$level]
  dict set srv killed 1
  lset ::servers end+$level $srv
}

# (Re)opens the shared client `r` uses for the innermost server.
proc reconnect {{level 0}} {
  set idx [expr {[llength $::servers] - 1 + $level}]
  set srv [lindex $::servers $idx]
  catch {[dict get $srv client] close}
  dict set srv client [::redis::connect [dict get $srv host] [dict get $srv port] \
                         -timeout $::cfg(reply_timeout)]
  lset ::servers $idx $srv
}

# r ?level? cmd args...: run a command on the shared client of a server.
proc r {args} {
  set level 0
  if {[string is integer -strict [lindex $args 0]]} {
    set level [lindex $args 0]
    set args [lrange $args 1 end]
  }
  set srv [lindex $::servers end+$level]
  [dict get $srv client] {*}$args
}

proc redis_client {{level 0}} {
  return [::redis::connect [srv $level host] [srv $level port] -timeout $::cfg(reply_timeout)]
}

proc redis_deferring_client {{level 0}} {
  return [::redis::connect [srv $level host] [srv $level port] -defer 1 \
            -timeout $::cfg(reply_timeout)]
}

proc redis_unix_client {{level 0} {defer 0}} {
  return [::redis::connect_unix [srv $level unixsocket] -defer $defer \
            -timeout $::cfg(reply_timeout)]
}
