# Our redis-cli and redis-benchmark with --tls, as redis-cli 7.0 takes the
# options, against Debian's redis-server 7.0.15 started with TLS (and the
# same errors as redis-cli 7.0 for bad options and untrusted servers).
source [file join $::support_dir tls.tcl]

tags {tls external:skip} {
  set d [tls_certs]
  lassign [start_debian_tls_server server redis-tls] pid port rdir
  set cli $::cfg(cli_bin)
  set bench [file join [file dirname $::cfg(cli_bin)] redis-benchmark]

  test {Our redis-cli --tls talks to Debian's redis-server over TLS} {
    assert_equal [tls_cli_with $cli $port set tlscli:k v1] OK
    assert_equal [tls_cli_with $cli $port get tlscli:k] v1
    assert_match {*connected_clients:1*} [tls_cli_with $cli $port info clients]
    tls_cli_with $cli $port --sni localhost ping
  } {PONG}

  test {Our redis-cli -u rediss:// and --insecure} {
    assert_equal [exec $cli -u rediss://127.0.0.1:$port --cacert $d/ca.crt \
                    --cert $d/client.crt --key $d/client.key ping] PONG
    exec $cli -p $port --tls --insecure --cert $d/client.crt --key $d/client.key ping
  } {PONG}

  test {Our redis-cli --tls refuses an untrusted server and bad options as redis-cli 7.0} {
    catch {exec $cli -p $port --tls --cacert $d/other-ca.crt --cert $d/client.crt \
             --key $d/client.key ping 2>@1} out
    assert_match "*Could not connect to Redis at 127.0.0.1:$port:*certificate verify failed*" $out
    catch {exec $cli -p $port --tls --cacert /nonexistent/ca.crt ping 2>@1} out
    assert_match {*Could not negotiate a TLS connection: Invalid CA Certificate File/Directory*} $out
    catch {exec $cli -p $port --tls --cacert $d/ca.crt --tls-ciphers NOPE ping 2>@1} out
    assert_match {*Could not negotiate a TLS connection: Error while configuring ciphers*} $out
    catch {exec $cli -p $port --tls --cacert $d/ca.crt --tls-ciphersuites NOPE ping 2>@1} out
    assert_match {*Could not negotiate a TLS connection: Error while setting cypher suites*} $out
    catch {exec $cli -p $port --tls --cacert $d/ca.crt --cert $d/other.crt --key $d/client.key \
             ping 2>@1} out
    assert_match {*Could not negotiate a TLS connection: Invalid private key*} $out
  }

  test {Our redis-cli --tls --tls-ciphersuites picks the TLSv1.3 suite} {
    tls_cli_with $cli $port --tls-ciphersuites TLS_AES_128_GCM_SHA256 ping
  } {PONG}

  test {Our redis-cli --tls --pipe and a 16 MB value} {
    set f [file join $rdir pipe.txt]
    set fh [open $f w]
    for {set i 0} {$i < 3000} {incr i} { puts -nonewline $fh "SET p:$i $i\r\n" }
    close $fh
    assert_match {*errors: 0, replies: 3000*} [tls_cli_with $cli $port --pipe < $f]
    set big [file join $rdir big.txt]
    set fh [open $big w]
    puts -nonewline $fh [string repeat abcdefgh 2097152]
    close $fh
    assert_equal [tls_cli_with $cli $port -x set tlscli:big < $big] OK
    tls_cli_with $cli $port strlen tlscli:big
  } {16777216}

  test {Our redis-benchmark --tls against Debian's redis-server} {
    set d [tls_certs]
    set out [exec -ignorestderr $bench -p $port --tls --cacert $d/ca.crt --cert $d/client.crt \
               --key $d/client.key -n 2000 -c 10 -t set,get -q]
    assert_match {*SET: * requests per second*GET: * requests per second*} $out
    set out [exec -ignorestderr $bench -p $port --tls --cacert $d/ca.crt --cert $d/client.crt \
               --key $d/client.key -n 2000 -c 10 -P 16 --threads 2 -t get -q]
    assert_match {*GET: * requests per second*} $out
  }

  test {Our redis-benchmark --tls with a reconnection per request (-k 0)} {
    set out [exec -ignorestderr $bench -p $port --tls --cacert $d/ca.crt --cert $d/client.crt \
               --key $d/client.key -n 300 -c 5 -k 0 -t ping -q]
    assert_match {*PING*requests per second*} $out
  }

  test {Our redis-benchmark refuses --tls with bad options} {
    catch {exec $bench -p $port --tls --cacert /nonexistent/ca.crt -n 10 -t ping -q 2>@1} out
    assert_match {*Could not negotiate a TLS connection: Invalid CA Certificate File/Directory*} $out
  }

  exec kill $pid
}
