# BGSAVE while RDMA clients move large values (RDMA.md, "Fork safety"): a
# forked child must leave registered memory and verbs objects alone, and the
# parent's RDMA buffers must keep working while the child lives. A
# long-lived redis-cli --rdma (connected before the fork) SETs and GETs
# values one to three times the RX buffer while the child saves; every
# value must come back byte for byte over rdma and tcp, the snapshot must
# load, and the server must stay up. Runs only in the rxe VM (needs:rdma).

source [file join $::repo_root tests rdma helpers rdma.tcl]
set ::rdma_port [find_free_port]
set ::rx_size 65536

start_server [list tags {needs:rdma external:skip} \
                overrides [rdma_overrides $::rdma_port \
                             [list protected-mode no rdma-rx-size $::rx_size \
                                enable-debug-command yes]]] {
  test {RDMA fork safety is on (kernel copy-on-fork or MADV_DONTFORK regions)} {
    set fd [open_rdma_session]
    assert_equal [session_cmd $fd "PING"] PONG
    close $fd
    set mode [rdma_info rdma_fork_safety]
    expr {$mode in {kernel madvise}}
  } {1}

  test {BGSAVE while an rdma client moves large values: data and server intact} {
    for {set i 0} {$i < 1500} {incr i} { r set fill:$i [string repeat v 1000] }
    # 1 ms per key: each child lives ~1.5 s while the client keeps writing.
    r config set rdb-key-save-delay 1000
    set fd [open_rdma_session]
    assert_equal [session_cmd $fd "SET warm [random_alnum 1000]"] OK
    set rounds 0
    for {set save 0} {$save < 2} {incr save} {
      assert_equal [r bgsave] {Background saving started}
      set this_child 0
      while {[info_field [r info persistence] rdb_bgsave_in_progress] == 1 && $this_child < 3} {
        incr this_child
        set size [expr {$::rx_size * (1 + int(rand() * 2)) + int(rand() * 1000)}]
        set value [random_alnum $size]
        assert_equal [session_cmd $fd "SET big:$rounds $value"] OK
        assert_equal [session_cmd $fd "GET big:$rounds"] $value
        assert_equal [r get big:$rounds] $value
        incr rounds
      }
      wait_for_condition 100 100 {[info_field [r info persistence] rdb_bgsave_in_progress] == 0} {
        fail "the child did not finish"
      }
      assert_equal [info_field [r info persistence] rdb_last_bgsave_status] ok
    }
    close $fd
    assert_morethan $rounds 2
    r config set rdb-key-save-delay 0
    # The snapshot loads, and the data written over rdma is still all there.
    set digest [r debug digest]
    r save
    assert_equal [r debug reload] OK
    assert_equal [r debug digest] $digest
    assert_equal [r dbsize] [expr {1500 + 1 + $rounds}]
    assert_equal [rdma_cli PING] PONG
  }
}
