# Runs the redis-cli binary (--cli-bin, default src/redis-cli) against the
# current test server; shared by the cli test files.

# Runs the cli; returns {exit_status stdout stderr}. `stdin` feeds -x.
proc cli {args} {
  set opts {}
  set stdin ""
  if {[lindex $args 0] eq "-stdin"} {
    set stdin [lindex $args 1]
    set args [lrange $args 2 end]
  }
  set errfile [file join [tmp_root] cli-stderr.[pid]]
  set cmd [list $::cfg(cli_bin) -h [srv host] -p [srv port] {*}$args 2> $errfile]
  if {$stdin ne ""} {
    set infile [file join [tmp_root] cli-stdin.[pid]]
    set fd [open $infile w]
    fconfigure $fd -translation binary
    puts -nonewline $fd $stdin
    close $fd
    lappend cmd < $infile
  } else {
    lappend cmd < /dev/null
  }
  set status 0
  if {[catch {exec -keepnewline -ignorestderr {*}$cmd} out opts]} {
    set status 1
    set code [lindex [dict get $opts -errorcode] 0]
    if {$code eq "CHILDSTATUS"} {
      set status [lindex [dict get $opts -errorcode] 2]
      # exec appends this to what the program printed; it is not output.
      regsub {child process exited abnormally$} $out "" out
    }
    if {$code eq "POSIX" || $code eq "NONE"} { set status "failed: $out" }
  }
  set err [read_file $errfile]
  file delete $errfile
  if {[info exists infile]} { file delete $infile }
  return [list $status $out $err]
}

# Just stdout of a cli run that must exit 0.
proc cli_out {args} {
  lassign [cli {*}$args] status out err
  if {$status ne "0"} { fail "redis-cli $args exited with $status: $err" }
  return $out
}
