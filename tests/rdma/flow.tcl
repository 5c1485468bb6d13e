# Flow control of our own dialect (RDMA.md, "Flow control"): our client and
# server agree on it in the rdma_cm private data; idle connections pin small
# rings; rings grow while large values stream and shrink back once idle;
# builds without it (rdma-test-peer without --flow, --rdma-flow-control no,
# a server with rdma-flow-control no) are served as before; peers that break
# the credits close only their own connection; a peer that never credits
# stalls only itself; registered memory running out refuses new connections
# with a clear reason and keeps the rings of old ones as they are. Runs only
# in the rxe VM (needs:rdma).

source [file join $::repo_root tests rdma helpers rdma.tcl]
set ::rdma_port [find_free_port]

# Waits for a line matching `pattern` in the innermost server's log.
proc flow_log {pattern} {
  wait_for_condition 50 100 {[string match $pattern [read_file [srv stdout]]]} {
    fail "no log line matching $pattern"
  }
}

# Starts rdma-test-peer in the background (--flow, 16 KiB rings, `mode`
# hold or fill) and waits until it holds its connections; returns its pid
# and the file its output goes to (its "result: holding N" line).
proc holding_peer {name mode connections timeout_ms} {
  set out_file [scratch_file $name.out]
  set pid [exec $::rdma_peer --host $::rdma_addr --port $::rdma_port --flow --rx-size 16384 \
             --mode $mode --connections $connections --timeout-ms $timeout_ms > $out_file &]
  wait_for_condition 600 100 {[string match "*result: holding*" [read_file $out_file]]} {
    exec kill $pid
    fail "the peer never held its connections: [read_file $out_file]"
  }
  return [list $pid $out_file]
}

# SET key to `size` bytes read from a file with redis-cli -x, then GET it
# back over rdma; returns whether both copies match.
proc flow_roundtrip {key size args} {
  set src [scratch_file $key.in]
  set out [scratch_file $key.out]
  exec head -c $size /dev/urandom > $src
  lassign [run_status $::rdma_cli --rdma -h $::rdma_addr -p $::rdma_port {*}$args \
             -x SET $key < $src] status reply
  if {$status != 0 || $reply ne "OK"} { error "SET over rdma exited $status: $reply" }
  lassign [run_status -nostderr $::rdma_cli --rdma -h $::rdma_addr -p $::rdma_port {*}$args \
             --raw GET $key > $out] status
  # --raw adds one newline.
  set same [expr {$status == 0 && [file size $out] == $size + 1 &&
                  [exec head -c $size $out | cmp - $src] eq ""}]
  file delete $src $out
  return $same
}

start_server [list tags {needs:rdma external:skip} \
                overrides [rdma_overrides $::rdma_port \
                             {protected-mode no rdma-rx-size 1mb enable-debug-command yes}]] {
  test {RDMA flow: our client and server agree on flow control; the peer speaks it too} {
    set fd [open_rdma_session]
    assert_equal [session_cmd $fd PING] PONG
    set on [rdma_info rdma_flow_connections]
    close $fd
    lassign [peer --flow -- SET rdma:flow v] status out
    assert_equal $status 0 $out
    list $on [regexp {result: flow on} $out] [regexp {reply: \+OK} $out] [r get rdma:flow]
  } {1 1 1 v}

  test {RDMA flow: idle connections pin at most 64 KiB each} {
    wait_rdma_clients 0
    set pinned [rdma_info rdma_pinned_bytes]
    lassign [holding_peer hold hold 50 60000] pid out_file
    assert_match "*holding 50*" [read_file $out_file]
    set per [expr {([rdma_info rdma_pinned_bytes] - $pinned) / 50}]
    set flows [rdma_info rdma_flow_connections]
    exec kill $pid
    file delete $out_file
    wait_rdma_clients 0 "after the held connections went"
    assert_equal [rdma_info rdma_pinned_bytes] $pinned
    assert_equal $flows 50
    assert_lessthan $per 65537
  }

  test {RDMA flow: rings grow for a 3 MiB value both ways, and shrink back once idle} {
    set grows [rdma_info rdma_ring_grows]
    set shrinks [rdma_info rdma_ring_shrinks]
    set fd [open_rdma_session]
    assert_equal [session_cmd $fd PING] PONG
    set idle_pinned [rdma_info rdma_pinned_bytes]
    assert_equal [flow_roundtrip rdma:big [expr {3 * 1024 * 1024}]] 1
    assert_morethan [rdma_info rdma_ring_grows] $grows
    # A large reply grows the server's staging buffer for the session.
    set v [string repeat x 300000]
    r set rdma:mid $v
    set grows [rdma_info rdma_ring_grows]
    assert_equal [string length [session_cmd $fd "GET rdma:mid"]] 300000
    assert_morethan [rdma_info rdma_ring_grows] $grows
    assert_morethan [rdma_info rdma_pinned_bytes] $idle_pinned
    # kFlowIdleMs (2 s) without traffic: back to the smallest rings.
    wait_for_condition 100 100 {[rdma_info rdma_pinned_bytes] == $idle_pinned} {
      fail "pinned [rdma_info rdma_pinned_bytes], was $idle_pinned while idle"
    }
    assert_morethan [rdma_info rdma_ring_shrinks] $shrinks
    # And it works after shrinking.
    assert_equal [string length [session_cmd $fd "GET rdma:mid"]] 300000
    close $fd
  }

  test {RDMA flow: peers without it are served as before (old peer, --rdma-flow-control no, a server that declines)} {
    set rereg [rdma_info rdma_reregistrations]
    # 20 x 60 KB pipelined: more than the server's 1 MiB RX buffer, which
    # this peer fills, waits for and fills again (no credits).
    lassign [peer --pipeline --repeat 20 -- SET rdma:old [string repeat o 60000]] status out
    assert_equal $status 0 [string range $out end-200 end]
    assert_equal [regexp -all {reply: \+OK} $out] 20
    assert_morethan [rdma_info rdma_reregistrations] $rereg
    set fd [open_rdma_session --rdma-flow-control no]
    assert_equal [session_cmd $fd PING] PONG
    set flows [rdma_info rdma_flow_connections]
    close $fd
    set noflow [flow_roundtrip rdma:noflow 3000000 --rdma-flow-control no]
    # A server that does not take it (or one from before it): our client,
    # which offered it, gives its rings their full size and goes on without.
    r config set rdma-flow-control no
    set fd [open_rdma_session]
    assert_equal [session_cmd $fd PING] PONG
    set refused [rdma_info rdma_flow_connections]
    close $fd
    set plain [flow_roundtrip rdma:plain 3000000]
    r config set rdma-flow-control yes
    list $flows $noflow $refused $plain [r strlen rdma:old]
  } {0 1 0 1 60000}

  test {RDMA flow: a Credit for bytes never written closes that connection} {
    lassign [peer --flow --mode over-credit] status out
    assert_equal $status 0 $out
    flow_log "*Credit of 1099511627776 bytes for ring 0, where * were written*"
    rdma_cli PING
  } {PONG}

  test {RDMA flow: writes past the credit close that connection} {
    # The server sleeps (DEBUG SLEEP) while the four writes land, so it
    # cannot read and credit the first before the others arrive.
    set out_file [scratch_file overwrite.out]
    set pid [exec $::rdma_peer --host $::rdma_addr --port $::rdma_port --flow --mode over-write \
               --pause-ms 1000 --timeout-ms 10000 > $out_file &]
    wait_for_condition 100 50 {[string match "*result: ready*" [read_file $out_file]]} {
      exec kill $pid
      fail "the peer did not connect"
    }
    set rd [redis_deferring_client]
    $rd debug sleep 2
    wait_for_condition 300 50 {[string match "*result: *closed*" [read_file $out_file]] ||
                               [string match "*still-open*" [read_file $out_file]]} {
      fail "the peer did not end"
    }
    $rd read
    $rd close
    set out [read_file $out_file]
    file delete $out_file
    assert_match "*result: server-closed*" $out
    flow_log "*beyond the credit*"
    rdma_cli PING
  } {PONG}

  test {RDMA flow: Switched without a new ring closes that connection} {
    lassign [peer --flow --mode bad-switch] status out
    assert_equal $status 0 $out
    flow_log "*Switched to ring 1 while ring 0 is current and no other was announced*"
    rdma_cli PING
  } {PONG}

  test {RDMA flow: a peer that never credits stalls only its own replies} {
    r set rdma:stall [string repeat s 200000]
    set waits [rdma_info rdma_tx_full_waits]
    set out_file [scratch_file stall.out]
    set pid [exec $::rdma_peer --host $::rdma_addr --port $::rdma_port --flow \
               --rx-size 16384 --mode no-credit --timeout-ms 4000 -- GET rdma:stall > $out_file &]
    wait_for_condition 100 50 {[rdma_info rdma_tx_full_waits] > $waits} {
      exec kill $pid
      fail "the server never waited for a credit"
    }
    # Meanwhile others are served.
    assert_equal [flow_roundtrip rdma:meanwhile 100000] 1
    wait_for_condition 200 50 {[string match "*result: *" [read_file $out_file]]} {
      fail "peer did not end"
    }
    set out [read_file $out_file]
    file delete $out_file
    # It got its 16 KiB ring's worth and not a byte more.
    assert_match "*result: stalled 16384*" $out
    wait_rdma_clients 0 "after the stalled peer left"
    rdma_cli PING
  } {PONG}
}

# Registered memory capped: the server runs without CAP_IPC_LOCK under a
# 640 KiB RLIMIT_MEMLOCK (capsh, prlimit), room for a dozen idle connections.
set wrapper [file join $::repo_root tests tmp memlock-server.[pid].sh]
write_binary $wrapper [format {#!/bin/sh
exec capsh --drop=cap_ipc_lock -- -c 'exec prlimit --memlock=655360:655360 "$0" "$@"' %s "$@"
} $::cfg(server_bin)]
file attributes $wrapper -permissions 0755
with_server_bin $wrapper {
  start_server [list tags {needs:rdma external:skip} \
                  overrides [rdma_overrides $::rdma_port {protected-mode no rdma-rx-size 256kb}]] {
    test {RDMA flow: out of registered memory, new connections are refused and old ones work} {
      set fd [open_rdma_session]
      assert_equal [session_cmd $fd PING] PONG
      lassign [peer --flow --rx-size 16384 --mode hold --connections 40 --timeout-ms 3000] status out
      assert_equal $status 2 $out
      flow_log "*RDMA connection from * refused: *RLIMIT_MEMLOCK*"
      # The session still works; its ring cannot grow past what is left,
      # and the value still crosses (in smaller steps).
      set v [string repeat g 200000]
      assert_equal [session_cmd $fd "SET rdma:grow $v"] OK
      assert_equal [string length [session_cmd $fd "GET rdma:grow"]] 200000
      close $fd
      wait_rdma_clients 0 "after the flood"
      rdma_cli PING
    } {PONG}

    test {RDMA flow: a staging buffer that could not grow grows once memory is back} {
      r set rdma:staging [string repeat s 100000]
      set fd [open_rdma_session]
      assert_equal [session_cmd $fd PING] PONG
      # Every connection the capped server can still take, held in the
      # background: what is left is less than one connection's rings.
      lassign [holding_peer fill fill 40 4000] pid out_file
      set failures [rdma_info rdma_ring_grow_failures]
      set grows [rdma_info rdma_ring_grows]
      # The reply outgrows the 16 KiB staging buffer, and a bigger one cannot
      # be registered now: it crosses through the small one.
      assert_equal [string length [session_cmd $fd "GET rdma:staging"]] 100000
      assert_morethan [rdma_info rdma_ring_grow_failures] $failures
      assert_equal [rdma_info rdma_ring_grows] $grows
      flow_log "*keeps its 16384-byte staging buffer*"
      # Once the peer has left, the same connection grows its buffer again
      # (after the idle timer's tick that follows a failure).
      wait_rdma_clients 1 "after the fill peer left"
      wait_for_condition 40 250 {
        [string length [session_cmd $fd "GET rdma:staging"]] == 100000 &&
        [rdma_info rdma_ring_grows] > $grows
      } {
        fail "the staging buffer never grew again"
      }
      close $fd
      file delete $out_file
      wait_rdma_clients 0 "after the session"
    }
  }
}
file delete $wrapper
