# client-output-buffer-limit: CONFIG GET/SET with Redis's format and errors,
# and enforcement: a subscriber that never reads is closed at the hard
# limit or after the soft limit held long enough, with the server's memory
# staying bounded; a normal client with a limit is closed by a huge reply.

# The CLIENT LIST line of the client named $name, "" when it is gone.
proc obuf_client_line {name} {
  foreach l [split [r client list] "\n"] {
    if {[string match "*name=$name *" $l]} { return $l }
  }
  return ""
}

# A deferring client named $name, subscribed to $channel, that never reads
# what is published to it.
proc obuf_subscriber {name channel} {
  set rd [redis_deferring_client]
  $rd client setname $name
  $rd read
  $rd subscribe $channel
  $rd read
  return $rd
}

proc obuf_field {line field} {
  if {[regexp " $field=(\[0-9\]+)" $line -> v]} { return $v }
  return -1
}

start_server {tags {obuf-limits}} {
  test {CONFIG GET shows Redis's defaults and format} {
    r config get client-output-buffer-limit
  } {client-output-buffer-limit {normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60}}

  test {CONFIG SET changes only the classes it names} {
    r config set client-output-buffer-limit "normal 1mb 2k 3 pubsub 1 1 1"
    set a [lindex [r config get client-output-buffer-limit] 1]
    r config set client-output-buffer-limit "replica 5 6 7"
    set b [lindex [r config get client-output-buffer-limit] 1]
    r config set client-output-buffer-limit "normal 0 0 0 slave 256mb 64mb 60 pubsub 32mb 8mb 60"
    list $a $b
  } {{normal 1048576 2000 3 slave 268435456 67108864 60 pubsub 1 1 1} {normal 1048576 2000 3 slave 5 6 7 pubsub 1 1 1}}

  test {CONFIG SET errors as Redis words them} {
    set p "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - "
    assert_error "${p}Wrong number of arguments in buffer limit configuration." \
      {r config set client-output-buffer-limit "normal 1 2"}
    assert_error "${p}Invalid client class specified in buffer limit configuration." \
      {r config set client-output-buffer-limit "master 1 1 1"}
    assert_error "${p}Error in hard, soft or soft_seconds setting in buffer limit configuration." \
      {r config set client-output-buffer-limit "normal 1mb x 3"}
    assert_error "${p}Error in hard, soft or soft_seconds setting in buffer limit configuration." \
      {r config set client-output-buffer-limit "normal 1 1 -1"}
    lindex [r config get client-output-buffer-limit] 1
  } {normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60}

  test {A subscriber that never reads is closed at the hard limit; memory stays bounded} {
    r config set client-output-buffer-limit "pubsub 1mb 0 0"
    set rd [obuf_subscriber slowsub flood]
    set base [info_field [r info memory] used_memory]
    set payload [string repeat x 100000]
    set peak 0
    set sent 0
    # Up to 200 MB: far more than the socket buffers and the limit.
    while {$sent < 2000 && [obuf_client_line slowsub] ne ""} {
      r publish flood $payload
      incr sent
      if {$sent % 20 == 0} {
        set m [info_field [r info memory] used_memory]
        if {$m > $peak} { set peak $m }
      }
    }
    set gone [expr {[obuf_client_line slowsub] eq ""}]
    catch {$rd close}
    r config set client-output-buffer-limit "pubsub 32mb 8mb 60"
    assert_equal 1 $gone
    assert_lessthan $sent 2000
    # The buffer never grew much past the 1mb limit (the flood is 200 MB;
    # the margin covers allocator accounting, e.g. libc under sanitizers).
    assert_lessthan [expr {$peak - $base}] [expr {16 * 1024 * 1024}]
    set log [read_file [srv stdout]]
    assert_match {*Client id=* name=slowsub *flags=P *scheduled to be closed ASAP for overcoming of output buffer limits.*} $log
  }

  test {A subscriber that keeps reading is not closed} {
    r config set client-output-buffer-limit "pubsub 1mb 0 0"
    set rd [redis_deferring_client]
    $rd subscribe steady
    $rd read
    set payload [string repeat y 50000]
    # 2 MB in all, twice the limit, read as it comes.
    for {set i 0} {$i < 40} {incr i} {
      r publish steady $payload
      assert_equal [list message steady $payload] [$rd read]
    }
    set n [r pubsub numsub steady]
    $rd close
    r config set client-output-buffer-limit "pubsub 32mb 8mb 60"
    set n
  } {steady 1}

  test {The soft limit closes a subscriber only after soft-seconds} {
    # First let a backlog build with no limit, then set the soft limit and
    # keep publishing small messages: the close must come about one second
    # after the limit applies, not at once.
    r config set client-output-buffer-limit "pubsub 0 0 0"
    set rd [obuf_subscriber softsub soft]
    set big [string repeat z 100000]
    for {set i 0} {$i < 1000} {incr i} {
      r publish soft $big
      if {$i % 10 == 0 && [obuf_field [obuf_client_line softsub] omem] > 1000000} break
    }
    assert_morethan [obuf_field [obuf_client_line softsub] omem] 1000000
    r config set client-output-buffer-limit "pubsub 0 100000 1"
    set over_at [clock milliseconds]
    set gone_at 0
    while {[clock milliseconds] < $over_at + 10000} {
      r publish soft small
      if {[obuf_client_line softsub] eq ""} {
        set gone_at [clock milliseconds]
        break
      }
      after 50
    }
    catch {$rd close}
    r config set client-output-buffer-limit "pubsub 32mb 8mb 60"
    assert_morethan $gone_at 0
    assert_range [expr {$gone_at - $over_at}] 1000 8000
  }

  test {The soft limit closes a subscriber after soft-seconds even when nothing more is published} {
    r config set client-output-buffer-limit "pubsub 0 100000 1"
    set rd [obuf_subscriber quietsub quiet]
    # Messages well under the limit fill the socket, then the buffer; once
    # it is just over the soft limit, silence: only the cron can act.
    set payload [string repeat z 40000]
    for {set i 0} {$i < 1000} {incr i} {
      r publish quiet $payload
      if {[obuf_field [obuf_client_line quietsub] omem] > 100000} break
    }
    set over_at [clock milliseconds]
    assert_morethan [obuf_field [obuf_client_line quietsub] omem] 100000
    wait_for_condition 100 100 {[obuf_client_line quietsub] eq ""} {
      fail "the subscriber over its soft limit was kept"
    }
    set took [expr {[clock milliseconds] - $over_at}]
    catch {$rd close}
    r config set client-output-buffer-limit "pubsub 32mb 8mb 60"
    assert_range $took 900 6000
  }

  test {The soft limit does not close a subscriber before soft-seconds} {
    r config set client-output-buffer-limit "pubsub 0 100000 30"
    set rd [obuf_subscriber patient patient]
    set payload [string repeat z 100000]
    for {set i 0} {$i < 150} {incr i} { r publish patient $payload }
    set line [obuf_client_line patient]
    catch {$rd close}
    r config set client-output-buffer-limit "pubsub 32mb 8mb 60"
    assert_morethan [obuf_field $line omem] 100000
  }

  test {A normal client with a hard limit is closed by a huge reply it does not read} {
    r set big [string repeat b [expr {8 * 1024 * 1024}]]
    r config set client-output-buffer-limit "normal 1mb 0 0"
    set rd [redis_deferring_client]
    $rd client setname biggetter
    $rd read
    $rd get big
    wait_for_condition 500 20 {[obuf_client_line biggetter] eq ""} {
      fail "client with a huge reply was not closed"
    }
    # It was closed before any of the reply went out.
    catch {$rd read} err
    catch {$rd close}
    r config set client-output-buffer-limit "normal 0 0 0"
    set err
  } {I/O error: connection closed}

  test {Without a limit the same huge reply is delivered} {
    set c [redis_client]
    set v [$c get big]
    $c close
    string length $v
  } [expr {8 * 1024 * 1024}]

  test {The pubsub class limit does not apply to normal clients} {
    r config set client-output-buffer-limit "pubsub 1 0 0"
    set c [redis_client]
    set v [$c get big]
    $c close
    r config set client-output-buffer-limit "pubsub 32mb 8mb 60"
    string length $v
  } [expr {8 * 1024 * 1024}]
}

start_server {tags {obuf-limits}} {
  test {Random picks with a huge negative count stop at the hard limit} {
    r hset h f v
    r sadd s m
    r zadd z 1 m
    r config set client-output-buffer-limit "normal 1mb 0 0"
    set out {}
    foreach cmd {{hrandfield h -999999999} {srandmember s -999999999} {zrandmember z -999999999}} {
      set c [redis_client]
      set t0 [clock milliseconds]
      catch {$c {*}$cmd} err
      catch {$c close}
      lappend out $err
      # Stopped early: the whole run would take minutes.
      assert {[clock milliseconds] - $t0 < 5000}
    }
    r config set client-output-buffer-limit "normal 0 0 0"
    assert_equal [r ping] PONG
    set out
  } {{I/O error: connection closed} {I/O error: connection closed} {I/O error: connection closed}}
}
