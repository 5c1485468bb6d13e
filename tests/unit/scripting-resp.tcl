# Model tests for the RESP <-> Lua conversions of scripts.
#
# 1. Lua -> reply: random nested Lua values are returned by EVAL; a Tcl
#    model computes the reply Redis documents for each, for RESP2 and RESP3
#    clients, with the script in RESP2 or RESP3 mode (redis.setresp).
# 2. reply -> Lua -> reply: for random data and a set of commands, the
#    reply of `return redis.call(...)` must equal the command's own reply
#    (maps and sets compared as unordered; in RESP3 a null inside an array
#    ends it, being Lua nil), in RESP2 and in RESP3.

source [file join $::support_dir typed_reply.tcl]

# A random word of min..max letters.
proc rword {min max} {
  return [randstring [expr {$min + int(rand() * ($max - $min + 1))}] alpha]
}

# A random Lua value: returns {lua_source model} where model is a tree of
# {kind value}: int, float, str, true, false, ok, err, double, array, map,
# set. err only appears nested (a top-level error table is an error reply).
proc rand_lua_value {depth nested} {
  set kinds {int float str true false ok}
  if {$nested} { lappend kinds err }
  lappend kinds double
  if {$depth < 3} { lappend kinds array array map set }
  set kind [lindex $kinds [expr {int(rand() * [llength $kinds])}]]
  switch $kind {
    int { set n [expr {int(rand() * 2000000) - 1000000}]; return [list $n [list int $n]] }
    float {
      set n [expr {(int(rand() * 2000) - 1000) / 8.0}]
      return [list $n [list float $n]]
    }
    str { set s [rword 1 12]; return [list "'$s'" [list str $s]] }
    true { return [list true {true {}}] }
    false { return [list false {false {}}] }
    ok { set s [rword 1 8]; return [list "{ok='$s'}" [list ok $s]] }
    err { set s "ERR [rword 1 8]"; return [list "{err='$s'}" [list err $s]] }
    double {
      set n [expr {(int(rand() * 2000) - 1000) / 4.0}]
      return [list "{double=$n}" [list double $n]]
    }
    array {
      set src {}
      set model {}
      set n [expr {int(rand() * 4)}]
      for {set i 0} {$i < $n} {incr i} {
        lassign [rand_lua_value [expr {$depth + 1}] 1] s m
        lappend src $s
        lappend model $m
      }
      return [list "{[join $src ,]}" [list array $model]]
    }
    map {
      # One key: the order of a Lua table's keys is not defined.
      set k [rword 1 8]
      lassign [rand_lua_value [expr {$depth + 1}] 1] s m
      return [list "{map={$k=$s}}" [list map [list $k $m]]]
    }
    set {
      set k [rword 1 8]
      return [list "{set={$k=true}}" [list set $k]]
    }
  }
}

# The typed reply (typed_reply.tcl form) Redis gives for a model value.
proc expected_reply {model client_resp script_resp} {
  lassign $model kind v
  switch $kind {
    int { return [list int $v] }
    float { return [list int [expr {int($v)}]] }
    str { return [list bulk $v] }
    true {
      if {$script_resp == 2} { return {int 1} }
      return [expr {$client_resp == 3 ? {bool t} : {int 1}}]
    }
    false {
      if {$script_resp == 2} { return [expr {$client_resp == 3 ? {null {}} : {bulk -1}}] }
      return [expr {$client_resp == 3 ? {bool f} : {int 0}}]
    }
    ok { return [list status $v] }
    err { return [list err $v] }
    double {
      set text [expr {$v == int($v) ? int($v) : $v}]
      return [expr {$client_resp == 3 ? [list double $text] : [list bulk $text]}]
    }
    array {
      set out {}
      foreach m $v { lappend out [expected_reply $m $client_resp $script_resp] }
      return [list array $out]
    }
    map {
      lassign $v k m
      set pair [list [list bulk $k] [expected_reply $m $client_resp $script_resp]]
      return [list [expr {$client_resp == 3 ? "map" : "array"}] $pair]
    }
    set { return [list [expr {$client_resp == 3 ? "set" : "array"}] [list [list bulk $v]]] }
  }
}

# What a reply becomes after Lua and back, per Redis's documented
# conversions: in RESP3 a null is Lua nil, which ends an array.
proc through_lua {typed resp} {
  lassign $typed kind v
  switch $kind {
    array - set - push {
      set out {}
      foreach e $v {
        if {$resp == 3 && $e eq {null {}}} break
        lappend out [through_lua $e $resp]
      }
      return [list $kind $out]
    }
    map {
      set out {}
      foreach e $v { lappend out [through_lua $e $resp] }
      return [list $kind $out]
    }
    default { return $typed }
  }
}

# Maps and sets compared without order.
proc unordered {typed} {
  lassign $typed kind v
  switch $kind {
    array - push {
      set out {}
      foreach e $v { lappend out [unordered $e] }
      return [list $kind $out]
    }
    set {
      set out {}
      foreach e $v { lappend out [unordered $e] }
      return [list $kind [lsort $out]]
    }
    map {
      set pairs {}
      foreach {k e} $v { lappend pairs [list [unordered $k] [unordered $e]] }
      return [list $kind [lsort $pairs]]
    }
    default { return $typed }
  }
}

start_server {tags {scripting}} {
  expr {srand(4242)}

  foreach client_resp {2 3} {
    foreach script_resp {2 3} {
      test "Model: Lua values to replies (client RESP$client_resp, script RESP$script_resp)" {
        set c [redis_client]
        $c hello $client_resp
        for {set i 0} {$i < 150} {incr i} {
          lassign [rand_lua_value 0 0] src model
          set script "redis.setresp($script_resp) return $src"
          set got [typed_reply $c eval $script 0]
          set want [expected_reply $model $client_resp $script_resp]
          if {$got ne $want} {
            $c close
            fail "script: $script\n  got:  $got\n  want: $want"
          }
        }
        $c close
      }
    }
  }

  test {Model: command replies survive redis.call and the return (RESP2 and RESP3)} {
    r flushall
    for {set i 0} {$i < 8} {incr i} {
      for {set j 0} {$j < 1 + int(rand() * 6)} {incr j} {
        r rpush list$i [rword 0 10]
        r hset hash$i f[rword 1 6] [rword 0 10]
        r sadd set$i [rword 1 10]
        r zadd zset$i [expr {(int(rand() * 400) - 200) / 4.0}] m[rword 1 6]
      }
      r set str$i [rword 0 20]
      r set num$i [expr {int(rand() * 1000)}]
    }
    set commands {}
    for {set i 0} {$i < 8} {incr i} {
      lappend commands [list get str$i] [list get missing$i] [list mget str$i missing$i num$i] \
        [list lrange list$i 0 -1] [list hgetall hash$i] [list smembers set$i] \
        [list zrange zset$i 0 -1 withscores] [list zscore zset$i nosuchmember] \
        [list incr num$i] [list type hash$i] [list ping] [list exists str$i missing$i] \
        [list hmget hash$i nosuchfield] [list lpop missing$i] [list zrandmember missing$i] \
        [list scard set$i] [list hlen hash$i] [list zcard zset$i] [list object encoding list$i]
    }
    foreach resp {2 3} {
      set c [redis_client]
      $c hello $resp
      foreach cmd $commands {
        # incr changes the value: compare two runs of the same command in
        # the order direct, script, by reading both after the same change.
        if {[lindex $cmd 0] eq "incr"} {
          set direct [typed_reply $c incrby [lindex $cmd 1] 0]
          set via [typed_reply $c eval "redis.setresp($resp) return redis.call('incrby', KEYS\[1\], 0)" 1 [lindex $cmd 1]]
        } else {
          set direct [typed_reply $c {*}$cmd]
          set via [typed_reply $c eval "redis.setresp($resp) return redis.call(unpack(ARGV))" 0 {*}$cmd]
        }
        if {[unordered [through_lua $direct $resp]] ne [unordered $via]} {
          $c close
          fail "RESP$resp $cmd\n  direct: $direct\n  script: $via"
        }
      }
      $c close
    }
  }
}
