# TLS test helpers: certificates made at test time with the `openssl`
# command (nothing is checked in), the overrides that turn a server's TLS
# port on, and Debian's redis-cli over TLS.
#
# tls_make_certs DIR writes into DIR:
#   ca.crt ca.key                 the test CA
#   server.crt server.key         signed by it (CN and SAN localhost, 127.0.0.1)
#   client.crt client.key         a client certificate signed by it
#   expired.crt expired.key       signed by it, expired yesterday
#   other-ca.crt other.crt other.key  a second CA and a client certificate from it
#   server2.crt server2.key       a second server certificate from the test CA
#   server-enc.key                server.key encrypted with pass phrase "s3cret"
#   dh.pem                        DH parameters (the 2048-bit ffdhe2048 group)

proc tls_openssl {args} {
  exec -ignorestderr openssl {*}$args 2>/dev/null
}

proc tls_sign {dir name ca days {ext ""}} {
  tls_openssl req -newkey rsa:2048 -nodes -keyout $dir/$name.key -out $dir/$name.csr \
    -subj "/CN=$name"
  set extra {}
  if {$ext ne ""} {
    set f [open $dir/$name.ext w]
    puts $f $ext
    close $f
    set extra [list -extfile $dir/$name.ext]
  }
  tls_openssl x509 -req -in $dir/$name.csr -CA $dir/$ca.crt -CAkey $dir/$ca.key \
    -CAcreateserial -out $dir/$name.crt -days $days {*}$extra
}

proc tls_make_certs {dir} {
  file mkdir $dir
  tls_openssl req -x509 -newkey rsa:2048 -nodes -keyout $dir/ca.key -out $dir/ca.crt \
    -days 2 -subj "/CN=Test CA"
  tls_openssl req -x509 -newkey rsa:2048 -nodes -keyout $dir/other-ca.key \
    -out $dir/other-ca.crt -days 2 -subj "/CN=Other CA"
  tls_sign $dir server ca 2 "subjectAltName=DNS:localhost,IP:127.0.0.1"
  tls_sign $dir server2 ca 2 "subjectAltName=DNS:localhost,IP:127.0.0.1"
  tls_sign $dir client ca 2
  tls_sign $dir expired ca -1
  tls_sign $dir other other-ca 2
  tls_openssl pkey -in $dir/server.key -out $dir/server-enc.key -aes256 -passout pass:s3cret
  tls_openssl genpkey -genparam -algorithm DH -pkeyopt dh_param:ffdhe2048 -out $dir/dh.pem
  return $dir
}

# The certificates of this test file, made once.
proc tls_certs {} {
  if {![info exists ::tls_cert_dir]} {
    set ::tls_cert_dir [tls_make_certs [new_tmp_dir tls-certs]]
  }
  return $::tls_cert_dir
}

# Starts Debian's redis-server listening on TLS only, on a free port, with
# the test CA and the `which` certificate (server or client); waits until it
# answers. Returns {pid port dir}.
proc start_debian_tls_server {which name} {
  set d [tls_certs]
  set port [find_free_port]
  set dir [new_tmp_dir $name]
  set pid [exec /usr/bin/redis-server --port 0 --tls-port $port --save "" --dir $dir \
    --tls-cert-file $d/$which.crt --tls-key-file $d/$which.key --tls-ca-cert-file $d/ca.crt \
    --logfile $dir/log >/dev/null 2>/dev/null &]
  wait_for_condition 100 50 {[tls_cli $port ping] eq "PONG"} {
    catch {exec kill $pid}
    fail "Debian's redis-server did not start with TLS: [read_file $dir/log]"
  }
  return [list $pid $port $dir]
}

# Overrides for start_server: a TLS port with the test certificates.
proc tls_overrides {port {extra {}}} {
  set d [tls_certs]
  return [list tls-port $port tls-cert-file $d/server.crt tls-key-file $d/server.key \
            tls-ca-cert-file $d/ca.crt {*}$extra]
}

# Runs redis-cli (Debian's unless `bin` is given) over TLS with the test
# client certificate; returns its output, or "ERROR: <output>" when it
# exits non-zero.
proc tls_cli {port args} {
  return [tls_cli_with /usr/bin/redis-cli $port {*}$args]
}

proc tls_cli_with {bin port args} {
  set d [tls_certs]
  set base [list --tls --cacert $d/ca.crt --cert $d/client.crt --key $d/client.key]
  if {[lsearch -exact $args --no-client-cert] >= 0} {
    set args [lsearch -all -inline -not -exact $args --no-client-cert]
    set base [list --tls --cacert $d/ca.crt]
  }
  if {[catch {exec $bin -h 127.0.0.1 -p $port {*}$base {*}$args 2>@1} out]} {
    return "ERROR: $out"
  }
  return $out
}

# tests/support/tls_peer.py: the faults and the redis-py checks.
proc tls_peer {args} {
  set py [file join $::support_dir tls_peer.py]
  if {[catch {exec /usr/bin/python3 $py {*}$args 2>@1} out]} {
    return "ERROR: $out"
  }
  return $out
}
