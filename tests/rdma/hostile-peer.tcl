# The server's rdma listener against src/rdma-test-peer (tests/rdma/peer/):
# well-behaved clients get replies, and every protocol violation or vanishing
# peer costs only that connection. Runs only in the rxe VM (needs:rdma);
# RDMA_TEST_ADDR names the RDMA address (default 10.99.0.1).

source [file join $::repo_root tests rdma helpers rdma.tcl]
set ::rdma_port [find_free_port]

start_server [list tags {needs:rdma external:skip} \
                overrides [rdma_overrides $::rdma_port {rdma-rx-size 65536 protected-mode no}]] {
  test {RDMA: PING and SET over rdma, visible over tcp} {
    lassign [peer -- PING] status out
    assert_equal $status 0 $out
    assert_match "*reply: +PONG*" $out
    lassign [peer -- SET rdma:key hello] status out
    assert_equal $status 0 $out
    assert_equal [r get rdma:key] hello
  }

  test {RDMA: values larger than rx-size cross both ways} {
    set big [string repeat x 100000]
    lassign [peer --rx-size 65536 -- SET rdma:big $big] status out
    assert_equal $status 0 $out
    assert_equal [string length [r get rdma:big]] 100000
    lassign [peer --rx-size 65536 -- GET rdma:big] status out
    assert_equal $status 0
    assert_match "*reply: \$100000*" $out
    assert_morethan [rdma_info rdma_reregistrations] 0
  }

  foreach mode {bad-magic bad-version bad-opcode zero-addr huge-length short-ctrl oob-imm
                zero-imm write-no-reg} {
    test "RDMA: $mode closes only that connection" {
      set errors [rdma_info rdma_errors]
      lassign [peer --mode $mode] status out
      assert_equal $status 0 $out
      assert_match "*result: server-closed*" $out
      assert_equal [r ping] PONG
      assert_morethan [rdma_info rdma_errors] $errors
      wait_for_condition 50 100 {[rdma_info rdma_connected_clients] == 0} {
        fail "connection of $mode not freed"
      }
      lassign [peer -- PING] status out
      assert_equal $status 0 $out
    }
  }

  foreach mode {disconnect-mid kill-mid} {
    test "RDMA: peer gone mid-command ($mode) is cleaned up" {
      lassign [peer --mode $mode] status out
      assert_equal $status 0 $out
      wait_for_condition 50 100 {[rdma_info rdma_connected_clients] == 0} {
        fail "connection of $mode not freed"
      }
      assert_equal [r exists rdma-test-peer:partial] 0
      lassign [peer -- PING] status out
      assert_equal $status 0 $out
    }
  }

  test {RDMA: with busy polling, violations and vanishing peers still cost only their connection} {
    # The spinning server reaps these completions from unarmed CQs, not from
    # events: the error must still reach the connection's handler, and every
    # verbs object be freed.
    r config set busy-poll-us 1000000
    set objects [rdma_info rdma_verbs_objects]
    set polled [rdma_info rdma_polled_completions]
    foreach mode {bad-magic oob-imm zero-imm write-no-reg} {
      lassign [peer --mode $mode] status out
      assert_equal $status 0 "$mode: $out"
      assert_match "*result: server-closed*" $out
    }
    foreach mode {disconnect-mid kill-mid} {
      lassign [peer --mode $mode] status out
      assert_equal $status 0 "$mode: $out"
    }
    lassign [peer --repeat 50 -- PING] status out
    assert_equal $status 0 $out
    wait_for_condition 50 100 {[rdma_info rdma_connected_clients] == 0 &&
                               [rdma_info rdma_verbs_objects] == $objects} {
      fail "left: [rdma_info rdma_connected_clients] clients,\
            [rdma_info rdma_verbs_objects] verbs objects (before: $objects)"
    }
    assert_morethan [rdma_info rdma_polled_completions] $polled
    assert_equal [r exists rdma-test-peer:partial] 0
    r config set busy-poll-us 0
    r ping
  } {PONG}

  test {RDMA: protocol violations are logged with the reason} {
    set log [read_file [srv stdout]]
    assert_match "*protocol error (ours dialect): control message with bad magic*" $log
    # oob-imm: 16 bytes written whose immediate claims RX length + 1.
    assert_match "*data write of 16 bytes whose immediate claims*" $log
  }
}
