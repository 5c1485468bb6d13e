# The tls connection type: Redis's tls-* directives and what each changes,
# Redis's own clients (Debian's redis-cli --tls, redis-py with ssl) against
# this server, and the faults a TLS port meets. Certificates are made at
# test time (tests/support/tls.tcl); the peers that misbehave are
# tests/support/tls_peer.py.
source [file join $::support_dir tls.tcl]

proc log_has {pattern} {
  return [string match $pattern [read_file [srv stdout]]]
}

set tls_port [find_free_port]
start_server [list tags {tls external:skip} overrides [tls_overrides $tls_port]] {
  set d [tls_certs]

  test {Debian's redis-cli --tls reaches the TLS port with a client certificate} {
    assert_equal [tls_cli $tls_port set tls:k hello] OK
    assert_equal [tls_cli $tls_port get tls:k] hello
    r get tls:k
  } {hello}

  test {CLIENT LIST shows a TLS client with its addresses and fd, as a TCP one} {
    set line [tls_cli $tls_port client list]
    set mine [lsearch -inline [split $line "\n"] "*cmd=client|list*"]
    assert_match "id=* addr=127.0.0.1:* laddr=127.0.0.1:$tls_port fd=* *transport=tls" $mine
    assert_match "*transport=tcp*" [r client list]
  }

  test {INFO counts TLS clients among connected_clients} {
    set info [tls_cli $tls_port info clients]
    assert_match "*connected_clients:2*" $info
  }

  test {tls-auth-clients yes: no certificate, another CA's and an expired one are refused} {
    assert_equal [tls_peer handshake $tls_port $d client] PONG
    foreach cert {none other expired} {
      assert_match {refused*} [tls_peer handshake $tls_port $d $cert]
    }
    wait_for_condition 50 20 {[log_has "*Error accepting a client connection:*certificate*"]} {
      fail "no log line for the refused certificates"
    }
    assert_match {ERROR:*} [tls_cli $tls_port --no-client-cert ping]
  }

  test {tls-auth-clients optional: no certificate is fine, a bad one is still refused} {
    r config set tls-auth-clients optional
    assert_equal [tls_peer handshake $tls_port $d none] PONG
    assert_equal [tls_cli $tls_port --no-client-cert ping] PONG
    assert_match {refused*} [tls_peer handshake $tls_port $d other]
    assert_match {refused*} [tls_peer handshake $tls_port $d expired]
    assert_equal [tls_peer handshake $tls_port $d client] PONG
  }

  test {tls-auth-clients no: client certificates are not asked for} {
    r config set tls-auth-clients no
    assert_equal [tls_peer handshake $tls_port $d other] PONG
    assert_equal [tls_peer handshake $tls_port $d none] PONG
    r config set tls-auth-clients yes
    assert_match {refused*} [tls_peer handshake $tls_port $d none]
    r config get tls-auth-clients
  } {tls-auth-clients yes}

  test {A plain-text client on the TLS port is refused with a clear log line} {
    assert_equal [tls_peer plain $tls_port $d] refused
    wait_for_condition 50 20 {[log_has "*plain-text client on the TLS port*"]} {
      fail "no log line for the plain-text client"
    }
    tls_cli $tls_port ping
  } {PONG}

  test {A TLS client on the plain-text port is closed with a clear log line} {
    assert_match {handshake failed*} [tls_peer tls-on-plain [srv port] $d]
    wait_for_condition 50 20 {[log_has "*began a TLS handshake on a plain-text tcp port*"]} {
      fail "no log line for the TLS client on the plain port"
    }
    r ping
  } {PONG}

  test {A handshake that never completes is closed after tls-handshake-timeout} {
    r config set tls-handshake-timeout 300
    set out [tls_peer hang $tls_port $d]
    assert_match {closed after * ms} $out
    assert_range [lindex $out 2] 250 5000
    assert [log_has "*TLS handshake not completed within 300 ms*"]
    r config set tls-handshake-timeout 10000
    tls_cli $tls_port ping
  } {PONG}

  test {A TLS peer vanishing in the middle of a large reply} {
    r set tls:big [string repeat x 20000000]
    assert_match {vanished after *} [tls_peer vanish $tls_port $d tls:big]
    assert_equal [r ping] PONG
    wait_for_condition 50 20 {[llength [split [string trim [r client list]] "\n"]] == 1} {
      fail "the vanished TLS client is still listed"
    }
    tls_cli $tls_port strlen tls:big
  } {20000000}

  test {Half a TLS record then a half-close: the server closes the connection} {
    assert_equal [tls_peer halfclose $tls_port $d] {closed by server}
    tls_cli $tls_port ping
  } {PONG}

  test {A renegotiation attempt over TLSv1.2 is refused, the server keeps serving} {
    catch {exec sh -c "(echo R; sleep 1) | timeout 10 openssl s_client -connect 127.0.0.1:$tls_port \
      -tls1_2 -CAfile $d/ca.crt -cert $d/client.crt -key $d/client.key 2>&1"} out
    assert_match {*RENEGOTIATING*} $out
    tls_cli $tls_port ping
  } {PONG}

  test {redis-py with ssl: commands, pipelines, pub/sub and a 32 MB value} {
    tls_peer redispy $tls_port $d 33554432
  } {redis-py over TLS: OK}

  test {Debian's redis-cli --tls in pipe mode (mass insertion)} {
    set f [file join [srv dir] pipe.txt]
    set fh [open $f w]
    for {set i 0} {$i < 5000} {incr i} { puts -nonewline $fh "SET pipe:$i $i\r\n" }
    close $fh
    set out [tls_cli $tls_port --pipe < $f]
    assert_match {*errors: 0, replies: 5000*} $out
    r get pipe:4999
  } {4999}
}

set tls_port [find_free_port]
start_server [list tags {tls external:skip} overrides [tls_overrides $tls_port]] {
  set d [tls_certs]

  test {CONFIG SET of a missing certificate: Redis's error, the old context keeps serving} {
    catch {r config set tls-cert-file /nonexistent/cert.pem} e
    assert_match {*CONFIG SET failed (possibly related to argument 'tls-cert-file') - Unable to update TLS configuration. Check server logs.*} $e
    assert_equal [lindex [r config get tls-cert-file] 1] $d/server.crt
    assert [log_has "*Failed to load certificate: /nonexistent/cert.pem*"]
    assert [log_has "*Restoring previous settings*"]
    tls_peer peercn $tls_port $d
  } {server}

  test {CONFIG SET of a certificate and its key together: new connections get them} {
    r config set tls-cert-file $d/server2.crt tls-key-file $d/server2.key
    tls_peer peercn $tls_port $d
  } {server2}

  test {CONFIG SET of a certificate alone whose key does not match is refused} {
    catch {r config set tls-cert-file $d/server.crt} e
    assert_match {*Unable to update TLS configuration*} $e
    assert [log_has "*Failed to load private key*"]
    tls_peer peercn $tls_port $d
  } {server2}

  test {CONFIG SET of the same file names re-reads the files} {
    file copy -force $d/server.crt [srv dir]/cur.crt
    file copy -force $d/server.key [srv dir]/cur.key
    r config set tls-cert-file [srv dir]/cur.crt tls-key-file [srv dir]/cur.key
    assert_equal [tls_peer peercn $tls_port $d] server
    file copy -force $d/server2.crt [srv dir]/cur.crt
    file copy -force $d/server2.key [srv dir]/cur.key
    r config set tls-cert-file [srv dir]/cur.crt tls-key-file [srv dir]/cur.key
    tls_peer peercn $tls_port $d
  } {server2}

  test {An encrypted key needs tls-key-file-pass} {
    catch {r config set tls-cert-file $d/server.crt tls-key-file $d/server-enc.key} e
    assert_match {*Unable to update TLS configuration*} $e
    r config set tls-key-file-pass s3cret
    r config set tls-cert-file $d/server.crt tls-key-file $d/server-enc.key
    assert_equal [lindex [r config get tls-key-file-pass] 1] s3cret
    tls_peer peercn $tls_port $d
  } {server}

  test {The key pass phrase is redacted in SLOWLOG} {
    r slowlog reset
    r config set slowlog-log-slower-than 0
    r config set tls-key-file-pass s3cret
    set entry [lindex [r slowlog get 1] 0 3]
    r config set slowlog-log-slower-than 10000
    set entry
  } {config set tls-key-file-pass (redacted)}

  test {tls-protocols limits the versions; a bad name is refused} {
    r config set tls-protocols TLSv1.2
    assert_match {TLSv1.2 * PONG} [tls_peer cipher $tls_port $d]
    assert_match {refused*} [tls_peer cipher $tls_port $d TLSv1.3]
    r config set tls-protocols "TLSv1.2 TLSv1.3"
    assert_match {TLSv1.3 * PONG} [tls_peer cipher $tls_port $d]
    catch {r config set tls-protocols "TLSv1.2 SSLv2"} e
    assert_match {*Unable to update TLS configuration*} $e
    assert [log_has "*Invalid tls-protocols specified*"]
    r config get tls-protocols
  } {tls-protocols {TLSv1.2 TLSv1.3}}

  test {tls-ciphers (TLSv1.2) and tls-ciphersuites (TLSv1.3) choose the ciphers} {
    r config set tls-ciphers ECDHE-RSA-AES256-GCM-SHA384
    assert_match {TLSv1.2 ECDHE-RSA-AES256-GCM-SHA384 PONG} [tls_peer cipher $tls_port $d TLSv1.2]
    assert_match {refused*} [tls_peer cipher $tls_port $d TLSv1.2 ECDHE-RSA-AES128-GCM-SHA256]
    r config set tls-ciphersuites TLS_CHACHA20_POLY1305_SHA256
    assert_match {TLSv1.3 TLS_CHACHA20_POLY1305_SHA256 PONG} [tls_peer cipher $tls_port $d TLSv1.3]
    catch {r config set tls-ciphers NOT-A-CIPHER} e
    assert_match {*Unable to update TLS configuration*} $e
    catch {r config set tls-ciphersuites NOT-A-SUITE} e
    assert_match {*Unable to update TLS configuration*} $e
    assert [log_has "*Failed to configure ciphers: NOT-A-CIPHER*"]
    assert [log_has "*Failed to configure ciphersuites: NOT-A-SUITE*"]
    r config set tls-ciphers "" tls-ciphersuites ""
    tls_cli $tls_port ping
  } {PONG}

  test {tls-prefer-server-ciphers: the server's order wins over the client's} {
    r config set tls-ciphers "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384"
    set offer "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-AES128-GCM-SHA256"
    assert_match {* ECDHE-RSA-AES256-GCM-SHA384 PONG} [tls_peer cipher $tls_port $d TLSv1.2 $offer]
    r config set tls-prefer-server-ciphers yes
    assert_match {* ECDHE-RSA-AES128-GCM-SHA256 PONG} [tls_peer cipher $tls_port $d TLSv1.2 $offer]
    r config set tls-prefer-server-ciphers no tls-ciphers ""
  } {OK}

  test {tls-dh-params-file: DHE ciphers with the given parameters; a bad file is refused} {
    r config set tls-dh-params-file $d/dh.pem tls-ciphers DHE-RSA-AES128-GCM-SHA256
    assert_match {TLSv1.2 DHE-RSA-AES128-GCM-SHA256 PONG} [tls_peer cipher $tls_port $d TLSv1.2]
    catch {r config set tls-dh-params-file /nonexistent/dh.pem} e
    assert_match {*Unable to update TLS configuration*} $e
    assert [log_has "*Failed to load /nonexistent/dh.pem*"]
    r config set tls-ciphers ""
  } {OK}

  test {tls-session-caching: a TLSv1.2 session is resumed only while caching is on} {
    assert_equal [tls_peer resume $tls_port $d] {reused PONG}
    r config set tls-session-caching no
    assert_equal [tls_peer resume $tls_port $d] {not reused PONG}
    r config set tls-session-caching yes tls-session-cache-size 100 tls-session-cache-timeout 60
    assert_equal [tls_peer resume $tls_port $d] {reused PONG}
    r config get tls-session-cache-*
  } {tls-session-cache-size 100 tls-session-cache-timeout 60}

  test {tls-ca-cert-dir: a c_rehash directory of CAs verifies client certificates} {
    set cadir [srv dir]/cas
    file mkdir $cadir
    file copy -force $d/ca.crt $cadir/ca.pem
    set hash [exec openssl x509 -hash -noout -in $d/ca.crt]
    file link -symbolic $cadir/$hash.0 $cadir/ca.pem
    r config set tls-ca-cert-dir $cadir tls-ca-cert-file ""
    assert_equal [tls_peer handshake $tls_port $d client] PONG
    assert_match {refused*} [tls_peer handshake $tls_port $d other]
    catch {r config set tls-ca-cert-dir ""} e
    assert_match {*Unable to update TLS configuration*} $e
    assert [log_has "*Either tls-ca-cert-file or tls-ca-cert-dir must be specified*"]
    r config set tls-ca-cert-file $d/ca.crt
  } {OK}

  test {tls-port moves with CONFIG SET and 0 closes it} {
    set new_port [find_free_port]
    r config set tls-port $new_port
    assert_equal [tls_cli $new_port ping] PONG
    assert_match {ERROR:*} [tls_cli $tls_port ping]
    r config set tls-port 0
    assert_match {ERROR:*} [tls_cli $new_port ping]
    r config set tls-port $tls_port
    tls_cli $tls_port ping
  } {PONG}

  test {tls-replication and tls-cluster are accepted and kept} {
    r config set tls-replication yes tls-cluster yes
    assert_equal [r config get tls-replication] {tls-replication yes}
    assert_equal [r config get tls-cluster] {tls-cluster yes}
    catch {r config set tls-replication maybe} e
    assert_match {*argument must be 'yes' or 'no'*} $e
    r config set tls-replication no tls-cluster no
  } {OK}

  test {Validation of the tls-* values, as Redis words it} {
    catch {r config set tls-port 70000} e
    assert_match {*argument must be between 0 and 65535 inclusive*} $e
    catch {r config set tls-auth-clients maybe} e
    assert_match {*argument(s) must be one of the following: no, yes, optional*} $e
    catch {r config set tls-session-cache-size -1} e
    assert_match {*argument must be between 0 and 2147483647 inclusive*} $e
    r config get tls-client-cert-file
  } {tls-client-cert-file {}}

  test {CONFIG REWRITE keeps the tls-* settings} {
    r config rewrite
    set conf [read_file [srv dir]/redis.conf]
    assert_match "*tls-port $tls_port*" $conf
    assert_match "*tls-cert-file*server.crt*" $conf
  }
}

start_server {tags {tls external:skip}} {
  test {TLS settings are stored without a context while nothing uses TLS} {
    # As Redis: the files are only read once a TLS port (or TLS replication
    # or cluster) needs them.
    r config set tls-cert-file /nonexistent/cert.pem
    catch {r config set tls-port [find_free_port]} e
    assert_match {*Unable to update TLS configuration*} $e
    r config get tls-port
  } {tls-port 0}

  test {Start-up with a TLS port and no certificate fails as Redis does} {
    set port [find_free_port]
    catch {exec timeout 10 $::cfg(server_bin) --port 0 --tls-port $port --save "" 2>@1} out
    assert_match {*No tls-cert-file configured!*Failed to configure TLS. Check logs for more info.*} $out
    set d [tls_certs]
    catch {exec timeout 10 $::cfg(server_bin) --port 0 --tls-port $port --save "" \
      --tls-cert-file $d/server.crt --tls-key-file $d/server.key 2>@1} out
    assert_match {*Either tls-ca-cert-file or tls-ca-cert-dir must be specified*} $out
  }
}

# Replication over TLS with Debian's redis-server as the replica: this
# server's master side serves it through the TLS port like any client.
set tls_port [find_free_port]
start_server [list tags {tls external:skip} overrides [tls_overrides $tls_port]] {
  set d [tls_certs]
  test {Debian's redis-server replicates from this server over TLS (tls-replication yes)} {
    r set repl:k before
    set rport [find_free_port]
    set rdir [new_tmp_dir tls-replica]
    set pid [exec /usr/bin/redis-server --port 0 --tls-port $rport --save "" --dir $rdir \
      --tls-cert-file $d/client.crt --tls-key-file $d/client.key --tls-ca-cert-file $d/ca.crt \
      --tls-replication yes --replicaof 127.0.0.1 $tls_port --logfile $rdir/log \
      >/dev/null 2>/dev/null &]
    wait_for_condition 100 100 {[tls_cli $rport get repl:k] eq "before"} {
      catch {exec kill $pid}
      fail "the replica did not sync over TLS: [read_file $rdir/log]"
    }
    r set repl:k after
    wait_for_condition 100 50 {[tls_cli $rport get repl:k] eq "after"} {
      catch {exec kill $pid}
      fail "the write did not reach the replica"
    }
    set role [tls_cli $rport role]
    exec kill $pid
    assert_match "slave*127.0.0.1*$tls_port*connected*" $role
  }
}

# MIGRATE with tls-cluster yes goes over TLS, here into Debian's
# redis-server listening on TLS only.
set tls_port [find_free_port]
start_server [list tags {tls external:skip} overrides [tls_overrides $tls_port {tls-cluster yes}]] {
  test {MIGRATE over TLS (tls-cluster yes) into Debian's redis-server} {
    lassign [start_debian_tls_server client tls-migrate] pid port
    r set tk [string repeat x 100000]
    set out [r migrate 127.0.0.1 $port tk 0 5000]
    set len [tls_cli $port strlen tk]
    set links [info_field [r info stats] migrate_cached_sockets]
    exec kill $pid
    list $out $len [r exists tk] $links
  } {OK 100000 0 1}
}
