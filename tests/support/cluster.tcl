# Cluster nodes for the cluster tests: ours and Debian's Redis 7.0.15
# (/usr/bin/redis-server) side by side, each in its own directory with its
# nodes.conf, started, killed and restarted by name.
#
#   cnode_start name kind ?extra-args?   kind: ours | debian
#   cn name cmd args...                  a command on a fresh connection
#   cnode_kill name / cnode_restart name
#   cluster_wait_ok names                every node says cluster_state:ok
#                                        and knows all the others
#   cnodes_stop_all                      SIGTERM, then checks our logs

set ::cnode_timeout 1000
array set ::cnodes {}

# A port whose bus port (port + 10000) is free as well.
proc cluster_free_port {} {
  for {set i 0} {$i < 50} {incr i} {
    set p [find_free_port]
    if {$p + 10000 <= 65535 && [port_is_free [expr {$p + 10000}]]} { return $p }
  }
  error "no port pair free"
}

proc cnode_launch {name} {
  set n $::cnodes($name)
  set dir [dict get $n dir]
  file delete -force $dir/pid $dir/status
  if {[file exists $dir/stdout]} { file rename -force $dir/stdout $dir/stdout.before-restart }
  set bin [expr {[dict get $n kind] eq "ours" ? $::cfg(server_bin) : "/usr/bin/redis-server"}]
  set argv [list --port [dict get $n port] --bind 127.0.0.1 --cluster-enabled yes \
              --cluster-config-file nodes.conf --cluster-node-timeout $::cnode_timeout \
              --dir $dir --save "" --appendonly no --loglevel verbose --repl-diskless-sync-delay 0 \
              --enable-debug-command yes {*}[dict get $n extra]]
  set pid [spawn_server $bin $argv $dir]
  dict set n pid $pid
  set ::cnodes($name) $n
  wait_for_condition 200 20 {[ping_server 127.0.0.1 [dict get $n port]]} {
    fail "cluster node $name did not start: [read_file $dir/stdout]"
  }
}

proc cnode_start {name kind {extra {}}} {
  set ::cnodes($name) [dict create kind $kind port [cluster_free_port] \
                         dir [new_tmp_dir cnode-$name] extra $extra pid 0]
  cnode_launch $name
}

proc cport {name} { return [dict get $::cnodes($name) port] }
proc caddr {name} { return "127.0.0.1:[cport $name]" }
proc cdir {name} { return [dict get $::cnodes($name) dir] }
proc clog {name} { return [read_file [cdir $name]/stdout] }

proc cn {name args} {
  set c [::redis::connect 127.0.0.1 [cport $name] -timeout $::cfg(reply_timeout)]
  set rc [catch {$c {*}$args} res opts]
  $c close
  return -options $opts $res
}

proc cinfo {name field} { return [info_field [cn $name cluster info] $field] }

proc cnode_kill {name} {
  catch {exec kill -9 [dict get $::cnodes($name) pid]}
  wait_server_exit [cdir $name] 5000
}

proc cnode_restart {name} { cnode_launch $name }

# The node's view: id -> {flags master slots...} from CLUSTER NODES.
# The node's view, comparable between nodes: sorted {id flags master
# slots...} entries from CLUSTER NODES (without "myself").
proc cluster_view {name} {
  set view {}
  foreach line [split [string trim [cn $name cluster nodes]] "\n"] {
    set f [split $line " "]
    lappend view [list [lindex $f 0] [string map {myself, ""} [lindex $f 2]] [lindex $f 3] \
                    [lrange $f 8 end]]
  }
  return [lsort $view]
}

proc cluster_wait_ok {names} {
  set total [llength $names]
  wait_for_condition 300 50 {
    [apply {{names total} {
      foreach n $names {
        if {[catch {cinfo $n cluster_state} st] || $st ne "ok"} { return 0 }
        if {[cinfo $n cluster_known_nodes] != $total} { return 0 }
      }
      return 1
    }} $names $total]
  } {
    set views {}
    foreach n $names { catch {append views "\n--- $n\n[cn $n cluster nodes]"} }
    fail "cluster never became ok on every node:$views"
  }
}

# Debian's redis-cli; returns output, or "ERROR: <output>" on a non-zero exit.
proc dcli {args} {
  if {[catch {exec /usr/bin/redis-cli {*}$args 2>@1} out]} { return "ERROR: $out" }
  return $out
}

proc live_nodes {names} {
  return [lmap n $names {expr {[server_status [cdir $n]] eq "" ? $n : [continue]}}]
}

# Waits until Debian's redis-cli --cluster check finds nothing to complain
# about (every node agrees, no open slot, full coverage).
proc cluster_wait_consistent {name} {
  wait_for_condition 200 50 {
    ![string match "ERROR:*" [dcli --cluster check [caddr $name]]]
  } {
    fail "nodes never agreed: [dcli --cluster check [caddr $name]]"
  }
}

proc replicas_of {master} {
  set out {}
  foreach n [array names ::cnodes] {
    if {$n eq $master || [catch {cn $n role} role]} continue
    if {[lindex $role 0] eq "slave" && [lindex $role 2] == [cport $master]} { lappend out $n }
  }
  return $out
}
proc wait_replicas_synced {master} {
  foreach r [replicas_of $master] {
    wait_for_condition 200 50 {
      [info_field [cn $r info replication] master_link_status] eq "up"
    } {
      fail "replica $r of $master never synced"
    }
  }
}

proc cnode_id {name} { return [cn $name cluster myid] }

# The node that serves a key, by name (from a node's CLUSTER SLOTS view).
proc cluster_owner {key names} {
  set slot [cn [lindex [live_nodes $names] 0] cluster keyslot $key]
  foreach n $names {
    if {[catch {cn $n role} role] || [lindex $role 0] ne "master"} continue
    foreach line [split [string trim [cn $n cluster nodes]] "\n"] {
      if {![string match "*myself*" $line]} continue
      foreach r [lrange [split $line " "] 8 end] {
        if {[string index $r 0] eq "\["} continue
        lassign [split $r -] a b
        if {$b eq ""} { set b $a }
        if {$slot >= $a && $slot <= $b} { return $n }
      }
    }
  }
  return ""
}

# A key the node serves (it must be a master with slots).
proc owned_key {name {prefix k}} {
  set ranges {}
  foreach line [split [string trim [cn $name cluster nodes]] "\n"] {
    if {![string match "*myself*" $line]} continue
    foreach r [lrange [split $line " "] 8 end] {
      if {[string index $r 0] eq "\["} continue
      lassign [split $r -] a b
      if {$b eq ""} { set b $a }
      lappend ranges $a $b
    }
  }
  for {set i 0} {$i < 10000} {incr i} {
    set slot [cn $name cluster keyslot $prefix$i]
    foreach {a b} $ranges { if {$slot >= $a && $slot <= $b} { return $prefix$i } }
  }
  error "node $name serves no slot"
}

proc cnodes_stop_all {} {
  foreach name [array names ::cnodes] {
    set n $::cnodes($name)
    set dir [dict get $n dir]
    if {[server_status $dir] eq ""} {
      catch {exec kill -TERM [dict get $n pid]}
      if {[wait_server_exit $dir 5000] eq ""} { catch {exec kill -9 [dict get $n pid]} }
    }
    if {[dict get $n kind] eq "ours"} {
      set log [read_file $dir/stdout]
      foreach marker {AddressSanitizer LeakSanitizer "runtime error:" "REDIS BUG REPORT" "crashed by signal"} {
        if {[string first $marker $log] >= 0} {
          puts "\[err\]: cluster node $name: its output contains '$marker'"
          incr ::failed_tests
        }
      }
    }
  }
  array unset ::cnodes
}
