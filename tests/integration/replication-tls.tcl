# Replication over TLS (tls-replication): this server's replica reaches a
# master's TLS port through the tls connection type, with the server's
# client certificate (tls-client-cert-file, else tls-cert-file) and the
# tls-ca-cert-file chain; with tls-replication no it speaks plain TCP, which
# a TLS port refuses. Ours with ours, ours with Debian's Redis 7.0.15 both
# ways. Certificates are made at test time (tests/support/tls.tcl).

source [file join $::support_dir tls.tcl]
source [file join $::support_dir replication.tcl]

# The master's connection of its one replica, as CLIENT LIST shows it.
proc replica_client_line {level} {
  return [string trim [r $level client list type replica]]
}

set master_tls [find_free_port]
start_server [list tags {repl tls external:skip} \
                overrides [tls_overrides $master_tls {repl-diskless-sync-delay 0
                                                    enable-debug-command yes}]] {
  r set before-sync 1
  set replica_tls [find_free_port]
  start_server [list overrides [tls_overrides $replica_tls {enable-debug-command yes}]] {
    test {Without tls-replication the replica speaks plain TCP: the master's TLS port refuses it} {
      assert_equal [r config get tls-replication] {tls-replication no}
      r replicaof 127.0.0.1 $master_tls
      wait_log -1 "*plain-text client on the TLS port*"
      repl_field 0 master_link_status
    } {down}

    test {CONFIG SET tls-replication yes: the next attempt goes over TLS and syncs} {
      r config set tls-replication yes
      wait_link_up 0
      r -1 set during-tls 2
      r -1 rpush l a b c
      wait_caught_up -1 0
      assert_match {*transport=tls*} [replica_client_line -1]
      list [r get before-sync] [r get during-tls] [r lrange l 0 -1]
    } {1 2 {a b c}}

    test {A replica over TLS continues with PSYNC after its link is cut} {
      set full [stat_field -1 sync_full]
      r -1 client kill type replica
      wait_log 0 "*Connection with master lost*"
      r -1 set while-down 3
      wait_caught_up -1 0
      assert_equal [stat_field -1 sync_full] $full
      assert_match {*transport=tls*} [replica_client_line -1]
      r get while-down
    } {3}

    test {A diskless load over TLS parses the RDB as it arrives} {
      r -1 config set repl-diskless-sync yes
      r -1 debug populate 2000 tls 500
      r config set repl-diskless-load swapdb
      r config set key-load-delay 300
      set full [stat_field -1 sync_full]
      r -1 debug change-repl-id
      r -1 client kill type replica
      wait_log 0 "*receiving streamed RDB from master with EOF to parser*"
      after 300
      r config set key-load-delay 0
      wait_caught_up -1 0
      assert_morethan [stat_field -1 sync_full] $full
      assert_match {*transport=tls*} [replica_client_line -1]
      assert_equal [r debug digest] [r -1 debug digest]
      r config set repl-diskless-load disabled
      r dbsize
    } {2004}

    test {A master that asks for client certificates refuses a replica whose CA it does not trust} {
      set d [tls_certs]
      r replicaof no one
      r config set tls-client-cert-file $d/other.crt tls-client-key-file $d/other.key
      r replicaof 127.0.0.1 $master_tls
      wait_for_condition 100 50 {[string match "*MASTER <-> REPLICA sync started*" [log_of 0]]} {
        fail "the replica never tried"
      }
      wait_log -1 "*Error accepting a client connection:*certificate*"
      set down [repl_field 0 master_link_status]
      r config set tls-client-cert-file $d/client.crt tls-client-key-file $d/client.key
      wait_link_up 0
      set down
    } {down}

    test {The replica refuses a master whose certificate its CA did not sign} {
      set d [tls_certs]
      r replicaof no one
      r config set tls-ca-cert-file $d/other-ca.crt
      r replicaof 127.0.0.1 $master_tls
      wait_log 0 "*Error condition on socket for SYNC:*certificate verify failed*"
      set down [repl_field 0 master_link_status]
      r config set tls-ca-cert-file $d/ca.crt
      wait_link_up 0
      set down
    } {down}
  }
}

if {[file executable $::reference_bin]} {
  set master_tls [find_free_port]
  with_server_bin $::reference_bin {
    start_server [list tags {repl tls external:skip} \
                    overrides [tls_overrides $master_tls {repl-diskless-sync-delay 0}]] {
      r set from-redis 1
      with_server_bin $::our_bin {
        set replica_tls [find_free_port]
        start_server [list overrides [tls_overrides $replica_tls {tls-replication yes}]] {
          test {Our replica of Redis 7.0.15 over TLS: full sync and stream} {
            r replicaof 127.0.0.1 $master_tls
            wait_link_up 0
            r -1 hset h f v
            wait_caught_up -1 0
            list [r get from-redis] [r hget h f]
          } {1 v}
        }
      }
    }
  }

  set master_tls [find_free_port]
  start_server [list tags {repl tls external:skip} \
                  overrides [tls_overrides $master_tls {repl-diskless-sync-delay 0}]] {
    r set from-ours 1
    set replica_tls [find_free_port]
    with_server_bin $::reference_bin {
      start_server [list overrides [tls_overrides $replica_tls {tls-replication yes}]] {
        test {Redis 7.0.15 as a replica of our server over TLS} {
          r replicaof 127.0.0.1 $master_tls
          wait_link_up 0
          r -1 sadd s x y
          wait_caught_up -1 0
          assert_match {*transport=tls*} [replica_client_line -1]
          list [r get from-ours] [lsort [r smembers s]]
        } {1 {x y}}
      }
    }
  }
}
