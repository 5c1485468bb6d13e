# Scripts and functions over RDMA: EVAL, EVALSHA, FCALL and their errors
# through redis-cli --rdma answer as over TCP, and a busy script gives RDMA
# clients -BUSY like any other. Runs only in the rxe VM (needs:rdma).

source [file join $::repo_root tests rdma helpers rdma.tcl]
set ::rdma_port [find_free_port]

start_server [list tags {needs:rdma external:skip} \
                overrides [rdma_overrides $::rdma_port {protected-mode no}]] {
  test {RDMA scripting: EVAL with keys and arguments} {
    rdma_cli EVAL {redis.call('set', KEYS[1], ARGV[1]) return {redis.call('get', KEYS[1]), #ARGV}} \
      1 rdma:lua:k v1 v2
  } "v1\n2"

  test {RDMA scripting: the script's writes are seen over TCP} {
    r get rdma:lua:k
  } {v1}

  test {RDMA scripting: SCRIPT LOAD then EVALSHA} {
    set sha [rdma_cli SCRIPT LOAD {return 'sha ' .. ARGV[1]}]
    assert_equal [r evalsha $sha 0 tcp] {sha tcp}
    rdma_cli EVALSHA $sha 0 rdma
  } {sha rdma}

  test {RDMA scripting: errors carry the script's line} {
    r set rdma:lua:str foo
    assert_match {*ERR value is not an integer or out of range script: *, on @user_script:2.*} \
      [rdma_cli EVAL "local a = 1\nreturn redis.call('incr', 'rdma:lua:str')" 0]
  }

  test {RDMA scripting: FUNCTION LOAD and FCALL} {
    rdma_cli FUNCTION LOAD REPLACE "#!lua name=rdmalib\nredis.register_function('rdma_echo', function(keys, args) return {keys\[1\], args\[1\]} end)"
    assert_equal [r fcall rdma_echo 1 tcpkey tcparg] {tcpkey tcparg}
    rdma_cli FCALL rdma_echo 1 rdmakey rdmaarg
  } "rdmakey\nrdmaarg"

  test {RDMA scripting: a busy script answers RDMA clients -BUSY, SCRIPT KILL over RDMA stops it} {
    r config set busy-reply-threshold 100
    set d [redis_deferring_client]
    $d eval {local i = 0 while true do i = i + 1 end} 0
    wait_for_condition 100 50 {
      [string match {*BUSY Redis is busy running a script*} [rdma_cli PING]]
    } {
      fail "no -BUSY over rdma"
    }
    assert_equal OK [rdma_cli SCRIPT KILL]
    assert_error {ERR Script killed by user with SCRIPT KILL*} {$d read}
    $d close
    r config set busy-reply-threshold 5000
    rdma_cli PING
  } {PONG}
}
