# MULTI / EXEC / DISCARD / WATCH / UNWATCH with Redis 7.0's replies: queuing,
# EXECABORT after queuing errors, run-time errors in place, WATCH broken by
# writes, expiry, FLUSHDB / FLUSHALL / SWAPDB, and the client's state in
# CLIENT LIST and INFO commandstats.

# The raw first line of the reply to EXEC on client $c (after the caller
# has queued the transaction), e.g. "*-1" or "_".
proc raw_exec {c} {
  $c readraw 1
  set line [$c exec]
  $c readraw 0
  return $line
}

start_server {tags {multi}} {
  test {MULTI queues commands and EXEC returns every reply} {
    r del a b
    set replies [list [r multi] [r set a 1] [r incr a] [r get a] [r set b x]]
    list $replies [r exec]
  } {{OK QUEUED QUEUED QUEUED QUEUED} {OK 2 2 OK}}

  test {EXEC of an empty transaction is an empty array} {
    r multi
    r exec
  } {}

  test {DISCARD drops the queue} {
    r set a 1
    r multi
    r incr a
    list [r discard] [r get a]
  } {OK 1}

  test {EXEC and DISCARD without MULTI} {
    assert_error {ERR EXEC without MULTI} {r exec}
    assert_error {ERR DISCARD without MULTI} {r discard}
  }

  test {Nested MULTI is refused and does not abort the transaction} {
    r set a 1
    r multi
    assert_error {ERR MULTI calls can not be nested} {r multi}
    r incr a
    r exec
  } {2}

  test {WATCH inside MULTI is refused and does not abort the transaction} {
    r multi
    assert_error {ERR WATCH inside MULTI is not allowed} {r watch a}
    r ping
    r exec
  } {PONG}

  test {An unknown command while queuing aborts EXEC} {
    r set a 1
    r multi
    assert_error {ERR unknown command 'nosuchcommand', with args beginning with: 'x' } \
      {r nosuchcommand x}
    r incr a
    assert_error {EXECABORT Transaction discarded because of previous errors.} {r exec}
    r get a
  } {1}

  test {A wrong arity while queuing aborts EXEC} {
    r set a 1
    r multi
    assert_error {ERR wrong number of arguments for 'set' command} {r set a}
    r incr a
    assert_error {EXECABORT*} {r exec}
    # The client is out of MULTI afterwards.
    list [r get a] [catch {r exec} e] $e
  } {1 1 {ERR EXEC without MULTI}}

  test {An unknown subcommand while queuing aborts EXEC} {
    r multi
    assert_error {ERR unknown subcommand 'nosuch'. Try CLIENT HELP.} {r client nosuch}
    assert_error {EXECABORT*} {r exec}
  }

  test {A command flagged no-multi (SHUTDOWN) is refused while queuing and aborts EXEC} {
    r multi
    assert_error {ERR Command not allowed inside a transaction} {r shutdown}
    assert_error {EXECABORT*} {r exec}
    r ping
  } {PONG}

  test {Run-time errors inside EXEC are returned in place} {
    r del a
    r set s abc
    r multi
    r set a 1
    r incr s
    r incr a
    r get a
    set res [r exec]
    assert_equal [lindex $res 0] OK
    assert_match {ERR value is not an integer or out of range} [lindex $res 1]
    lrange $res 2 end
  } {2 2}

  test {EXEC replies are exact on the wire (RESP2)} {
    set c [redis_client]
    $c set s abc
    $c multi
    $c incr s
    $c ping
    $c readraw 1
    set lines {}
    lappend lines [$c exec] [$c read] [$c read]
    $c readraw 0
    $c close
    set lines
  } {*2 {-ERR value is not an integer or out of range} +PONG}

  test {SELECT inside MULTI applies to the commands after it} {
    r select 9
    r del k
    r select 0
    r set k zero
    r multi
    r select 9
    r set k nine
    r get k
    set res [r exec]
    set nine [r get k]
    r select 0
    list $res $nine [r get k]
  } {{OK OK nine} nine zero}

  test {Queued commands count in INFO commandstats when EXEC runs them} {
    r config resetstat
    r multi
    r set a 1
    r get a
    r get a
    set before [r info commandstats]
    r exec
    set after [r info commandstats]
    assert_no_match {*cmdstat_get:*} $before
    assert_match {*cmdstat_get:calls=2,*} $after
    assert_match {*cmdstat_set:calls=1,*} $after
    assert_match {*cmdstat_multi:calls=1,*} $after
    assert_match {*cmdstat_exec:calls=1,*} $after
  }

  test {A queuing error counts as a rejected call} {
    r config resetstat
    r multi
    catch {r set a}
    catch {r exec}
    assert_match {*cmdstat_set:calls=0,*rejected_calls=1,failed_calls=0*} [r info commandstats]
  }

  test {CLIENT LIST shows flags=x and multi=N while queuing} {
    set c [redis_client]
    $c client setname txclient
    set idle [$c client info]
    $c multi
    $c set a 1
    $c get a
    set line {}
    foreach l [split [r client list] "\n"] {
      if {[string match {*name=txclient *} $l]} { set line $l }
    }
    $c discard
    set after [$c client info]
    $c close
    assert_match {*flags=N *multi=-1 *} $idle
    assert_match {*flags=x *multi=2 *cmd=get *} $line
    assert_match {*flags=N *multi=-1 *} $after
  }

  test {RESET leaves MULTI} {
    set c [redis_client]
    $c multi
    $c set a 1
    assert_equal RESET [$c reset]
    assert_error {ERR EXEC without MULTI} {$c exec}
    $c close
  }
}

start_server {tags {multi watch}} {
  test {EXEC fails (null) when a watched key is modified by another client} {
    r set x 1
    r watch x
    set c [redis_client]
    $c set x 2
    $c close
    r multi
    r ping
    raw_exec r
  } {*-1}

  test {EXEC answers _ in RESP3 when a watched key changed} {
    set c [redis_client]
    $c hello 3
    $c set x 1
    $c watch x
    r set x 3
    $c multi
    $c ping
    set line [raw_exec $c]
    $c close
    set line
  } {_}

  test {EXEC succeeds when the watched key did not change} {
    r set x 1
    r watch x
    r multi
    r incr x
    r exec
  } {2}

  test {A write by the watching client itself before MULTI breaks the WATCH} {
    r set x 1
    r watch x
    r set x 2
    r multi
    r ping
    r exec
  } {}

  test {WATCH of a missing key is broken when the key is created} {
    r del x
    r watch x
    set c [redis_client]
    $c set x new
    $c close
    r multi
    r ping
    r exec
  } {}

  test {Deleting a missing watched key is no change} {
    r del x
    r watch x
    set c [redis_client]
    assert_equal 0 [$c del x]
    $c close
    r multi
    r ping
    r exec
  } {PONG}

  test {UNWATCH forgets the keys} {
    r set x 1
    r watch x
    r unwatch
    r set x 2
    r multi
    r ping
    r exec
  } {PONG}

  test {EXEC unwatches: the next transaction is not affected} {
    r set x 1
    r watch x
    r multi
    r ping
    r exec
    r set x 2
    r multi
    r ping
    r exec
  } {PONG}

  test {A failed EXEC unwatches too} {
    r set x 1
    r watch x
    r set x 2
    r multi
    r exec
    r set x 3
    r multi
    r ping
    r exec
  } {PONG}

  test {WATCH of several keys: a change to any one breaks it} {
    r mset a 1 b 2 c 3
    r watch a b c
    r set c 4
    r multi
    r ping
    r exec
  } {}

  test {The same key name in another db is another key} {
    r set x 1
    r watch x
    r select 5
    r set x 2
    r select 0
    r multi
    r ping
    r exec
  } {PONG}

  test {WATCH in another db follows that db} {
    r select 5
    r set y 1
    r watch y
    r select 0
    set c [redis_client]
    $c select 5
    $c set y 2
    $c close
    r multi
    r ping
    r exec
  } {}

  test {CLIENT LIST flags=d once a watched key changed} {
    r set x 1
    r watch x
    r set x 2
    set info [r client info]
    r unwatch
    list [string match {*flags=d *} $info] [string match {*flags=N *} [r client info]]
  } {1 1}

  test {EXEC fails when a watched key expired before EXEC} {
    # The key may be deleted by active expiry or found expired at EXEC:
    # both must fail the transaction.
    r del x
    r set x 1 px 50
    r watch x
    after 120
    r multi
    r incr x
    r exec
  } {}

  test {EXEC fails when a watched key expires and is deleted lazily} {
    r set x 1 px 50
    r watch x
    after 120
    # EXISTS deletes the expired key.
    assert_equal 0 [r exists x]
    r multi
    r ping
    r exec
  } {}

  test {WATCH of an already expired key does not fail EXEC} {
    for {set i 0} {$i < 5} {incr i} {
      r set x foo px 1
      after 3
      r watch x
      r multi
      r ping
      assert_equal {PONG} [r exec]
    }
  }

  test {Deleting a watched key that was already expired does not fail EXEC} {
    r set x foo px 1
    after 3
    r watch x
    assert_equal 0 [r exists x]
    r multi
    r ping
    r exec
  } {PONG}

  test {EXPIRE on a watched key breaks the WATCH} {
    r set x 1
    r watch x
    r expire x 100
    r multi
    r ping
    r exec
  } {}

  test {FLUSHDB touches a watched key that exists} {
    r set x 1
    r watch x
    r flushdb
    r multi
    r ping
    r exec
  } {}

  test {FLUSHALL touches a watched key that exists} {
    r set x 1
    r watch x
    r flushall
    r multi
    r ping
    r exec
  } {}

  test {FLUSHALL does not touch a watched key that does not exist} {
    r del x
    r watch x
    r flushall
    r multi
    r ping
    r exec
  } {PONG}

  test {FLUSHDB while watching an already expired key does not fail EXEC} {
    r set x foo px 1
    after 3
    r watch x
    r flushdb
    r multi
    r ping
    r exec
  } {PONG}

  test {SWAPDB touches a watched key that exists} {
    r flushall
    r set x 1
    r watch x
    r swapdb 0 1
    r multi
    r ping
    set res [r exec]
    r swapdb 0 1
    set res
  } {}

  test {SWAPDB touches a watched missing key that the other db has} {
    r flushall
    r select 1
    r set x 1
    r select 0
    r watch x
    r swapdb 0 1
    r multi
    r ping
    set res [r exec]
    r flushall
    set res
  } {}

  test {SWAPDB does not touch a watched key missing in both dbs} {
    r flushall
    r watch x
    r swapdb 0 1
    r multi
    r ping
    r exec
  } {PONG}

  test {SWAPDB does not touch a watched key that was already expired} {
    r flushall
    r set x foo px 1
    after 3
    r watch x
    r swapdb 0 1
    r multi
    r ping
    r exec
  } {PONG}

  test {SWAPDB does not touch an expired watched key replaced by another expired key} {
    r flushall
    r set x foo px 1
    r select 1
    r set x bar px 1
    r select 0
    after 3
    r watch x
    r swapdb 0 1
    r multi
    r ping
    set res [r exec]
    r flushall
    set res
  } {PONG}

  test {SWAPDB does not touch a missing watched key replaced by an expired key} {
    r flushall
    r select 1
    r set x bar px 1
    r select 0
    after 3
    r watch x
    r swapdb 0 1
    r multi
    r ping
    set res [r exec]
    r flushall
    set res
  } {PONG}

  test {A client that closes while watching leaves no trace} {
    set c [redis_client]
    $c watch x y z
    $c multi
    $c set x 1
    $c close
    wait_for_condition 500 20 {[llength [split [string trim [r client list]] "\n"]] == 1} {
      fail "client did not go"
    }
    r set x 2
    r set y 2
    r ping
  } {PONG}

  test {RESET unwatches} {
    set c [redis_client]
    $c set x 1
    $c watch x
    $c reset
    r set x 2
    $c multi
    $c ping
    set res [$c exec]
    $c close
    set res
  } {PONG}
}

start_server {tags {multi}} {
  # Random transactions on a few counters against a Tcl model. Each round
  # may WATCH keys, may let a second client write one of them (before or
  # after MULTI), may put a bad command in the queue; the model predicts
  # EXEC's reply and every key afterwards.
  test {Randomized transactions against a model} {
    set seed 20240611
    expr {srand($seed)}
    set other [redis_client]
    r flushall
    array set model {}
    set keys {k0 k1 k2 k3}
    foreach k $keys { set model($k) 0; r set $k 0 }
    for {set round 0} {$round < 1500} {incr round} {
      set watched {}
      if {rand() < 0.5} {
        set watched [lrange [lsort -command {apply {{a b} {expr {rand() < 0.5 ? -1 : 1}}}} $keys] 0 [expr {int(rand()*3)}]]
        r watch {*}$watched
      }
      set touched ""
      if {rand() < 0.3} {
        set touched [lindex $keys [expr {int(rand()*4)}]]
        $other incrby $touched 100
        incr model($touched) 100
      }
      r multi
      set ops {}
      set bad 0
      set n [expr {int(rand()*5)}]
      for {set i 0} {$i < $n} {incr i} {
        set k [lindex $keys [expr {int(rand()*4)}]]
        set by [expr {int(rand()*10) - 5}]
        lappend ops $k $by
        assert_equal QUEUED [r incrby $k $by]
      }
      if {rand() < 0.1} {
        catch {r incrby}
        set bad 1
      }
      set aborted [expr {$touched ne "" && $touched in $watched}]
      if {$bad} {
        if {[catch {r exec} err] == 0 || ![string match EXECABORT* $err]} {
          fail "round $round (seed $seed): expected EXECABORT, got $err"
        }
        continue
      }
      set res [r exec]
      if {$aborted} {
        if {$res ne ""} { fail "round $round (seed $seed): expected null, got $res" }
        continue
      }
      set expect {}
      foreach {k by} $ops {
        incr model($k) $by
        lappend expect $model($k)
      }
      if {$res ne $expect} { fail "round $round (seed $seed): EXEC gave {$res}, model {$expect}" }
    }
    $other close
    foreach k $keys {
      if {[r get $k] != $model($k)} { fail "key $k: server [r get $k], model $model($k) (seed $seed)" }
    }
  }
}

start_server {tags {multi}} {
  test {EXEC goes by its queue: writes queued before min-replicas-to-write became unmet abort} {
    r set xx 1
    r multi
    r incr xx
    set other [redis_client]
    $other config set min-replicas-to-write 2
    assert_error {EXECABORT Transaction discarded because of: NOREPLICAS *} {r exec}
    # A queue of reads still runs.
    r multi
    r get xx
    set got [r exec]
    $other config set min-replicas-to-write 0
    $other close
    list $got [r get xx]
  } {1 1}

  test {EXEC on a replica whose link went down (replica-serve-stale-data no): EXECABORT MASTERDOWN} {
    r multi
    r get xx
    set other [redis_client]
    $other config set replica-serve-stale-data no
    $other replicaof 127.0.0.1 [find_free_port]
    set e [catch {r exec} err]
    $other replicaof no one
    $other config set replica-serve-stale-data yes
    $other close
    list $e $err
  } {1 {EXECABORT Transaction discarded because of: MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.}}
}

start_server {tags {multi external:skip}} {
  # Forks are not made in the middle of a transaction: they are scheduled
  # and the cron starts them after EXEC (Redis 7.0's in_exec rule).
  proc wait_forks_above {n} {
    wait_for_condition 100 100 {[info_field [r info stats] total_forks] > $n} {
      fail "the scheduled fork never started"
    }
    wait_for_condition 100 100 {
      [info_field [r info persistence] rdb_bgsave_in_progress] == 0 &&
      [info_field [r info persistence] aof_rewrite_in_progress] == 0
    } { fail "the child never ended" }
  }

  test {BGSAVE and BGREWRITEAOF inside MULTI are scheduled, and run after EXEC} {
    set forks [info_field [r info stats] total_forks]
    r multi
    r set k v
    r bgsave
    set res [r exec]
    wait_forks_above $forks
    set forks [info_field [r info stats] total_forks]
    r multi
    r bgrewriteaof
    lappend res {*}[r exec]
    wait_forks_above $forks
    set res
  } {OK {Background saving scheduled} {Background append only file rewriting scheduled}}

  test {CONFIG SET appendonly yes inside MULTI schedules the AOF's first rewrite} {
    set forks [info_field [r info stats] total_forks]
    r multi
    r config set appendonly yes
    r exec
    wait_forks_above $forks
    assert_match "*AOF was enabled during a transaction*" [read_file [srv stdout]]
    r config set appendonly no
  } {OK}
}
