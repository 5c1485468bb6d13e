# Client-side caching: CLIENT TRACKING (default, OPTIN, OPTOUT, BCAST with
# prefixes, NOLOOP, REDIRECT), CLIENT CACHING / GETREDIR / TRACKINGINFO,
# invalidation as RESP3 pushes and on __redis__:invalidate, null
# invalidations on FLUSHALL, expiry, tracking-table-max-keys, INFO and
# CLIENT LIST, and a model test of several clients reading and writing at
# random. Expectations recorded from Redis 7.0.15.

# A deferring RESP3 client with tracking enabled by `args`.
proc tracking_client {args} {
  set c [redis_deferring_client]
  $c hello 3
  $c read
  $c client tracking on {*}$args
  assert_equal OK [$c read]
  return $c
}

# Runs a command on a deferring RESP3 client and returns
# {reply {invalidation messages read before it}}. A push decodes as
# {invalidate keys}; replies of the commands used here never look so.
proc tracking_cmd {c args} {
  $c {*}$args
  set pushes {}
  while 1 {
    set r [$c read]
    if {[llength $r] == 2 && [lindex $r 0] eq "invalidate"} {
      lappend pushes [lindex $r 1]
      continue
    }
    return [list $r $pushes]
  }
}

# The invalidations queued on c: sends PING and collects the messages that
# come before the PONG.
proc tracking_drain {c} {
  lindex [tracking_cmd $c ping] 1
}

# A RESP2 client subscribed to __redis__:invalidate; returns {client id}.
proc tracking_redirect_target {} {
  set t [redis_deferring_client]
  $t client id
  set id [$t read]
  $t subscribe __redis__:invalidate
  $t read
  return [list $t $id]
}

# The invalidation messages a RESP2 subscriber got (PING answers "pong"
# in the subscribed state).
proc tracking_drain_redirect {t} {
  $t ping
  set out {}
  while 1 {
    set m [$t read]
    if {[lindex $m 0] eq "pong"} { return $out }
    lappend out [lindex $m 2]
  }
}

start_server {tags {tracking}} {
  test {CLIENT TRACKING option errors as Redis words them} {
    set c [redis_client]
    set out {}
    foreach args {
      {on optin optout} {on prefix a} {on bcast optin} {on bcast optout}
      {on redirect 999999} {on redirect abc} {on redirect 0} {on foo} {maybe}
      {on redirect} {on prefix} {on bcast prefix a prefix ab}
    } {
      catch {$c client tracking {*}$args} err
      lappend out $err
    }
    $c close
    set out
  } [list {ERR You can't specify both OPTIN mode and OPTOUT mode} \
      {ERR PREFIX option requires BCAST mode to be enabled} \
      {ERR OPTIN and OPTOUT are not compatible with BCAST} \
      {ERR OPTIN and OPTOUT are not compatible with BCAST} \
      {ERR The client ID you want redirect to does not exist} \
      {ERR value is not an integer or out of range} \
      {ERR The client ID you want redirect to does not exist} \
      {ERR syntax error} {ERR syntax error} {ERR syntax error} {ERR syntax error} \
      {ERR Prefix 'a' overlaps with another provided prefix 'ab'. Prefixes for a single client must not overlap.}]

  test {Tracking modes cannot be switched without turning tracking off} {
    set c [redis_client]
    $c client tracking on
    catch {$c client tracking on bcast} e1
    $c client tracking on optin
    catch {$c client tracking on optout} e2
    $c client tracking off
    $c client tracking on bcast prefix a
    catch {$c client tracking on bcast prefix ab} e3
    catch {$c client tracking on bcast prefix {}} e4
    $c client tracking on bcast prefix b
    set info [$c client trackinginfo]
    $c close
    list $e1 $e2 $e3 $e4 $info
  } [list {ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.} \
      {ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.} \
      {ERR Prefix 'ab' overlaps with an existing prefix 'a'. Prefixes for a single client must not overlap.} \
      {ERR Prefix '' overlaps with an existing prefix 'a'. Prefixes for a single client must not overlap.} \
      {flags {on bcast} redirect 0 prefixes {a b}}]

  test {CLIENT CACHING, GETREDIR and TRACKINGINFO} {
    set c [redis_client]
    set out {}
    lappend out [$c client getredir] [$c client trackinginfo]
    catch {$c client caching yes} e
    lappend out $e
    $c client tracking on
    catch {$c client caching yes} e
    lappend out $e
    catch {$c client caching no} e
    lappend out $e
    catch {$c client caching maybe} e
    lappend out $e
    $c client tracking off
    $c client tracking on optin
    lappend out [$c client caching yes] [$c client trackinginfo] [$c client getredir]
    $c client tracking off
    $c client tracking on optout noloop
    lappend out [$c client caching no] [$c client trackinginfo]
    $c close
    set out
  } [list -1 {flags off redirect -1 prefixes {}} \
      {ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled} \
      {ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.} \
      {ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.} \
      {ERR syntax error} \
      OK {flags {on optin caching-yes} redirect 0 prefixes {}} 0 \
      OK {flags {on optout caching-no noloop} redirect 0 prefixes {}}]

  test {CLIENT HELP describes the tracking subcommands} {
    set help [r client help]
    set out {}
    foreach l {{CACHING (YES|NO)} GETREDIR TRACKINGINFO
               {TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]}} {
      lappend out [expr {[lsearch -exact $help $l] >= 0}]
    }
    set out
  } {1 1 1 1}

  test {RESP3: a write by another client sends one push per key, exact bytes} {
    set c [tracking_client]
    tracking_cmd $c mget tk1 tk2 tk3
    r mset tk1 a tk2 b
    $c readraw 1
    set got {}
    for {set i 0} {$i < 12} {incr i} { lappend got [$c read] }
    $c close
    r del tk1 tk2
    set got
  } {>2 {$10} invalidate *1 {$3} tk1 >2 {$10} invalidate *1 {$3} tk2}

  test {A key is invalidated once, then only after it is read again} {
    set c [tracking_client]
    tracking_cmd $c get tk
    r set tk 1
    r set tk 2
    set first [tracking_drain $c]
    tracking_cmd $c get tk
    r incr tk
    set second [tracking_drain $c]
    $c close
    r del tk
    list $first $second
  } {tk tk}

  test {The writer's own invalidation comes after its reply; NOLOOP skips it} {
    set c [tracking_client]
    tracking_cmd $c get tk
    set r1 [tracking_cmd $c set tk 1]
    set own [tracking_drain $c]
    $c close
    set c [tracking_client noloop]
    tracking_cmd $c get tk
    tracking_cmd $c set tk 2
    set noloop [tracking_drain $c]
    $c close
    r del tk
    list $r1 $own $noloop
  } {{OK {}} tk {}}

  test {NOLOOP also skips the invalidation of a key the client's own script writes} {
    set c [tracking_client noloop]
    tracking_cmd $c get tk
    set r1 [tracking_cmd $c eval {return redis.call('set', KEYS[1], '3')} 1 tk]
    set r2 [tracking_cmd $c get tk]
    set own [tracking_drain $c]
    $c close
    r del tk
    list $r1 $r2 $own
  } {{OK {}} {3 {}} {}}

  test {Invalidations inside MULTI come after EXEC's reply} {
    set c [tracking_client]
    tracking_cmd $c get tk
    tracking_cmd $c multi
    tracking_cmd $c set tk 1
    tracking_cmd $c get tk
    set exec [tracking_cmd $c exec]
    set after [tracking_drain $c]
    $c close
    r del tk
    list $exec $after
  } {{{OK 1} {}} tk}

  test {A script's writes invalidate its caller after the reply, other readers at once} {
    set c [tracking_client]
    set d [tracking_client]
    tracking_cmd $c mget tk tk2
    tracking_cmd $d mget tk tk2
    set script {redis.call('set', KEYS[1], '1') redis.call('set', 'tk2', '1') return 'r'}
    set caller [tracking_cmd $c eval $script 1 tk]
    set caller_after [tracking_drain $c]
    set other [tracking_drain $d]
    # A key the script writes and then reads stays remembered.
    tracking_cmd $c get tk
    set reread [tracking_cmd $c eval {redis.call('set', KEYS[1], '2') return redis.call('get', KEYS[1])} 1 tk]
    set reread_after [tracking_drain $c]
    r set tk 3
    set still [tracking_drain $c]
    # FLUSHALL from a script: the caller's null invalidation after the reply too.
    set flush [tracking_cmd $c eval {redis.call('flushall') return 'f'} 0]
    set flush_after [tracking_drain $c]
    $c close
    $d close
    list $caller $caller_after $other $reread $reread_after $still $flush $flush_after
  } {{r {}} {tk tk2} {tk tk2} {2 {}} tk tk {f {}} {{}}}

  test {Scripts: the caller remembers the script's KEYS once it reads, as Redis 7.0} {
    # Redis 7.0 remembers the keys the script was given (not the keys its
    # reads named) each time the script runs a read-only command; EVAL_RO
    # and FCALL_RO themselves remember nothing.
    r mset sa 1 sb 2 sc 3
    set c [tracking_client]
    set out {}
    tracking_cmd $c eval_ro {return redis.call('get', 'sb')} 1 sa
    r set sb x
    lappend out [tracking_drain $c]
    r set sa x
    lappend out [tracking_drain $c]
    tracking_cmd $c eval {return redis.call('get', 'sc')} 1 sa
    r set sc y
    r set sa y
    lappend out [tracking_drain $c]
    tracking_cmd $c eval_ro {return 1} 1 sa
    r set sa z
    lappend out [tracking_drain $c]
    r function load replace {#!lua name=trk
      redis.register_function{function_name='rd', callback=function(k, a) return redis.call('get', 'sc') end, flags={'no-writes'}}}
    tracking_cmd $c fcall_ro rd 2 sa sd
    r set sc w
    r mset sa w sd w
    lappend out [tracking_drain $c]
    $c close
    r function delete trk
    r del sa sb sc sd
    set out
  } {{} sa sa {} {sa sd}}

  test {FLUSHALL and FLUSHDB send a null invalidation to every tracking client} {
    set c [tracking_client]
    set b [tracking_client bcast]
    $c readraw 1
    r flushall
    set got {}
    for {set i 0} {$i < 4} {incr i} { lappend got [$c read] }
    $c readraw 0
    r flushdb
    set bcast [tracking_drain $b]
    $c close
    $b close
    list $got $bcast
  } {{>2 {$10} invalidate _} {{} {}}}

  test {OPTIN tracks only after CLIENT CACHING yes, for one command or a whole MULTI} {
    set c [tracking_client optin]
    tracking_cmd $c get o1
    tracking_cmd $c client caching yes
    tracking_cmd $c get o2
    tracking_cmd $c get o3
    tracking_cmd $c client caching yes
    tracking_cmd $c multi
    tracking_cmd $c get o4
    tracking_cmd $c get o5
    tracking_cmd $c exec
    tracking_cmd $c get o6
    r mset o1 1 o2 2 o3 3 o4 4 o5 5 o6 6
    set got [tracking_drain $c]
    $c close
    r del o1 o2 o3 o4 o5 o6
    set got
  } {o2 o4 o5}

  test {OPTOUT tracks every read but the one after CLIENT CACHING no} {
    set c [tracking_client optout]
    tracking_cmd $c get o1
    tracking_cmd $c client caching no
    tracking_cmd $c get o2
    tracking_cmd $c get o3
    r mset o1 1 o2 2 o3 3
    set got [tracking_drain $c]
    $c close
    r del o1 o2 o3
    set got
  } {o1 o3}

  test {BCAST: one message per prefix with the keys written under it; NOLOOP} {
    set c [tracking_client bcast prefix p: prefix q: noloop]
    set w [redis_client]
    $w mset p:1 a q:1 b r:1 c
    set got [tracking_drain $c]
    tracking_cmd $c set p:2 a
    $w set p:3 a
    lappend got {*}[tracking_drain $c]
    set all [tracking_client bcast]
    $w set zz 1
    set everything [tracking_drain $all]
    foreach x [list $c $w $all] { $x close }
    r del p:1 q:1 r:1 p:2 p:3 zz
    list $got $everything
  } {{p:1 q:1 p:3} zz}

  test {RESP2 REDIRECT: messages on __redis__:invalidate, null on flush} {
    lassign [tracking_redirect_target] t tid
    set c [redis_client]
    $c client tracking on redirect $tid
    set getredir [$c client getredir]
    $c get rk
    r set rk 1
    $c get rk
    r flushdb
    set got [tracking_drain_redirect $t]
    $c close
    $t close
    list [expr {$getredir == $tid}] $got
  } {1 {rk {}}}

  test {A broken redirect is reported once (RESP3) and flagged R} {
    set t [redis_client]
    set tid [$t client id]
    set c [tracking_client redirect $tid]
    $t close
    wait_for_condition 500 20 {
      ![string match "*id=$tid *" [r client list]]
    } {
      fail "redirect target still listed"
    }
    tracking_cmd $c get bk
    r set bk 1
    $c readraw 1
    set got {}
    for {set i 0} {$i < 4} {incr i} { lappend got [$c read] }
    $c readraw 0
    set info [lindex [tracking_cmd $c client trackinginfo] 0]
    set cid [lindex [tracking_cmd $c client id] 0]
    set line [lindex [tracking_cmd $c client list id $cid] 0]
    tracking_cmd $c get bk
    r set bk 2
    set again [tracking_drain $c]
    $c close
    r del bk
    list [lrange $got 0 2] [expr {[lindex $got 3] eq ":$tid"}] [lindex $info 1] \
        [regexp { flags=tR } $line] [regexp " redir=$tid " $line] $again
  } {{>2 {$21} tracking-redir-broken} 1 {on broken_redirect} 1 1 {}}

  test {Active expiry invalidates the key} {
    set c [tracking_client]
    set expired [info_field [r info stats] expired_keys]
    # Long enough for the GET to find the key even on a slow machine.
    r set ek 1 px 500
    tracking_cmd $c get ek
    # INFO does not touch the key: only the active cycle can expire it.
    wait_for_condition 200 50 {[info_field [r info stats] expired_keys] > $expired} {
      fail "ek was not expired by the active cycle"
    }
    set got [tracking_drain $c]
    $c close
    set got
  } {ek}

  test {Model: random reads and writes by several clients, invalidations as read} {
    r flushall
    # Tracking clients: 0 RESP3, 1 RESP3 NOLOOP, 2 RESP2 redirecting to a
    # subscriber. Client 3 is `r`, which writes without tracking.
    lassign [tracking_redirect_target] t tid
    set mcl(0) [tracking_client]
    set mcl(1) [tracking_client noloop]
    set mcl(2) [redis_client]
    $mcl(2) client tracking on redirect $tid
    set mnoloop {0 1 0 0}
    set keys {k0 k1 k2 k3 k4 k5}
    foreach i {0 1 2} {
      set mreads($i) {}
      set mwant($i) {}
      set mgot($i) {}
    }
    set mexists {}
    # Runs a command as client i, collecting the pushes it reads first.
    proc model_run {i args} {
      upvar mcl mcl mgot mgot
      if {$i == 3} { return [r {*}$args] }
      if {$i == 2} { return [$mcl(2) {*}$args] }
      lassign [tracking_cmd $mcl($i) {*}$args] reply pushes
      lappend mgot($i) {*}$pushes
      return $reply
    }
    # Key k was modified by client `by`: the model's invalidations.
    proc model_modified {k by} {
      upvar mreads mreads mwant mwant mnoloop mnoloop
      foreach j {0 1 2} {
        if {[lsearch -exact $mreads($j) $k] < 0} continue
        set mreads($j) [lsearch -all -inline -not -exact $mreads($j) $k]
        if {$j == $by && [lindex $mnoloop $j]} continue
        lappend mwant($j) $k
      }
    }
    for {set n 0} {$n < 600} {incr n} {
      set i [expr {int(rand() * 4)}]
      set k [lindex $keys [expr {int(rand() * [llength $keys])}]]
      set op [expr {rand()}]
      if {$i < 3 && $op < 0.45} {
        model_run $i get $k
        if {$k ni $mreads($i)} { lappend mreads($i) $k }
      } elseif {$i < 3 && $op < 0.55} {
        set k2 [lindex $keys [expr {int(rand() * [llength $keys])}]]
        model_run $i mget $k $k2
        foreach x [list $k $k2] { if {$x ni $mreads($i)} { lappend mreads($i) $x } }
      } elseif {$op < 0.75} {
        model_run $i set $k [expr {int(rand() * 100)}]
        if {$k ni $mexists} { lappend mexists $k }
        model_modified $k $i
      } elseif {$op < 0.85} {
        if {$k in $mexists} {
          model_run $i incr $k
          model_modified $k $i
        }
      } elseif {$op < 0.95} {
        model_run $i del $k
        if {$k in $mexists} {
          set mexists [lsearch -all -inline -not -exact $mexists $k]
          model_modified $k $i
        }
      } elseif {$op < 0.97} {
        model_run $i flushall
        set mexists {}
        foreach j {0 1 2} {
          set mreads($j) {}
          lappend mwant($j) {}
        }
      }
    }
    lappend mgot(0) {*}[tracking_drain $mcl(0)]
    lappend mgot(1) {*}[tracking_drain $mcl(1)]
    set mgot(2) [tracking_drain_redirect $t]
    foreach x [list $mcl(0) $mcl(1) $mcl(2) $t] { $x close }
    r flushall
    set diffs {}
    foreach j {0 1 2} {
      if {$mgot($j) ne $mwant($j)} { lappend diffs "client $j: got {$mgot($j)} want {$mwant($j)}" }
    }
    list [expr {[llength $mwant(0)] > 20}] $diffs
  } {1 {}}

  test {INFO, CLIENT LIST and RESET} {
    r flushall
    set c [tracking_client]
    set b [tracking_client bcast prefix x prefix y]
    tracking_cmd $c mget i1 i2
    set info [r info]
    set cid [lindex [tracking_cmd $c client id] 0]
    set bid [lindex [tracking_cmd $b client id] 0]
    set cl [r client list id $cid]
    set bl [r client list id $bid]
    tracking_cmd $c reset
    set after [lindex [tracking_cmd $c client trackinginfo] 0]
    set info2 [r info]
    $c close
    $b close
    list [info_field $info tracking_clients] [info_field $info tracking_total_keys] \
        [info_field $info tracking_total_items] \
        [info_field $info tracking_total_prefixes] \
        [regexp { flags=t .* redir=0 } $cl] [regexp { flags=tB .* redir=0 } $bl] \
        [info_field $info2 tracking_clients] $after
  } {2 2 2 2 1 1 1 {flags off redirect -1 prefixes {}}}
}

start_server {tags {tracking external:skip} overrides {tracking-table-max-keys 2}} {
  test {tracking-table-max-keys: reads past the limit invalidate other keys} {
    set c [tracking_client]
    tracking_cmd $c mget m1 m2 m3 m4 m5
    # The next command trims the table to 2 keys, telling the client.
    set got [lindex [tracking_cmd $c ping] 1]
    lappend got {*}[tracking_drain $c]
    set keys [info_field [r info] tracking_total_keys]
    $c close
    set known 1
    foreach k $got { if {$k ni {m1 m2 m3 m4 m5}} { set known 0 } }
    list [llength $got] $known $keys
  } {3 1 2}
}

start_server {tags {tracking}} {
  test {Lowering tracking-table-max-keys invalidates keys even with no command following} {
    set c [tracking_client]
    tracking_cmd $c mget idle1 idle2
    r config set tracking-table-max-keys 1
    # No command from the tracking client: the cron trims the table, and
    # the invalidation arrives on its own.
    set msg [$c read]
    r config set tracking-table-max-keys 1000000
    $c close
    list [lindex $msg 0] [expr {[lindex $msg 1] in {idle1 idle2}}]
  } {invalidate 1}
}
