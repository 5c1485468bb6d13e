# Server-wide behaviour: protected mode, idle timeout, maxclients, config
# file errors, command-line options and unix socket clients.
#
# Protected mode refuses non-loopback clients when no password is set; the
# test machine may only use loopback addresses, so the refusal itself cannot
# be exercised here. What is tested: the default is on and loopback clients
# are accepted under it, and it can be switched at runtime.

start_server {tags {other}} {
  test {Protected mode is on by default and loopback clients are accepted} {
    assert_equal [r config get protected-mode] {protected-mode yes}
    set c [redis_client]
    set reply [$c ping]
    $c close
    set reply
  } {PONG}

  test {Protected mode can be turned off and on at runtime} {
    r config set protected-mode no
    assert_equal [r config get protected-mode] {protected-mode no}
    r config set protected-mode yes
    r config get protected-mode
  } {protected-mode yes}
}

# busy-poll-us keeps the event loop polling instead of sleeping; what a user
# sees is the CPU time an idle server burns.
proc used_cpu {} {
  set info [r info cpu]
  expr {[info_field $info used_cpu_sys] + [info_field $info used_cpu_user]}
}

start_server {tags {other external:skip}} {
  test {busy-poll-us is off by default, bounded and settable at runtime} {
    assert_equal [r config get busy-poll-us] {busy-poll-us 0}
    assert_error {*argument must be between 0 and 1000000*} {r config set busy-poll-us -1}
    assert_error {*argument must be between 0 and 1000000*} {r config set busy-poll-us 1000001}
    assert_error {*argument couldn't be parsed into an integer*} {r config set busy-poll-us 1ms}
    r config set busy-poll-us 200
    r config get busy-poll-us
  } {busy-poll-us 200}

  test {busy-poll-us: an idle server spins only while it is set} {
    r config set busy-poll-us 1000000
    # An idle server spinning burns CPU time as fast as it is given a core;
    # on a loaded machine that may be less than the wall time, so wait for
    # 0.2 s of it rather than expecting it within one wall second (a
    # sleeping server would take far longer than 10 s to burn that).
    set c0 [used_cpu]
    wait_for_condition 100 100 {[used_cpu] - $c0 > 0.2} {
      fail "the idle server did not spin: [expr {[used_cpu] - $c0}] s of CPU in 10 s"
    }
    r config set busy-poll-us 0
    set c0 [used_cpu]
    after 1500
    set idle [expr {[used_cpu] - $c0}]
    assert_lessthan $idle 0.15
    # Requests are served while spinning as when sleeping.
    r config set busy-poll-us 1000
    r set k v
    assert_equal [r get k] v
  }
}

start_server {tags {other external:skip} overrides {timeout 1}} {
  test {Idle clients are closed after timeout seconds} {
    set c [redis_client]
    $c ping
    set before [info_field [r info clients] connected_clients]
    assert_equal $before 2
    # The shared client keeps polling, so only the idle one is closed.
    wait_for_condition 200 100 {[info_field [r info clients] connected_clients] == 1} {
      fail "idle client was not closed"
    }
    assert_error {I/O error*} {$c ping}
    $c close
  }

  test {A client that keeps talking is not closed} {
    set c [redis_client]
    for {set i 0} {$i < 8} {incr i} {
      $c ping
      after 300
    }
    set reply [$c ping]
    $c close
    set reply
  } {PONG}
}

start_server {tags {other external:skip} overrides {maxclients 3}} {
  test {One client over maxclients is refused with an error} {
    # The shared client is one; two more fit.
    set c1 [redis_client]
    set c2 [redis_client]
    assert_equal [$c1 ping] PONG
    assert_equal [$c2 ping] PONG
    set c3 [redis_client]
    assert_error {ERR max number of clients reached} {$c3 ping}
    $c3 close
    $c1 close
    # A slot is free again once a client leaves.
    wait_for_condition 500 20 {[info_field [r info clients] connected_clients] == 2} {
      fail "client count did not fall"
    }
    set c4 [redis_client]
    set reply [$c4 ping]
    $c4 close
    $c2 close
    set reply
  } {PONG}

  test {Rejected connections are counted} {
    assert_morethan [info_field [r info stats] rejected_connections] 0
  }
}

# Runs the server binary with a config file holding `lines` (plus extra
# command-line arguments); returns {exit_status output}. The server must
# exit by itself within a few seconds.
proc run_with_config {lines {argv {}}} {
  set dir [new_tmp_dir badconf]
  set fd [open $dir/redis.conf w]
  puts $fd [join $lines "\n"]
  close $fd
  set pid [spawn_server $::cfg(server_bin) [list $dir/redis.conf {*}$argv] $dir]
  set status [wait_server_exit $dir 5000]
  if {$status eq ""} {
    catch {exec kill -9 $pid}
    set status "still running"
  }
  puts "\[server-done\]: $pid"
  set out [read_file $dir/stdout]
  file delete -force $dir
  return [list $status $out]
}

tags {other config external:skip} {
  test {Config file: an unknown directive is fatal and reported with its line} {
    lassign [run_with_config {"port 0" "" "nosuchdirective 1"}] status out
    assert_equal $status 1
    assert_match "*\*\*\* FATAL CONFIG FILE ERROR (*) \*\*\*\nReading the configuration file, at line 3\n>>> 'nosuchdirective 1'\nBad directive or wrong number of arguments*" $out
  }

  test {Config file: a bad value is fatal with the reason} {
    lassign [run_with_config {"port 0" "maxclients abc"}] status out
    assert_equal $status 1
    assert_match "*at line 2\n>>> 'maxclients abc'\nargument couldn't be parsed into an integer*" $out
    lassign [run_with_config {"port 0" "appendonly maybe"}] status out
    assert_equal $status 1
    assert_match "*at line 2\n>>> 'appendonly maybe'\nargument must be 'yes' or 'no'*" $out
  }

  test {Config file: a wrong argument count is fatal} {
    lassign [run_with_config {"port 0" "port 1 2"}] status out
    assert_equal $status 1
    assert_match "*FATAL CONFIG FILE ERROR*at line 2\n>>> 'port 1 2'\nwrong number of arguments*" $out
  }

  test {Command line: an unknown --option is reported like a config line} {
    lassign [run_with_config {"port 0"} {--nosuch 1}] status out
    assert_equal $status 1
    assert_match "*FATAL CONFIG FILE ERROR*>>> 'nosuch \"1\"'\nBad directive or wrong number of arguments*" $out
  }

  test {Command line: an option's value may start with --, and words before any option form a line} {
    # "--port --loglevel verbose": port is given both words (as Redis reads
    # it), which is one too many.
    lassign [run_with_config {"port 0"} {--port --loglevel verbose}] status out
    assert_equal $status 1
    assert_match "*>>> 'port \"--loglevel\" \"verbose\"'\nwrong number of arguments*" $out
    lassign [run_with_config {"port 0"} {--port --bla --loglevel verbose}] status out
    assert_match "*>>> 'port \"--bla\"'\nargument couldn't be parsed into an integer*" $out
    # A list option given nothing says which words it takes.
    lassign [run_with_config {"port 0"} {--shutdown-on-sigint}] status out
    assert_match "*>>> 'shutdown-on-sigint'\nargument(s) must be one of the following*" $out
  }
}

start_server {tags {other external:skip} overrides {save {900 1}}
              args {loglevel verbose --proc-title-template --my--title --save}} {
  test {Command line: "loglevel verbose" without dashes, a "--" value, a bare --save last} {
    # The bare --save (last, or before another option) means no save points,
    # replacing the file's.
    list [lindex [r config get loglevel] 1] [lindex [r config get proc-title-template] 1] \
      [lindex [r config get save] 1]
  } {verbose --my--title {}}
}

start_server {tags {other external:skip} overrides {maxclients 100 hz 10}
              args {--maxclients 200 --hz 20}} {
  test {--option value on the command line overrides the config file} {
    list [r config get maxclients] [r config get hz]
  } {{maxclients 200} {hz 20}}
}

start_server {tags {other needs:unix external:skip}} {
  test {Unix socket: basic commands} {
    set c [redis_unix_client]
    assert_equal [$c ping] PONG
    $c set unixkey "bin\x00\xff"
    assert_equal [$c get unixkey] "bin\x00\xff"
    assert_equal [$c incr unixcounter] 1
    assert_equal [$c mget unixkey nokey] [list "bin\x00\xff" {}]
    $c close
    # Data written over the socket is visible over TCP.
    r get unixkey
  } "bin\x00\xff"

  test {Unix socket: CLIENT INFO shows the socket path} {
    set c [redis_unix_client]
    set line [$c client info]
    $c close
    assert_match "*addr=[srv unixsocket]:0 laddr=[srv unixsocket]:0 *" $line
  }

  test {Unix socket: the socket file has mode 700} {
    set mode [file attributes [srv unixsocket] -permissions]
    list [file type [srv unixsocket]] [format %o [expr {$mode & 0o777}]]
  } {socket 700}

  test {Unix socket: pipelined requests} {
    set c [redis_unix_client]
    set payload ""
    for {set i 0} {$i < 1000} {incr i} { append payload [::redis::encode {INCR unixpipe}] }
    $c write $payload
    for {set i 1} {$i <= 1000} {incr i} { set last [$c read] }
    $c close
    set last
  } {1000}

  test {Unix socket: protocol errors close the connection} {
    set c [redis_unix_client]
    $c write "*1\r\nfoo\r\n"
    assert_error {ERR Protocol error: expected '$', got 'f'} {$c read}
    assert_error {I/O error*} {$c read}
    $c close
  }
}
