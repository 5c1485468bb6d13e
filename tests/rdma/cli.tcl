# redis-cli --rdma against the server's rdma listener, as a user runs it:
# one-shot commands and their output, options (-n, --raw/--no-raw, -a),
# CLIENT LIST's transport field, TCP and RDMA clients sharing one keyspace,
# AUTH and protected mode. Runs only in the rxe VM (needs:rdma).

source [file join $::repo_root tests rdma helpers rdma.tcl]
set ::rdma_port [find_free_port]

start_server [list tags {needs:rdma external:skip} \
                overrides [rdma_overrides $::rdma_port {protected-mode no}]] {
  test {RDMA cli: PING answers PONG} {
    rdma_cli PING
  } {PONG}

  test {RDMA cli: SET then GET returns the value} {
    assert_equal [rdma_cli SET rdma:cli:k "hello rdma"] OK
    rdma_cli GET rdma:cli:k
  } {hello rdma}

  test {RDMA cli: a missing key, an integer and an error reply} {
    assert_equal [rdma_cli GET rdma:cli:missing] ""
    assert_equal [rdma_cli INCRBY rdma:cli:n 41] 41
    assert_equal [rdma_cli INCR rdma:cli:n] 42
    assert_match "*ERR unknown command*" [rdma_cli NOSUCHCOMMAND x]
  }

  test {RDMA cli: -n selects the database} {
    assert_equal [rdma_cli -n 3 SET rdma:cli:db three] OK
    assert_equal [r get rdma:cli:db] ""
    r select 3
    set v [r get rdma:cli:db]
    r select 0
    assert_equal [rdma_cli -n 3 GET rdma:cli:db] three
    set v
  } {three}

  test {RDMA cli: --raw prints bytes, --no-raw quotes them} {
    r set rdma:cli:nl "a\nb\tc"
    assert_equal [rdma_cli --raw GET rdma:cli:nl] "a\nb\tc"
    assert_equal [rdma_cli --no-raw GET rdma:cli:nl] {"a\nb\tc"}
    rdma_cli --no-raw INCR rdma:cli:n
  } {(integer) 43}

  test {RDMA cli: -r repeats the command on one connection} {
    r del rdma:cli:rep
    set out [rdma_cli -r 5 INCR rdma:cli:rep]
    assert_equal [split $out "\n"] {1 2 3 4 5}
    r get rdma:cli:rep
  } {5}

  test {RDMA cli: TCP and RDMA clients see each other's writes} {
    r set rdma:cli:shared from-tcp
    assert_equal [rdma_cli GET rdma:cli:shared] from-tcp
    assert_equal [rdma_cli APPEND rdma:cli:shared +rdma] 13
    assert_equal [r get rdma:cli:shared] from-tcp+rdma
    r del rdma:cli:ctr
    for {set i 0} {$i < 5} {incr i} {
      r incr rdma:cli:ctr
      rdma_cli INCR rdma:cli:ctr
    }
    assert_equal [rdma_cli GET rdma:cli:ctr] 10
    r get rdma:cli:ctr
  } {10}

  test {RDMA cli: CLIENT LIST shows transport=rdma/ours for the rdma client} {
    set line [rdma_cli CLIENT LIST]
    # Only this client and the test's TCP client are connected.
    set mine [lsearch -all -inline [split $line "\n"] "*cmd=client|list*"]
    assert_equal [llength $mine] 1 $line
    assert_match "id=* addr=$::rdma_addr:* laddr=$::rdma_addr:$::rdma_port *transport=rdma/ours" \
      [lindex $mine 0]
    set tcp [lsearch -all -inline [split $line "\n"] "*transport=tcp"]
    assert_equal [llength $tcp] 1 $line
    assert_match "*transport=tcp" [string trim [r client list]]
  }

  test {RDMA cli: INFO rdma counts the rdma traffic} {
    set before [rdma_info rdma_bytes_received]
    rdma_cli SET rdma:cli:count [string repeat y 1000]
    assert_morethan [rdma_info rdma_bytes_received] [expr {$before + 1000}]
    assert_match "*# Rdma*rdma_connected_clients:*" [rdma_cli INFO rdma]
    wait_rdma_clients 0
  }
}

start_server [list tags {needs:rdma external:skip} \
                overrides [rdma_overrides $::rdma_port {requirepass s3cret}]] {
  r auth s3cret

  test {RDMA cli: requirepass refuses commands without AUTH} {
    set out [rdma_cli GET rdma:auth:k]
    assert_match "*NOAUTH Authentication required*" $out
    r exists rdma:auth:k
  } {0}

  test {RDMA cli: -a authenticates over rdma} {
    assert_equal [rdma_cli -a s3cret --no-auth-warning SET rdma:auth:k v] OK
    assert_equal [rdma_cli -a s3cret --no-auth-warning GET rdma:auth:k] v
    r get rdma:auth:k
  } {v}

  test {RDMA cli: a wrong password is refused} {
    lassign [run_status $::rdma_cli --rdma -h $::rdma_addr -p $::rdma_port -a wrong \
               --no-auth-warning GET rdma:auth:k] status out
    assert_match "*WRONGPASS*" $out
    assert_no_match "*\nv*" "\n$out"
  }
}

# protected-mode yes (the default) without a password: 10.99.0.1 is not a
# loopback address, so an rdma client is refused while 127.0.0.1 works.
start_server [list tags {needs:rdma external:skip} \
                overrides [rdma_overrides $::rdma_port {protected-mode yes}]] {
  test {RDMA cli: protected mode refuses the non-loopback rdma client} {
    lassign [run_status $::rdma_cli --rdma -h $::rdma_addr -p $::rdma_port \
               SET rdma:protected:k v] status out
    assert_no_match "*OK*" $out
    assert_equal [r exists rdma:protected:k] 0
    wait_rdma_clients 0 "after the refusal"
    r ping
  } {PONG}

  # The refusal travels the normal reply path (it waits until the client
  # has registered its RX buffer) and the closed connection lingers until
  # that write completed (RDMA.md, "Closing").
  test {RDMA cli: protected mode denies the non-loopback rdma client} {
    lassign [run_status $::rdma_cli --rdma -h $::rdma_addr -p $::rdma_port \
               SET rdma:protected:k v] status out
    assert_match "*DENIED Redis is running in protected mode*" $out
    assert_equal [r exists rdma:protected:k] 0
    wait_rdma_clients 0 "after the DENIED reply"
    r ping
  } {PONG}

  test {RDMA cli: CONFIG SET protected-mode no lets it in} {
    r config set protected-mode no
    assert_equal [rdma_cli SET rdma:protected:k v] OK
    r get rdma:protected:k
  } {v}
}
