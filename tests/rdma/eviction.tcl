# maxmemory over rdma: data written by RDMA clients is counted and evicted
# like any other (allkeys-lru keeps used_memory at the limit), and under
# noeviction an RDMA client's write gets Redis's -OOM error.
# Runs only in the rxe VM (needs:rdma).

source [file join $::repo_root tests rdma helpers rdma.tcl]
set ::rdma_port [find_free_port]

# 1 KB SETs over rdma through redis-benchmark (random keys from a large
# space, so nearly every write adds a key).
proc rdma_fill {n} {
  lassign [run_status -nostderr [file join $::repo_root src redis-benchmark] --rdma \
             -h $::rdma_addr -p $::rdma_port -q -t set -d 1000 -r 10000000 -P 16 -c 4 \
             -n $n] status out
  assert_equal $status 0 $out
}

start_server [list tags {needs:rdma external:skip} \
                overrides [rdma_overrides $::rdma_port [list protected-mode no]]] {
  test {RDMA: writes over rdma are evicted under allkeys-lru, used_memory stays at maxmemory} {
    r config set maxmemory-policy allkeys-lru
    # Room for about 24k keys besides what the server and the RDMA
    # connections' buffers (counted as client memory, as in Redis) take.
    set limit [expr {[info_field [r info memory] used_memory] + 24 * 1024 * 1024}]
    r config set maxmemory $limit
    rdma_fill 60000
    set used [info_field [r info memory] used_memory]
    assert_lessthan $used [expr {$limit + 64 * 1024}]
    assert_morethan [info_field [r info stats] evicted_keys] 20000
    assert_lessthan [r dbsize] 30000
    rdma_cli set after eviction
  } {OK}

  test {RDMA: under noeviction an rdma client's write gets -OOM} {
    r config set maxmemory-policy noeviction
    r config set maxmemory [info_field [r info memory] used_memory]
    lassign [run_status $::rdma_cli --rdma -h $::rdma_addr -p $::rdma_port set k v] status out
    r config set maxmemory 0
    assert_match {*OOM command not allowed when used memory > 'maxmemory'.*} $out
  }
}
