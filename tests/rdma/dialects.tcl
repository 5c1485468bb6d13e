# One rdma port, three dialects (RDMA.md, "Dialects"): our own, the 2021
# prototype's ("seed") and Valkey's, both ways. Our server is driven by
# src/rdma-test-peer speaking each dialect as those implementations behave;
# our redis-cli and redis-benchmark are driven against the peer's --listen
# mode speaking seed and Valkey. Runs only in the rxe VM (needs:rdma).

source [file join $::repo_root tests rdma helpers rdma.tcl]
set ::rdma_port [find_free_port]

# A value that is not one repeated byte, so a misplaced chunk would show.
proc patterned {len} {
  set unit "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-_"
  set s [string repeat $unit [expr {$len / [string length $unit] + 1}]]
  return [string range $s 0 [expr {$len - 1}]]
}

start_server [list tags {needs:rdma external:skip} \
                overrides [rdma_overrides $::rdma_port \
                             {rdma-rx-size 65536 protected-mode no maxclients 1000 \
                              rdma-keepalive-interval 1000}]] {
  foreach d {ours seed valkey} {
    test "RDMA dialects: $d peer gets PING, SET, GET and shows as rdma/$d" {
      lassign [peer --dialect $d -- PING] status out
      assert_equal $status 0 $out
      assert_match "*reply: +PONG*" $out
      lassign [peer --dialect $d -- SET rdma:d:$d v-$d] status out
      assert_match "*reply: +OK*" $out
      assert_equal [r get rdma:d:$d] v-$d
      lassign [peer --dialect $d -- CLIENT INFO] status out
      assert_equal $status 0 $out
      assert_match "*transport=rdma/$d*" $out
    }

    test "RDMA dialects: $d values larger than both RX buffers, byte-exact both ways" {
      # 100,000 bytes: past the server's 64 KiB RX buffer on the way in and
      # the peer's 64 KiB one on the way out, so both sides register again.
      set v [patterned 100000]
      set rereg [rdma_info rdma_reregistrations]
      lassign [peer --dialect $d --rx-size 65536 -- SET rdma:big:$d $v] status out
      assert_equal $status 0 $out
      assert_equal [r get rdma:big:$d] $v
      assert_morethan [rdma_info rdma_reregistrations] $rereg
      lassign [peer --dialect $d --rx-size 65536 --print-rereg -- GET rdma:big:$d] status out
      assert_equal $status 0
      # exec turns the reply's CRLFs into newlines.
      assert {[string first "reply: \$100000\n$v\n" $out] >= 0}
      assert_match "*result: rx-reregistrations 1*" $out
    }

    test "RDMA dialects: $d pipeline of 300 commands" {
      r del rdma:pipe:$d
      lassign [peer --dialect $d --repeat 300 --pipeline -- INCR rdma:pipe:$d] status out
      assert_equal $status 0 [string range $out end-200 end]
      assert_match "*reply: :300*" $out
      r get rdma:pipe:$d
    } {300}
  }

  test {RDMA dialects: an older build of our client (no kHello) is spoken to first} {
    # Builds from before the dialects send no kHello, ask for no RDMA-read
    # resources and wait for the server's register message.
    lassign [peer --dialect legacy -- PING] status out
    assert_equal $status 0 $out
    assert_match "*reply: +PONG*" $out
    lassign [peer --dialect legacy -- CLIENT INFO] status out
    assert_match "*transport=rdma/ours*" $out
    set v [patterned 100000]
    lassign [peer --dialect legacy --rx-size 65536 -- SET rdma:legacy $v] status out
    assert_equal $status 0 $out
    assert_equal [r get rdma:legacy] $v
    lassign [peer --dialect legacy --repeat 300 --pipeline -- INCR rdma:legacy:n] status out
    assert_match "*reply: :300*" $out
  }

  test {RDMA dialects: a prototype client asking for no read resources is served as seed} {
    # Taken for an older build of ours and spoken to first: its own register
    # message (version 0) then shows the prototype, whose data writes carry
    # immediate 0.
    lassign [peer --dialect seed --read-resources 0 -- CLIENT INFO] status out
    assert_equal $status 0 $out
    assert_match "*transport=rdma/seed*" $out
    set v [patterned 100000]
    lassign [peer --dialect seed --read-resources 0 --rx-size 65536 -- SET rdma:seed0 $v] status out
    assert_equal $status 0 $out
    assert_equal [r get rdma:seed0] $v
  }

  test {RDMA dialects: Valkey's GetServerFeature is answered with no features} {
    lassign [peer --dialect valkey --mode feature-query] status out
    assert_equal $status 0 $out
    assert_match "*result: features 0*" $out
    assert_match "*reply: +PONG*" $out
  }

  test {RDMA dialects: the server sends Valkey's keepalive} {
    set sent [rdma_info rdma_keepalives_sent]
    lassign [peer --dialect valkey --mode keepalive-wait --timeout-ms 10000] status out
    assert_equal $status 0 $out
    assert_match "*result: keepalive*" $out
    assert_morethan [rdma_info rdma_keepalives_sent] $sent
  }

  foreach {d mode} {valkey garbage-first valkey mixed-first valkey switch-dialect
                    seed switch-dialect ours switch-dialect legacy switch-dialect
                    valkey bad-feature seed silent} {
    test "RDMA dialects: $mode ($d) closes only that connection, with a clear error" {
      set errors [rdma_info rdma_errors]
      lassign [peer --dialect $d --mode $mode --timeout-ms 20000] status out
      assert_equal $status 0 $out
      assert_match "*result: server-closed*" $out
      assert_morethan [rdma_info rdma_errors] $errors
      wait_rdma_clients 0 "after $mode"
      assert_equal [r ping] PONG
      lassign [peer --dialect $d -- PING] status out
      assert_match "*reply: +PONG*" $out
    }
  }

  test {RDMA dialects: the log names what was wrong with a first message} {
    set log [read_file [srv stdout]]
    assert_match "*first control message matches no dialect (starts ee ee ee ee)*" $log
    assert_match "*protocol error (seed dialect): control message with unknown opcode 3*" $log
    assert_match "*SetClientFeature asks for features 0x1*" $log
    assert_match "*peer sent no control message within*" $log
  }

  foreach d {ours seed valkey} {
    test "RDMA dialects: a $d peer that vanishes without a disconnect is detected and freed" {
      set dead [rdma_info rdma_dead_peers]
      set objects [rdma_info rdma_verbs_objects]
      set out_file [scratch_file vanish]
      set pid [exec $::rdma_peer --host $::rdma_addr --port $::rdma_port --dialect $d \
                 --mode vanish --timeout-ms 30000 > $out_file 2>@1 &]
      wait_for_condition 300 100 {[string match "*result: vanished*" [read_file $out_file]]} {
        fail "the peer never got to vanish: [read_file $out_file]"
      }
      set t0 [clock milliseconds]
      # rdma-keepalive-interval 1000: a probe unanswered for one period.
      wait_for_condition 150 100 {[rdma_info rdma_dead_peers] > $dead} {
        fail "vanished $d peer not detected within 15 s"
      }
      set took [expr {[clock milliseconds] - $t0}]
      wait_rdma_clients 0 "after the $d peer vanished"
      wait_for_condition 50 100 {[rdma_info rdma_verbs_objects] == $objects} {
        fail "verbs objects [rdma_info rdma_verbs_objects], were $objects"
      }
      exec kill $pid
      file delete $out_file
      assert_lessthan $took 8000
    }
  }

  test {RDMA dialects: 30 redis-cli connections mixing the three dialects} {
    r del rdma:mix
    # Interactive redis-cli processes hold their connection until stdin
    # closes; waves of 10 as in clients.tcl (handshakes are slow under CPU
    # emulation). --rdma-dialect seed / valkey make our client speak those
    # dialects; auto detects ours from the accept private data.
    set chans {}
    set dialects {auto seed valkey}
    for {set wave 1} {$wave <= 3} {incr wave} {
      for {set i 0} {$i < 10} {incr i} {
        set d [lindex $dialects [expr {[llength $chans] % 3}]]
        lappend chans [open [list | $::rdma_cli --rdma --rdma-dialect $d \
                               -h $::rdma_addr -p $::rdma_port 2>@1] r+]
      }
      set want [expr {$wave * 10}]
      if {[catch {wait_rdma_clients $want "with $want clients started"} e opts]} {
        foreach c $chans { catch {close $c} }
        return -options $opts $e
      }
    }
    assert_equal [rdma_info rdma_dialect_ours] 10
    assert_equal [rdma_info rdma_dialect_seed] 10
    assert_equal [rdma_info rdma_dialect_valkey] 10
    set list [r client list]
    assert_equal [regexp -all {transport=rdma/ours} $list] 10
    assert_equal [regexp -all {transport=rdma/seed} $list] 10
    assert_equal [regexp -all {transport=rdma/valkey} $list] 10
    foreach c $chans {
      puts $c "INCR rdma:mix"
      flush $c
    }
    set counts {}
    foreach c $chans {
      close $c write
      lappend counts [string trim [read $c]]
      close $c
    }
    set want {}
    for {set i 1} {$i <= 30} {incr i} { lappend want $i }
    assert_equal [lsort -integer $counts] $want
    wait_rdma_clients 0 "after 30 clients quit"
    r get rdma:mix
  } {30}
}

# Starts `rdma-test-peer --listen` with the given options on a free port;
# returns {pid port output_file} once it listens.
proc start_listen_peer {name args} {
  set port [find_free_port]
  set out_file [scratch_file listen-$name]
  set pid [exec $::rdma_peer --listen --host $::rdma_addr --port $port {*}$args \
             > $out_file 2>@1 &]
  wait_for_condition 300 100 {[string match "*result: listening*" [read_file $out_file]]} {
    catch {exec kill $pid}
    fail "peer server did not start: [read_file $out_file]"
  }
  return [list $pid $port $out_file]
}

proc stop_listen_peer {peer} {
  lassign $peer pid port out_file
  catch {exec kill $pid}
  file delete $out_file
}

# Our clients against a server that is not ours: the peer's --listen mode
# speaks the prototype's or Valkey's dialect (no private data in its accept,
# its register message on ESTABLISHED, Valkey's keepalive every 3 s), or ours
# (kHello in its accept), so that each dialect is tested from the client side.
foreach d {ours seed valkey} {
  # Outside the VM the block is skipped: do not start a peer that cannot run.
  if {[skip_reason {needs:rdma external:skip}] ne ""} {
    start_server {tags {needs:rdma external:skip}} {}
    continue
  }
  set port [find_free_port]
  set out_file [scratch_file listen-$d]
  set pid [exec $::rdma_peer --listen --host $::rdma_addr --port $port --dialect $d \
             --rx-size 65536 > $out_file 2>@1 &]
  # tests/tmp is a 9p share in the VM: no unix socket there.
  start_server [list tags {needs:rdma external:skip} overrides {protected-mode no unixsocket {}}] {
    wait_for_condition 300 100 {[string match "*result: listening*" [read_file $out_file]]} {
      fail "peer server did not start: [read_file $out_file]"
    }
    set ::rdma_port $port

    test "RDMA dialects: redis-cli --rdma detects a $d server: PING, SET, GET" {
      assert_equal [rdma_cli PING] PONG
      assert_equal [rdma_cli SET k v] OK
      assert_equal [rdma_cli GET k] v
      assert_equal [rdma_cli --rdma-dialect $d GET k] v
    }

    test "RDMA dialects: a 1.2 MB value byte-exact through a $d server" {
      # Larger than the peer's 64 KiB RX buffer (our writes wait for its
      # re-registration) and than our client's 1 MiB one (we register again).
      set v [patterned 1200000]
      set src [scratch_file value-$d]
      write_binary $src $v
      assert_equal [exec $::rdma_cli --rdma -h $::rdma_addr -p $port -x SET big < $src] OK
      set got [exec $::rdma_cli --rdma -h $::rdma_addr -p $port GET big]
      file delete $src
      assert_equal [string length $got] 1200000
      assert {$got eq $v}
    }

    test "RDMA dialects: redis-benchmark --rdma completes against a $d server" {
      lassign [run_status [file join $::repo_root src redis-benchmark] --rdma -h $::rdma_addr -p $port -t set,get \
                 -n 300 -c 4 -P 4 -q] status out
      assert_equal $status 0 $out
      assert_match "*SET: *requests per second*" $out
      assert_match "*GET: *requests per second*" $out
    }

    test "RDMA dialects: a $d server switching dialect mid-connection fails the client" {
      # SWITCHDIALECT is not answered: the peer sends a register message of
      # another dialect instead.
      set t0 [clock milliseconds]
      lassign [run_status $::rdma_cli --rdma -h $::rdma_addr -p $port SWITCHDIALECT] status out
      assert_lessthan [expr {[clock milliseconds] - $t0}] 10000
      assert {$status != 0}
      assert_match "*protocol error*" $out
      assert_equal [rdma_cli PING] PONG
    }

    foreach mode {garbage-first mixed-first} {
      test "RDMA dialects: a $d server whose first message is $mode fails the connect" {
        set bad [start_listen_peer $mode-$d --dialect $d --mode $mode]
        set t0 [clock milliseconds]
        lassign [run_status $::rdma_cli --rdma -h $::rdma_addr -p [lindex $bad 1] PING] status out
        set took [expr {[clock milliseconds] - $t0}]
        stop_listen_peer $bad
        assert {$status != 0}
        assert_match "*protocol error*" $out
        if {$mode eq "garbage-first" && $d ne "ours"} {
          assert_match "*matches no dialect (starts ee ee ee ee)*" $out
        }
        assert_lessthan $took 10000
      }
    }

    test "RDMA dialects: redis-cli --rdma finds a vanished $d server within two probe periods" {
      # VANISH puts every QP of the peer server in the error state without
      # a disconnect and leaves it silent: no reply ever comes, and only the
      # client's liveness probe can tell (RDMA.md, "Dead peers").
      set gone [start_listen_peer vanish-$d --dialect $d]
      set t0 [clock milliseconds]
      lassign [run_status $::rdma_cli --rdma --rdma-keepalive-interval 1000 \
                 -h $::rdma_addr -p [lindex $gone 1] VANISH] status out
      set took [expr {[clock milliseconds] - $t0}]
      stop_listen_peer $gone
      assert {$status != 0}
      assert_match "*peer unreachable*" $out
      # Two 1 s periods, plus the connect and process start-up under TCG.
      assert_lessthan $took 6000
    }

    test "RDMA dialects: redis-benchmark --rdma ends when its $d server vanishes" {
      set gone [start_listen_peer bench-$d --dialect $d]
      set bench_out [scratch_file bench-$d]
      set bench [exec [file join $::repo_root src redis-benchmark] --rdma \
                   --rdma-keepalive-interval 1000 -h $::rdma_addr -p [lindex $gone 1] \
                   -t ping -n 100000000 -c 2 > $bench_out 2>@1 &]
      after 2000
      set t0 [clock milliseconds]
      run_status timeout 10 $::rdma_cli --rdma --rdma-keepalive-interval 1000 \
        -h $::rdma_addr -p [lindex $gone 1] VANISH
      wait_for_condition 100 100 {![file exists /proc/$bench]
        || [string match "*Z*" [lindex [split [read_file /proc/$bench/stat]] 2]]} {
        catch {exec kill $bench}
        stop_listen_peer $gone
        fail "redis-benchmark still running 10 s after its server vanished"
      }
      set took [expr {[clock milliseconds] - $t0}]
      set out [read_file $bench_out]
      file delete $bench_out
      stop_listen_peer $gone
      assert_match "*peer unreachable*" $out
      assert_lessthan $took 6000
    }

    if {$d eq "valkey"} {
      test {RDMA dialects: our client takes Valkey's keepalives in its stride} {
        # An interactive redis-cli idles past two 3 s keepalives, then works.
        set c [open [list | $::rdma_cli --rdma -h $::rdma_addr -p $port 2>@1] r+]
        after 7000
        puts $c "PING"
        close $c write
        set out [string trim [read $c]]
        close $c
        set out
      } {PONG}
    }
  }
  catch {exec kill $pid}  ;# it may have exited on its own
  file delete $out_file
}
