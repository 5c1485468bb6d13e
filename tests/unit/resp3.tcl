# HELLO (protocol switch, reply fields, AUTH and SETNAME options) and the
# shape of RESP3 replies for the commands of the foundation scope.

start_server {tags {resp3 hello}} {
  test {HELLO 2 replies with a flat array of 7 fields} {
    set c [redis_client]
    set reply [$c hello 2]
    set id [$c client id]
    $c close
    assert_equal [llength $reply] 14
    assert_equal [dict keys $reply] {server version proto id mode role modules}
    assert_equal [dict get $reply server] redis
    assert_equal [dict get $reply proto] 2
    assert_equal [dict get $reply id] $id
    assert_equal [dict get $reply mode] standalone
    assert_equal [dict get $reply role] master
    assert_equal [dict get $reply modules] {}
    assert_match {*.*.*} [dict get $reply version]
  }

  test {HELLO 3 replies with a map} {
    set c [redis_client]
    $c readraw 1
    set first [$c hello 3]
    $c readraw 0
    set rest {}
    for {set i 0} {$i < 14} {incr i} { lappend rest [$c read] }
    $c close
    assert_equal $first {%7}
    dict get $rest proto
  } {3}

  test {HELLO without a version reports the current protocol} {
    set c [redis_client]
    $c hello 3
    set reply [$c hello]
    $c close
    dict get $reply proto
  } {3}

  test {HELLO with an unsupported or invalid version} {
    assert_error {NOPROTO unsupported protocol version} {r hello 4}
    assert_error {NOPROTO unsupported protocol version} {r hello 1}
    assert_error {ERR Protocol version is not an integer or out of range} {r hello x}
    # The failed HELLO left the connection in RESP2.
    dict get [r hello] proto
  } {2}

  test {HELLO SETNAME sets the client name} {
    set c [redis_client]
    $c hello 3 setname myname
    set name [$c client getname]
    $c close
    set name
  } {myname}

  test {HELLO option syntax errors} {
    assert_error {ERR Syntax error in HELLO option 'b'} {r hello 3 setname a b}
    assert_error {ERR Syntax error in HELLO option 'auth'} {r hello 3 auth}
    assert_error {ERR Syntax error in HELLO option 'bogus'} {r hello 3 bogus}
    dict get [r hello] proto
  } {2}

  # Each of these reads one reply in raw mode: the type byte is the point.
  proc raw_type {c args} {
    $c readraw 1
    set line [$c {*}$args]
    $c readraw 0
    return $line
  }

  test {RESP3 null for missing keys, RESP2 nil bulk} {
    set c [redis_client]
    $c del nokey
    assert_equal [raw_type $c get nokey] {$-1}
    $c hello 3
    assert_equal [raw_type $c get nokey] {_}
    assert_equal [raw_type $c object encoding nokey] {_}
    $c hello 2
    set line [raw_type $c get nokey]
    $c close
    set line
  } {$-1}

  test {RESP3 null inside arrays (MGET)} {
    set c [redis_client]
    $c hello 3
    $c set a 1
    $c readraw 1
    set lines [list [$c mget a nokey] [$c read] [$c read] [$c read]]
    $c close
    set lines
  } {*2 {$1} 1 _}

  test {INCRBYFLOAT replies with a bulk string in RESP3 (7.0)} {
    set c [redis_client]
    $c hello 3
    $c set f 4
    set line [raw_type $c incrbyfloat f 0.25]
    set value [$c read]
    $c close
    list $line $value
  } {{$4} 4.25}

  test {CONFIG GET is a map in RESP3} {
    set c [redis_client]
    $c hello 3
    set line [raw_type $c config get maxclients]
    $c read
    $c read
    $c close
    set line
  } {%1}

  test {CLIENT INFO and INFO are verbatim strings in RESP3} {
    set c [redis_client]
    $c hello 3
    set line [raw_type $c client info]
    assert_match {=*} $line
    set text [$c read]
    assert_match {txt:id=*} $text
    set info [$c info server]
    $c close
    assert_match {*# Server*} $info
  }

  test {LCS IDX is a map in RESP3} {
    set c [redis_client]
    $c hello 3
    $c mset a ohmytext b mynewtext
    set line [raw_type $c lcs a b idx]
    $c readraw 0
    $c read
    set matches [$c read]
    $c read
    set len [$c read]
    $c close
    list $line $len [llength $matches]
  } {%2 6 2}

  test {Decoded RESP3 replies equal the RESP2 ones for plain commands} {
    set c2 [redis_client]
    set c3 [redis_client]
    $c3 hello 3
    $c2 mset a 1 b 2
    set same 1
    foreach cmd {{get a} {mget a b nokey} {exists a b} {ttl a} {keys a} {echo hi} {ping}} {
      if {[$c2 {*}$cmd] ne [$c3 {*}$cmd]} { set same "differs: $cmd" }
    }
    $c2 close
    $c3 close
    set same
  } {1}
}

# DEBUG PROTOCOL emits one reply of each RESP3 type; this checks both the
# server's encoding and the test client's decoding of every type.
start_server {tags {resp3 needs:debug external:skip} overrides {enable-debug-command yes}} {
  test {DEBUG PROTOCOL: every RESP3 type, raw and decoded} {
    set c [redis_client]
    $c hello 3
    set raw {}
    foreach t {integer double bignum null true false set map} {
      $c readraw 1
      lappend raw [$c debug protocol $t]
      $c readraw 0
      if {$t eq "set"} { $c read; $c read; $c read }
      if {$t eq "map"} { for {set i 0} {$i < 6} {incr i} { $c read } }
    }
    assert_equal $raw {:12345 ,3.141 (1234567999999999999999999999999999999 _ #t #f ~3 %3}
    assert_equal [$c debug protocol double] 3.141
    assert_equal [$c debug protocol bignum] 1234567999999999999999999999999999999
    assert_equal [$c debug protocol null] {}
    assert_equal [list [$c debug protocol true] [$c debug protocol false]] {1 0}
    assert_equal [$c debug protocol set] {0 1 2}
    assert_equal [$c debug protocol map] {0 0 1 1 2 0}
    assert_equal [$c debug protocol verbatim] "This is a verbatim\nstring"
    # Attributes are skipped; the reply that follows is returned.
    assert_equal [$c debug protocol attrib] {Some real reply following the attribute}
    # A push arrives before the command's own reply.
    assert_equal [$c debug protocol push] {server-cpu-usage 42}
    assert_equal [$c read] {Some real reply following the push reply}
    $c close
  }

  test {DEBUG PROTOCOL in RESP2 downgrades the types} {
    set c [redis_client]
    set out [list [$c debug protocol double] [$c debug protocol null] [$c debug protocol true] \
               [$c debug protocol map]]
    assert_error {ERR RESP2 is not supported by this command} {$c debug protocol push}
    $c close
    set out
  } {3.141 {} 1 {0 0 1 1 2 0}}
}
