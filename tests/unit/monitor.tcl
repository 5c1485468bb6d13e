# MONITOR: the line format, which commands are shown, redaction, transports,
# and what a monitor may still do.

# Reads one monitor line and checks it against the expected db, address
# pattern and quoted arguments (everything after the address).
proc assert_monitor_line {rd db addr args_text} {
  set line [$rd read]
  if {![regexp {^(\d+)\.(\d{6}) \[(\d+) ([^\]]+)\] (.*)$} $line -> sec usec gotdb gotaddr rest]} {
    fail "bad monitor line: $line"
  }
  assert_range $sec [expr {[clock seconds] - 10}] [expr {[clock seconds] + 10}]
  assert_equal $gotdb $db
  assert_match $addr $gotaddr
  assert_equal $rest $args_text
}

start_server {tags {monitor external:skip}} {
  test {MONITOR shows commands of other clients in Redis's format} {
    set rd [redis_deferring_client]
    $rd monitor
    assert_equal [$rd read] OK
    r set foo bar
    r get foo
    assert_monitor_line $rd 0 {127.0.0.1:*} {"set" "foo" "bar"}
    assert_monitor_line $rd 0 {127.0.0.1:*} {"get" "foo"}
    $rd close
  }

  test {MONITOR quotes binary and special bytes} {
    set rd [redis_deferring_client]
    $rd monitor
    $rd read
    r set "a\x01b\"\n\\ \xff" "\r\t\x07\x08 \x00"
    r set 12 34
    assert_monitor_line $rd 0 {*} {"set" "a\x01b\"\n\\ \xff" "\r\t\a\b \x00"}
    assert_monitor_line $rd 0 {*} {"set" "12" "34"}
    $rd close
  }

  test {MONITOR shows the db after the command ran} {
    set rd [redis_deferring_client]
    $rd monitor
    $rd read
    r select 2
    r ping
    r select 0
    assert_monitor_line $rd 2 {*} {"select" "2"}
    assert_monitor_line $rd 2 {*} {"ping"}
    assert_monitor_line $rd 0 {*} {"select" "0"}
    $rd close
  }

  test {MONITOR hides admin commands and refused requests, redacts secrets} {
    set rd [redis_deferring_client]
    $rd monitor
    $rd read
    r config get port
    r client list
    catch {r nosuchcommand}
    catch {r get}
    catch {r auth foo}
    catch {r auth user pass}
    r hello 2
    catch {r hello 3 auth user pass}
    r echo done
    assert_monitor_line $rd 0 {*} {"auth" "(redacted)"}
    assert_monitor_line $rd 0 {*} {"auth" "(redacted)" "(redacted)"}
    assert_monitor_line $rd 0 {*} {"hello" "2"}
    assert_monitor_line $rd 0 {*} {"hello" "3" "auth" "(redacted)" "(redacted)"}
    assert_monitor_line $rd 0 {*} {"echo" "done"}
    $rd close
  }

  test {MONITOR shows unix socket clients as unix:<path>} {
    set rd [redis_deferring_client]
    $rd monitor
    $rd read
    set u [redis_unix_client]
    $u ping
    $u close
    assert_monitor_line $rd 0 "unix:[srv unixsocket]" {"ping"}
    $rd close
  }

  test {MONITOR: every monitor gets every command} {
    set m1 [redis_deferring_client]
    set m2 [redis_deferring_client]
    $m1 monitor
    $m2 monitor
    $m1 read
    $m2 read
    r incr counter
    assert_monitor_line $m1 0 {*} {"incr" "counter"}
    assert_monitor_line $m2 0 {*} {"incr" "counter"}
    $m1 close
    $m2 close
    # Closed monitors are forgotten: the server keeps serving.
    r ping
  } {PONG}

  test {MONITOR client: flag O, no keyspace access, own commands echoed, QUIT ends it} {
    set rd [redis_deferring_client]
    $rd monitor
    $rd read
    $rd client setname watcher
    assert_equal [$rd read] OK
    assert_monitor_line $rd 0 {*} {"client" "setname" "watcher"}
    set found ""
    foreach line [split [string trim [r client list]] "\n"] {
      if {[string match {*name=watcher *} $line]} { regexp {flags=(\S+)} $line -> found }
    }
    assert_equal $found O
    $rd get foo
    assert_error {ERR Replica can't interact with the keyspace} {$rd read}
    # A second MONITOR is silent.
    $rd monitor
    $rd ping
    assert_equal [$rd read] PONG
    assert_monitor_line $rd 0 {*} {"ping"}
    $rd quit
    assert_equal [$rd read] OK
    $rd close
    r ping
  } {PONG}
}
