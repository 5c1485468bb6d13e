# Test primitives: `test`, `tags`, assertions and polling helpers.
#
# A test file is a tree of `start_server` / `tags` blocks holding `test`s:
#   test {name} {body} ?expected?
# The body runs in the caller's scope. A test fails when the body raises an
# error (assertion or not) or, with `expected` given, returns something else.
# Each test prints exactly one line: "[ok]: name (N ms)", "[skip]: name" or
# "[err]: name in FILE:LINE" followed by indented detail lines.
#
# Tags: every enclosing `tags {...}` / `start_server {tags {...}}` adds tags.
# A test is skipped when (a) it carries a tag listed with "-tag" in --tags,
# (b) positive tags were given and it carries none of them, (c) the run is
# against an external server and it carries `external:skip`, or (d) it
# carries an opt-in tag (needs:rdma) that --tags did not name explicitly.

set ::tags {}
set ::opt_in_tags {needs:rdma}
set ::failed_tests 0

proc tags {taglist code} {
  set saved $::tags
  lappend ::tags {*}$taglist
  set rc [catch {uplevel 1 $code} result opts]
  set ::tags $saved
  return -options $opts $result
}

# Returns "" when a test with these tags should run, else the reason to skip.
proc skip_reason {taglist} {
  if {$::cfg(external) && "external:skip" in $taglist} { return "external:skip" }
  foreach t $taglist {
    if {$t in $::cfg(deny_tags)} { return "tag $t excluded" }
    if {$t in $::opt_in_tags && $t ni $::cfg(allow_tags)} { return "$t not requested" }
  }
  if {[llength $::cfg(allow_tags)]} {
    foreach t $taglist {
      if {$t in $::cfg(allow_tags)} { return "" }
    }
    return "no requested tag"
  }
  return ""
}

# Best-effort "file:line" of the command `depth` frames above the caller.
# Literal bodies run through uplevel keep their file position in the frame
# that passed them; nested eval frames carry a line relative to that body.
proc caller_location {{depth 1}} {
  set top [expr {[info frame] - 1 - $depth}]
  set where ""
  set base 0
  for {set i 1} {$i <= $top} {incr i} {
    set f [info frame $i]
    if {[dict exists $f file]} {
      if {[file dirname [dict get $f file]] ne $::support_dir} {
        set where [file tail [dict get $f file]]
        set base [dict get $f line]
      }
    } elseif {$where ne "" && [dict get $f type] eq "eval" && [dict exists $f line]} {
      incr base [expr {[dict get $f line] - 1}]
    }
  }
  if {$where eq ""} { return "?" }
  return "$where:$base"
}

proc assertion_failed {msg} {
  error "assertion:$msg (at [caller_location 2])"
}

proc assert {condition} {
  if {![uplevel 1 [list expr $condition]]} {
    assertion_failed "Expected '$condition' to be true ([uplevel 1 [list subst -nocommands $condition]])"
  }
}

proc assert_equal {value expected {detail ""}} {
  if {$value ne $expected} {
    set msg "Expected '$value' to be equal to '$expected'"
    if {$detail ne ""} { append msg " ($detail)" }
    assertion_failed $msg
  }
}

proc assert_not_equal {value unexpected} {
  if {$value eq $unexpected} { assertion_failed "Expected '$value' to differ from '$unexpected'" }
}

proc assert_match {pattern value} {
  if {![string match $pattern $value]} {
    assertion_failed "Expected '$value' to match '$pattern'"
  }
}

proc assert_no_match {pattern value} {
  if {[string match $pattern $value]} {
    assertion_failed "Expected '$value' not to match '$pattern'"
  }
}

proc assert_range {value min max} {
  if {![string is double -strict $value] || $value < $min || $value > $max} {
    assertion_failed "Expected '$value' to be between $min and $max"
  }
}

proc assert_morethan {value min} {
  if {!($value > $min)} { assertion_failed "Expected '$value' > '$min'" }
}

proc assert_lessthan {value max} {
  if {!($value < $max)} { assertion_failed "Expected '$value' < '$max'" }
}

# Runs `code` in the caller's scope; it must raise an error matching pattern.
proc assert_error {pattern code} {
  if {[catch {uplevel 1 $code} err]} {
    if {![string match $pattern $err]} {
      assertion_failed "Expected error matching '$pattern' but got '$err'"
    }
    return $err
  }
  assertion_failed "Expected an error matching '$pattern' but got '$err'"
}

proc assert_encoding {enc key} {
  assert_equal [r object encoding $key] $enc "encoding of $key"
}

proc assert_type {type key} {
  assert_equal [r type $key] $type "type of $key"
}

# Re-evaluates `condition` up to maxtries times, sleeping delay ms between
# tries; runs `else_code` (which should fail the test) if it never holds.
proc wait_for_condition {maxtries delay condition else_code} {
  while {$maxtries > 0} {
    if {[uplevel 1 [list expr $condition]]} { return }
    after $delay
    incr maxtries -1
  }
  uplevel 1 $else_code
}

proc fail {msg} {
  assertion_failed $msg
}

proc test {name code {expected __no_expected__}} {
  set reason [skip_reason $::tags]
  if {$reason ne ""} {
    if {$::cfg(verbose)} { puts "\[skip\]: $name ($reason)" } else { puts "\[skip\]: $name" }
    flush stdout
    return
  }
  set where [caller_location 0]
  if {$::cfg(verbose)} { puts "\[test\]: $name"; flush stdout }
  set start [clock milliseconds]
  set rc [catch {uplevel 1 $code} result opts]
  set ms [expr {[clock milliseconds] - $start}]
  set failure ""
  if {$rc == 1} {
    if {[string match "assertion:*" $result]} {
      set failure [string range $result 10 end]
    } else {
      set failure "Exception: $result\n[dict get $opts -errorinfo]"
    }
  } elseif {$expected ne "__no_expected__" && $result ne $expected} {
    set failure "Expected '$expected' but got '$result'"
  }
  if {$failure eq ""} {
    puts "\[ok\]: $name ($ms ms)"
  } else {
    incr ::failed_tests
    puts "\[err\]: $name in $where"
    foreach line [split $failure "\n"] { puts "    $line" }
    # A client left mid-reply would desynchronise the following tests.
    if {[string match "*I/O error*" $failure]} { catch {reconnect} }
  }
  flush stdout
}

# Small helpers shared by test files.
proc randstring {len {alphabet binary}} {
  set out ""
  for {set i 0} {$i < $len} {incr i} {
    switch -- $alphabet {
      binary { append out [format %c [expr {int(rand() * 256)}]] }
      alpha { append out [format %c [expr {97 + int(rand() * 26)}]] }
    }
  }
  return $out
}

proc lsort_unique {l} { return [lsort -unique $l] }

# Parses an INFO reply into a dict of field -> value (section headers dropped).
proc info_dict {text} {
  set d {}
  foreach line [split $text "\r\n"] {
    if {$line eq "" || [string index $line 0] eq "#"} continue
    set idx [string first : $line]
    if {$idx < 0} continue
    dict set d [string range $line 0 [expr {$idx - 1}]] [string range $line [expr {$idx + 1}] end]
  }
  return $d
}

proc info_field {text field} {
  set d [info_dict $text]
  if {[dict exists $d $field]} { return [dict get $d $field] }
  return ""
}
