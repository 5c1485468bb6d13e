# ACL over RDMA: a restricted user authenticated through redis-cli --rdma
# gets the same -NOPERM replies as over TCP (the check sits above the
# connection type), its denials reach ACL LOG with the rdma client's info,
# and a wrong password is refused. Runs only in the rxe VM (needs:rdma).

source [file join $::repo_root tests rdma helpers rdma.tcl]
set ::rdma_port [find_free_port]

start_server [list tags {needs:rdma external:skip} \
                overrides [rdma_overrides $::rdma_port {requirepass s3cret}]] {
  # The default user needs a password too: a client whose AUTH fails
  # (redis-cli goes on after a failed AUTH) can then do nothing.
  r auth s3cret
  r acl setuser app on >apw {~app:*} +get +set +ping +acl|whoami

  proc app_cli {args} {
    rdma_cli --user app -a apw --no-auth-warning {*}$args
  }

  test {RDMA ACL: the user is authenticated over rdma} {
    app_cli ACL WHOAMI
  } {app}

  test {RDMA ACL: allowed keys and commands work} {
    assert_equal [app_cli SET app:1 v] OK
    assert_equal [app_cli GET app:1] v
    r get app:1
  } {v}

  test {RDMA ACL: a denied key, command and subcommand get NOPERM} {
    assert_match "*NOPERM this user has no permissions to access one of the keys used as arguments*" \
      [app_cli SET other v]
    assert_match "*NOPERM this user has no permissions to run the 'flushall' command*" \
      [app_cli FLUSHALL]
    assert_match "*NOPERM this user has no permissions to run the 'config|get' command*" \
      [app_cli CONFIG GET maxmemory]
    assert_equal [r exists other] 0
    r dbsize
  } {1}

  test {RDMA ACL: the denials are in ACL LOG with the rdma client} {
    r acl log reset
    app_cli GET secret
    set e [lindex [r acl log] 0]
    set d {}
    foreach {k v} $e { dict set d $k $v }
    assert_equal [dict get $d reason] key
    assert_equal [dict get $d object] secret
    assert_equal [dict get $d username] app
    assert_match "*transport=rdma*" [dict get $d client-info]
  }

  test {RDMA ACL: a wrong password is refused} {
    lassign [run_status $::rdma_cli --rdma -h $::rdma_addr -p $::rdma_port --user app \
               -a wrong --no-auth-warning GET app:1] status out
    assert_match "*WRONGPASS invalid username-password pair or user is disabled.*" $out
    assert_match "*NOAUTH Authentication required.*" $out
    assert_no_match "*\nv*" "\n$out"
  }

  test {RDMA ACL: a disabled user cannot log in} {
    r acl setuser app off
    set out [lindex [run_status $::rdma_cli --rdma -h $::rdma_addr -p $::rdma_port --user app \
                       -a apw --no-auth-warning GET app:1] 1]
    r acl setuser app on
    assert_match "*WRONGPASS*" $out
    assert_match "*NOAUTH*" $out
  }
}
