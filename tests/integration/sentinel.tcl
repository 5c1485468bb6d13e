# Our servers behind Debian's redis-sentinel 7.0.15: Sentinel discovers our
# replicas, promotes one when the master dies, points the other replicas
# (and the old master, once it is back) at it, and Sentinel-aware clients
# (redis-py's Sentinel) find the new master. Then a mixed deployment with
# Redis 7.0.15 fails over in both directions: a Redis master to our replica,
# and our master to a Redis replica. Writes acknowledged by WAIT before a
# failover are on the new master after it.

source [file join $::support_dir replication.tcl]
source [file join $::support_dir sentinel.tcl]

if {![sentinel_available]} {
  test {Sentinel tests (needs Debian's redis-sentinel)} {
    puts "    $::sentinel_bin is not installed"
  }
  return
}

# Sentinel ends each reconfiguration with CLIENT KILL TYPE normal, so these
# tests talk to the servers on a fresh connection per command.
proc fr {level args} {
  set c [::redis::connect [srv $level host] [srv $level port] -timeout $::cfg(reply_timeout)]
  set rc [catch {$c {*}$args} res opts]
  $c close
  return -options $opts $res
}
proc frepl {level field} { return [info_field [fr $level info replication] $field] }
proc fstat {level field} { return [info_field [fr $level info stats] $field] }

proc write_acked {level prefix n replicas} {
  set c [::redis::connect [srv $level host] [srv $level port] -timeout $::cfg(reply_timeout)]
  for {set i 0} {$i < $n} {incr i} { $c set $prefix:$i $i }
  set acked [$c wait $replicas 5000]
  $c close
  assert_equal $acked $replicas
}

proc has_all {level prefix n} {
  set got 0
  for {set i 0} {$i < $n} {incr i} { if {[fr $level get $prefix:$i] eq $i} { incr got } }
  return [expr {$got == $n}]
}

# Waits until the server at level replicates from the one at port and has
# caught up with it.
proc wait_follows {level port} {
  set m [level_of $port]
  wait_for_condition 400 100 {
    [frepl $level role] eq "slave" && [frepl $level master_port] == $port &&
    [frepl $level master_link_status] eq "up" &&
    [frepl $level master_repl_offset] == [frepl $m master_repl_offset]
  } {
    fail "server [srv $level port] never followed $port: [fr $level info replication]"
  }
}

# The level (0, -1, ...) of the live server listening on port.
proc level_of {port} {
  for {set level 0} {$level > -[llength $::servers]} {incr level -1} {
    if {[srv $level port] == $port && ![srv $level killed]} { return $level }
  }
  error "no server on port $port"
}

set overrides {repl-diskless-sync-delay 0}
start_server [list tags {repl sentinel external:skip} overrides $overrides] {
  set master_port [srv 0 port]
  start_server [list overrides $overrides] {
    r replicaof 127.0.0.1 $master_port
    start_server [list overrides $overrides] {
      r replicaof 127.0.0.1 $master_port
      wait_caught_up -2 -1
      wait_caught_up -2 0
      with_sentinels 3 $master_port 2 {
        test {Sentinel discovers our replicas and the other Sentinels through our master} {
          wait_sentinels_ready 2
          set ports {}
          foreach rep [sen 0 sentinel replicas mymaster] {
            assert_equal [sentinel_field $rep flags] slave
            assert_equal [sentinel_field $rep slave-priority] 100
            lappend ports [sentinel_field $rep port]
          }
          lsort $ports
        } [lsort [list [srv -1 port] [srv 0 port]]]

        test {Our master dies: Sentinel promotes our replica, the other one continues partially} {
          write_acked -2 before 100 2
          exec kill -9 [srv -2 pid]
          mark_server_killed -2
          wait_for_condition 300 100 {
            [lindex [sen 0 sentinel get-master-addr-by-name mymaster] 1] != $master_port
          } {
            fail "Sentinel never failed over"
          }
          set new_port [lindex [sen 0 sentinel get-master-addr-by-name mymaster] 1]
          wait_sentinels_master $new_port
          set m [level_of $new_port]
          set other [expr {$m == -1 ? 0 : -1}]
          assert_equal [frepl $m role] master
          wait_follows $other $new_port
          # The promoted server kept its history: no full sync for the sibling.
          assert_equal [fstat $m sync_full] 0
          assert_equal [fstat $m sync_partial_ok] 1
          wait_for_condition 200 100 {[string match "*+slave-reconf-done*" [sentinel_logs]]} {
            fail "no Sentinel saw the reconfiguration finish"
          }
          wait_sentinels_settled
          assert_no_match "*failover-end-for-timeout*" [sentinel_logs]
          list [has_all $m before 100] [has_all $other before 100]
        } {1 1}

        test {redis-py's Sentinel client finds the new master and its replica} {
          set script {
import sys
from redis.sentinel import Sentinel
s = Sentinel([("127.0.0.1", int(p)) for p in sys.argv[1:]], socket_timeout=5)
host, port = s.discover_master("mymaster")
master = s.master_for("mymaster", socket_timeout=5)
master.set("via-sentinel", "yes")
print(port, master.get("via-sentinel").decode())
print(" ".join(str(p) for h, p in s.discover_slaves("mymaster")))
          }
          set out [exec /usr/bin/python3 -c $script [sentinel_port 0] [sentinel_port 1] [sentinel_port 2]]
          assert_equal [fr $m get via-sentinel] yes
          # The dead old master may still be listed until Sentinel flags it.
          assert_match "*[srv $other port]*" [lindex [split $out "\n"] 1]
          lindex [split $out "\n"] 0
        } "$new_port yes"

        test {The old master comes back empty: Sentinel makes it a replica of the new one} {
          start_server [list overrides [list port $master_port {*}$overrides]] {
            assert_equal [frepl 0 role] master
            wait_follows 0 $new_port
            set got [list [has_all 0 before 100] [fr 0 get via-sentinel]]
          }
          set got
        } {1 yes}
      }
    }
  }
}

if {![file executable $::reference_bin]} { return }

# Redis 7.0.15 master, our replica (preferred: lower replica-priority) and a
# Redis replica.
with_server_bin $::reference_bin {
  start_server [list tags {repl sentinel external:skip} overrides $overrides] {
    set master_port [srv 0 port]
    with_server_bin $::our_bin {
      start_server [list overrides [list replica-priority 10 {*}$overrides]] {
        r replicaof 127.0.0.1 $master_port
        with_server_bin $::reference_bin {
          start_server [list overrides [list replica-priority 50 {*}$overrides]] {
            r replicaof 127.0.0.1 $master_port
            wait_caught_up -2 -1
            wait_caught_up -2 0
            with_sentinels 3 $master_port 2 {
              test {Mixed: the Redis master dies, Sentinel promotes ours, the Redis replica follows ours} {
                wait_sentinels_ready 2
                write_acked -2 mixed 100 2
                exec kill -9 [srv -2 pid]
                mark_server_killed -2
                wait_sentinels_master [srv -1 port]
                assert_equal [frepl -1 role] master
                wait_follows 0 [srv -1 port]
                write_acked -1 after-first 1 1
                # Redis continued from our history without a full sync.
                assert_equal [fstat -1 sync_full] 0
                assert_equal [fstat -1 sync_partial_ok] 1
                list [has_all -1 mixed 100] [has_all 0 mixed 100] [has_all 0 after-first 1]
              } {1 1 1}

              test {Mixed: SENTINEL FAILOVER hands the master role to Redis, ours follows it} {
                wait_sentinels_settled
                write_acked -1 ours 100 1
                assert_equal [sen 0 sentinel failover mymaster] OK
                wait_sentinels_master [srv 0 port]
                wait_follows -1 [srv 0 port]
                write_acked 0 after-second 1 1
                # Ours took Sentinel's hello messages as master until it was
                # turned into a replica, so its history went past Redis's
                # and it resynced in full (Redis's own old master does too).
                list [has_all 0 ours 100] [has_all 0 mixed 100] [has_all -1 after-second 1]
              } {1 1 1}
            }
          }
        }
      }
    }
  }
}
