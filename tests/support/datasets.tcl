# Data sets shared by the persistence tests (dump.tcl, rdb.tcl).

# Keys of every type in every encoding both servers share; returns
# {key encoding ...}. Values are built deterministically.
proc make_every_encoding {} {
  foreach k [r keys enc:*] { r del $k }
  r set enc:int 12345
  r set enc:embstr hello
  r set enc:raw [string repeat abcdefgh 5000]
  r rpush enc:list:lp a 1 -5 70000 [expr {2**40}] ""
  set big {}
  for {set i 0} {$i < 5000} {incr i} { lappend big "element-$i" }
  r rpush enc:list:ql {*}$big
  r sadd enc:set:intset 1 2 3 -4 [expr {2**40}]
  set members {}
  for {set i 0} {$i < 600} {incr i} { lappend members "m$i" }
  r sadd enc:set:ht {*}$members
  r hset enc:hash:lp f1 v1 f2 2 n -3
  set pairs {}
  for {set i 0} {$i < 600} {incr i} { lappend pairs "f$i" "v$i" }
  r hset enc:hash:ht {*}$pairs
  r zadd enc:zset:lp 1 a 2.5 b -3 c 0.1 d inf e -inf f
  set zpairs {}
  for {set i 0} {$i < 300} {incr i} { lappend zpairs [expr {$i * 1.5}] "m$i" }
  r zadd enc:zset:sl {*}$zpairs
  r pfadd enc:hll a b c
  return {enc:int int enc:embstr embstr enc:raw raw enc:list:lp quicklist enc:list:ql quicklist
    enc:set:intset intset enc:set:ht hashtable enc:hash:lp listpack enc:hash:ht hashtable
    enc:zset:lp listpack enc:zset:sl skiplist}
}

# Full contents of a key, type-aware, for comparisons.
proc key_contents {key} {
  switch -- [r type $key] {
    string { return [r get $key] }
    list { return [r lrange $key 0 -1] }
    set { return [lsort [r smembers $key]] }
    hash { return [lsort -stride 2 [r hgetall $key]] }
    zset { return [r zrange $key 0 -1 withscores] }
    default { return "<[r type $key]>" }
  }
}
