# Pub/Sub: (P|S)SUBSCRIBE, (P|S)UNSUBSCRIBE, PUBLISH, SPUBLISH, PUBSUB, the
# RESP2 subscribed state and RESP3 push messages, cleanup on disconnect and
# RESET, CLIENT LIST fields, and delivery across TCP and Unix sockets.

# Sends a (un)subscribe command on a deferring client and reads one
# confirmation per channel (or one when leaving everything with none).
proc pubsub_cmd {client cmd args} {
  $client $cmd {*}$args
  set n [llength $args]
  if {$n == 0} { set n 1 }
  set out {}
  for {set i 0} {$i < $n} {incr i} { lappend out [$client read] }
  return $out
}

# Reads confirmations until the count reaches 0 (UNSUBSCRIBE without
# arguments answers one per channel, in no set order).
proc pubsub_leave_all {client cmd} {
  $client $cmd
  set out {}
  while 1 {
    set reply [$client read]
    lappend out $reply
    if {[lindex $reply 2] == 0} break
  }
  return $out
}

proc client_line {name} {
  foreach l [split [r client list] "\n"] {
    if {[string match "*name=$name *" $l]} { return $l }
  }
  return ""
}

start_server {tags {pubsub}} {
  test {SUBSCRIBE confirms each channel with the running count} {
    set rd [redis_deferring_client]
    set res [pubsub_cmd $rd subscribe chan1 chan2 chan1]
    $rd close
    set res
  } {{subscribe chan1 1} {subscribe chan2 2} {subscribe chan1 2}}

  test {PUBLISH delivers to every subscriber and counts them} {
    set rd1 [redis_deferring_client]
    set rd2 [redis_deferring_client]
    pubsub_cmd $rd1 subscribe news
    pubsub_cmd $rd2 subscribe news other
    set n1 [r publish news hello]
    set n2 [r publish other world]
    set n3 [r publish nobody x]
    set got [list [$rd1 read] [$rd2 read] [$rd2 read]]
    $rd1 close
    $rd2 close
    list $n1 $n2 $n3 $got
  } {2 1 0 {{message news hello} {message news hello} {message other world}}}

  test {Messages are arrays in RESP2, exact bytes} {
    set rd [redis_deferring_client]
    pubsub_cmd $rd subscribe ch
    r publish ch "a b"
    $rd readraw 1
    set lines [list [$rd read] [$rd read] [$rd read] [$rd read] [$rd read] [$rd read] [$rd read]]
    $rd close
    set lines
  } {*3 {$7} message {$2} ch {$3} {a b}}

  test {Binary-safe channel names and payloads} {
    set rd [redis_deferring_client]
    set chan "ch\x00\r\n\xff"
    set payload "x\r\n\x00y"
    pubsub_cmd $rd subscribe $chan
    assert_equal 1 [r publish $chan $payload]
    set msg [$rd read]
    $rd close
    list [expr {[lindex $msg 1] eq $chan}] [expr {[lindex $msg 2] eq $payload}]
  } {1 1}

  test {UNSUBSCRIBE of some channels, then of all, then of none} {
    set rd [redis_deferring_client]
    pubsub_cmd $rd subscribe a b c
    set some [pubsub_cmd $rd unsubscribe b nosuch]
    set all [pubsub_leave_all $rd unsubscribe]
    set none [pubsub_cmd $rd unsubscribe]
    $rd close
    list $some [lsort [lmap x $all {lindex $x 1}]] [lmap x $all {lindex $x 2}] $none
  } {{{unsubscribe b 2} {unsubscribe nosuch 2}} {a c} {1 0} {{unsubscribe {} 0}}}

  test {UNSUBSCRIBE with nothing subscribed: null channel on the wire} {
    set rd [redis_deferring_client]
    $rd unsubscribe
    $rd readraw 1
    set lines [list [$rd read] [$rd read] [$rd read] [$rd read] [$rd read]]
    $rd close
    set lines
  } {*3 {$11} unsubscribe {$-1} :0}

  test {PSUBSCRIBE delivers pmessage with the pattern} {
    set rd [redis_deferring_client]
    set conf [pubsub_cmd $rd psubscribe news.* h?llo]
    set n [list [r publish news.tech a] [r publish hello b] [r publish hallo c] \
             [r publish Hello d] [r publish news e]]
    set got [list [$rd read] [$rd read] [$rd read]]
    $rd close
    list $conf $n $got
  } {{{psubscribe news.* 1} {psubscribe h?llo 2}} {1 1 1 0 0} {{pmessage news.* news.tech a} {pmessage h?llo hello b} {pmessage h?llo hallo c}}}

  test {Glob patterns: classes, ranges, negation and escapes} {
    set rd [redis_deferring_client]
    pubsub_cmd $rd psubscribe {c[ab]} {d[^x]} {e[0-9]} {f\*}
    set n [list [r publish ca 1] [r publish cc 2] [r publish dy 3] [r publish dx 4] \
             [r publish e5 5] [r publish ea 6] [r publish f* 7] [r publish fz 8]]
    set got [list [$rd read] [$rd read] [$rd read] [$rd read]]
    $rd close
    list $n [lmap m $got {lindex $m 3}]
  } {{1 0 1 0 1 0 1 0} {1 3 5 7}}

  test {A channel and a pattern subscription both deliver} {
    set rd [redis_deferring_client]
    set counts [list {*}[pubsub_cmd $rd subscribe foo.bar] {*}[pubsub_cmd $rd psubscribe foo.*]]
    set n [r publish foo.bar x]
    set got [list [$rd read] [$rd read]]
    $rd close
    list $counts $n $got
  } {{{subscribe foo.bar 1} {psubscribe foo.* 2}} 2 {{message foo.bar x} {pmessage foo.* foo.bar x}}}

  test {PUNSUBSCRIBE of some and of all patterns (subscription order)} {
    set rd [redis_deferring_client]
    pubsub_cmd $rd psubscribe p1* p2* p3*
    set some [pubsub_cmd $rd punsubscribe p2*]
    set all [pubsub_leave_all $rd punsubscribe]
    set none [pubsub_cmd $rd punsubscribe]
    $rd close
    list $some $all $none
  } {{{punsubscribe p2* 2}} {{punsubscribe p1* 1} {punsubscribe p3* 0}} {{punsubscribe {} 0}}}

  test {Only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET in the RESP2 subscribed state} {
    set rd [redis_deferring_client]
    pubsub_cmd $rd subscribe ch
    $rd get x
    catch {$rd read} e1
    $rd client list
    catch {$rd read} e2
    $rd ping
    set p1 [$rd read]
    $rd ping hi
    set p2 [$rd read]
    pubsub_cmd $rd psubscribe x*
    pubsub_cmd $rd unsubscribe ch
    $rd get x
    catch {$rd read} e3
    pubsub_cmd $rd punsubscribe
    # Out of the subscribed state: anything goes again.
    $rd set x 1
    set ok [$rd read]
    $rd ping
    set p3 [$rd read]
    $rd close
    assert_equal {ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context} $e1
    assert_equal {ERR Can't execute 'client|list': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context} $e2
    assert_match {ERR Can't execute 'get'*} $e3
    list $p1 $p2 $ok $p3
  } {{pong {}} {pong hi} OK PONG}

  test {PING in the RESP2 subscribed state, exact bytes} {
    set rd [redis_deferring_client]
    pubsub_cmd $rd subscribe ch
    $rd ping
    $rd readraw 1
    set lines [list [$rd read] [$rd read] [$rd read] [$rd read] [$rd read]]
    $rd close
    set lines
  } {*2 {$4} pong {$0} {}}

  test {RESP3: confirmations and messages are pushes, other commands are allowed} {
    set rd [redis_deferring_client]
    $rd hello 3
    $rd read
    $rd subscribe ch
    $rd readraw 1
    set conf [list [$rd read] [$rd read] [$rd read] [$rd read] [$rd read] [$rd read]]
    $rd readraw 0
    r publish ch hi
    $rd readraw 1
    set msg [list [$rd read] [$rd read] [$rd read]]
    $rd readraw 0
    lappend msg [$rd read] [$rd read]
    $rd set k v
    $rd get k
    $rd ping
    set other [list [$rd read] [$rd read] [$rd read]]
    $rd unsubscribe
    set unsub [$rd read]
    $rd unsubscribe
    $rd readraw 1
    set none [list [$rd read] [$rd read] [$rd read] [$rd read]]
    $rd close
    list $conf $msg $other $unsub $none
  } {{>3 {$9} subscribe {$2} ch :1} {>3 {$7} message ch hi} {OK v PONG} {unsubscribe ch 0} {>3 {$11} unsubscribe _}}

  test {RESP3: a client subscribed to its own channel gets the message before the count} {
    set c [redis_client]
    $c hello 3
    $c subscribe me
    set n [$c publish me hi]
    set after [$c read]
    $c close
    list $n $after
  } {{message me hi} 1}

  test {PUBSUB CHANNELS, NUMSUB and NUMPAT} {
    set rd1 [redis_deferring_client]
    set rd2 [redis_deferring_client]
    pubsub_cmd $rd1 subscribe news.a news.b sport
    pubsub_cmd $rd2 subscribe news.a
    pubsub_cmd $rd1 psubscribe n* s*
    pubsub_cmd $rd2 psubscribe n*
    set res [list [lsort [r pubsub channels]] [lsort [r pubsub channels news.*]] \
               [r pubsub channels nomatch*] [r pubsub numsub news.a sport none] \
               [r pubsub numsub] [r pubsub numpat]]
    $rd1 close
    $rd2 close
    set res
  } {{news.a news.b sport} {news.a news.b} {} {news.a 2 sport 1 none 0} {} 2}

  test {PUBSUB argument errors and HELP} {
    assert_error {ERR unknown subcommand or wrong number of arguments for 'channels'. Try PUBSUB HELP.} \
      {r pubsub channels a b}
    assert_error {ERR wrong number of arguments for 'pubsub|numpat' command} {r pubsub numpat x}
    assert_error {ERR unknown subcommand 'foo'. Try PUBSUB HELP.} {r pubsub foo}
    assert_error {ERR wrong number of arguments for 'pubsub' command} {r pubsub}
    assert_error {ERR wrong number of arguments for 'publish' command} {r publish ch}
    assert_error {ERR wrong number of arguments for 'subscribe' command} {r subscribe}
    set help [r pubsub help]
    list [lindex $help 0] [llength $help]
  } {{PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} 14}

  test {A closed subscriber leaves no subscription behind} {
    set rd [redis_deferring_client]
    pubsub_cmd $rd subscribe gone1 gone2
    pubsub_cmd $rd psubscribe gone*
    pubsub_cmd $rd ssubscribe sgone
    assert_equal {gone1 1} [r pubsub numsub gone1]
    $rd close
    wait_for_condition 500 20 {[r pubsub numpat] == 0} { fail "pattern still there" }
    list [r pubsub numsub gone1 gone2] [r pubsub channels gone*] [r publish gone1 x] \
      [r pubsub shardnumsub sgone] [r spublish sgone x]
  } {{gone1 0 gone2 0} {} 0 {sgone 0} 0}

  test {CLIENT LIST shows sub=, psub=, ssub= and flags=P; TYPE pubsub selects subscribers} {
    set rd [redis_deferring_client]
    $rd client setname subber
    $rd read
    pubsub_cmd $rd subscribe a b
    pubsub_cmd $rd psubscribe p*
    pubsub_cmd $rd ssubscribe s
    set line [client_line subber]
    set typed [r client list type pubsub]
    set normal [r client list type normal]
    pubsub_cmd $rd unsubscribe a b
    pubsub_cmd $rd punsubscribe p*
    pubsub_cmd $rd sunsubscribe s
    set after [client_line subber]
    $rd close
    assert_match {*flags=P *sub=2 psub=1 ssub=1 multi=-1 *} $line
    assert_match {*name=subber *} $typed
    assert_no_match {*name=subber *} $normal
    assert_match {*flags=N *sub=0 psub=0 ssub=0 *} $after
  }

  test {RESET leaves every subscription} {
    set rd [redis_deferring_client]
    pubsub_cmd $rd subscribe r1
    pubsub_cmd $rd psubscribe r*
    $rd reset
    set reset [$rd read]
    $rd get nosuchkey
    set get [$rd read]
    set counts [list [r pubsub numsub r1] [r pubsub numpat] [r publish r1 x]]
    $rd close
    list $reset $get $counts
  } {RESET {} {{r1 0} 0 0}}

  test {SSUBSCRIBE / SPUBLISH / SUNSUBSCRIBE use their own channels} {
    set rd [redis_deferring_client]
    set conf [pubsub_cmd $rd ssubscribe s1 s2]
    set plain [pubsub_cmd $rd subscribe s1]
    set n [list [r spublish s1 hi] [r publish s1 plain] [r spublish nobody x]]
    set got [list [$rd read] [$rd read]]
    set chans [list [lsort [r pubsub shardchannels]] [r pubsub shardchannels s2] \
                 [r pubsub shardnumsub s1 s3] [r pubsub channels]]
    set unsub [pubsub_cmd $rd sunsubscribe s1]
    set rest [pubsub_leave_all $rd sunsubscribe]
    set none [pubsub_cmd $rd sunsubscribe]
    $rd close
    list $conf $plain $n $got $chans $unsub $rest $none
  } {{{ssubscribe s1 1} {ssubscribe s2 2}} {{subscribe s1 1}} {1 1 0} {{smessage s1 hi} {message s1 plain}} {{s1 s2} s2 {s1 1 s3 0} s1} {{sunsubscribe s1 1}} {{sunsubscribe s2 0}} {{sunsubscribe {} 0}}}

  test {INFO stats counts channels, patterns and shard channels} {
    set rd [redis_deferring_client]
    pubsub_cmd $rd subscribe i1 i2
    pubsub_cmd $rd psubscribe i* j*
    pubsub_cmd $rd ssubscribe i3
    set info [r info stats]
    $rd close
    list [info_field $info pubsub_channels] [info_field $info pubsub_patterns] \
      [info_field $info pubsubshard_channels]
  } {2 2 1}

  test {PUBLISH inside MULTI is delivered when EXEC runs} {
    set rd [redis_deferring_client]
    pubsub_cmd $rd subscribe tx
    r multi
    r publish tx one
    r publish tx two
    set res [r exec]
    set got [list $res [$rd read] [$rd read]]
    $rd close
    set got
  } {{1 1} {message tx one} {message tx two}}

  test {Many subscribers on one channel} {
    set clients {}
    for {set i 0} {$i < 50} {incr i} {
      set rd [redis_deferring_client]
      pubsub_cmd $rd subscribe crowd
      lappend clients $rd
    }
    set n [r publish crowd hey]
    set ok 0
    foreach rd $clients {
      if {[$rd read] eq {message crowd hey}} { incr ok }
      $rd close
    }
    list $n $ok
  } {50 50}
}

start_server {tags {pubsub needs:unix external:skip}} {
  test {A Unix-socket subscriber receives a PUBLISH from a TCP client} {
    set sub [redis_unix_client 0 1]
    pubsub_cmd $sub subscribe bridge
    pubsub_cmd $sub psubscribe br*
    set n [r publish bridge "over tcp"]
    set got [list [$sub read] [$sub read]]
    $sub close
    list $n $got
  } {2 {{message bridge {over tcp}} {pmessage br* bridge {over tcp}}}}

  test {A TCP subscriber receives a PUBLISH from a Unix-socket client} {
    set rd [redis_deferring_client]
    pubsub_cmd $rd subscribe bridge2
    set pub [redis_unix_client]
    set n [$pub publish bridge2 "over unix"]
    $pub close
    set got [$rd read]
    $rd close
    list $n $got
  } {1 {message bridge2 {over unix}}}
}

start_server {tags {pubsub}} {
  # A few clients subscribe and unsubscribe channels and patterns at random;
  # a Tcl model of who holds what predicts every confirmation count, every
  # PUBLISH receiver count and the PUBSUB NUMSUB / NUMPAT answers.
  test {Randomized subscriptions against a model} {
    set seed 7031
    expr {srand($seed)}
    set nclients 4
    set names {c0 c1 c2 c3 c4}
    set pats {c* c? *3 x*}
    for {set i 0} {$i < $nclients} {incr i} {
      set rs_cl($i) [redis_deferring_client]
      set rs_chans($i) {}
      set rs_pats($i) {}
    }
    for {set op 0} {$op < 2000} {incr op} {
      set i [expr {int(rand() * $nclients)}]
      set rd $rs_cl($i)
      set what [expr {int(rand() * 5)}]
      if {$what == 0} {
        set ch [lindex $names [expr {int(rand() * 5)}]]
        if {$ch ni $rs_chans($i)} { lappend rs_chans($i) $ch }
        set want [list subscribe $ch [expr {[llength $rs_chans($i)] + [llength $rs_pats($i)]}]]
        set got [pubsub_cmd $rd subscribe $ch]
      } elseif {$what == 1} {
        set ch [lindex $names [expr {int(rand() * 5)}]]
        set idx [lsearch -exact $rs_chans($i) $ch]
        if {$idx >= 0} { set rs_chans($i) [lreplace $rs_chans($i) $idx $idx] }
        set want [list unsubscribe $ch [expr {[llength $rs_chans($i)] + [llength $rs_pats($i)]}]]
        set got [pubsub_cmd $rd unsubscribe $ch]
      } elseif {$what == 2} {
        set p [lindex $pats [expr {int(rand() * 4)}]]
        if {$p ni $rs_pats($i)} { lappend rs_pats($i) $p }
        set want [list psubscribe $p [expr {[llength $rs_chans($i)] + [llength $rs_pats($i)]}]]
        set got [pubsub_cmd $rd psubscribe $p]
      } elseif {$what == 3} {
        set p [lindex $pats [expr {int(rand() * 4)}]]
        set idx [lsearch -exact $rs_pats($i) $p]
        if {$idx >= 0} { set rs_pats($i) [lreplace $rs_pats($i) $idx $idx] }
        set want [list punsubscribe $p [expr {[llength $rs_chans($i)] + [llength $rs_pats($i)]}]]
        set got [pubsub_cmd $rd punsubscribe $p]
      } else {
        set ch [lindex $names [expr {int(rand() * 5)}]]
        set expect 0
        for {set j 0} {$j < $nclients} {incr j} {
          set mine {}
          if {$ch in $rs_chans($j)} { lappend mine [list message $ch m$op] }
          foreach p $rs_pats($j) {
            if {[string match $p $ch]} { lappend mine [list pmessage $p $ch m$op] }
          }
          incr expect [llength $mine]
          set rs_msgs($j) $mine
        }
        set n [r publish $ch m$op]
        if {$n != $expect} { fail "op $op (seed $seed): PUBLISH $ch reached $n, model $expect" }
        for {set j 0} {$j < $nclients} {incr j} {
          set got {}
          foreach m $rs_msgs($j) { lappend got [$rs_cl($j) read] }
          if {[lsort $got] ne [lsort $rs_msgs($j)]} {
            fail "op $op (seed $seed): client $j got {$got}, model {$rs_msgs($j)}"
          }
        }
        array unset rs_msgs
        continue
      }
      if {[lindex $got 0] ne $want} { fail "op $op (seed $seed): got {$got}, model {$want}" }
    }
    foreach ch $names {
      set subs 0
      for {set j 0} {$j < $nclients} {incr j} { if {$ch in $rs_chans($j)} { incr subs } }
      assert_equal [list $ch $subs] [r pubsub numsub $ch]
    }
    set allp {}
    for {set j 0} {$j < $nclients} {incr j} { lappend allp {*}$rs_pats($j) }
    assert_equal [llength [lsort -unique $allp]] [r pubsub numpat]
    for {set i 0} {$i < $nclients} {incr i} { $rs_cl($i) close }
  }

  test {CLIENT REPLY OFF does not silence RESP3 push messages (Redis 7.0)} {
    set rd [redis_deferring_client]
    $rd hello 3
    $rd read
    $rd client reply off
    $rd subscribe quiet
    wait_for_condition 500 20 {[lindex [r pubsub numsub quiet] 1] == 1} { fail "not subscribed" }
    assert_equal [r publish quiet pushed] 1
    set got [list [$rd read] [$rd read]]
    $rd close
    set got
  } {{subscribe quiet 1} {message quiet pushed}}

  test {A RESP2 subscriber with CLIENT REPLY OFF still gets confirmations and messages} {
    set rd [redis_deferring_client]
    $rd client reply off
    $rd subscribe quiet2
    $rd psubscribe qu*
    assert_equal [$rd read] {subscribe quiet2 1}
    assert_equal [$rd read] {psubscribe qu* 2}
    assert_equal [r publish quiet2 hello] 2
    assert_equal [$rd read] {message quiet2 hello}
    assert_equal [$rd read] {pmessage qu* quiet2 hello}
    # Ordinary replies stay silenced: PING gives nothing, the unsubscribe
    # confirmation comes.
    $rd ping
    $rd unsubscribe quiet2
    set got [$rd read]
    $rd close
    set got
  } {unsubscribe quiet2 1}

  test {A RESP3 client with CLIENT REPLY OFF gets its own published message, not the count} {
    set rd [redis_deferring_client]
    $rd hello 3
    $rd read
    $rd subscribe self
    $rd read
    $rd client reply off
    $rd publish self hi
    $rd client reply on
    set got [list [$rd read] [$rd read]]
    $rd close
    set got
  } {{message self hi} OK}
}
