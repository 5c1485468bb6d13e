# Faults and signals: a crash writes Redis's bug report (stack trace, the
# command being run, INFO) and the process dies by the same signal; SIGHUP
# is ignored; SIGINT is logged as SIGINT.
#
# These servers are started and stopped here rather than by start_server,
# whose health check rightly fails any server whose log holds a bug report.

# Runs body with `srv` describing a server of its own ($srv dict: host, port,
# pid, dir, stdout); the server is killed and its directory removed after.
proc with_crash_server {overrides body} {
  upvar 1 srv srv
  set srv [launch_server [concat {enable-debug-command yes} $overrides] {}]
  set rc [catch {uplevel 1 $body} result opts]
  catch {exec kill -9 [dict get $srv pid]}
  wait_server_exit [dict get $srv dir] 2000
  if {$rc == 0} { file delete -force [dict get $srv dir] }
  if {$rc == 1} { return -options $opts $result }
  return $result
}

proc crash_client {srv} {
  ::redis::connect [dict get $srv host] [dict get $srv port] -timeout 5000
}

# Waits for the server to exit; returns its exit status (128 + signal when
# killed by one).
proc crash_wait_exit {srv} {
  set status [wait_server_exit [dict get $srv dir] 10000]
  if {$status eq ""} { fail "server still running" }
  return $status
}

tags {crash external:skip} {
  test {DEBUG SEGFAULT writes a bug report and the server dies by SIGSEGV} {
    with_crash_server {} {
      set c [crash_client $srv]
      $c set foo bar
      catch {$c debug segfault}
      catch {$c close}
      assert_equal [crash_wait_exit $srv] 139
      set log [read_file [dict get $srv stdout]]
      assert_match "*=== REDIS BUG REPORT START: Cut & paste starting from here ===*" $log
      assert_match "*# Redis 7.0.15 crashed by signal: 11, si_code: *" $log
      assert_match "*# Accessing address: 0x*" $log
      assert_match "*# Crashed running the instruction at: 0x*" $log
      assert_match "*------ STACK TRACE ------*Backtrace:*" $log
      assert_match "*------ CURRENT CLIENT INFO ------*argv\\\[0\\\]: '\"debug\"'*argv\\\[1\\\]: '\"segfault\"'*" $log
      assert_match "*------ INFO OUTPUT ------*# Server*redis_version:7.0.15*# Keyspace*db0:keys=1,*" $log
      assert_match "*------ CLIENT LIST OUTPUT ------*cmd=debug*" $log
      assert_match "*=== REDIS BUG REPORT END. Make sure to include from START to END. ===*" $log
    }
  }

  test {kill -SEGV writes a bug report naming the sender and the server dies by SIGSEGV} {
    with_crash_server {} {
      exec kill -SEGV [dict get $srv pid]
      assert_equal [crash_wait_exit $srv] 139
      set log [read_file [dict get $srv stdout]]
      assert_match "*=== REDIS BUG REPORT START*crashed by signal: 11, si_code: 0*# Killed by PID: *, UID: *------ STACK TRACE ------*------ INFO OUTPUT ------*REDIS BUG REPORT END*" $log
      # No command was running: no client section.
      assert_no_match "*CURRENT CLIENT INFO*" $log
    }
  }

  test {kill -BUS, -FPE, -ILL and -ABRT are reported and kill by the same signal} {
    set got {}
    foreach {sig num} {BUS 7 FPE 8 ILL 4 ABRT 6} {
      with_crash_server {} {
        exec kill -$sig [dict get $srv pid]
        set status [crash_wait_exit $srv]
        set log [read_file [dict get $srv stdout]]
        if {![string match "*crashed by signal: $num,*REDIS BUG REPORT END*" $log]} {
          fail "no report for SIG$sig (status $status): [string range $log end-3000 end]"
        }
        lappend got $status
      }
    }
    set got
  } {135 136 132 134}

  test {DEBUG ASSERT writes an assertion report and the server dies by SIGABRT} {
    with_crash_server {} {
      set c [crash_client $srv]
      catch {$c debug assert}
      catch {$c close}
      assert_equal [crash_wait_exit $srv] 134
      set log [read_file [dict get $srv stdout]]
      assert_match "*REDIS BUG REPORT START*# === ASSERTION FAILED ===*# ==> *' is not true*Backtrace:*REDIS BUG REPORT END*" $log
    }
  }

  test {With use-exit-on-panic a failed assertion exits with status 1 after its report} {
    with_crash_server {use-exit-on-panic yes} {
      set c [crash_client $srv]
      catch {$c debug assert}
      catch {$c close}
      assert_equal [crash_wait_exit $srv] 1
      assert_match "*# === ASSERTION FAILED ===*REDIS BUG REPORT END*" \
          [read_file [dict get $srv stdout]]
    }
  }

  test {watchdog-period logs the stack of a main thread held up, and the server goes on} {
    with_crash_server {} {
      set c [crash_client $srv]
      $c config set watchdog-period 200
      $c debug sleep 1
      set p [$c ping]
      $c config set watchdog-period 0
      $c close
      set log [read_file [dict get $srv stdout]]
      assert_match "*--- WATCHDOG TIMER EXPIRED ---*Backtrace:*--------*" $log
      # The trace names the command's handler, as tools expect of Redis's.
      assert_match "*debugCommand*" $log
      assert_no_match "*REDIS BUG REPORT*" $log
      set p
    }
  } {PONG}

  test {SIGHUP is ignored} {
    with_crash_server {} {
      exec kill -HUP [dict get $srv pid]
      after 200
      set c [crash_client $srv]
      set p [$c ping]
      $c close
      assert_equal [server_status [dict get $srv dir]] ""
      set p
    }
  } {PONG}

  test {SIGINT shuts down cleanly and is logged as SIGINT} {
    with_crash_server {} {
      exec kill -INT [dict get $srv pid]
      assert_equal [crash_wait_exit $srv] 0
      set log [read_file [dict get $srv stdout]]
      assert_match "*:signal-handler (*) Received SIGINT scheduling shutdown...*" $log
      assert_match "*Redis is now ready to exit, bye bye...*" $log
      assert_no_match "*SIGTERM*" $log
    }
  }

  test {A second SIGINT during the shutdown save exits at once and drops its temp file} {
    with_crash_server {} {
      set c [crash_client $srv]
      $c config set save {900 1}
      for {set i 0} {$i < 30} {incr i} { $c set key$i $i }
      # 30 keys at 100 ms each: the save lasts about 3 seconds.
      $c config set rdb-key-save-delay 100000
      $c close
      set pid [dict get $srv pid]
      set temp [file join [dict get $srv dir] temp-$pid.rdb]
      exec kill -INT $pid
      wait_for_condition 100 20 {[file exists $temp]} {
        fail "the shutdown save never started"
      }
      exec kill -INT $pid
      assert_equal [crash_wait_exit $srv] 1
      assert_match "*You insist... exiting now.*" [read_file [dict get $srv stdout]]
      assert {![file exists $temp]}
      assert {![file exists [file join [dict get $srv dir] dump.rdb]]}
    }
  }

  test {SIGTERM shuts down cleanly and is logged as SIGTERM} {
    with_crash_server {} {
      exec kill -TERM [dict get $srv pid]
      assert_equal [crash_wait_exit $srv] 0
      assert_match "*:signal-handler (*) Received SIGTERM scheduling shutdown...*" \
        [read_file [dict get $srv stdout]]
    }
  }
}
