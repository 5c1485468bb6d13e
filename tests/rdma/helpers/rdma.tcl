# Shared by the tests/rdma/*.tcl files (sourced, not run: runtest only picks
# tests/rdma/*.tcl). They run inside the rxe VM (tests/rdma/run-in-vm.sh),
# where RDMA_TEST_ADDR (default 10.99.0.1) is the only RDMA address, and talk
# to the server over rdma through the stock tools a user has: src/redis-cli
# --rdma and src/rdma-test-peer (tests/rdma/peer/README.md).

set ::rdma_addr [expr {[info exists ::env(RDMA_TEST_ADDR)] ? $::env(RDMA_TEST_ADDR) : "10.99.0.1"}]
set ::rdma_peer [file join $::repo_root src rdma-test-peer]
set ::rdma_cli $::cfg(cli_bin)
# Seconds one client command may take (64 MiB under emulation is slow).
set ::rdma_cmd_timeout 240

# Config overrides for a server with an rdma listener on `port`. tests/tmp is
# a 9p share inside the VM, where unix sockets cannot be bound, so the unix
# listener is left out.
proc rdma_overrides {port {extra {}}} {
  return [list rdma-port $port rdma-bind $::rdma_addr unixsocket {} {*}$extra]
}

# Runs `cmd...` and returns {exit_status output}; stderr is part of the output
# unless -nostderr comes first (then it is dropped).
proc run_status {args} {
  set redirect [list 2>@1]
  if {[lindex $args 0] eq "-nostderr"} {
    set redirect {}
    set args [lrange $args 1 end]
  }
  set status 0
  # A hung client must fail its test, not stall the file until runtest's
  # per-file limit: coreutils timeout ends it (status 124).
  set limit [list timeout -k 5 $::rdma_cmd_timeout]
  if {[catch {exec -ignorestderr {*}$limit {*}$args {*}$redirect} out opts]} {
    set status 1
    set code [dict get $opts -errorcode]
    if {[lindex $code 0] eq "CHILDSTATUS"} { set status [lindex $code 2] }
  }
  return [list $status $out]
}

# src/redis-cli --rdma against the innermost server's rdma port; returns its
# output (stdout and stderr) and fails the test on a non-zero exit status.
# Options for redis-cli go before the command, e.g. rdma_cli -n 2 GET k.
proc rdma_cli {args} {
  lassign [run_status $::rdma_cli --rdma -h $::rdma_addr -p $::rdma_port {*}$args] status out
  if {$status != 0} { error "redis-cli --rdma $args exited $status: $out" }
  return $out
}

# The test peer against the rdma port; returns {exit_status stdout}.
proc peer {args} {
  return [run_status -nostderr $::rdma_peer --host $::rdma_addr --port $::rdma_port \
            --timeout-ms 20000 {*}$args]
}

proc rdma_info {field} {
  return [info_field [r info rdma] $field]
}

proc wait_rdma_clients {n {what ""}} {
  wait_for_condition 600 100 {[rdma_info rdma_connected_clients] == $n} {
    fail "rdma_connected_clients is [rdma_info rdma_connected_clients], expected $n $what"
  }
}

# Open file descriptors of the server process.
proc server_fd_count {} {
  return [llength [glob -nocomplain -directory /proc/[srv pid]/fd *]]
}

# Resident set of the server process in kB (VmRSS of /proc/PID/status).
proc server_rss_kb {} {
  regexp {VmRSS:\s+(\d+)} [read_file /proc/[srv pid]/status] -> kb
  return $kb
}

# True when the server binary is built with AddressSanitizer (make
# SANITIZER=address): its allocator keeps freed memory in quarantine, so RSS
# grows without a leak, and LeakSanitizer reports real leaks at exit instead.
proc server_has_asan {} {
  if {[catch {exec ldd $::cfg(server_bin)} libs]} { return 0 }
  return [string match *libasan* $libs]
}

# A scratch file path in the VM's own RAM overlay (fast, vanishes with the
# VM); deleted by the caller.
proc scratch_file {name} {
  return [file join /tmp "rdma-test.[pid].$name"]
}

proc write_binary {path data} {
  set fd [open $path wb]
  puts -nonewline $fd $data
  close $fd
}

# An interactive redis-cli --rdma on a pipe (extra redis-cli options in
# args): one connection for its whole life, one line per command and reply.
proc open_rdma_session {args} {
  set fd [open [list |$::rdma_cli --rdma -h $::rdma_addr -p $::rdma_port {*}$args 2>@1] r+]
  fconfigure $fd -buffering line -translation binary
  return $fd
}

# Sends one command line to a session; returns its one-line reply.
proc session_cmd {fd line} {
  puts $fd $line
  flush $fd
  if {[gets $fd reply] < 0} { error "redis-cli --rdma session ended" }
  return $reply
}

# n random letters and digits (a value that travels as one word on a
# redis-cli command line).
proc random_alnum {n} {
  set chars abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789
  set out ""
  set piece ""
  for {set i 0} {$i < 4096} {incr i} { append piece [string index $chars [expr {int(rand() * 62)}]] }
  while {[string length $out] < $n} { append out [string range $piece [expr {int(rand() * 1000)}] end] }
  return [string range $out 0 [expr {$n - 1}]]
}
