# Entry point of the Tcl suite (run it through ./runtest).
#
# The parent process runs each test file in a child tclsh (`--run-file`), a
# few at a time, so a file that hangs or dies costs only that file: after
# --timeout seconds the child and every server it announced are killed and
# the file counts as one failure. The parent echoes the children's
# "[ok]/[err]/[skip]" lines and ends with exactly one summary line
#   N passed, M failed, K skipped
# Exit status: 0 only when M == 0 and at least one test ran.

set ::repo_root [file dirname [file dirname [file normalize [info script]]]]
set ::support_dir [file join $::repo_root tests support]

array set ::cfg {
  host 127.0.0.1 port 0 external 0 verbose 0 timeout 600 clients 2 skip_unix 0
  reply_timeout 10000 run_file {} current_file {} io_threads 1
}
set ::cfg(server_bin) [file join $::repo_root src redis-server]
set ::cfg(cli_bin) [file join $::repo_root src redis-cli]
set ::cfg(allow_tags) {}
set ::cfg(deny_tags) {}
set ::singles {}

proc usage {} {
  puts {Usage: ./runtest [options]
  --single FILE      run only this test file (repeatable)
  --tags "a -b"      run tests tagged a (any of the positive tags), none tagged b
  --host H --port P  test an already running server (skips external:skip tests)
  --server-bin PATH  server binary (default src/redis-server)
  --cli-bin PATH     redis-cli binary (default src/redis-cli)
  --timeout S        seconds one test file may run before it is killed (default 600)
  --clients N        test files run in parallel (default 2)
  --skip-unix        skip tests that need unix sockets (tag needs:unix)
  --io-threads N     start every server with io-threads N and io-threads-do-reads
                     yes, the threads serving every client (IO_THREADS_ALWAYS=1)
  --verbose          print skip reasons and test names as they start
  --list             print the test files that would run}
}

proc parse_args {argv} {
  set passthrough {}
  for {set i 0} {$i < [llength $argv]} {incr i} {
    set opt [lindex $argv $i]
    set val [lindex $argv [expr {$i + 1}]]
    switch -exact -- $opt {
      --single { lappend ::singles [file normalize $val]; incr i; continue }
      --tags {
        foreach t $val {
          if {[string index $t 0] eq "-"} {
            lappend ::cfg(deny_tags) [string range $t 1 end]
          } else {
            lappend ::cfg(allow_tags) $t
          }
        }
        incr i
      }
      --host { set ::cfg(host) $val; set ::cfg(external) 1; incr i }
      --port { set ::cfg(port) $val; set ::cfg(external) 1; incr i }
      --server-bin { set ::cfg(server_bin) [file normalize $val]; incr i }
      --cli-bin { set ::cfg(cli_bin) [file normalize $val]; incr i }
      --timeout { set ::cfg(timeout) $val; incr i }
      --io-threads {
        set ::cfg(io_threads) $val
        # Servers inherit it: the threads take every client, not only
        # under load, so that each test's few clients go through them.
        set ::env(IO_THREADS_ALWAYS) 1
        incr i
      }
      --clients { set ::cfg(clients) $val; incr i; continue }
      --verbose { set ::cfg(verbose) 1 }
      --skip-unix { set ::cfg(skip_unix) 1; lappend ::cfg(deny_tags) needs:unix }
      --run-file { set ::cfg(run_file) [file normalize $val]; incr i; continue }
      --list { set ::cfg(list) 1; continue }
      --help - -h { usage; exit 0 }
      default { puts stderr "Unknown option: $opt"; usage; exit 1 }
    }
    # Options the child needs are passed on verbatim.
    lappend passthrough $opt
    if {$opt ni {--verbose --skip-unix}} { lappend passthrough $val }
  }
  if {$::cfg(external) && $::cfg(port) == 0} { puts stderr "--host needs --port"; exit 1 }
  # Files share one external server, so they must not run side by side.
  if {$::cfg(external)} { set ::cfg(clients) 1 }
  return $passthrough
}

proc all_test_files {} {
  if {[llength $::singles]} { return $::singles }
  set files {}
  foreach pattern {tests/unit/*.tcl tests/unit/*/*.tcl tests/integration/*.tcl tests/rdma/*.tcl} {
    lappend files {*}[lsort [glob -nocomplain -directory $::repo_root $pattern]]
  }
  return $files
}

# ---- child: run one file ---------------------------------------------------

proc run_file {path} {
  source [file join $::support_dir redis.tcl]
  source [file join $::support_dir util.tcl]
  source [file join $::support_dir server.tcl]
  set ::cfg(current_file) $path
  if {[catch {source $path} err opts]} {
    puts "\[err\]: [file tail $path] aborted outside a test"
    foreach line [split [dict get $opts -errorinfo] "\n"] { puts "    $line" }
    # Servers still running are stopped so nothing is leaked.
    while {[llength $::servers]} {
      set srv [lindex $::servers end]
      if {[dict get $srv pid]} { stop_server $srv }
      set ::servers [lrange $::servers 0 end-1]
    }
  }
  puts "\[file-done\]"
  flush stdout
}

# ---- parent: schedule files, collect results -------------------------------

set ::counts(ok) 0
set ::counts(err) 0
set ::counts(skip) 0
set ::running {}
set ::failures {}

proc start_child {file passthrough} {
  set cmd [list [info nameofexecutable] [file normalize [info script]] --run-file $file \
             {*}$passthrough]
  set chan [open |[concat $cmd [list 2>@1]] r]
  fconfigure $chan -blocking 0 -buffering line -translation binary
  set ::child($chan,file) $file
  set ::child($chan,servers) {}
  set ::child($chan,done) 0
  set ::child($chan,start) [clock milliseconds]
  set ::child($chan,timer) [after [expr {$::cfg(timeout) * 1000}] [list child_timeout $chan]]
  fileevent $chan readable [list child_output $chan]
  lappend ::running $chan
}

proc child_output {chan} {
  while {[gets $chan line] >= 0} {
    if {[regexp {^\[server-pid\]: (\d+)} $line -> pid]} {
      lappend ::child($chan,servers) $pid
      continue
    }
    if {[regexp {^\[server-done\]: (\d+)} $line -> pid]} {
      set ::child($chan,servers) [lsearch -all -inline -not -exact $::child($chan,servers) $pid]
      continue
    }
    if {$line eq "\[file-done\]"} { set ::child($chan,done) 1; continue }
    if {[string match {\[ok\]:*} $line]} { incr ::counts(ok) }
    if {[string match {\[skip\]:*} $line]} { incr ::counts(skip) }
    if {[string match {\[err\]:*} $line]} {
      incr ::counts(err)
      lappend ::failures "[file tail $::child($chan,file)]: [string range $line 7 end]"
    }
    if {[string match {\[test\]:*} $line] && !$::cfg(verbose)} continue
    puts $line
  }
  if {[eof $chan]} { finish_child $chan }
}

proc child_timeout {chan} {
  set file [file tail $::child($chan,file)]
  puts "\[err\]: $file timed out after $::cfg(timeout) s (killed)"
  incr ::counts(err)
  lappend ::failures "$file: timed out"
  set ::child($chan,done) timeout
  foreach pid [pid $chan] { catch {exec kill -9 $pid} }
  finish_child $chan
}

proc finish_child {chan} {
  after cancel $::child($chan,timer)
  foreach pid $::child($chan,servers) { catch {exec kill -9 $pid} }
  catch {close $chan}
  set file [file tail $::child($chan,file)]
  if {$::child($chan,done) eq "0"} {
    puts "\[err\]: $file: test process exited before the end of the file"
    incr ::counts(err)
    lappend ::failures "$file: test process died"
  }
  set ms [expr {[clock milliseconds] - $::child($chan,start)}]
  if {$::cfg(verbose)} { puts "\[file\]: $file finished in $ms ms" }
  set ::running [lsearch -all -inline -not -exact $::running $chan]
  array unset ::child $chan,*
  set ::wake 1
}

proc run_all {passthrough} {
  set files [all_test_files]
  if {[info exists ::cfg(list)]} {
    foreach f $files { puts $f }
    exit 0
  }
  if {!$::cfg(external) && ![file executable $::cfg(server_bin)]} {
    puts "Server binary not found or not executable: $::cfg(server_bin)"
    puts "0 passed, 1 failed, 0 skipped"
    exit 1
  }
  set start [clock seconds]
  set queue $files
  while {[llength $queue] || [llength $::running]} {
    while {[llength $queue] && [llength $::running] < $::cfg(clients)} {
      start_child [lindex $queue 0] $passthrough
      set queue [lrange $queue 1 end]
    }
    vwait ::wake
  }
  if {[llength $::failures]} {
    puts "\nFailures:"
    foreach f $::failures { puts "  $f" }
  }
  puts "Run time: [expr {[clock seconds] - $start}] s"
  puts "$::counts(ok) passed, $::counts(err) failed, $::counts(skip) skipped"
  exit [expr {($::counts(err) == 0 && $::counts(ok) > 0) ? 0 : 1}]
}

set passthrough [parse_args $argv]
if {$::cfg(run_file) ne ""} {
  run_file $::cfg(run_file)
  exit 0
}
run_all $passthrough
