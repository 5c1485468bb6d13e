# Limits that protect the server from its clients and its environment: the
# output-buffer cap on clients that have not authenticated (CVE-2025-21605),
# and a server started under a low open-files limit.

# Pipelines $n PINGs on a fresh connection without reading, then reads what
# comes back. Returns {bytes_received closed?}.
proc limits_ping_flood {n {auth ""}} {
  set c [::redis::connect [srv host] [srv port] -timeout 700]
  if {$auth ne ""} { $c auth $auth }
  $c readraw 1
  catch {$c write [string repeat "PING\r\n" $n]}
  set got 0
  set closed 0
  while 1 {
    if {[catch {$c read} line]} {
      if {![string match "*timeout*" $line]} { set closed 1 }
      break
    }
    incr got [expr {[string length $line] + 2}]
  }
  $c close
  list $got $closed
}

start_server {tags {limits external:skip} overrides {requirepass flood}} {
  test {A client that has not authenticated is closed once 16 KiB of replies pile up} {
    # 2000 NOAUTH errors are 68,000 bytes; Redis closes the client without
    # sending them (the default normal class has no limit at all).
    lassign [limits_ping_flood 2000] got closed
    assert_equal $closed 1
    assert_lessthan $got 16385
    assert_match {*scheduled to be closed ASAP for overcoming of output buffer limits*} \
      [read_file [srv stdout]]
  }

  test {Replies that fit in 16 KiB are all sent to a client that has not authenticated} {
    # 400 NOAUTH errors are 13,600 bytes.
    limits_ping_flood 400
  } {13600 0}

  test {An authenticated client may pipeline without reading} {
    limits_ping_flood 5000 flood
  } {35000 0}

  test {The server stays usable after the flood} {
    set c [redis_client]
    $c auth flood
    set p [$c ping]
    $c close
    set p
  } {PONG}
}

# Runs start_server with the server under `ulimit -n $n` (soft and hard: it
# cannot raise them), through a wrapper script that execs the server binary.
proc start_server_ulimit {n options code} {
  set wrapper [file join [tmp_root] "ulimit-$n.[pid].sh"]
  set fd [open $wrapper w]
  puts $fd "#!/bin/sh\nulimit -n $n || exit 99\nexec \"$::cfg(server_bin)\" \"\$@\""
  close $fd
  file attributes $wrapper -permissions 0755
  set saved $::cfg(server_bin)
  set ::cfg(server_bin) $wrapper
  # The body sees the real binary again (tests that spawn their own).
  set rc [catch {uplevel 1 [list start_server $options \
                              "set ::cfg(server_bin) [list $saved]\n$code"]} result opts]
  set ::cfg(server_bin) $saved
  file delete $wrapper
  if {$rc == 1} { return -options $opts $result }
}

# CPU seconds (user + system) a process has used, from /proc.
proc limits_cpu_seconds {pid} {
  set stat [read_file /proc/$pid/stat]
  set fields [split [string range $stat [expr {[string last ")" $stat] + 2}] end] " "]
  # utime and stime are fields 14 and 15 of the line, 12 and 13 after "(comm) ".
  expr {([lindex $fields 11] + [lindex $fields 12]) / 100.0}
}

start_server_ulimit 256 {tags {limits external:skip}} {
  test {Under ulimit -n 256 maxclients is lowered to 224 and the log says why} {
    set log [read_file [srv stdout]]
    assert_match {*You requested maxclients of 10000 requiring at least 10032 max file descriptors.*} $log
    assert_match {*Server can't set maximum open files to 10032 because of OS error: Operation not permitted.*} $log
    assert_match {*Current maximum open files is 256. maxclients has been reduced to 224 to compensate for low ulimit. If you need higher maxclients increase 'ulimit -n'.*} $log
    r config get maxclients
  } {maxclients 224}

  test {CONFIG SET maxclients above what the open-files limit allows is refused} {
    assert_error {ERR CONFIG SET failed (possibly related to argument 'maxclients') - The operating system is not able to handle the specified number of clients, try with 224} \
      {r config set maxclients 1000}
    assert_equal [r config get maxclients] {maxclients 224}
    r config set maxclients 100
    r config set maxclients 224
    r config get maxclients
  } {maxclients 224}

  test {300 clients under ulimit -n 256: the first ones served, the rest told the server is full} {
    set conns {}
    for {set i 0} {$i < 300} {incr i} {
      lappend conns [::redis::connect [srv host] [srv port] -timeout 3000]
    }
    set pong 0
    set full 0
    foreach c $conns {
      $c readraw 1
      if {[catch {$c ping} reply]} { set reply "<$reply>" }
      switch -glob -- $reply {
        +PONG { incr pong }
        "-ERR max number of clients reached" { incr full }
        default { fail "unexpected reply: $reply" }
      }
    }
    # 224 minus the shared client `r` already connected.
    assert_equal [list $pong $full] {223 77}
    # With every slot taken the server idles: no accept loop spinning.
    set before [limits_cpu_seconds [srv pid]]
    after 1000
    assert_lessthan [expr {[limits_cpu_seconds [srv pid]] - $before}] 0.3
    foreach c $conns { $c close }
    # Slots come back as clients leave.
    wait_for_condition 100 100 {[r info clients] ne "" &&
      [info_field [r info clients] connected_clients] == 1} {
      fail "clients not released"
    }
    set c [redis_client]
    set p [$c ping]
    $c close
    set p
  } {PONG}
}

start_server {tags {limits external:skip}} {
  test {Under ulimit -n 32 the server refuses to start, saying what it needs} {
    set rc [catch {exec /bin/sh -c {ulimit -n 32 && exec "$0" --port 0 --save ""} \
                     $::cfg(server_bin) 2>@1} out]
    assert_equal $rc 1
    assert_match {*Your current 'ulimit -n' of 32 is not enough for the server to start. Please increase your open file limit to at least 10032. Exiting.*} $out
  }
}

# A client connecting from source address $src (another loopback address).
proc limits_client_from {src} {
  ::redis::wrap [socket -myaddr $src [srv host] [srv port]] {-timeout 3000}
}

start_server {tags {limits external:skip} overrides {enable-debug-command local}} {
  test {Protected mode: only 127.0.0.1 counts as local, not all of 127.0.0.0/8} {
    set c [limits_client_from 127.0.0.1]
    assert_equal [$c ping] PONG
    $c close
    set c [limits_client_from 127.0.0.2]
    catch {$c ping} err
    $c close
    assert_match {DENIED Redis is running in protected mode*} $err
  }

  test {enable-debug-command local: DEBUG from 127.0.0.2 is refused} {
    r config set protected-mode no
    set c [limits_client_from 127.0.0.1]
    assert_equal [$c debug sleep 0] OK
    $c close
    set c [limits_client_from 127.0.0.2]
    assert_equal [$c ping] PONG
    catch {$c debug sleep 0} err
    $c close
    r config set protected-mode yes
    set err
  } {ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.}
}

start_server {tags {limits external:skip} overrides {timeout 1}} {
  test {The idle timeout spares subscribers (RESP2 and RESP3) and monitors} {
    set names {sub2 sub3 psub monitor idle}
    set clients {}
    foreach name $names {
      set c [redis_deferring_client]
      $c client setname $name
      $c read
      switch $name {
        sub2 { $c subscribe ch }
        sub3 { $c hello 3; $c read; $c subscribe ch }
        psub { $c psubscribe p* }
        monitor { $c monitor }
        idle { $c ping }
      }
      $c read
      lappend clients $c
    }
    # The idle one goes; `r` keeps talking, so it stays.
    wait_for_condition 100 100 {![string match "*name=idle *" [r client list]]} {
      fail "the idle client was not closed"
    }
    # Two more seconds for the others, with `r` kept busy.
    for {set i 0} {$i < 20} {incr i} {
      r ping
      after 100
    }
    set left {}
    foreach l [split [string trim [r client list]] "\n"] {
      regexp {name=(\S*)} $l -> n
      if {$n ne ""} { lappend left $n }
    }
    foreach c $clients { $c close }
    lsort $left
  } {monitor psub sub2 sub3}
}

start_server {tags {limits external:skip} args {--rename-command config myconfig --rename-command flushall ""}} {
  test {rename-command: the new name runs the command, the old one is unknown} {
    assert_error {ERR unknown command 'config', with args beginning with: 'get' 'port' } {r config get port}
    assert_equal [lindex [r myconfig get port] 1] [srv port]
    assert_equal [r MyConfig get maxclients] {maxclients 10000}
    # The command keeps its own name in COMMAND INFO, reached by the new one.
    assert_equal [lindex [r command info myconfig] 0 0] config
    assert_equal [r command info config] {{}}
    # Not an option of CONFIG GET/SET (Redis 7.0).
    r myconfig get rename-command
  } {}

  test {rename-command with an empty name disables the command} {
    r set k v
    assert_error {ERR unknown command 'flushall', with args beginning with: } {r flushall}
    r dbsize
  } {1}
}

start_server {tags {limits external:skip}} {
  test {rename-command of an unknown command, or onto a taken name, stops start-up} {
    set out {}
    foreach {from to} {nosuch foo get set} {
      set rc [catch {exec $::cfg(server_bin) --port 0 --save "" --rename-command $from $to 2>@1} o]
      assert_equal $rc 1
      # Command-line values are shown quoted, as Redis shows them.
      assert_match "*FATAL CONFIG FILE ERROR*>>> 'rename-command \"$from\" \"$to\"'*" $o
      lappend out [lindex [regexp -inline {No such command in rename-command|Target command name already exists} $o] 0]
    }
    set out
  } {{No such command in rename-command} {Target command name already exists}}
}

start_server {tags {limits}} {
  test {A multibulk of more than 1,048,576 arguments is accepted} {
    set n 1100000
    set c [redis_client]
    $c write "*[expr {$n + 2}]\r\n\$4\r\nSADD\r\n\$9\r\nbigmulti1\r\n[string repeat "\$1\r\nx\r\n" $n]"
    set reply [$c read]
    $c close
    assert_equal [r smembers bigmulti1] x
    r del bigmulti1
    set reply
  } {1}

  test {An inline request with a NUL before its newline waits, then is too big} {
    # Redis finds the newline with strchr(), which stops at the NUL: nothing
    # is answered, not even the PING after it, until the request passes the
    # inline limit.
    set c [::redis::connect [srv host] [srv port] -timeout 500]
    $c readraw 1
    $c write "ECHO a\x00b\r\nPING\r\n"
    assert_error {*timeout*} {$c read}
    # The server may answer and close before it has read all of this, and
    # then the end of the write meets a reset: the reply is still there.
    catch {$c write [string repeat x 70000]}
    set lines {}
    while {![catch {$c read} line]} { lappend lines $line }
    $c close
    set lines
  } {{-ERR Protocol error: too big inline request}}
}
