# Long-running scripts and functions: atomicity, busy-reply-threshold
# (-BUSY for other clients), SCRIPT KILL / FUNCTION KILL, scripts that
# wrote cannot be killed, FUNCTION STATS while a function runs.

# Waits until client c gets -BUSY for a PING (the script or function has
# passed busy-reply-threshold).
proc wait_busy {c} {
  wait_for_condition 500 20 {
    [catch {$c ping} e] && [string match {BUSY*} $e]
  } {
    fail "no BUSY reply"
  }
}

start_server {tags {scripting}} {
  test {No other client runs while a script runs (before the threshold)} {
    r config set busy-reply-threshold 5000
    r del counter
    set d [redis_deferring_client]
    $d eval {local t = redis.call('time') local start = t[1] * 1000000 + t[2]
             redis.call('set', 'counter', 1)
             local i = 0 while i < 3000000 do i = i + 1 end
             return redis.call('get', 'counter')} 0
    after 20
    set c [redis_client]
    $c incr counter
    $c close
    set v [$d read]
    $d close
    r config set busy-reply-threshold 100
    list $v [r get counter]
  } {1 2}

  test {A busy script gets other clients -BUSY; SCRIPT KILL stops it} {
    set d [redis_deferring_client]
    $d eval {local i = 0 while true do i = i + 1 end} 0
    set c [redis_client]
    wait_busy $c
    assert_error {BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.} \
      {$c get x}
    # FUNCTION KILL and FUNCTION STATS do not apply to an EVAL.
    assert_error {BUSY Redis is busy running a script. You can only call SCRIPT KILL*} {$c function kill}
    assert_error {BUSY Redis is busy running a script. You can only call SCRIPT KILL*} {$c function stats}
    assert_equal OK [$c script kill]
    assert_error {ERR Script killed by user with SCRIPT KILL... script: *, on @user_script:1.} {$d read}
    set v [$c ping]
    $c close
    $d close
    set v
  } {PONG}

  test {EXEC refused while a script is busy: EXECABORT with the reason, the transaction gone} {
    set c [redis_client]
    $c multi
    $c set in-tx 1
    set d [redis_deferring_client]
    $d eval {local i = 0 while true do i = i + 1 end} 0
    wait_busy [redis_client]
    assert_error {BUSY *} {$c get in-tx}
    assert_error {EXECABORT Transaction discarded because of: BUSY Redis is busy running a script.*} \
      {$c exec}
    assert_equal OK [$c script kill]
    assert_error {ERR Script killed by user*} {$d read}
    # Out of MULTI now: EXEC alone has nothing to run.
    assert_error {ERR EXEC without MULTI} {$c exec}
    set v [$c get in-tx]
    $c close
    $d close
    set v
  } {}

  test {pcall inside the script cannot swallow SCRIPT KILL} {
    set d [redis_deferring_client]
    $d eval {while true do pcall(function() local i = 0 while true do i = i + 1 end end) end} 0
    set c [redis_client]
    wait_busy $c
    assert_equal OK [$c script kill]
    assert_error {ERR Script killed by user with SCRIPT KILL*} {$d read}
    $c close
    $d close
  }

  test {A script that wrote cannot be killed} {
    set d [redis_deferring_client]
    # Runs 2.5 s by the clock, long enough for a loaded machine.
    $d eval {redis.call('set', 'wrote', 1) local t0 = redis.call('time')
             while true do
               local t = redis.call('time')
               if (t[1] - t0[1]) * 1000000 + (t[2] - t0[2]) >= 2500000 then break end
             end
             return 'done'} 0
    set c [redis_client]
    wait_busy $c
    assert_error {UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.} \
      {$c script kill}
    set v [$d read]
    $c close
    $d close
    list $v [r get wrote]
  } {done 1}

  test {The caller's pipelined requests survive other clients' traffic during a busy script} {
    set d [redis_deferring_client]
    set script {local i = 0 while i < 30000000 do i = i + 1 end return 'slow'}
    $d write "[::redis::encode [list eval $script 0]][::redis::encode {set piped yes}][::redis::encode {get piped}]"
    set c [redis_client]
    wait_for_condition 500 20 {
      [catch {$c set other x} e] && [string match {BUSY*} $e]
    } {
      fail "no BUSY reply"
    }
    for {set i 0} {$i < 20} {incr i} { catch {$c set other [string repeat y 5000]} }
    set v [list [$d read] [$d read] [$d read]]
    $c close
    $d close
    set v
  } {slow OK yes}

  test {SCRIPT KILL and FUNCTION KILL with nothing running} {
    assert_error {NOTBUSY No scripts in execution right now.} {r script kill}
    assert_error {NOTBUSY No scripts in execution right now.} {r function kill}
  }

  test {A busy function: -BUSY names FUNCTION KILL, FUNCTION STATS shows it, FUNCTION KILL stops it} {
    r function load replace {#!lua name=busylib
redis.register_function{function_name='spin', callback=function() local i = 0 while true do i = i + 1 end end, flags={'no-writes'}}}
    set d [redis_deferring_client]
    $d fcall spin 0 extra
    set c [redis_client]
    wait_busy $c
    assert_error {BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.} \
      {$c get x}
    assert_error {BUSY Redis is busy running a script. You can only call FUNCTION KILL*} {$c script kill}
    set stats [$c function stats]
    set running [lindex $stats 1]
    assert_equal {name spin command {fcall spin 0 extra}} [lrange $running 0 3]
    assert_equal duration_ms [lindex $running 4]
    assert_equal OK [$c function kill]
    assert_error {ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:2.} {$d read}
    set v [lindex [$c function stats] 1]
    $c function delete busylib
    $c close
    $d close
    set v
  } {}

  test {MULTI while a script is busy: the queued command is refused and EXEC aborts} {
    set c [redis_client]
    $c multi
    set d [redis_deferring_client]
    $d eval {local i = 0 while true do i = i + 1 end} 0
    wait_for_condition 500 20 {
      [catch {[set p [redis_client]] ping} e] && [string match {BUSY*} $e]
    } {
      fail "no BUSY reply"
    }
    assert_error {BUSY*} {$c incr x}
    r script kill
    catch {$d read}
    assert_error {EXECABORT*} {$c exec}
    $c close
    $d close
  }

  r config set busy-reply-threshold 5000
}

start_server {tags {scripting external:skip}} {
  test {SHUTDOWN NOSAVE stops the server under a busy script; plain SHUTDOWN is refused} {
    r config set busy-reply-threshold 50
    set d [redis_deferring_client]
    $d eval {local i = 0 while true do i = i + 1 end} 0
    set c [redis_client]
    wait_busy $c
    assert_error {BUSY*} {$c shutdown}
    catch {$c shutdown nosave}
    wait_for_condition 200 50 {
      [catch {redis_client} e]
    } {
      fail "server still accepts connections"
    }
    catch {$d read}
    catch {$c close}
    catch {$d close}
  }
}

start_server {tags {scripting external:skip}} {
  test {SHUTDOWN NOSAVE under a busy script right after the first AOF rewrite ended} {
    # The AOF rewrite that appendonly yes starts ends while a 300 ms script
    # runs; the next script starts at once and never ends. The cron's
    # overdue pass right after the first script must have seen the rewrite
    # end, or SHUTDOWN refuses ("Writing initial AOF, can't exit").
    r config set busy-reply-threshold 10
    r config set appendonly yes
    set spin300 {
      redis.call('set', 'k', 'v')
      local t = redis.call('time')
      local start = t[1] * 1000000 + t[2]
      while true do
        t = redis.call('time')
        if t[1] * 1000000 + t[2] - start > 300000 then return 1 end
      end
    }
    assert_equal 1 [r eval $spin300 0]
    set d [redis_deferring_client]
    $d eval {redis.call('set', 'x', 'y') while true do end} 0
    set c [redis_client]
    wait_busy $c
    catch {$c shutdown nosave} e
    wait_for_condition 100 50 {[catch {redis_client}]} {
      fail "the server is still up after SHUTDOWN NOSAVE: $e"
    }
    catch {$d close}
    catch {$c close}
  }
}

start_server {tags {scripting repl external:skip}} {
  start_server {} {
    test {A busy script sees a replica leave; once it wrote, min-replicas-to-write no longer stops it} {
      r -1 config set repl-diskless-sync-delay 0
      r replicaof [srv -1 host] [srv -1 port]
      r -1 config set min-replicas-to-write 1
      wait_for_condition 200 100 {![catch {r -1 set probe 1}]} {
        fail "the master never counted its replica: [r -1 info replication] [r info replication]"
      }
      r -1 config set busy-reply-threshold 10
      # Writes, waits (5 s at most) for INFO to show no replica, writes again.
      set d [redis_deferring_client -1]
      $d eval {
        redis.call('set', 'x', 'first')
        local t = redis.call('time')
        local deadline = tonumber(t[1]) + 5
        while not string.find(redis.call('info', 'replication'), 'connected_slaves:0', 1, true) do
          if tonumber(redis.call('time')[1]) > deadline then return 'still there' end
        end
        redis.call('set', 'x', 'second')
        return 'gone'
      } 0
      set c [redis_client -1]
      wait_busy $c
      # The link closes while the script runs: the master frees the replica
      # then, not after the script.
      r replicaof no one
      set got [list [$d read] [$c get x]]
      r -1 config set min-replicas-to-write 0
      $c close
      $d close
      set got
    } {gone second}
  }
}
