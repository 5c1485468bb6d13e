# Reading a server's write stream as a replica sees it: a raw connection
# sends SYNC, skips the RDB payload ("$<len>\r\n" then <len> bytes; bare
# newlines the master sends as keep-alives while it prepares are skipped)
# and then reads the commands the master streams, as RESP arrays.
#
#   set s [repl_stream_open ?level?]   ;# after SYNC and the RDB
#   repl_stream_take $s                ;# the commands streamed since the last take
#   repl_stream_close $s
#
# repl_stream_take writes a marker (SET propagation:mark <n>) through the
# shared client `r` and returns every command streamed before it, as Tcl
# lists, without the master's pings (repl-ping-replica-period); a SELECT streamed right before the
# marker belongs to the marker and is dropped too. So a take returns exactly
# what the writes since the previous take streamed: nothing more can be
# hiding behind a timeout.
#
# repl_stream_supported tells whether the server answers SYNC at all (it
# asks COMMAND INFO, so it starts no replication).

proc repl_stream_supported {} {
  set info [r command info sync]
  return [expr {[llength $info] == 1 && [llength [lindex $info 0]] > 0}]
}

proc repl_stream_open {{level 0}} {
  set s [::redis::connect [srv $level host] [srv $level port] -timeout 10000]
  $s write "SYNC\r\n"
  $s readraw 1
  while 1 {
    set line [$s read]
    if {$line eq ""} continue  ;# keep-alive newline
    if {[string index $line 0] eq "-"} { error "SYNC refused: $line" }
    if {[string index $line 0] ne "\$"} { error "SYNC: unexpected reply '$line'" }
    # The payload has no CRLF after it (unlike a bulk reply): read exactly
    # its length on the client's channel and clear the bulk it expects.
    regexp {client(\d+)$} $s -> id
    set ::redis::state($id,pending) -1
    ::redis::read_bytes $id [string range $line 1 end]
    break
  }
  $s readraw 0
  set ::repl_stream_mark($s) 0
  return $s
}

proc repl_stream_take {s} {
  set n [incr ::repl_stream_mark($s)]
  r set propagation:mark $n
  set out {}
  while 1 {
    set cmd [$s read]
    if {[llength $cmd] == 1 && [string equal -nocase $cmd ping]} continue
    if {$cmd eq [list set propagation:mark $n]} break
    lappend out $cmd
  }
  if {[llength $out] && [string equal -nocase [lindex $out end 0] select]} {
    set out [lrange $out 0 end-1]
  }
  return $out
}

proc repl_stream_close {s} {
  unset -nocomplain ::repl_stream_mark($s)
  $s close
}

# Asserts that an absolute time in ms from the stream lies between `lo` and
# `hi` (clock milliseconds taken around the command, plus its TTL).
proc assert_abs_ms {value lo hi} {
  if {![string is wide -strict $value] || $value < $lo || $value > $hi} {
    assertion_failed "expected an absolute time in \[$lo, $hi\], got '$value'"
  }
}
