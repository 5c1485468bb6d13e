# io-threads with RDMA clients: a server with 4 I/O threads keeps serving
# deep RDMA pipelines from many connections and threads (a load that has
# crashed another RDMA server with I/O threads) while TCP clients run beside
# them. The threads copy RDMA rings and post the writes; completions and
# handlers stay on the main thread. The tests hold the server to staying
# up, answering and counting every request. Runs only in the rxe VM
# (needs:rdma).

source [file join $::repo_root tests rdma helpers rdma.tcl]
set ::rdma_port [find_free_port]

start_server [list tags {needs:rdma external:skip} \
                overrides [rdma_overrides $::rdma_port \
                             {protected-mode no io-threads 4 io-threads-do-reads yes}]] {
  test {io-threads 4: RDMA clients under load are read and written by the threads} {
    set stats [r info stats]
    set reads0 [info_field $stats io_threaded_reads_processed]
    set writes0 [info_field $stats io_threaded_writes_processed]
    set rdma0 [rdma_info rdma_bytes_sent]
    lassign [run_status -nostderr [file join $::repo_root src redis-benchmark] --rdma \
               -h $::rdma_addr -p $::rdma_port -q -t set,get -c 16 -P 8 -d 2000 -n 16000] status out
    assert_equal 0 $status $out
    set stats [r info stats]
    # The counters the threads kept for the connections reach INFO rdma.
    assert_morethan [expr {[rdma_info rdma_bytes_sent] - $rdma0}] [expr {8000 * 2000}]
    list [expr {[info_field $stats io_threaded_reads_processed] > $reads0}] \
      [expr {[info_field $stats io_threaded_writes_processed] > $writes0}] [rdma_cli ping]
  } {1 1 PONG}

  test {io-threads 4: redis-benchmark --rdma -P 384 -c 128 --threads 16 beside TCP load} {
    set bench [file join $::repo_root src redis-benchmark]
    set tcp_out [scratch_file tcp-bench.out]
    set rdma_out [scratch_file rdma-bench.out]
    # Both generators at once; the shell reports both exit statuses.
    set script {
      "$1" -h 127.0.0.1 -p "$2" -q -t incr -c 32 -n 50000 -P 4 -r 1 >"$5" 2>&1 &
      tcp=$!
      "$1" --rdma -h "$3" -p "$4" -q -t set,get -P 384 -c 128 --threads 16 -n 80000 >"$6" 2>&1
      rdma=$?
      wait $tcp
      echo "$? $rdma"
    }
    # 128 verbs handshakes at once can outlast the client's 10 s deadline
    # under the VM's emulation (a refused start, not a server fault): such
    # a run is tried again, up to three times.
    for {set try 1} {$try <= 3} {incr try} {
      lassign [run_status sh -c $script sh $bench [srv port] $::rdma_addr $::rdma_port \
                 $tcp_out $rdma_out] status out
      assert_equal 0 $status $out
      lassign $out tcp_status rdma_status
      set rdma_log [read_file $rdma_out]
      assert_equal 0 $tcp_status [read_file $tcp_out]
      if {$rdma_status == 0} break
      assert_match "*RDMA handshake * timed out*" $rdma_log
      wait_rdma_clients 0 "after a refused start"
    }
    assert_equal 0 $rdma_status $rdma_log
    assert_match "*SET: *requests per second*" $rdma_log
    assert_match "*GET: *requests per second*" $rdma_log
    # Every request counted (160k over RDMA and 50k over TCP a try, and
    # the harness's few), and the TCP clients went through the threads.
    set info [r info stats]
    assert_morethan [info_field $info total_commands_processed] 209999
    assert_morethan [info_field $info io_threaded_writes_processed] 0
    wait_rdma_clients 0 "after the benchmark"
    file delete $tcp_out $rdma_out
    list [r ping] [rdma_cli ping]
  } {PONG PONG}
}
