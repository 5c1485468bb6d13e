# This server has no cluster mode: CLUSTER and its subcommands, ASKING,
# READONLY and READWRITE answer as a Redis 7.0.15 node started with
# cluster-enabled no does, so cluster-aware clients probing a plain server
# get what they expect, and scripts and ACL rules see Redis's flags.

start_server {tags {cluster}} {
  test {CLUSTER subcommands, ASKING, READONLY and READWRITE say cluster support is disabled} {
    set out {}
    foreach cmd {{cluster info} {cluster nodes} {cluster slots} {cluster shards} {cluster help}
                 {cluster keyslot k} {cluster myid} {cluster reset hard} {asking} {readonly}
                 {readwrite}} {
      catch {r {*}$cmd} e
      if {$e ne "ERR This instance has cluster support disabled"} { lappend out "$cmd: $e" }
    }
    set out
  } {}

  test {CLUSTER checks its subcommand and arity first} {
    assert_error {ERR unknown subcommand 'nosuch'. Try CLUSTER HELP.} {r cluster nosuch}
    assert_error {ERR wrong number of arguments for 'cluster|keyslot' command} {r cluster keyslot}
    assert_error {ERR wrong number of arguments for 'cluster' command} {r cluster}
  }

  test {Scripts may not run CLUSTER RESET; other subcommands give the disabled error} {
    assert_error {*This Redis command is not allowed from script*} \
      {r eval {return redis.call('cluster', 'reset')} 0}
    assert_error {*This instance has cluster support disabled*} \
      {r eval {return redis.call('cluster', 'info')} 0}
  }

  test {COMMAND lists the cluster commands with Redis's flags} {
    set info [lindex [r command info cluster|reset] 0]
    list [lindex $info 0] [lsort [lindex $info 2]] [expr {[lsearch [r command list] cluster|setslot] >= 0}]
  } {cluster|reset {admin noscript stale} 1}
}
