# BGREWRITEAOF while RDMA clients move large values (RDMA.md, "Fork
# safety"): the rewrite child, like the BGSAVE one, must leave registered
# memory and verbs objects alone while the parent keeps serving rdma
# clients and appending their writes to the new incr file. Every value must
# come back byte for byte, and the AOF (new base plus incr) must rebuild the
# same data set after a restart. Runs only in the rxe VM (needs:rdma).

source [file join $::repo_root tests rdma helpers rdma.tcl]
set ::rdma_port [find_free_port]
set ::rx_size 65536

set ::aof_rdma_overrides [rdma_overrides $::rdma_port \
                            [list protected-mode no rdma-rx-size $::rx_size \
                               enable-debug-command yes appendonly yes]]

start_server [list tags {needs:rdma external:skip} overrides $::aof_rdma_overrides] {
  set dir [lindex [r config get dir] 1]
  test {BGREWRITEAOF while an rdma client moves large values: data, AOF and server intact} {
    for {set i 0} {$i < 1500} {incr i} { r set fill:$i [string repeat v 1000] }
    # 1 ms per key: each rewrite child lives ~1.5 s while the client writes.
    r config set rdb-key-save-delay 1000
    set fd [open_rdma_session]
    assert_equal [session_cmd $fd "SET warm [random_alnum 1000]"] OK
    set rounds 0
    for {set n 0} {$n < 2} {incr n} {
      assert_equal [r bgrewriteaof] {Background append only file rewriting started}
      set this_child 0
      while {[info_field [r info persistence] aof_rewrite_in_progress] == 1 && $this_child < 3} {
        incr this_child
        set size [expr {$::rx_size * (1 + int(rand() * 2)) + int(rand() * 1000)}]
        set value [random_alnum $size]
        assert_equal [session_cmd $fd "SET big:$rounds $value"] OK
        assert_equal [session_cmd $fd "GET big:$rounds"] $value
        assert_equal [r get big:$rounds] $value
        incr rounds
      }
      wait_for_condition 100 100 {[info_field [r info persistence] aof_rewrite_in_progress] == 0} {
        fail "the child did not finish"
      }
      assert_equal [info_field [r info persistence] aof_last_bgrewrite_status] ok
    }
    close $fd
    assert_morethan $rounds 2
    r config set rdb-key-save-delay 0
    assert_equal [rdma_cli PING] PONG
    set digest [r debug digest]
    set dbsize [r dbsize]
    assert_equal $dbsize [expr {1500 + 1 + $rounds}]
    catch {r shutdown nosave}
    wait_server_exit [srv dir] 10000
    # The new base and the incr file written meanwhile rebuild the data.
    start_server [list overrides [concat $::aof_rdma_overrides [list dir $dir]]] {
      assert_equal [r debug digest] $digest
      assert_equal [r dbsize] $dbsize
      assert_equal [rdma_cli PING] PONG
    }
  }
}
