# What a server propagates: the commands its replication stream (and AOF)
# carries for each kind of write, read through SYNC as a replica reads them
# (support/repl_stream.tcl). Every expectation is Redis 7.0.15's stream:
# relative times as absolute PEXPIREAT / SET ... PXAT, random and blocking
# commands in their exact non-blocking form, expiry and eviction as DEL,
# transactions and scripts as their effects, wrapped in MULTI/EXEC only
# when there is more than one.

source [file join $::support_dir repl_stream.tcl]

# Compares a take with the expected commands (a Tcl list, any layout).
proc assert_stream {got want} {
  assert_equal $got [lrange $want 0 end]
}

proc expired_keys {} {
  info_field [r info stats] expired_keys
}

proc blocked_clients {} {
  info_field [r info clients] blocked_clients
}

# The tests read one stream in order: each starts where the last ended.
start_server {tags {propagation external:skip} overrides {enable-debug-command yes}} {
  if {![repl_stream_supported]} {
    puts "\[skip\]: propagation.tcl (this server has no SYNC: its stream cannot be read)"
    flush stdout
    return
  }
  set s [repl_stream_open]

  test {Writes stream as sent, reads and writes that change nothing do not} {
    r set a 1
    r get a
    r del nokey
    r expire nokey 100
    r set a 2 nx
    r lpush l x y
    assert_equal [repl_stream_take $s] {{SELECT 0} {set a 1} {lpush l x y}}
  }

  test {EXPIRE, PEXPIRE and EXPIREAT stream as PEXPIREAT with an absolute time} {
    r set a 1
    set t0 [clock milliseconds]
    r expire a 100
    r pexpire a 200000 gt
    r expireat a 4000000000
    r pexpireat a 4000000000123
    set t1 [clock milliseconds]
    r expire a 100 gt   ;# condition false: nothing
    set got [repl_stream_take $s]
    assert_equal [llength $got] 5
    assert_equal [lindex $got 0] {set a 1}
    lassign [lindex $got 1] name key when
    assert_equal [list $name $key] {PEXPIREAT a}
    assert_abs_ms $when [expr {$t0 + 100000}] [expr {$t1 + 100000}]
    lassign [lindex $got 2] name key when opt
    assert_equal [list $name $key $opt] {PEXPIREAT a gt}
    assert_abs_ms $when [expr {$t0 + 200000}] [expr {$t1 + 200000}]
    assert_equal [lrange $got 3 end] {{PEXPIREAT a 4000000000000} {pexpireat a 4000000000123}}
  }

  test {An expire time in the past streams as DEL, or UNLINK with lazyfree-lazy-expire} {
    r set a 1
    r expire a -1
    r set b 1
    r pexpireat b 1000
    r config set lazyfree-lazy-expire yes
    r set c 1
    r expireat c 1
    r config set lazyfree-lazy-expire no
    repl_stream_take $s
  } {{set a 1} {DEL a} {set b 1} {DEL b} {set c 1} {UNLINK c}}

  test {SET with EX/PX/EXAT/PXAT, SETEX and PSETEX stream as SET ... PXAT} {
    set t0 [clock milliseconds]
    r set k v ex 100
    r set k v px 100000 nx   ;# not set: nothing
    r set k v2 px 100000 xx get
    r setex k 100 v3
    r psetex k 100000 v4
    set t1 [clock milliseconds]
    r set k v5 exat 4000000000
    r set k v6 pxat 4000000000123
    set got [repl_stream_take $s]
    assert_equal [llength $got] 6
    foreach cmd [lrange $got 0 3] value {v v2 v3 v4} {
      assert_equal [lrange $cmd 0 3] [list SET k $value PXAT]
      assert_equal [llength $cmd] 5
      assert_abs_ms [lindex $cmd 4] [expr {$t0 + 100000}] [expr {$t1 + 100000}]
    }
    assert_equal [lrange $got 4 end] {{SET k v5 PXAT 4000000000000} {SET k v6 PXAT 4000000000123}}
  }

  test {SET ... GET streams without GET, GETSET as SET, GETDEL as DEL} {
    r set k v get
    r set k v2 GET keepttl
    r getset k v3
    r getdel k
    r getdel k   ;# missing: nothing
    r set k v
    r config set lazyfree-lazy-user-del yes
    r getdel k
    r config set lazyfree-lazy-user-del no
    repl_stream_take $s
  } {{set k v} {set k v2 keepttl} {SET k v3} {DEL k} {set k v} {UNLINK k}}

  test {GETEX streams as PEXPIREAT, PERSIST or DEL} {
    r set k v
    set t0 [clock milliseconds]
    r getex k ex 100
    set t1 [clock milliseconds]
    r getex k persist
    r getex k persist   ;# no TTL left: nothing
    r getex k
    r getex k pxat 4000000000123
    r getex k exat 1
    set got [repl_stream_take $s]
    assert_equal [llength $got] 5
    lassign [lindex $got 1] name key when
    assert_equal [list $name $key] {PEXPIREAT k}
    assert_abs_ms $when [expr {$t0 + 100000}] [expr {$t1 + 100000}]
    assert_equal [lreplace $got 1 1] {{set k v} {PERSIST k} {PEXPIREAT k 4000000000123} {DEL k}}
  }

  test {INCRBYFLOAT streams as SET ... KEEPTTL, HINCRBYFLOAT as HSET} {
    r set n 1.5
    r incrbyfloat n 2
    r incrbyfloat n 1e3
    r hincrbyfloat h f 1.5
    r hincrbyfloat h f 0
    r incr i
    repl_stream_take $s
  } {{set n 1.5} {SET n 3.5 KEEPTTL} {SET n 1003.5 KEEPTTL} {HSET h f 1.5} {HSET h f 1.5} {incr i}}

  test {SPOP streams as SREM per member, or DEL when it takes the whole set} {
    r sadd s a b c d e
    set one [r spop s]
    set two [r spop s 2]
    r spop s 0
    r srandmember s
    r srandmember s 2
    set rest [lsort [r spop s 10]]
    r spop nokey
    r sadd s1 x
    r spop s1
    set got [repl_stream_take $s]
    assert_equal [lindex $got 0] {sadd s a b c d e}
    assert_equal [lindex $got 1] [list SREM s $one]
    assert_equal [lrange $got 2 end] [list MULTI [list SREM s [lindex $two 0]] \
                                        [list SREM s [lindex $two 1]] EXEC {DEL s} {sadd s1 x} \
                                        {SREM s1 x}]
    assert_equal [llength $rest] 2
  }

  test {Blocking pops served at once stream as their non-blocking form} {
    r rpush l a b c d e f g
    r blpop l 0
    r brpop l 0
    r blmove l l2 left RIGHT 0
    r brpoplpush l l2 0
    r blmpop 0 1 l left count 2
    r lmpop 1 l right
    r zadd z 1 a 2 b 3 c 4 d 5 e
    r bzpopmin z 0
    r bzpopmax z 0
    r bzmpop 0 1 z min count 5
    r zmpop 1 z max
    r lpop l 5
    r lmove l2 l2 left left
    assert_stream [repl_stream_take $s] {{rpush l a b c d e f g} {LPOP l} {RPOP l} {LMOVE l l2 left RIGHT} {RPOPLPUSH l l2}
     {LPOP l 2} {RPOP l 1} {zadd z 1 a 2 b 3 c 4 d 5 e} {ZPOPMIN z} {ZPOPMAX z} {ZPOPMIN z 3}
     {lpop l 5} {lmove l2 l2 left left}}
  }

  test {Blocking commands served later stream as their non-blocking form} {
    set b [redis_deferring_client]
    foreach {block push} {
      {blpop q1 0}                      {rpush q1 a}
      {brpop q0 q1 0}                   {rpush q1 x}
      {blmove q2 dst right left 0}      {lpush q2 m}
      {brpoplpush q3 dst 0}             {rpush q3 n}
      {blmpop 0 1 q4 right count 3}     {rpush q4 1 2}
      {bzpopmax z1 0}                   {zadd z1 1 a 2 b}
      {bzmpop 0 1 z2 max count 5}       {zadd z2 1 a 2 b}
    } {
      $b {*}$block
      wait_for_condition 100 10 {[blocked_clients] == 1} { fail "not blocked: $block" }
      r {*}$push
      $b read
    }
    $b close
    assert_stream [repl_stream_take $s] {{rpush q1 a} {LPOP q1} {rpush q1 x} {RPOP q1} {lpush q2 m} {LMOVE q2 dst right left} {rpush q3 n}
     {RPOPLPUSH q3 dst} {rpush q4 1 2} {RPOP q4 2} {zadd z1 1 a 2 b} {ZPOPMAX z1}
     {zadd z2 1 a 2 b} {ZPOPMAX z2 2}}
  }

  test {RESTORE with a relative TTL streams with the absolute time and ABSTTL} {
    r set k v
    set payload [r dump k]
    r restore r0 0 $payload
    set t0 [clock milliseconds]
    r restore r1 100000 $payload
    set t1 [clock milliseconds]
    r restore r2 4000000000123 $payload absttl
    r restore r0 1000 $payload absttl replace   ;# already expired: the old key goes
    r restore r3 1000 $payload absttl           ;# already expired: nothing
    set got [repl_stream_take $s]
    assert_equal [llength $got] 5
    assert_equal [lindex $got 1] [list restore r0 0 $payload]
    lassign [lindex $got 2] name key when data abs
    assert_equal [list $name $key $data $abs] [list restore r1 $payload ABSTTL]
    assert_abs_ms $when [expr {$t0 + 100000}] [expr {$t1 + 100000}]
    assert_equal [lrange $got 3 end] [list [list restore r2 4000000000123 $payload absttl] {DEL r0}]
  }

  test {Lazy expiry streams DEL, inside the unit of the command that found the key} {
    r debug set-active-expire 0
    r set e1 v px 1
    r set e2 v px 1
    r set e3 v px 1
    r set e4 v px 1
    after 20
    r get e1
    r set e2 w
    r mget e3 e4
    r debug set-active-expire 1
    set got [repl_stream_take $s]
    assert_stream [lrange $got 4 end] {{DEL e1} MULTI {DEL e2} {set e2 w} EXEC MULTI {DEL e3}
                                      {DEL e4} EXEC}
  }

  test {SCAN and RANDOMKEY stream the keys they expire one by one; in a transaction, wrapped} {
    r flushall
    r debug set-active-expire 0
    # Each round starts on an empty db with two keys already expired.
    set rounds {}
    foreach cmd {{r scan 0 count 100} {r randomkey} {r multi; r scan 0 count 100; r exec}} {
      r set x1 v px 1
      r set x2 v px 1
      after 20
      repl_stream_take $s
      r del propagation:mark   ;# so that RANDOMKEY can draw only x1 and x2
      eval $cmd
      set got [repl_stream_take $s]
      # The two DELs come in the order the keys were met.
      lappend rounds [string map {x1 x x2 x} [lrange $got 1 end]]
    }
    r debug set-active-expire 1
    set rounds
  } {{{DEL x} {DEL x}} {{DEL x} {DEL x}} {MULTI {DEL x} {DEL x} EXEC}}

  test {Expiry streams UNLINK with lazyfree-lazy-expire} {
    r config set lazyfree-lazy-expire yes
    r debug set-active-expire 0
    r set e1 v px 1
    after 20
    r exists e1
    r debug set-active-expire 1
    r config set lazyfree-lazy-expire no
    lrange [repl_stream_take $s] 1 end
  } {{UNLINK e1}}

  test {Active expiry streams one DEL per key} {
    set before [expired_keys]
    r set e1 v px 1
    r set e2 v px 1
    # Nothing touches them: only the cron can expire them.
    wait_for_condition 100 20 {[expired_keys] == $before + 2} { fail "keys did not expire" }
    lsort [lrange [repl_stream_take $s] 2 end]
  } {{DEL e1} {DEL e2}}

  test {Eviction streams one DEL per key, or UNLINK with lazyfree-lazy-eviction} {
    r flushall
    r config set maxmemory-policy allkeys-random
    for {set i 0} {$i < 20} {incr i} { r set ev:$i [string repeat x 1000] }
    r config set maxmemory 1
    r config set maxmemory 0
    set got [repl_stream_take $s]
    assert_equal [r dbsize] 1   ;# the marker
    assert_equal [llength $got] 41
    set dels [lsort [lrange $got 21 end]]
    set want {}
    for {set i 0} {$i < 20} {incr i} { lappend want [list DEL ev:$i] }
    assert_equal $dels [lsort $want]
    r set ev v
    r config set lazyfree-lazy-eviction yes
    r config set maxmemory 1
    r config set maxmemory 0
    r config set lazyfree-lazy-eviction no
    r config set maxmemory-policy noeviction
    set got [repl_stream_take $s]
    assert_equal [lindex $got 0] {set ev v}
    assert_equal [lsort [lrange $got 1 end]] {{UNLINK ev} {UNLINK propagation:mark}}
  }

  test {FLUSHALL, FLUSHDB, SWAPDB, MOVE and COPY stream as sent, with SELECT} {
    r flushall
    r flushdb async
    r set x 1
    r copy x y
    r copy x z db 2 replace
    r move x 3
    r select 3
    r set k3 v
    r swapdb 3 4
    r select 0
    assert_stream [repl_stream_take $s] {flushall {flushdb async} {set x 1} {copy x y} {copy x z db 2 replace} {move x 3} {SELECT 3}
     {set k3 v} {swapdb 3 4}}
  }

  test {MULTI/EXEC: one write streams bare, several wrapped, none nothing} {
    r multi
    r set a 1
    r get a
    r exec
    r multi
    r set a 2
    r incr a
    r exec
    r multi
    r get a
    r exec
    r multi
    r exec
    r multi
    r set a 3
    r select 5
    r set b 1
    r select 0
    r exec
    repl_stream_take $s
  } {{set a 1} MULTI {set a 2} {incr a} EXEC MULTI {set a 3} {SELECT 5} {set b 1} EXEC}

  test {Scripts stream their effects: bare when one, wrapped when several} {
    r eval {return 1} 0
    r eval {return redis.call('get', 'a')} 0
    r eval {redis.call('set', KEYS[1], 'x')} 1 a
    r eval {redis.call('set', 'a', 'y'); redis.call('incr', 'cnt'); return 1} 0
    r eval {redis.call('set', 't', 'v', 'ex', 100); redis.call('spop', 'nokey'); redis.call('incrbyfloat', 'f', '1.5')} 0
    r eval {redis.call('select', 6); redis.call('set', 'in6', 'v'); redis.call('set', 'in6b', 'v')} 0
    set got [repl_stream_take $s]
    assert_equal [lrange $got 0 3] {{set a x} MULTI {set a y} {incr cnt}}
    assert_equal [lindex $got 4] EXEC
    assert_equal [lindex $got 5] MULTI
    assert_equal [lrange [lindex $got 6] 0 3] {SET t v PXAT}
    assert_stream [lrange $got 7 end] {{SET f 1.5 KEEPTTL} EXEC {SELECT 6} MULTI {set in6 v}
                                      {set in6b v} EXEC}
  }

  test {SCRIPT LOAD and FLUSH stream nothing; EVALSHA streams effects; set_repl picks targets} {
    set sha [r script load {redis.call('set', 'sha', 'v')}]
    r evalsha $sha 0
    r script flush
    r eval {redis.set_repl(redis.REPL_NONE); redis.call('set', 'none', 'v')} 0
    r eval {redis.set_repl(redis.REPL_AOF); redis.call('set', 'aof', 'v')} 0
    r eval {redis.set_repl(redis.REPL_REPLICA); redis.call('set', 'replica', 'v')} 0
    r eval {redis.call('set', 'all', 'v')} 0
    repl_stream_take $s
  } {{set sha v} {set replica v} {set all v}}

  test {FUNCTION LOAD/DELETE/FLUSH/RESTORE stream as sent, FCALL as its effects} {
    set code "#!lua name=plib\nredis.register_function('pf', function(keys, args) return redis.call('set', keys\[1\], args\[1\]) end)"
    r function load $code
    r fcall pf 1 fk fv
    set dump [r function dump]
    r function delete plib
    r function restore $dump
    r function flush async
    r function flush
    assert_equal [repl_stream_take $s] [list [list function load $code] {set fk fv} \
                                          {function delete plib} [list function restore $dump] \
                                          {function flush async} {function flush}]
  }

  test {PUBLISH and SPUBLISH reach replicas} {
    r publish ch hello
    r spublish ch hello
    repl_stream_take $s
  } {{publish ch hello} {spublish ch hello}}

  repl_stream_close $s
}
