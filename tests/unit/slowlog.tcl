# SLOWLOG: thresholds, entry fields, argument trimming, redaction, limits.

start_server {tags {slowlog external:skip needs:debug} overrides {enable-debug-command yes}} {
  test {SLOWLOG - defaults and CONFIG limits} {
    assert_equal [r config get slowlog-log-slower-than] {slowlog-log-slower-than 10000}
    assert_equal [r config get slowlog-max-len] {slowlog-max-len 128}
    assert_error {ERR CONFIG SET failed (possibly related to argument 'slowlog-log-slower-than') - argument must be between -1 and 9223372036854775807 inclusive} \
      {r config set slowlog-log-slower-than -2}
    assert_error {ERR CONFIG SET failed (possibly related to argument 'slowlog-max-len') - argument must be between 0 and 9223372036854775807 inclusive} \
      {r config set slowlog-max-len -1}
  }

  test {SLOWLOG - only commands slower than the threshold are logged} {
    r config set slowlog-log-slower-than 100000
    r slowlog reset
    r ping
    r debug sleep 0.2
    assert_equal [r slowlog len] 1
    set e [lindex [r slowlog get] 0]
    assert_equal [lindex $e 3] {debug sleep 0.2}
    assert_range [lindex $e 2] 150000 5000000
    r slowlog len
  } {1}

  test {SLOWLOG - entry fields: id, time, duration, argv, address, name} {
    r config set slowlog-log-slower-than 0
    r slowlog reset
    r client setname logger
    r set foo bar
    set e [lindex [r slowlog get 1] 0]
    assert_equal [llength $e] 6
    lassign $e id ts dur argv addr name
    assert_range $ts [expr {[clock seconds] - 5}] [expr {[clock seconds] + 5}]
    assert {$dur >= 0}
    assert_equal $argv {set foo bar}
    assert_match {127.0.0.1:*} $addr
    assert_equal $name logger
    # RESET clears, then logs itself; ids keep increasing.
    r slowlog reset
    set e2 [lindex [r slowlog get 1] 0]
    assert_equal [lindex $e2 3] {slowlog reset}
    assert_morethan [lindex $e2 0] $id
    r client setname ""
  }

  test {SLOWLOG - -1 disables the log, 0 logs everything} {
    r config set slowlog-log-slower-than -1
    r slowlog reset
    r debug sleep 0.05
    r ping
    assert_equal [r slowlog len] 0
    r config set slowlog-log-slower-than 0
    r ping
    r slowlog len
  } {2}

  test {SLOWLOG - max-len keeps the newest entries} {
    r config set slowlog-log-slower-than 0
    r config set slowlog-max-len 5
    for {set i 0} {$i < 20} {incr i} { r set k$i v }
    assert_equal [r slowlog len] 5
    set got [r slowlog get -1]
    assert_equal [llength $got] 5
    assert_equal [lindex $got 0 3] {slowlog len}
    assert_equal [lindex $got 1 3] {set k19 v}
    r config set slowlog-max-len 0
    r ping
    assert_equal [r slowlog len] 0
    r config set slowlog-max-len 128
  }

  test {SLOWLOG - GET count: default 10, -1 all, errors} {
    r config set slowlog-log-slower-than 0
    r slowlog reset
    for {set i 0} {$i < 15} {incr i} { r ping }
    assert_equal [llength [r slowlog get]] 10
    assert_equal [llength [r slowlog get 3]] 3
    assert_equal [llength [r slowlog get 0]] 0
    assert_morethan [llength [r slowlog get -1]] 15
    assert_error {ERR count should be greater than or equal to -1} {r slowlog get -2}
    assert_error {ERR count should be greater than or equal to -1} {r slowlog get abc}
    assert_error {ERR unknown subcommand or wrong number of arguments for 'GET'. Try SLOWLOG HELP.} \
      {r slowlog GET 1 2}
    assert_error {ERR wrong number of arguments for 'slowlog|len' command} {r slowlog len x}
    assert_error {ERR wrong number of arguments for 'slowlog|reset' command} {r slowlog reset x}
    assert_error {ERR unknown subcommand 'foo'. Try SLOWLOG HELP.} {r slowlog foo}
    assert_error {ERR wrong number of arguments for 'slowlog' command} {r slowlog}
  }

  test {SLOWLOG - HELP} {
    set h [r slowlog help]
    assert_equal [llength $h] 12
    assert_equal [lindex $h 0] {SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:}
    assert_equal [lindex $h 2] {    Return top <count> entries from the slowlog (default: 10, -1 mean all).}
  }

  test {SLOWLOG - arguments trimmed to 32 and 128 bytes} {
    r config set slowlog-log-slower-than 0
    r slowlog reset
    r del {*}[lrepeat 40 x]
    set e [lindex [r slowlog get 1] 0]
    set argv [lindex $e 3]
    assert_equal [llength $argv] 32
    assert_equal [lindex $argv 31] {... (10 more arguments)}
    assert_equal [lindex $argv 30] x
    r set k [string repeat A 200]
    set argv [lindex [r slowlog get 1] 0 3]
    assert_equal [lindex $argv 2] "[string repeat A 128]... (72 more bytes)"
    r set k [string repeat B 128]
    lindex [r slowlog get 1] 0 3 2
  } [string repeat B 128]

  test {SLOWLOG - unknown and wrong-arity commands are not logged} {
    r slowlog reset
    catch {r nosuchcommand}
    catch {r get}
    assert_equal [r slowlog len] 1
  }


  test {SLOWLOG - AUTH, HELLO AUTH and CONFIG SET requirepass show (redacted)} {
    r slowlog reset
    catch {r auth foo}
    catch {r auth user pass}
    catch {r hello 2 auth user pass}
    r config set requirepass secret
    r auth secret
    r config set requirepass ""
    set c [redis_client]
    $c quit
    set got {}
    foreach e [r slowlog get 7] { lappend got [lindex $e 3] }
    set got
  } {{config set requirepass (redacted)} {auth (redacted)} {config set requirepass (redacted)} {hello 2 auth (redacted) (redacted)} {auth (redacted) (redacted)} {auth (redacted)} {slowlog reset}}

  test {SLOWLOG - CONFIG SET masterauth and masteruser show (redacted)} {
    r slowlog reset
    r config set masterauth somepass
    r config set masteruser someuser
    r config set masterauth ""
    r config set masteruser ""
    set got {}
    foreach e [r slowlog get 4] { lappend got [lindex $e 3] }
    set got
  } {{config set masteruser (redacted)} {config set masterauth (redacted)} {config set masteruser (redacted)} {config set masterauth (redacted)}}

  test {SLOWLOG - a blocking command is logged when served, not when it blocks or times out} {
    r config set slowlog-log-slower-than 0
    set rd [redis_deferring_client]
    r slowlog reset
    $rd blpop slowlog:l 0
    wait_for_condition 50 20 {[info_field [r info clients] blocked_clients] == 1} { fail "not blocked" }
    set while_blocked [lsearch -all -inline [lmap e [r slowlog get -1] {lindex $e 3}] blpop*]
    r lpush slowlog:l x
    $rd read
    set served [lindex [r slowlog get 1] 0 3]
    r slowlog reset
    r blpop slowlog:none 0.05
    set timed_out [lsearch -all -inline [lmap e [r slowlog get -1] {lindex $e 3}] blpop*]
    $rd close
    list $while_blocked $served $timed_out
  } {{} {blpop slowlog:l 0} {}}

  test {SLOWLOG - unix socket clients show the socket path} {
    set u [redis_unix_client]
    $u slowlog reset
    $u ping
    set addr [lindex [$u slowlog get 1] 0 4]
    $u close
    set addr
  } "[srv unixsocket]:0"

  test {SLOWLOG - randomized argument trimming matches the model} {
    r config set slowlog-log-slower-than 0
    set seed 4242
    expr {srand($seed)}
    for {set round 0} {$round < 200} {incr round} {
      set n [expr {1 + int(rand() * 45)}]
      set args {}
      for {set i 0} {$i < $n} {incr i} {
        lappend args [string repeat z [expr {int(rand() * 150)}]]
      }
      r slowlog reset
      catch {r exists {*}$args}
      set got [lindex [r slowlog get 1] 0 3]
      # Model: argv[0] plus the args, at most 32 entries, the last one
      # replaced by a count when cut; long arguments cut at 128 bytes.
      set full [linsert $args 0 exists]
      set want {}
      set shown [expr {[llength $full] > 32 ? 32 : [llength $full]}]
      for {set i 0} {$i < $shown} {incr i} {
        set a [lindex $full $i]
        if {$shown != [llength $full] && $i == $shown - 1} {
          lappend want "... ([expr {[llength $full] - $shown + 1}] more arguments)"
        } elseif {[string length $a] > 128} {
          lappend want "[string range $a 0 127]... ([expr {[string length $a] - 128}] more bytes)"
        } else {
          lappend want $a
        }
      }
      if {$got ne $want} { fail "seed $seed round $round: got {$got} want {$want}" }
    }
  }
}
