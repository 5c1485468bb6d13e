# CLIENT PAUSE / UNPAUSE: held requests are delayed, not lost, and run in
# order; WRITE mode lets reads through; the event loop keeps serving.

start_server {tags {pause external:skip}} {
  test {CLIENT PAUSE argument errors} {
    assert_error {ERR CLIENT PAUSE mode must be WRITE or ALL} {r client pause 100 foo}
    assert_error {ERR timeout is not an integer or out of range} {r client pause abc}
    assert_error {ERR timeout is negative} {r client pause -1}
    assert_error {ERR wrong number of arguments for 'client|pause' command} {r client pause}
    assert_error {ERR unknown subcommand or wrong number of arguments for 'pause'. Try CLIENT HELP.} \
      {r client pause 0 all x}
    assert_error {ERR wrong number of arguments for 'client|unpause' command} {r client unpause x}
    # Mode errors come before timeout errors, as in Redis.
    assert_error {ERR CLIENT PAUSE mode must be WRITE or ALL} {r client pause abc foo}
    r client pause 0 write
    # Any non-negative timeout is taken (Redis 7.0): huge means until UNPAUSE.
    assert_equal [r client pause 9223372036854775807 WRITE] OK
    assert_equal [r get nothing] {}
    r client unpause
  } {OK}

  test {CLIENT PAUSE ALL holds every client until the timeout} {
    set rd [redis_deferring_client]
    set start [clock milliseconds]
    r client pause 300 ALL
    $rd ping
    assert_equal [$rd read] PONG
    set elapsed [expr {[clock milliseconds] - $start}]
    $rd close
    assert_range $elapsed 250 3000
  }

  test {CLIENT PAUSE WRITE lets reads through and holds writes} {
    r set k before
    set rd [redis_deferring_client]
    set rd2 [redis_deferring_client]
    r client pause 10000 WRITE
    $rd set k after
    $rd2 get k
    assert_equal [$rd2 read] before
    # The pausing client itself is served too, and can read.
    assert_equal [r get k] before
    assert_equal [r ping] PONG
    # The held client shows flag b and the held command.
    set line ""
    foreach l [split [string trim [r client list]] "\n"] {
      if {[string match {*flags=b *} $l]} { set line $l }
    }
    assert_match {*cmd=set *} $line
    r client unpause
    assert_equal [$rd read] OK
    $rd close
    $rd2 close
    r get k
  } {after}

  test {Held requests keep their order, reads queued after a held write wait too} {
    set rd [redis_deferring_client]
    r del n
    r client pause 10000 WRITE
    $rd incr n
    $rd get n
    $rd incr n
    $rd get n
    after 50
    assert_equal [r get n] {}
    r client unpause
    set got {}
    for {set i 0} {$i < 4} {incr i} { lappend got [$rd read] }
    $rd close
    set got
  } {1 1 2 2}

  test {A pipeline bigger than one read stays intact while held} {
    set rd [redis_deferring_client]
    r del list-like
    r client pause 10000 WRITE
    set payload [string repeat x 1000]
    set buf ""
    for {set i 0} {$i < 200} {incr i} {
      append buf [::redis::encode [list append big $payload]]
    }
    $rd write $buf
    after 100
    assert_equal [r exists big] 0
    r client unpause
    for {set i 1} {$i <= 200} {incr i} { assert_equal [$rd read] [expr {$i * 1000}] }
    $rd close
    r strlen big
  } {200000}

  test {UNPAUSE is answered during a WRITE pause and releases held clients at once} {
    set rd [redis_deferring_client]
    set other [redis_client]
    r client pause 100000 WRITE
    $rd set x 1
    set start [clock milliseconds]
    assert_equal [$other client unpause] OK
    assert_equal [$rd read] OK
    assert_lessthan [expr {[clock milliseconds] - $start}] 2000
    $other close
    $rd close
  }

  test {A later pause extends the end and keeps the stricter mode} {
    r client pause 400 ALL
    set other [redis_deferring_client]
    set start [clock milliseconds]
    # Held itself (ALL): the shorter WRITE pause neither shortens nor relaxes.
    $other client pause 50 WRITE
    assert_equal [$other read] OK
    $other get k
    assert_equal [$other read] after
    assert_range [expr {[clock milliseconds] - $start}] 300 3000
    $other close
  }

  test {Clients that disconnect while held are forgotten} {
    set rd [redis_deferring_client]
    r client pause 200 WRITE
    $rd set gone 1
    $rd close
    after 400
    assert_equal [r exists gone] 0
    r ping
  } {PONG}

  test {Unix socket clients are held and released too} {
    set u [redis_unix_client 0 1]
    r client pause 10000 WRITE
    $u set viaunix 1
    after 50
    assert_equal [r exists viaunix] 0
    r client unpause
    assert_equal [$u read] OK
    $u close
    r get viaunix
  } {1}

  test {MONITOR sees held commands when they run, not before} {
    set m [redis_deferring_client]
    $m monitor
    $m read
    set rd [redis_deferring_client]
    r client pause 10000 WRITE
    $rd set seen 1
    r get seen
    r client unpause
    $rd read
    set first [$m read]
    set second [$m read]
    $m close
    $rd close
    assert_match {*"get" "seen"} $first
    assert_match {*"set" "seen" "1"} $second
  }

  # Redis 7.0 keeps the dataset still during a pause: an expired key reads as
  # absent but is neither deleted lazily nor by the active cycle.
  test {Keys do not expire while clients are paused} {
    r flushall
    r set short v px 50
    r set long v
    r client pause 5000 WRITE
    after 400
    # hz 10: the active cycle ran several times meanwhile.
    set during [list [r get short] [r exists short] [r dbsize] [r randomkey]]
    set expired_during [info_field [r info stats] expired_keys]
    r client unpause
    after 50
    r get short
    list $during [expr {[info_field [r info stats] expired_keys] - $expired_during}] [r dbsize]
  } {{{} 0 2 long} 1 1}

  test {Under a WRITE pause, a read-only transaction runs and a writing one waits (counted as blocked)} {
    r set k v
    # The writing transaction is queued before the pause: a write command
    # sent during it is held at once, even inside MULTI.
    set rd [redis_deferring_client]
    $rd multi
    $rd read
    $rd set k v2
    $rd read
    r client pause 100000 WRITE
    set rr [redis_client]
    $rr multi
    $rr get k
    $rr ping
    set ro [$rr exec]
    assert_equal [info_field [r info clients] blocked_clients] 0
    $rd exec
    wait_for_condition 100 20 {[info_field [r info clients] blocked_clients] == 1} {
      fail "the writing EXEC is not held"
    }
    r client unpause
    set rw [$rd read]
    $rr close
    $rd close
    list $ro $rw [r get k]
  } {{v PONG} OK v2}

  test {Under a WRITE pause, scripts are judged by their flags} {
    r client pause 100000 WRITE
    set rr [redis_client]
    set a [$rr eval "#!lua flags=no-writes\nreturn 1" 0]
    set b [$rr eval_ro "return 2" 0]
    set rd [redis_deferring_client]
    $rd eval "return 3" 0
    wait_for_condition 100 20 {[info_field [r info clients] blocked_clients] == 1} {
      fail "a script that may write is not held"
    }
    r client unpause
    set c [$rd read]
    $rr close
    $rd close
    list $a $b $c
  } {1 2 3}

  test {A read-only script may not call PUBLISH (it may replicate)} {
    assert_error {ERR Write commands are not allowed from read-only scripts*} \
        {r eval_ro "return redis.call('publish','ch','m')" 0}
    r eval "return redis.call('publish','ch','m')" 0
  } {0}
}
