# Listening addresses changed at run time (CONFIG SET bind / port) and the
# bind list at start: the replies, what stays reachable after a failure,
# optional ("-addr") addresses, and an empty list that listens on no TCP
# address at all.

# 1 when a fresh TCP connection to host:port is accepted, 0 when refused.
proc tcp_reachable {host port} {
  if {[catch {socket $host $port} fd]} { return 0 }
  close $fd
  return 1
}

# A port nobody listens on yet, then held by a plain Tcl listener.
proc hold_a_port {} {
  set s [socket -server {apply {{fd args} {close $fd}}} -myaddr 127.0.0.1 0]
  list $s [lindex [fconfigure $s -sockname] 2]
}

start_server {tags {networking external:skip}} {
  test {CONFIG SET bind to an address that cannot be bound fails and keeps the old listener} {
    catch {r config set bind 999.999.999.999} e
    assert_match {*Failed to bind to specified addresses.*} $e
    # 192.0.2.1 is a documentation address: no host has it.
    catch {r config set bind "127.0.0.1 192.0.2.1"} e
    assert_match {*Failed to bind to specified addresses.*} $e
    assert_equal [lindex [r config get bind] 1] 127.0.0.1
    assert_equal [tcp_reachable 127.0.0.1 [srv port]] 1
    assert_match "*Failed to bind*" [read_file [srv stdout]]
  }

  test {CONFIG SET port to a port in use fails, the server stays on its port} {
    lassign [hold_a_port] holder taken
    catch {r config set port $taken} e
    close $holder
    assert_match {*Unable to listen on this port. Check server logs.*} $e
    assert_equal [lindex [r config get port] 1] [srv port]
    assert_equal [tcp_reachable 127.0.0.1 [srv port]] 1
    assert_match "*Could not create server TCP listening socket 127.0.0.1:$taken*" \
      [read_file [srv stdout]]
  }

  test {An optional address the host lacks is skipped; a required one is not} {
    assert_equal [r config set bind "127.0.0.1 -192.0.2.1"] OK
    assert_equal [tcp_reachable 127.0.0.1 [srv port]] 1
    # Only optional addresses, none available: accepted, nothing listens.
    assert_equal [r config set bind "-192.0.2.1"] OK
    assert_equal [tcp_reachable 127.0.0.1 [srv port]] 0
    assert_equal [r ping] PONG
    assert_equal [r config set bind 127.0.0.1] OK
    assert_equal [tcp_reachable 127.0.0.1 [srv port]] 1
  }

  tags {needs:unix} {
    test {CONFIG SET bind "" stops listening on TCP; the unix socket and open connections stay} {
      assert_equal [r config set bind ""] OK
      assert_equal [lindex [r config get bind] 1] ""
      assert_equal [tcp_reachable 127.0.0.1 [srv port]] 0
      assert_equal [r ping] PONG
      set u [redis_unix_client]
      assert_equal [$u ping] PONG
      assert_equal [$u config set bind 127.0.0.1] OK
      $u close
      assert_equal [tcp_reachable 127.0.0.1 [srv port]] 1
    }
  }
}

start_server {tags {networking external:skip}} {
  test {A server configured to listen nowhere refuses to start} {
    # (timeout: a server that does start would otherwise run forever)
    set port [find_free_port]
    set rc [catch {exec timeout 10 $::cfg(server_bin) --port $port --bind "" --save "" 2>@1} out]
    assert_equal $rc 1
    assert_match "*Configured to not listen anywhere, exiting.*" $out
    set rc [catch {exec timeout 10 $::cfg(server_bin) --port $port --bind "-192.0.2.1" --save "" 2>@1} out]
    assert_equal $rc 1
    assert_match "*Configured to not listen anywhere, exiting.*" $out
  }
}
