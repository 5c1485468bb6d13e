# Connection and server introspection: CLIENT subcommands, CONFIG GET/SET,
# COMMAND, TIME, ECHO, PING, QUIT, RESET, DEBUG SLEEP and SHUTDOWN.

# Field value from one CLIENT LIST / CLIENT INFO line.
# The CLIENT LIST line of the client named $name ("" when none).
proc client_line_named {name} {
  foreach l [split [r client list] "\n"] {
    if {[string match "* name=$name *" $l]} { return $l }
  }
  return ""
}

proc client_field {line field} {
  foreach kv [split [string trim $line] " "] {
    set idx [string first = $kv]
    if {[string range $kv 0 [expr {$idx - 1}]] eq $field} {
      return [string range $kv [expr {$idx + 1}] end]
    }
  }
  return "<missing $field>"
}

start_server {tags {introspection}} {
  test {PING and ECHO} {
    assert_equal [r ping] PONG
    assert_equal [r ping "hello world"] "hello world"
    assert_equal [r echo "a\x00b"] "a\x00b"
    assert_error {ERR wrong number of arguments for 'echo' command} {r echo}
    assert_error {ERR wrong number of arguments for 'echo' command} {r echo a b}
  }

  test {TIME returns seconds and microseconds} {
    lassign [r time] s us
    assert_range $s [expr {[clock seconds] - 2}] [expr {[clock seconds] + 2}]
    assert_range $us 0 999999
  }

  test {CLIENT ID is unique and increasing} {
    set c1 [redis_client]
    set c2 [redis_client]
    set a [$c1 client id]
    set b [$c2 client id]
    $c1 close
    $c2 close
    assert_morethan $b $a
  }

  test {CLIENT SETNAME and GETNAME} {
    set c [redis_client]
    assert_equal [$c client getname] {}
    assert_equal [$c client setname myconn] OK
    assert_equal [$c client getname] myconn
    assert_error {ERR Client names cannot contain spaces, newlines or special characters.} \
      {$c client setname "a b"}
    assert_equal [$c client getname] myconn
    # An empty name removes it.
    $c client setname ""
    set name [$c client getname]
    $c close
    set name
  } {}

  test {CLIENT INFO describes the calling connection} {
    set c [redis_client]
    $c client setname infotest
    $c select 2
    set line [$c client info]
    set id [$c client id]
    $c close
    assert_equal [client_field $line id] $id
    assert_equal [client_field $line name] infotest
    assert_equal [client_field $line db] 2
    assert_equal [client_field $line cmd] client|info
    assert_equal [client_field $line resp] 2
    assert_match {127.0.0.1:*} [client_field $line addr]
    assert_equal [client_field $line laddr] 127.0.0.1:[srv port]
    # The request being run still counts in its query buffer, as in Redis:
    # "*2\r\n$6\r\nclient\r\n$4\r\ninfo\r\n" is 26 bytes.
    assert_equal [client_field $line qbuf] 26
  }

  test {CLIENT LIST qbuf of a request still arriving counts only its unparsed bytes} {
    set c [redis_deferring_client]
    $c client setname partial
    $c read
    # The header and the first two arguments are parsed; 3 bytes of the
    # third wait for the rest.
    $c write "*3\r\n\$3\r\nset\r\n\$1\r\nk\r\n\$10\r\nabc"
    $c flush
    set line ""
    wait_for_condition 50 20 {
      [string match "* qbuf=3 *" [set line [client_line_named partial]]]
    } { fail "qbuf of the partial request: $line" }
    $c close
  }

  test {CLIENT LIST shows every connection, one line each} {
    set c [redis_client]
    $c client setname listed
    set id [$c client id]
    set list [r client list]
    set lines [split [string trim $list] "\n"]
    set found 0
    foreach line $lines {
      if {[client_field $line id] == $id} {
        set found 1
        assert_equal [client_field $line name] listed
        assert_equal [client_field $line cmd] client|id
      }
    }
    assert_equal $found 1
    assert_equal [llength $lines] [info_field [r info clients] connected_clients]
    # CLIENT LIST ID filters.
    set only [string trim [r client list id $id]]
    assert_equal [client_field $only name] listed
    $c close
    assert_match {id=*} [r client list type normal]
  }

  test {CLIENT KILL ID disconnects that client} {
    set c [redis_client]
    set id [$c client id]
    assert_equal [r client kill id $id] 1
    assert_error {I/O error*} {$c ping}
    $c close
    r client kill id $id
  } {0}

  test {CLIENT KILL ADDR and the old form} {
    set c [redis_client]
    set addr [client_field [$c client info] addr]
    assert_equal [r client kill addr $addr] 1
    assert_error {I/O error*} {$c ping}
    $c close
    set c [redis_client]
    set addr [client_field [$c client info] addr]
    assert_equal [r client kill $addr] OK
    assert_error {I/O error*} {$c ping}
    $c close
    assert_error {ERR No such client} {r client kill 1.2.3.4:5}
    r client kill addr 1.2.3.4:5
  } {0}

  test {CLIENT KILL errors} {
    assert_error {ERR syntax error} {r client kill bogus x}
    assert_error {ERR client-id should be greater than 0} {r client kill id abc}
    assert_error {ERR unknown subcommand 'nosuch'. Try CLIENT HELP.} {r client nosuch}
  }

  test {CLIENT KILL does not kill the caller by default (SKIPME yes)} {
    set myaddr [client_field [r client info] addr]
    assert_equal [r client kill addr $myaddr] 0
    r ping
  } {PONG}

  test {CONFIG GET with a glob pattern and several parameters} {
    set d [r config get max*]
    assert {[dict exists $d maxclients]}
    assert {[dict exists $d maxmemory]}
    foreach k [dict keys $d] { assert_match max* $k }
    set d [r config get port bind]
    assert_equal [dict get $d port] [srv port]
    assert_equal [dict get $d bind] 127.0.0.1
    r config get nosuchparam
  } {}

  test {CONFIG SET then GET} {
    r config set maxmemory-policy allkeys-lru
    assert_equal [r config get maxmemory-policy] {maxmemory-policy allkeys-lru}
    r config set maxmemory-policy noeviction
    r config set timeout 0
    r config get timeout
  } {timeout 0}

  test {CONFIG SET errors: unknown, immutable, bad value} {
    assert_error {ERR Unknown option or number of arguments for CONFIG SET - 'nosuchparam'} \
      {r config set nosuchparam 1}
    assert_error {ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set immutable config} \
      {r config set daemonize yes}
    assert_error {ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument couldn't be parsed into an integer} \
      {r config set maxclients abc}
    assert_error {ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - argument(s) must be one of the following*} \
      {r config set maxmemory-policy bogus}
    assert_error {ERR wrong number of arguments for 'config|set' command} {r config set timeout}
    assert_error {ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value} \
      {r config set maxmemory -1}
  }

  # Redis 7.0 refuses a name given twice (in any case) but takes an option
  # and its alias in one call, applied in order.
  test {CONFIG SET: a name twice is a duplicate, an option and its alias are not} {
    assert_error {ERR CONFIG SET failed (possibly related to argument 'MAXMEMORY') - duplicate parameter} \
      {r config set maxmemory 1mb MAXMEMORY 2mb}
    assert_equal [r config get maxmemory] {maxmemory 0}
    r config set hash-max-ziplist-entries 100 hash-max-listpack-entries 200
    set got [r config get hash-max-listpack-entries]
    r config set hash-max-listpack-entries 128
    set got
  } {hash-max-listpack-entries 200}

  test {COMMAND COUNT, LIST and INFO} {
    set count [r command count]
    assert_morethan $count 20
    set names [r command list]
    # COMMAND LIST also names subcommands (config|get), COUNT does not.
    assert {[llength $names] >= $count}
    assert {"config|get" in $names}
    foreach name {get set ping info client config command scan} { assert {$name in $names} }
    set info [lindex [r command info get] 0]
    assert_equal [lrange $info 0 5] {get 2 {readonly fast} 1 1 1}
    set info [lindex [r command info set] 0]
    assert_equal [lrange $info 0 1] {set -3}
    # Unknown commands are nil entries.
    r command info nosuchcmd
  } {{}}

  test {COMMAND DOCS has a summary and a group} {
    set docs [r command docs get]
    assert_equal [lindex $docs 0] get
    set d [lindex $docs 1]
    assert_equal [dict get $d group] string
    assert_match {*value*} [dict get $d summary]
  }

  test {RESET restores the connection state} {
    set c [redis_client]
    $c select 5
    $c client setname resetme
    $c hello 3
    assert_equal [$c reset] RESET
    set line [$c client info]
    $c close
    list [client_field $line db] [client_field $line name] [client_field $line resp]
  } {0 {} 2}

  test {QUIT replies OK and closes the connection} {
    set c [redis_client]
    assert_equal [$c quit] OK
    assert_error {I/O error*} {$c ping}
    $c close
  }
}

start_server {tags {introspection needs:debug external:skip} overrides {enable-debug-command yes}} {
  test {DEBUG SLEEP 0 returns OK} {
    r debug sleep 0
  } {OK}

  test {DEBUG SLEEP blocks the server for the given time} {
    set c [redis_deferring_client]
    set start [clock milliseconds]
    $c debug sleep 0.2
    after 20
    r ping
    set elapsed [expr {[clock milliseconds] - $start}]
    $c read
    $c close
    assert_range $elapsed 150 5000
  }

  test {A client's reply buffer (rbs) shrinks when idle and grows back when busy} {
    proc rbs_of {name} {
      foreach line [split [string trim [r client list]] "\n"] {
        if {[client_field $line name] eq $name} { return [client_field $line rbs] }
      }
    }
    r debug replybuffer peak-reset-time 100
    set c [redis_client]
    $c client setname rbtest
    set before [info_field [r info stats] reply_buffer_shrinks]
    assert_equal 16384 [rbs_of rbtest]
    # Idle: halved at once to what it held plus one byte, at least 1 KB.
    wait_for_condition 50 100 {[rbs_of rbtest] == 1024} { fail "rbs is [rbs_of rbtest]" }
    assert_morethan [info_field [r info stats] reply_buffer_shrinks] $before
    # Busy with replies that fill it: doubled per cron pass, up to 16 KB.
    r debug replybuffer peak-reset-time never
    r set rbval [string repeat x 40000]
    wait_for_condition 50 100 {[string length [$c get rbval]] == 40000 && [rbs_of rbtest] == 16384} {
      fail "rbs is [rbs_of rbtest]"
    }
    # With resizing off it stays where it is.
    r debug replybuffer resizing 0
    r debug replybuffer peak-reset-time reset
    after 300
    set stays [rbs_of rbtest]
    r debug replybuffer resizing 1
    $c close
    list $stays [info_field [r info stats] reply_buffer_expands]
  } {16384 4}
}

start_server {tags {introspection external:skip}} {
  test {SHUTDOWN NOSAVE stops the server} {
    set c [redis_client]
    catch {$c shutdown nosave}
    $c close
    set status [wait_server_exit [srv dir] 5000]
    assert_equal $status 0
    ping_server [srv host] [srv port]
  } {0}
}
