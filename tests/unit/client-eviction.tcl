# maxmemory-clients (client eviction, Redis 7.0): when all clients together
# use more memory than the limit, the ones using the most are closed,
# largest first, until the total is under it; CLIENT NO-EVICT ON exempts a
# client. The memory here is a query buffer holding a partial request (a
# big argument still arriving), which counts in CLIENT LIST tot-mem.

# A client that has sent `mb` megabytes of a bigger SET argument and waits.
proc ce_partial_client {mb {noevict 0}} {
  set c [redis_deferring_client]
  if {$noevict} {
    $c client no-evict on
    assert_equal [$c read] OK
  }
  $c client setname partial$mb
  $c read
  set n [expr {$mb * 1024 * 1024}]
  $c write "*3\r\n\$3\r\nset\r\n\$1\r\nk\r\n\$[expr {$n * 2}]\r\n"
  $c write [string repeat x $n]
  return $c
}

# The CLIENT LIST line of the client named $name, "" when it is gone.
proc ce_line {name} {
  foreach l [split [r client list] "\n"] {
    if {[string match "*name=$name *" $l]} { return $l }
  }
  return ""
}

# The tot-mem of the client named $name, -1 when it is gone.
proc ce_tot_mem {name} {
  if {[regexp { tot-mem=([0-9]+)} [ce_line $name] -> m]} { return $m }
  return -1
}

proc ce_wait_mem {name bytes} {
  wait_for_condition 500 20 {[ce_tot_mem $name] >= $bytes} {
    fail "client $name never reached $bytes bytes"
  }
}

proc ce_evicted {} { info_field [r info stats] evicted_clients }

# Sends $c the command [format $template $i] for i from $from up to 50000
# under maxmemory-clients 200000, until the server cuts the connection;
# closes $c and returns 1 when it was cut (the client evicted).
proc ce_flooded {c from template} {
  r config set maxmemory-clients 200000
  set err ""
  catch {
    for {set i $from} {$i < 50000} {incr i} { $c {*}[format $template $i] }
  } err
  catch {$c close}
  r config set maxmemory-clients 0
  string match {*I/O error*} $err
}

# One field of the CLIENT LIST line of the client named $name.
proc client_field_of {name field} {
  if {[regexp " $field=(\[0-9\]+)" [ce_line $name] -> v]} { return $v }
  return -1
}

start_server {tags {maxmemory external:skip}} {
  test {A client over maxmemory-clients is closed and counted} {
    r config resetstat
    set c [ce_partial_client 3]
    ce_wait_mem partial3 3000000
    r config set maxmemory-clients 2mb
    wait_for_condition 500 20 {[ce_tot_mem partial3] == -1} {
      fail "the client using 3 MB was not evicted"
    }
    assert_equal [ce_evicted] 1
    assert_error {*I/O error*} {$c read}
    r config set maxmemory-clients 0
    r ping
  } {PONG}

  test {CLIENT NO-EVICT ON exempts a client (its memory still counts)} {
    r config resetstat
    # The test's own client would be the one evicted otherwise.
    r client no-evict on
    set c [ce_partial_client 3 1]
    ce_wait_mem partial3 3000000
    r config set maxmemory-clients 2mb
    after 200
    assert_morethan [ce_tot_mem partial3] 3000000
    assert_match {* flags=e *} [ce_line partial3]
    assert_equal [ce_evicted] 0
    # An evictable client now tips the total over: it is the one to go.
    # (Redis answers its first command before closing it; either way it goes.)
    set small [redis_client]
    catch {$small client setname small}
    wait_for_condition 500 20 {[ce_line small] eq "" && [ce_evicted] == 1} {
      fail "the evictable client was not evicted"
    }
    assert_morethan [ce_tot_mem partial3] 3000000
    r config set maxmemory-clients 0
    r client no-evict off
    $c close
    ce_evicted
  } {1}

  test {Clients are evicted largest first, only until under the limit} {
    r config resetstat
    set c1 [ce_partial_client 1]
    set c4 [ce_partial_client 4]
    ce_wait_mem partial1 1000000
    ce_wait_mem partial4 4000000
    # Room for all but the largest.
    r config set maxmemory-clients [expr {[ce_tot_mem partial1] + 512 * 1024}]
    wait_for_condition 500 20 {[ce_tot_mem partial4] == -1} {
      fail "the largest client was not evicted"
    }
    after 100
    set alive [expr {[ce_tot_mem partial1] > 0}]
    r config set maxmemory-clients 0
    $c1 close
    list $alive [ce_evicted]
  } {1 1}

  test {maxmemory-clients as a percentage of maxmemory} {
    r config resetstat
    set c [ce_partial_client 3]
    ce_wait_mem partial3 3000000
    r config set maxmemory 100mb
    r config set maxmemory-clients 2%
    wait_for_condition 500 20 {[ce_tot_mem partial3] == -1} {
      fail "the client was not evicted at 2% of 100 MB"
    }
    r config set maxmemory-clients 0
    r config set maxmemory 0
    ce_evicted
  } {1}
}

start_server {tags {maxmemory external:skip}} {
  test {Watched keys count in a client's memory (tot-mem, not multi-mem)} {
    set c [redis_client]
    $c client setname watcher
    set before [ce_tot_mem watcher]
    set multi_before [client_field_of watcher multi-mem]
    for {set i 0} {$i < 1000} {incr i} { $c watch key:$i }
    set grown [expr {[ce_tot_mem watcher] - $before}]
    set multi_grown [expr {[client_field_of watcher multi-mem] - $multi_before}]
    $c close
    # Each watched key takes some tens of bytes of the client's list.
    assert {$grown >= 20000}
    # multi-mem is the queued commands' arguments only.
    assert_equal $multi_grown 0
  }

  test {Subscriptions count in a client's memory (tot-mem)} {
    set out {}
    foreach cmd {subscribe psubscribe ssubscribe} {
      set c [redis_deferring_client]
      $c client setname sub$cmd
      $c read
      set before [ce_tot_mem sub$cmd]
      for {set i 0} {$i < 3000} {incr i} { $c $cmd ch:$i }
      for {set i 0} {$i < 3000} {incr i} { $c read }
      # Some tens of bytes per subscription (the buffers the burst used
      # shrink back meanwhile).
      set ok 0
      wait_for_condition 50 20 {[ce_tot_mem sub$cmd] - $before >= 60000} { set ok -1 }
      if {$ok == 0} { set ok 1 }
      $c close
      lappend out $ok
    }
    set out
  } {1 1 1}

  test {A client watching many keys is evicted by maxmemory-clients} {
    r config resetstat
    assert_equal 1 [ce_flooded [redis_client] 0 {watch key:%d}]
    ce_evicted
  } {1}

  test {A client with many subscriptions is evicted by maxmemory-clients} {
    r config resetstat
    set out {}
    foreach cmd {subscribe psubscribe ssubscribe} {
      lappend out [ce_flooded [redis_client] 0 "$cmd ch:%d"]
    }
    lappend out [ce_evicted]
  } {1 1 1 3}
}

start_server {tags {maxmemory external:skip}} {
  test {BCAST tracking prefixes count in a client's memory; many get it evicted} {
    set c [redis_client]
    $c client setname prefixes
    set before [ce_tot_mem prefixes]
    for {set i 0} {$i < 1000} {incr i} { $c client tracking on prefix [format p%08d $i] bcast }
    set grown [expr {[ce_tot_mem prefixes] - $before}]
    assert {$grown >= 20000}
    r config resetstat
    assert_equal 1 [ce_flooded $c 1000 {client tracking on prefix p%08d bcast}]
    ce_evicted
  } {1}
}

start_server {tags {maxmemory external:skip}} {
  test {A big argument still arriving takes about its own size, not the next power of two} {
    set c [redis_deferring_client]
    $c client setname bigarg
    $c read
    set n 300000
    $c write "*3\r\n\$3\r\nset\r\n\$1\r\nk\r\n\$$n\r\n"
    $c write [string repeat x [expr {$n - 1000}]]
    $c flush
    wait_for_condition 100 20 {
      [string match "* qbuf=[expr {$n - 1000}] *" [ce_line bigarg]]
    } { fail "the argument did not arrive: [ce_line bigarg]" }
    set mem [ce_tot_mem bigarg]
    $c close
    assert_range $mem $n [expr {$n + 100000}]
  }
}

start_server {tags {maxmemory external:skip}} {
  test {Clients evicted for their replies free them at once: no key is evicted for them} {
    r config set maxmemory-policy allkeys-lru
    r client no-evict on
    for {set i 0} {$i < 50} {incr i} { r setrange key$i 100000 x }
    # Room for the keys, the clients' 3 MB and 1 MB more, measured: the
    # server's own memory differs with io-threads (each thread's allocator
    # state), and a fixed maxmemory would leave the keys too little margin.
    set used [info_field [r info memory] used_memory]
    r config set maxmemory [expr {$used + 4 * 1024 * 1024}]
    r config set maxmemory-clients 3mb
    r config resetstat
    set clients {}
    for {set i 0} {$i < 20} {incr i} { lappend clients [redis_deferring_client] }
    # Replies of 100 KB nobody reads, until client eviction steps in.
    set deadline [expr {[clock seconds] + 20}]
    while {[ce_evicted] == 0 && [clock seconds] < $deadline} {
      foreach c $clients {
        if {[catch {$c mget key1; $c flush}]} { set clients [lsearch -all -inline -not -exact $clients $c] }
      }
    }
    foreach c $clients { catch {$c close} }
    set keys_evicted [info_field [r info stats] evicted_keys]
    set dbsize [r dbsize]
    r config set maxmemory 0
    r config set maxmemory-clients 0
    assert {[ce_evicted] > 0}
    list $keys_evicted $dbsize
  } {0 50}
}
