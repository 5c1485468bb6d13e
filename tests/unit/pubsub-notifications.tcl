# Keyspace notifications (notify-keyspace-events): the flag string as
# CONFIG GET shows it, the event each command publishes (names, order, db,
# the "new", "keymiss" and "expired" classes), class filtering, K and E
# channels, RESP3 push delivery and delivery over the Unix socket. Every
# expectation was recorded from Redis 7.0.15.

# A deferring client subscribed to every keyspace and keyevent channel.
proc keyspace_listener {{resp 2}} {
  set rd [redis_deferring_client]
  if {$resp == 3} {
    $rd hello 3
    $rd read
  }
  $rd psubscribe __key*__:*
  $rd read
  return $rd
}

# Reads the messages up to the marker PUBLISHed after the command under
# test (the pattern matches the marker channel too) and returns them as
# {channel message} pairs.
proc keyspace_collect {rd} {
  r publish __keyevent@0__:zz-marker done
  set out {}
  while 1 {
    set m [$rd read]
    if {[lindex $m 2] eq "__keyevent@0__:zz-marker"} break
    lappend out [lrange $m 2 3]
  }
  return $out
}

# The {channel message} pairs Redis publishes for events {db event key}:
# the keyspace message, then the keyevent one.
proc keyspace_expected {events} {
  set out {}
  foreach e $events {
    lassign $e db ev key
    lappend out [list __keyspace@${db}__:$key $ev] [list __keyevent@${db}__:$ev $key]
  }
  return $out
}

# Each case: setup commands (run with notifications off), the command, the
# events it publishes with "KEAn" ({db event key}, in order).
set ::keyspace_cases {
  {{} {SET k v} {{0 new k} {0 set k}}}
  {{{set k v}} {SET k v2} {{0 set k}}}
  {{} {SET k v EX 100} {{0 new k} {0 set k} {0 expire k}}}
  {{{set k v}} {SET k v GET} {{0 set k}}}
  {{} {SETNX k v} {{0 new k} {0 set k}}}
  {{{set k v}} {SETNX k v} {}}
  {{} {SETEX k 100 v} {{0 new k} {0 set k} {0 expire k}}}
  {{} {PSETEX k 100000 v} {{0 new k} {0 set k} {0 expire k}}}
  {{} {GETSET k v} {{0 new k} {0 set k}}}
  {{{set k v}} {GETDEL k} {{0 del k}}}
  {{{set k v}} {GETEX k EX 100} {{0 expire k}}}
  {{{set k v ex 100}} {GETEX k PERSIST} {{0 persist k}}}
  {{{set k v}} {GETEX k PXAT 1} {{0 del k}}}
  {{{set k v}} {GETEX k} {}}
  {{} {MSET a 1 b 2} {{0 new a} {0 set a} {0 new b} {0 set b}}}
  {{} {MSETNX a 1 b 2} {{0 new a} {0 set a} {0 new b} {0 set b}}}
  {{} {INCR k} {{0 new k} {0 incrby k}}}
  {{} {DECR k} {{0 new k} {0 incrby k}}}
  {{} {INCRBY k 5} {{0 new k} {0 incrby k}}}
  {{} {DECRBY k 5} {{0 new k} {0 incrby k}}}
  {{} {INCRBYFLOAT k 1.5} {{0 new k} {0 incrbyfloat k}}}
  {{} {APPEND k abc} {{0 new k} {0 append k}}}
  {{} {SETRANGE k 2 abc} {{0 new k} {0 setrange k}}}
  {{{set k abc}} {SETRANGE k 0 {}} {}}
  {{} {SETBIT k 7 1} {{0 new k} {0 setbit k}}}
  {{{set k a}} {SETBIT k 1 1} {}}
  {{} {BITFIELD k SET u8 0 255} {{0 new k} {0 setbit k}}}
  {{{set k a}} {BITFIELD k GET u8 0} {}}
  {{{set a x} {set b y}} {BITOP AND d a b} {{0 new d} {0 set d}}}
  {{} {BITOP AND d a b} {}}
  {{{set d x}} {BITOP AND d a b} {{0 del d}}}
  {{} {PFADD h a b c} {{0 new h} {0 pfadd h}}}
  {{{pfadd h a}} {PFADD h a} {}}
  {{{pfadd h a} {pfadd g b}} {PFMERGE d h g} {{0 new d} {0 pfadd d}}}
  {{{pfadd h a}} {PFCOUNT h} {}}
  {{{set k v}} {DEL k nokey} {{0 del k}}}
  {{{set k v}} {UNLINK k} {{0 del k}}}
  {{{set k v}} {RENAME k j} {{0 new j} {0 rename_from k} {0 rename_to j}}}
  {{{set k v} {set j w}} {RENAME k j} {{0 new j} {0 rename_from k} {0 rename_to j}}}
  {{{set k v}} {RENAMENX k j} {{0 new j} {0 rename_from k} {0 rename_to j}}}
  {{{set k v} {set j w}} {RENAMENX k j} {}}
  {{{set k v}} {RENAME k k} {}}
  {{{set k v}} {MOVE k 1} {{1 new k} {0 move_from k} {1 move_to k}}}
  {{{set k v}} {COPY k j} {{0 new j} {0 copy_to j}}}
  {{{set k v} {set j w}} {COPY k j REPLACE} {{0 new j} {0 copy_to j}}}
  {{{set k v}} {COPY k j DB 1} {{1 new j} {1 copy_to j}}}
  {{{set k v}} {EXPIRE k 100} {{0 expire k}}}
  {{{set k v}} {PEXPIRE k 100000} {{0 expire k}}}
  {{{set k v}} {EXPIREAT k 99999999999} {{0 expire k}}}
  {{{set k v}} {PEXPIREAT k 99999999999999} {{0 expire k}}}
  {{{set k v}} {EXPIRE k -1} {{0 del k}}}
  {{{set k v}} {EXPIREAT k 1} {{0 del k}}}
  {{{set k v} {expire k 100}} {PERSIST k} {{0 persist k}}}
  {{{set k v}} {PERSIST k} {}}
  {{{set k v}} {EXPIRE k 100 XX} {}}
  {{{set k v}} {FLUSHDB} {}}
  {{{set k v}} {FLUSHALL} {}}
  {{{set k v}} {SWAPDB 0 1} {}}
  {{{set k v}} {TOUCH k} {}}
  {{} {LPUSH l a b} {{0 new l} {0 lpush l}}}
  {{} {RPUSH l a b} {{0 new l} {0 rpush l}}}
  {{{rpush l a}} {LPUSHX l b} {{0 lpush l}}}
  {{{rpush l a}} {RPUSHX l b} {{0 rpush l}}}
  {{} {LPUSHX l b} {}}
  {{{rpush l a b}} {LPOP l} {{0 lpop l}}}
  {{{rpush l a}} {LPOP l} {{0 lpop l} {0 del l}}}
  {{{rpush l a b c}} {RPOP l 2} {{0 rpop l}}}
  {{{rpush l a b c}} {RPOP l 5} {{0 rpop l} {0 del l}}}
  {{{rpush l a b}} {LSET l 0 x} {{0 lset l}}}
  {{{rpush l a b}} {LINSERT l BEFORE a x} {{0 linsert l}}}
  {{{rpush l a b}} {LINSERT l BEFORE z x} {}}
  {{{rpush l a b a}} {LREM l 0 a} {{0 lrem l}}}
  {{{rpush l a a}} {LREM l 0 a} {{0 lrem l} {0 del l}}}
  {{{rpush l a b c}} {LTRIM l 0 1} {{0 ltrim l}}}
  {{{rpush l a b c}} {LTRIM l 5 10} {{0 ltrim l} {0 del l}}}
  {{{rpush l a b c}} {LTRIM l 0 -1} {{0 ltrim l}}}
  {{{rpush l a b}} {LMOVE l m LEFT RIGHT} {{0 new m} {0 rpush m} {0 lpop l}}}
  {{{rpush l a}} {LMOVE l m LEFT RIGHT} {{0 new m} {0 rpush m} {0 lpop l} {0 del l}}}
  {{{rpush l a b}} {LMOVE l l LEFT RIGHT} {{0 rpush l} {0 lpop l}}}
  {{{rpush l a b}} {RPOPLPUSH l m} {{0 new m} {0 lpush m} {0 rpop l}}}
  {{{rpush l a b}} {LMPOP 1 l LEFT COUNT 1} {{0 lpop l}}}
  {{{rpush l a b}} {BLPOP l 0} {{0 lpop l}}}
  {{{rpush l a}} {BRPOP l 0} {{0 rpop l} {0 del l}}}
  {{{rpush l a b}} {BLMOVE l m LEFT LEFT 0} {{0 new m} {0 lpush m} {0 lpop l}}}
  {{{rpush l a b}} {BRPOPLPUSH l m 0} {{0 new m} {0 lpush m} {0 rpop l}}}
  {{{rpush l a b}} {BLMPOP 0 1 l RIGHT COUNT 5} {{0 rpop l} {0 del l}}}
  {{} {SADD s a b} {{0 new s} {0 sadd s}}}
  {{{sadd s a}} {SADD s a} {}}
  {{{sadd s a b}} {SREM s a} {{0 srem s}}}
  {{{sadd s a}} {SREM s a} {{0 srem s} {0 del s}}}
  {{{sadd s a b c}} {SPOP s} {{0 spop s}}}
  {{{sadd s a}} {SPOP s} {{0 spop s} {0 del s}}}
  {{{sadd s a b c}} {SPOP s 2} {{0 spop s}}}
  {{{sadd s a b c}} {SPOP s 5} {{0 spop s} {0 del s}}}
  {{{sadd s a b}} {SMOVE s t a} {{0 srem s} {0 new t} {0 sadd t}}}
  {{{sadd s a}} {SMOVE s t a} {{0 srem s} {0 del s} {0 new t} {0 sadd t}}}
  {{{sadd s a} {sadd t b}} {SINTERSTORE d s t} {}}
  {{{sadd s a} {sadd t a}} {SINTERSTORE d s t} {{0 new d} {0 sinterstore d}}}
  {{{sadd s a} {sadd t b}} {SUNIONSTORE d s t} {{0 new d} {0 sunionstore d}}}
  {{{sadd s a} {sadd t a}} {SDIFFSTORE d s t} {}}
  {{{sadd s a} {set d x} {sadd t a}} {SDIFFSTORE d s t} {{0 del d}}}
  {{} {SDIFFSTORE d s t} {}}
  {{} {HSET h a 1 b 2} {{0 new h} {0 hset h}}}
  {{} {HMSET h a 1} {{0 new h} {0 hset h}}}
  {{} {HSETNX h a 1} {{0 new h} {0 hset h}}}
  {{{hset h a 1}} {HSETNX h a 1} {}}
  {{{hset h a 1 b 2}} {HDEL h a} {{0 hdel h}}}
  {{{hset h a 1}} {HDEL h a} {{0 hdel h} {0 del h}}}
  {{} {HINCRBY h a 1} {{0 new h} {0 hincrby h}}}
  {{} {HINCRBYFLOAT h a 1.5} {{0 new h} {0 hincrbyfloat h}}}
  {{} {ZADD z 1 a 2 b} {{0 new z} {0 zadd z}}}
  {{{zadd z 1 a}} {ZADD z 1 a} {}}
  {{{zadd z 1 a}} {ZADD z 2 a} {{0 zadd z}}}
  {{{zadd z 1 a}} {ZADD z INCR 2 a} {{0 zincr z}}}
  {{} {ZINCRBY z 1 a} {{0 new z} {0 zincr z}}}
  {{{zadd z 1 a 2 b}} {ZREM z a} {{0 zrem z}}}
  {{{zadd z 1 a}} {ZREM z a} {{0 zrem z} {0 del z}}}
  {{{zadd z 1 a 2 b 3 c}} {ZREMRANGEBYSCORE z 1 2} {{0 zremrangebyscore z}}}
  {{{zadd z 1 a 2 b 3 c}} {ZREMRANGEBYRANK z 0 0} {{0 zremrangebyrank z}}}
  {{{zadd z 1 a 2 b 3 c}} {ZREMRANGEBYLEX z - +} {{0 zremrangebylex z} {0 del z}}}
  {{{zadd z 1 a 2 b}} {ZPOPMIN z} {{0 zpopmin z}}}
  {{{zadd z 1 a 2 b}} {ZPOPMAX z 5} {{0 zpopmax z} {0 del z}}}
  {{{zadd z 1 a 2 b}} {BZPOPMIN z 0} {{0 zpopmin z}}}
  {{{zadd z 1 a 2 b}} {BZPOPMAX z 0} {{0 zpopmax z}}}
  {{{zadd z 1 a 2 b}} {ZMPOP 1 z MIN} {{0 zpopmin z}}}
  {{{zadd z 1 a 2 b}} {BZMPOP 0 1 z MAX COUNT 2} {{0 zpopmax z} {0 del z}}}
  {{{zadd z 1 a} {zadd y 2 a}} {ZUNIONSTORE d 2 z y} {{0 new d} {0 zunionstore d}}}
  {{{zadd z 1 a} {zadd y 2 b}} {ZINTERSTORE d 2 z y} {}}
  {{{zadd z 1 a} {zadd y 2 b}} {ZDIFFSTORE d 2 z y} {{0 new d} {0 zdiffstore d}}}
  {{{set d x} {zadd z 1 a} {zadd y 2 a}} {ZINTERSTORE d 2 z y} {{0 zinterstore d}}}
  {{{zadd z 1 a 2 b}} {ZRANGESTORE d z 0 -1} {{0 new d} {0 zrangestore d}}}
  {{{zadd z 1 a 2 b}} {ZRANGESTORE d z 5 6} {}}
  {{{set d x} {zadd z 1 a 2 b}} {ZRANGESTORE d z 5 6} {{0 del d}}}
  {{{rpush l 3 1 2}} {SORT l STORE d} {{0 new d} {0 sortstore d}}}
  {{{rpush l 3 1 2}} {SORT l} {}}
  {{{set d x}} {SORT nol STORE d} {{0 del d}}}
  {{} {SORT nol STORE d} {}}
  {{{set k v}} {GET nokey} {}}
  {{{set k v}} {SET k w KEEPTTL} {{0 set k}}}
  {{} {SET k v NX GET} {{0 new k} {0 set k}}}
  {{{set k v ex 1}} {SET k v XX EX 100} {{0 set k} {0 expire k}}}
  {{{set k v}} {MSETNX k 1 b 2} {}}
  {{{sadd s a} {set d 1} {sadd t b}} {SINTERSTORE d s t} {{0 del d}}}
  {{{set d x} {sadd s a} {sadd t b}} {SUNIONSTORE d s t} {{0 sunionstore d}}}
  {{{sadd s a b}} {SMOVE s s a} {}}
  {{{sadd s a b} {sadd t a}} {SMOVE s t a} {{0 srem s}}}
  {{{zadd z 1 a}} {ZADD z XX CH 1 a} {}}
  {{{zadd z 1 a}} {ZADD z GT 0 a} {}}
  {{{zadd z 1 a}} {ZINCRBY z 0 a} {}}
  {{{hset h a 1}} {HSET h a 1} {{0 hset h}}}
  {{{rpush l a}} {LPUSH l a} {{0 lpush l}}}
  {{{set k 1}} {INCRBY k 0} {{0 incrby k}}}
  {{{set k v}} {APPEND k {}} {{0 append k}}}
  {{{set k v}} {SETRANGE k 0 v} {{0 setrange k}}}
  {{{pfadd h a}} {PFADD h} {}}
  {{} {PFADD h} {{0 new h} {0 pfadd h}}}
  {{{set a x} {set b y}} {BITOP NOT d a} {{0 new d} {0 set d}}}
  {{{rpush l a b}} {LMPOP 1 l RIGHT COUNT 5} {{0 rpop l} {0 del l}}}
  {{{set k v} {expire k 100}} {EXPIRE k 200 GT} {{0 expire k}}}
  {{{set k v}} {GETEX k EXAT 99999999999} {{0 expire k}}}
  {{{set k v}} {MOVE k 0} {}}
  {{{set k v} {select 1} {set k w} {select 0}} {MOVE k 1} {}}
}

start_server {tags {pubsub notifications}} {
  r select 0
  set saved [lindex [r config get notify-keyspace-events] 1]

  test {notify-keyspace-events: CONFIG GET shows the canonical flag string} {
    set out {}
    foreach v {{} K E KEA A An AKE gKE {g$lshzxetdKEmn} KEm KEd AKEmn n x lz} {
      r config set notify-keyspace-events $v
      lappend out [lindex [r config get notify-keyspace-events] 1]
    }
    r config set notify-keyspace-events $saved
    set out
  } {{} K E AKE A A AKE gKE AKEm KEm dKE AKEm n x lz}

  test {notify-keyspace-events: an unknown class character is refused} {
    r config set notify-keyspace-events KEg
    catch {r config set notify-keyspace-events KEQ} err
    list $err [lindex [r config get notify-keyspace-events] 1]
  } {{ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid event class character. Use 'Ag$lshzxeKEtmdn'.} gKE}

  test {Every write command publishes Redis's events, in order} {
    set rd [keyspace_listener]
    set failures {}
    foreach case $::keyspace_cases {
      lassign $case setup cmd events
      r config set notify-keyspace-events {}
      r flushall
      r select 0
      foreach s $setup { r {*}$s }
      r select 0
      r config set notify-keyspace-events KEAn
      catch {r {*}$cmd}
      set got [keyspace_collect $rd]
      set want [keyspace_expected $events]
      if {$got ne $want} { lappend failures "$cmd (after $setup): got {$got} want {$want}" }
    }
    $rd close
    r config set notify-keyspace-events $saved
    r flushall
    set failures
  } {}

  test {RESTORE publishes "new" and "restore"; an expired REPLACE publishes "del"} {
    r set dk v
    set payload [r dump dk]
    set rd [keyspace_listener]
    r config set notify-keyspace-events Egn
    r restore dk2 0 $payload
    r restore dk2 0 $payload replace
    r restore dk2 1 $payload replace absttl
    set got [keyspace_collect $rd]
    $rd close
    r config set notify-keyspace-events $saved
    r del dk dk2
    set got
  } {{__keyevent@0__:new dk2} {__keyevent@0__:restore dk2} {__keyevent@0__:new dk2} {__keyevent@0__:restore dk2} {__keyevent@0__:del dk2}}

  test {Classes filter events; K and E choose the channels} {
    set rd [keyspace_listener]
    r config set notify-keyspace-events Kl
    r set s 1
    r lpush l a
    r del s
    set k [keyspace_collect $rd]
    r config set notify-keyspace-events Eg
    r lpush l b
    r del l
    set e [keyspace_collect $rd]
    r config set notify-keyspace-events {}
    r set s 2
    set none [keyspace_collect $rd]
    $rd close
    r config set notify-keyspace-events $saved
    r del s
    list $k $e $none
  } {{{__keyspace@0__:l lpush}} {{__keyevent@0__:del l}} {}}

  test {"new" and "keymiss" are outside A} {
    set rd [keyspace_listener]
    r config set notify-keyspace-events KEA
    r get missing
    r set fresh 1
    set a [keyspace_collect $rd]
    r config set notify-keyspace-events Enm
    r get missing
    r del fresh
    r set fresh 1
    set nm [keyspace_collect $rd]
    $rd close
    r config set notify-keyspace-events $saved
    r del fresh
    list $a $nm
  } {{{__keyspace@0__:fresh set} {__keyevent@0__:set fresh}} {{__keyevent@0__:keymiss missing} {__keyevent@0__:new fresh}}}

  test {"keymiss" for read lookups that miss, not for OBJECT or MEMORY USAGE} {
    set rd [keyspace_listener]
    r config set notify-keyspace-events Em
    r exists m1
    r type m2
    r ttl m3
    r hget m4 f
    r object encoding m5
    r memory usage m6
    r lrange m7 0 -1
    set got [keyspace_collect $rd]
    $rd close
    r config set notify-keyspace-events $saved
    set got
  } {{__keyevent@0__:keymiss m1} {__keyevent@0__:keymiss m2} {__keyevent@0__:keymiss m3} {__keyevent@0__:keymiss m4} {__keyevent@0__:keymiss m7}}

  test {Lazy expiry publishes "expired" before the read misses} {
    # With hz 1 the read almost always finds the key first; if the cron got
    # there first the messages are the same.
    set hz [lindex [r config get hz] 1]
    r config set hz 1
    set rd [keyspace_listener]
    r config set notify-keyspace-events Exm
    r set short 1 px 1
    after 20
    r get short
    set got [keyspace_collect $rd]
    $rd close
    r config set hz $hz
    r config set notify-keyspace-events $saved
    set got
  } {{__keyevent@0__:expired short} {__keyevent@0__:keymiss short}}

  test {Overwriting an expired key publishes "expired", then "new"} {
    set rd [keyspace_listener]
    r config set notify-keyspace-events E\$xn
    r set ow 1 px 1
    after 30
    r set ow 2
    set got [keyspace_collect $rd]
    $rd close
    r config set notify-keyspace-events $saved
    r del ow
    set got
  } {{__keyevent@0__:new ow} {__keyevent@0__:set ow} {__keyevent@0__:expired ow} {__keyevent@0__:new ow} {__keyevent@0__:set ow}}

  test {Active expiry publishes "expired" without any access} {
    set rd [keyspace_listener]
    r config set notify-keyspace-events Ex
    r set short2 1 px 30
    set got [$rd read]
    $rd close
    r config set notify-keyspace-events $saved
    lrange $got 2 3
  } {__keyevent@0__:expired short2}

  test {Events carry the db index of the key} {
    set rd [keyspace_listener]
    r config set notify-keyspace-events KE\$
    r select 3
    r set k3 v
    r del k3
    r select 0
    set got [keyspace_collect $rd]
    $rd close
    r config set notify-keyspace-events $saved
    set got
  } {{__keyspace@3__:k3 set} {__keyevent@3__:set k3}}

  test {A RESP3 subscriber receives events as push messages} {
    set rd [keyspace_listener 3]
    $rd readraw 1
    r config set notify-keyspace-events E\$
    r set k v
    set got {}
    for {set i 0} {$i < 9} {incr i} { lappend got [$rd read] }
    $rd close
    r config set notify-keyspace-events $saved
    r del k
    set got
  } {>4 {$8} pmessage {$10} __key*__:* {$18} __keyevent@0__:set {$1} k}
}

start_server {tags {pubsub notifications external:skip} overrides {notify-keyspace-events KEA}} {
  test {notify-keyspace-events from the config file} {
    lindex [r config get notify-keyspace-events] 1
  } {AKE}

  test {Eviction publishes "evicted" and invalidates tracked keys} {
    r flushall
    r config set notify-keyspace-events {}
    set val [string repeat x 1000]
    for {set i 0} {$i < 200} {incr i} { r set ev:$i $val }
    set keys {}
    for {set i 0} {$i < 200} {incr i} { lappend keys ev:$i }
    # A RESP3 tracking client that read every key.
    set t [redis_deferring_client]
    $t hello 3
    $t read
    $t client tracking on
    $t read
    $t mget {*}$keys
    $t read
    set rd [keyspace_listener]
    r config set notify-keyspace-events Ee
    r config set maxmemory-policy allkeys-random
    set before [info_field [r info stats] evicted_keys]
    r config set maxmemory [expr {[info_field [r info memory] used_memory] - 100000}]
    r set trigger 1
    # Eviction may go on in the background (the messages take memory too)
    # until the limit is lifted; the marker comes after everything.
    wait_for_condition 200 50 {[info_field [r info stats] evicted_keys] - $before >= 50} {
      fail "fewer than 50 keys evicted"
    }
    after 200
    r config set maxmemory 0
    set evicted [expr {[info_field [r info stats] evicted_keys] - $before}]
    set events [keyspace_collect $rd]
    # Invalidations queued on the tracking client, before its PING reply.
    $t ping
    set inval {}
    while 1 {
      set m [$t read]
      if {$m eq "PONG"} break
      lappend inval {*}[lindex $m 1]
    }
    $t close
    $rd close
    set gone {}
    foreach e $events {
      assert_equal __keyevent@0__:evicted [lindex $e 0]
      lappend gone [lindex $e 1]
    }
    set still 0
    foreach k $gone { incr still [r exists $k] }
    r config set notify-keyspace-events KEA
    r flushall
    list [expr {$evicted >= 50}] [expr {[llength $gone] == $evicted}] $still \
        [expr {[lsort $inval] eq [lsort $gone]}]
  } {1 1 0 1}

  tags {needs:unix} {
    test {A subscriber on the Unix socket receives events} {
      set rd [redis_unix_client 0 1]
      $rd psubscribe __keyevent@*
      $rd read
      r hset h f v
      set got [$rd read]
      $rd close
      set got
    } {pmessage __keyevent@* __keyevent@0__:hset h}
  }
}
