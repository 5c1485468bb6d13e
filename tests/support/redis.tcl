# A RESP client written in plain Tcl, used by every test.
#
#   set c [::redis::connect HOST PORT ?-defer 0|1? ?-timeout MS?]
#   set c [::redis::connect_unix PATH ?-defer 0|1? ?-timeout MS?]
#   $c set foo bar        ;# any Redis command; returns the decoded reply
#   $c close
#
# Replies are decoded as follows: simple string, bulk string, integer, double,
# big number and verbatim string (format prefix dropped) -> Tcl string; null
# (RESP2 nil bulk/array or RESP3 `_`) -> empty string; boolean -> 1/0;
# array, set, push -> Tcl list; map, attribute-free -> flat list key value ...
# An error reply raises a Tcl error whose message is the error text without
# the leading '-'. A closed connection raises "I/O error: connection closed".
#
# Control subcommands (everything else is sent as a command):
#   $c read            read one reply (deferring clients send now, read later)
#   $c write BYTES     raw write of BYTES (no framing), flushed at once
#   $c flush           no-op kept for symmetry with write
#   $c readraw 0|1     in raw mode `read`/commands return the next protocol
#                      line verbatim (without CRLF), e.g. ",3.5" or "%2";
#                      after a "$N"/"=N"/"!N" header the next read (raw or
#                      not) returns the N payload bytes
#   $c deferred        1 when the client is deferring
#   $c fd              the underlying Tcl channel
#   $c close           close the connection
# Reads time out after -timeout ms (default 10000) with "I/O error: timeout",
# so a server that never answers fails the test instead of hanging it.

namespace eval ::redis {
  variable next_id 0
  variable state
  array set state {}
  variable support_dir [file dirname [file normalize [info script]]]
}

proc ::redis::connect {host port args} {
  set fd [socket $host $port]
  return [::redis::wrap $fd $args]
}

# Tcl 8.6 has no AF_UNIX sockets; a small Python relay (unix_bridge.py)
# connects to the socket and forwards bytes over its stdin/stdout, which Tcl
# drives like a socket channel. The relay exits when the server closes.
proc ::redis::connect_unix {path args} {
  set bridge [file join $::redis::support_dir unix_bridge.py]
  set fd [open [list | /usr/bin/python3 $bridge $path 2>@1] r+]
  return [::redis::wrap $fd $args]
}

proc ::redis::wrap {fd opts} {
  variable next_id
  variable state
  array set o {-defer 0 -timeout 10000}
  array set o $opts
  fconfigure $fd -translation binary -encoding binary -blocking 1 -buffering full
  set id [incr next_id]
  set h ::redis::client$id
  set state($id,fd) $fd
  set state($id,defer) $o(-defer)
  set state($id,timeout) $o(-timeout)
  set state($id,raw) 0
  set state($id,pending) -1
  proc $h {args} "::redis::dispatch $id \$args"
  return $h
}

proc ::redis::dispatch {id argv} {
  variable state
  set fd $state($id,fd)
  set cmd [lindex $argv 0]
  switch -exact -- $cmd {
    close {
      catch {close $fd}
      array unset state $id,*
      rename ::redis::client$id {}
      return
    }
    read { return [::redis::read_reply $id] }
    write {
      ::redis::send $fd [lindex $argv 1]
      return
    }
    flush { return }
    readraw { set state($id,raw) [lindex $argv 1]; return }
    deferred { return $state($id,defer) }
    fd { return $fd }
  }
  ::redis::send $fd [::redis::encode $argv]
  if {$state($id,defer)} { return }
  return [::redis::read_reply $id]
}

# Blocking write of all bytes; a failed write (peer gone) is an I/O error.
proc ::redis::send {fd bytes} {
  fconfigure $fd -blocking 1
  if {[catch {puts -nonewline $fd $bytes; flush $fd} err]} { error "I/O error: $err" }
}

# Encodes one command as a RESP multibulk request.
proc ::redis::encode {argv} {
  set out "*[llength $argv]\r\n"
  foreach a $argv {
    append out "\$[string length $a]\r\n$a\r\n"
  }
  return $out
}

# Waits until $fd is readable or the client's timeout passes.
proc ::redis::wait_readable {id} {
  variable state
  set fd $state($id,fd)
  set var ::redis::ready($id)
  set $var 0
  fileevent $fd readable [list set $var 1]
  set timer [after $state($id,timeout) [list set $var timeout]]
  vwait $var
  after cancel $timer
  catch {fileevent $fd readable {}}
  if {[set $var] eq "timeout"} {
    error "I/O error: timeout waiting for a reply"
  }
}

proc ::redis::read_line {id} {
  variable state
  set fd $state($id,fd)
  fconfigure $fd -blocking 0
  while 1 {
    if {[catch {gets $fd line} n]} { error "I/O error: $n" }
    if {$n >= 0 && ![fblocked $fd]} {
      if {[string index $line end] eq "\r"} { set line [string range $line 0 end-1] }
      return $line
    }
    if {[eof $fd]} { error "I/O error: connection closed" }
    ::redis::wait_readable $id
  }
}

proc ::redis::read_bytes {id count} {
  variable state
  set fd $state($id,fd)
  fconfigure $fd -blocking 0
  set buf ""
  while {[string length $buf] < $count} {
    if {[catch {read $fd [expr {$count - [string length $buf]}]} chunk]} {
      error "I/O error: $chunk"
    }
    append buf $chunk
    if {[string length $buf] >= $count} break
    if {[eof $fd]} { error "I/O error: connection closed" }
    ::redis::wait_readable $id
  }
  return $buf
}

proc ::redis::read_bulk {id len} {
  if {$len < 0} { return {} }
  set data [::redis::read_bytes $id [expr {$len + 2}]]
  return [string range $data 0 end-2]
}

proc ::redis::read_reply {id} {
  variable state
  if {$state($id,pending) >= 0} {
    # The payload of a bulk whose header was returned by a raw read.
    set len $state($id,pending)
    set state($id,pending) -1
    return [::redis::read_bulk $id $len]
  }
  set line [::redis::read_line $id]
  if {$state($id,raw)} {
    if {[string first [string index $line 0] {$=!}] >= 0 && [string range $line 1 end] >= 0} {
      set state($id,pending) [string range $line 1 end]
    }
    return $line
  }
  set type [string index $line 0]
  set rest [string range $line 1 end]
  switch -exact -- $type {
    + - : - , - ( { return $rest }
    - { return -code error $rest }
    _ { return {} }
    # { return [expr {$rest eq "t" ? 1 : 0}] }
    $ { return [::redis::read_bulk $id $rest] }
    ! { return -code error [::redis::read_bulk $id $rest] }
    = { return [string range [::redis::read_bulk $id $rest] 4 end] }
    * - ~ - > {
      if {$rest < 0} { return {} }
      set out {}
      for {set i 0} {$i < $rest} {incr i} { lappend out [::redis::read_reply_nested $id] }
      return $out
    }
    % {
      set out {}
      for {set i 0} {$i < 2 * $rest} {incr i} { lappend out [::redis::read_reply_nested $id] }
      return $out
    }
    | {
      # Attributes precede the real reply; they are read and dropped.
      for {set i 0} {$i < 2 * $rest} {incr i} { ::redis::read_reply_nested $id }
      return [::redis::read_reply $id]
    }
    default {
      error "I/O error: bad protocol line '$line'"
    }
  }
}

# Errors nested inside aggregates (e.g. EXEC results) are returned as values
# rather than aborting the parse of the remaining elements.
proc ::redis::read_reply_nested {id} {
  if {[catch {::redis::read_reply $id} v opts]} {
    if {[string match "I/O error*" $v]} { return -options $opts $v }
    return $v
  }
  return $v
}
