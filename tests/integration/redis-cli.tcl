# Drives the redis-cli binary (--cli-bin, default src/redis-cli) against the
# test server and checks its exact output, byte for byte, as Debian's
# redis-cli 7.0 prints it. stdout is never a tty here, so the default output
# mode is the raw one; --no-raw forces the human-readable format.

source [file join $::support_dir cli.tcl]

start_server {tags {cli}} {
  if {![file executable $::cfg(cli_bin)]} {
    test {redis-cli binary exists} {
      fail "not executable: $::cfg(cli_bin)"
    }
    return
  }

  test {cli: status, bulk, nil and integer replies (default, no tty)} {
    r flushdb
    assert_equal [cli_out set k v] "OK\n"
    assert_equal [cli_out get k] "v\n"
    assert_equal [cli_out get nokey] "\n"
    assert_equal [cli_out incr n] "1\n"
    cli_out mget k nokey n
  } "v\n\n1\n"

  test {cli --no-raw: quoted strings, (nil), (integer), numbered arrays} {
    r flushdb
    r set k v
    r set n 7
    assert_equal [cli_out --no-raw set k2 v] "OK\n"
    assert_equal [cli_out --no-raw get k] "\"v\"\n"
    assert_equal [cli_out --no-raw get nokey] "(nil)\n"
    assert_equal [cli_out --no-raw incr n] "(integer) 8\n"
    assert_equal [cli_out --no-raw mget k nokey n] "1) \"v\"\n2) (nil)\n3) \"8\"\n"
    assert_equal [cli_out --no-raw keys nomatch*] "(empty array)\n"
    r set e ""
    cli_out --no-raw get e
  } "\"\"\n"

  test {cli --no-raw escapes non-printable bytes and quotes} {
    r set bin "a\x00b\n\xc3\xa9\"q"
    cli_out --no-raw get bin
  } "\"a\\x00b\\n\\xc3\\xa9\\\"q\"\n"

  test {cli --raw prints bytes as they are} {
    r set bin "a\x00b\nc"
    cli_out --raw get bin
  } "a\x00b\nc\n"

  test {cli: nested arrays (--no-raw indents, raw flattens)} {
    r mset a ohmytext b mynewtext
    set raw [cli_out lcs a b idx minmatchlen 4]
    assert_equal $raw "matches\n4\n7\n5\n8\nlen\n6\n"
    cli_out --no-raw lcs a b idx minmatchlen 4
  } [join {
    {1) "matches"}
    {2) 1) 1) 1) (integer) 4}
    {         2) (integer) 7}
    {      2) 1) (integer) 5}
    {         2) (integer) 8}
    {3) "len"}
    {4) (integer) 6}
    {}} "\n"]

  test {cli: error replies and exit status} {
    lassign [cli --no-raw nosuchcmd a] status out err
    assert_equal $status 0
    assert_equal $out "(error) ERR unknown command 'nosuchcmd', with args beginning with: 'a' \n"
    lassign [cli get] status out err
    assert_equal $out "ERR wrong number of arguments for 'get' command\n\n"
    lassign [cli --no-raw mget] status out err
    set out
  } "(error) ERR wrong number of arguments for 'mget' command\n"

  test {cli -3: RESP3 maps, nulls and doubles} {
    r set k v
    assert_equal [cli_out -3 --no-raw get nokey] "(nil)\n"
    assert_equal [cli_out -3 --no-raw config get maxclients] \
      "1# \"maxclients\" => \"[lindex [r config get maxclients] 1]\"\n"
    assert_equal [cli_out -3 config get maxclients] \
      "maxclients [lindex [r config get maxclients] 1]\n"
    set hello [cli_out -3 --no-raw hello 3]
    assert_match "1# \"server\" => \"redis\"\n2# \"version\" => *\n3# \"proto\" => (integer) 3\n*" $hello
    cli_out -3 --no-raw get k
  } "\"v\"\n"

  test {cli -n selects the database} {
    r flushall
    assert_equal [cli_out -n 2 set dbk v] "OK\n"
    assert_equal [cli_out -n 2 get dbk] "v\n"
    assert_equal [cli_out get dbk] "\n"
    r select 2
    set v [r get dbk]
    r select 0
    set v
  } {v}

  test {cli -n with an invalid database reports SELECT failure} {
    lassign [cli -n 99 get k] status out err
    assert_match "*SELECT 99 failed: ERR DB index is out of range*" $err
  }

  test {cli -r repeats the command} {
    r del rr
    assert_equal [cli_out -r 3 incr rr] "1\n2\n3\n"
    cli_out -r 2 --no-raw incr rr
  } "(integer) 4\n(integer) 5\n"

  test {cli -x reads the last argument from stdin} {
    assert_equal [cli_out -stdin "hello\nworld" -x set xk] "OK\n"
    r get xk
  } "hello\nworld"

  test {cli: arguments with spaces and binary from the command line} {
    cli_out set "key with space" "value with space"
    r get "key with space"
  } {value with space}

  test {cli: connection refused exits 1 with a message} {
    set port [find_free_port]
    lassign [cli -p $port ping] status out err
    list $status [string match "*Could not connect to Redis at 127.0.0.1:$port: Connection refused*" "$out$err"]
  } {1 1}
}

start_server {tags {cli}} {
  # Help comes from the server's COMMAND DOCS, so it is exactly what the
  # server describes (and what the compat suite checks against Redis 7.0).
  test {cli: help <command> prints syntax, summary, since and group} {
    cli_out -stdin "help set\n"
  } "
  SET key value \[NX|XX\] \[GET\] \[EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL\]
  summary: Set the string value of a key
  since: 1.0.0
  group: string

"

  test {cli: help for a subcommand, repeats with and without their token} {
    set out [cli_out -stdin "help client list\nhelp sort_ro\n"]
    set lines [split $out "\n"]
    list [lindex $lines 1] [lindex $lines 7]
  } {{  CLIENT LIST [TYPE NORMAL|MASTER|REPLICA|PUBSUB] [ID client-id [client-id ...]]} {  SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC|DESC] [ALPHA]}}

  test {cli: help @group lists the group's commands in name order} {
    set out [cli_out -stdin "help @hyperloglog\n"]
    set names [regexp -all -inline -line {^  (PF[A-Z]+) } $out]
    list [lmap {whole name} $names {set name}] [string match "*group:*" $out]
  } {{PFADD PFCOUNT PFDEBUG PFMERGE PFSELFTEST} 0}

  test {cli: help for an unknown topic prints how to ask} {
    set out [cli_out -stdin "help nosuchcommand\n"]
    assert_match "*\"help @<group>\" to get a list of commands in <group>*" $out
  }

  test {cli: Tab completes command names in the case typed} {
    set ::env(REDISCLI_HISTFILE) /dev/null
    set pty [file join $::redis::support_dir pty_run.py]
    set cli [list $::cfg(cli_bin) -h [srv host] -p [srv port]]
    set lower [exec /usr/bin/python3 $pty {pfc\t\p\n\p\x04} {*}$cli]
    set upper [exec /usr/bin/python3 $pty {HGETA\t\p\n\p\x04} {*}$cli]
    unset ::env(REDISCLI_HISTFILE)
    # Hints (grey text after a complete command name) and cursor moves are
    # drawn between the keys: leave them out of what is compared.
    foreach v {lower upper} {
      regsub -all "\x1b\\\[0;90;49m\[^\x1b\]*\x1b\\\[0m" [set $v] "" $v
      regsub -all "\x1b\\\[\[0-9;\]*\[A-Za-z\]" [set $v] "" $v
    }
    list [string match "*pfc*ount *" $lower] [string match "*HGETA*LL *" $upper]
  } {1 1}
}

start_server {tags {cli external:skip needs:debug} overrides {enable-debug-command yes}} {
  # FAKETTY in the environment makes stdout count as a terminal, as it does
  # for redis-cli 7.0 (its own tests rely on it): replies get the terminal
  # format without any --no-raw.
  proc tty_cli {args} {
    set ::env(FAKETTY) 1
    set res [cli {*}$args]
    unset ::env(FAKETTY)
    return $res
  }

  test {cli with FAKETTY set: one-shot replies in the terminal format} {
    r flushdb
    r rpush l a b
    r set t "x\ty\n"
    lassign [tty_cli incr n] st1 out1
    lassign [tty_cli get t] st2 out2
    lassign [tty_cli lrange l 0 -1] st3 out3
    lassign [tty_cli --raw lrange l 0 -1] st4 out4
    list $st1 $out1 $st2 $out2 $st3 $out3 $st4 $out4
  } [list 0 "(integer) 1\n" 0 "\"x\\ty\\n\"\n" 0 "1) \"a\"\n2) \"b\"\n" 0 "a\nb\n"]

  test {cli with FAKETTY set: piped lines in the terminal format too} {
    r flushdb
    r rpush l a b
    lassign [tty_cli -stdin "incr n\nlrange l 0 -1\nget nokey\n"] st out
    list $st $out
  } [list 0 "(integer) 1\n1) \"a\"\n2) \"b\"\n(nil)\n"]

  test {cli: a slow command's time follows it on piped lines, never in one-shot mode} {
    # Line mode prints "(0.61s)" after a command of 0.5 s or more in the
    # terminal format, whatever stdout is; the raw format and one-shot runs
    # (even on a terminal) print the reply alone.
    lassign [cli -stdin "debug sleep 0.6\n" --no-raw] st1 out1
    lassign [cli -stdin "debug sleep 0.6\n"] st2 out2
    lassign [tty_cli debug sleep 0.6] st3 out3
    list $st1 [regexp {^OK\n\(0\.[6-9][0-9]s\)\n$} $out1] $st2 $out2 $st3 $out3
  } [list 0 1 0 "OK\n" 0 "OK\n"]

  test {cli --quoted-input: an argument that is not one quoted string fails the run} {
    # Unterminated, two strings in one argument, text glued to the closing
    # quote: "Invalid quoted string" on stdout, status 1, nothing sent.
    r flushdb
    set res {}
    foreach bad [list {"open} {"a" "b"} {"a"x}] {
      lappend res [cli --quoted-input set $bad v]
    }
    list $res [r dbsize]
  } [list [lrepeat 3 [list 1 "Invalid quoted string\n" ""]] 0]

  test {cli --quoted-input unquotes one-shot arguments, not --eval ones} {
    r flushdb
    cli_out --quoted-input set {"k\x41"} {'v w'}
    set script [file join [tmp_root] cli-eval.[pid].lua]
    set fd [open $script w]
    puts $fd "return KEYS\[1\]"
    close $fd
    set out [cli_out --quoted-input --eval $script {"k\x41"}]
    file delete $script
    list [r get kA] $out
  } [list {v w} "\"k\\x41\"\n"]

  test {cli -X: a tag that is not among the arguments fails the run} {
    r flushdb
    lassign [cli -stdin "data" -X tag set k notag] st out err
    list $st $out $err [r exists k]
  } [list 1 "" "Using -X option but stdin tag not match.\n" 0]

  test {cli -X: stdin replaces the first argument equal to the tag only} {
    r flushdb
    assert_equal [cli_out -stdin "data" -X tag set tag tag] "OK\n"
    list [r get data] [r exists tag]
  } {tag 0}

  test {cli -X: an empty tag is a tag, and still excludes -x} {
    r flushdb
    assert_equal [cli_out -stdin "data" -X "" set k ""] "OK\n"
    lassign [cli -stdin "data" -X "" -x set k2] st out err
    list [r get k] $st $err
  } [list data 1 "Options -x and -X are mutually exclusive.\n"]
}

start_server {tags {cli needs:unix external:skip}} {
  test {cli -s connects over the unix socket} {
    set out [exec $::cfg(cli_bin) -s [srv unixsocket] set unixk v]
    assert_equal $out OK
    exec $::cfg(cli_bin) -s [srv unixsocket] --no-raw get unixk
  } {"v"}
}

start_server {tags {cli external:skip} overrides {requirepass clipass}} {
  test {cli -a authenticates} {
    lassign [cli -a clipass ping] status out err
    assert_equal $out "PONG\n"
    assert_match "*Using a password with '-a'*" $err
    lassign [cli --no-auth-warning -a clipass ping] status out err
    assert_equal $err ""
    set out
  } "PONG\n"

  test {cli without or with a wrong password} {
    lassign [cli --no-raw ping] status out err
    assert_equal $out "(error) NOAUTH Authentication required.\n"
    lassign [cli --no-auth-warning -a wrong ping] status out err
    assert_match "*AUTH failed: WRONGPASS invalid username-password pair or user is disabled.*" $err
  }
}

start_server {tags {cli external:skip}} {
  test {--rdma-* options: refused without --rdma, validated by the transport (cli and benchmark)} {
    foreach prog {redis-cli redis-benchmark} {
      set bin [file join $::repo_root src $prog]
      assert_equal 1 [catch {exec $bin --rdma-dialect seed PING} err]
      assert_match "*Option --rdma-dialect needs --rdma.*" $err
      assert_equal 1 [catch {exec $bin --rdma --rdma-dialect bogus -p 1 PING} err]
      assert_match "*Invalid --rdma-dialect: rdma dialect must be auto, ours, seed or valkey*" $err
      assert_equal 1 [catch {exec $bin --rdma -s /nonexistent PING} err]
      assert_match "*Options --rdma and -s cannot be used together.*" $err
    }
  }
}

start_server {tags {cli external:skip}} {
  test {cli SHUTDOWN: the server closing as asked is success, with nothing printed} {
    # redis-cli 7.0 takes the closed connection as SHUTDOWN's answer.
    lassign [cli shutdown nosave] status out err
    wait_for_condition 100 50 {![ping_server [srv host] [srv port]]} {
      fail "the server is still answering"
    }
    list $status $out $err
  } {0 {} {}}
}
