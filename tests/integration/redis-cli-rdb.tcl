# SYNC / PSYNC / REPLCONF as a Redis 7.0 master serves them, and redis-cli's
# --rdb, --functions-rdb and --replica on top of them. The stderr lines are
# those Debian's redis-cli 7.0.15 prints; every test also holds with
# `--cli-bin /usr/bin/redis-cli` and `--server-bin /usr/bin/redis-server`.

source [file join $::support_dir cli.tcl]

set ::rdb_lib {#!lua name=clirdb
redis.register_function('clirdbfn', function() return 'ok' end)}

proc fill_mixed_data {} {
  r flushall
  r set str hello
  r set num 12345
  r set big [string repeat abc 500]
  r rpush list a b c 1 2 3
  r hset hash f1 v1 f2 v2
  r sadd set x y z
  r sadd iset 1 2 3
  r zadd zset 1 a 2 b 3.5 c
  r pfadd hll a b c
  r set withttl v
  r pexpire withttl 1000000
  r select 5
  r set indb5 five
  r select 9
  r function load $::rdb_lib
}

# Starts a server on `path` (dir and dbfilename) and returns what `script`
# returns run there.
proc with_server_on_rdb {path script} {
  set dir [file join [tmp_root] rdbload-[pid]-[clock clicks]]
  file mkdir $dir
  file copy -force $path [file join $dir dump.rdb]
  set out {}
  start_server [list overrides [list dir $dir dbfilename dump.rdb enable-debug-command yes]] {
    set out [uplevel 1 $script]
  }
  file delete -force $dir
  return $out
}

# A raw connection to the server; returns the channel (binary, blocking).
proc raw_conn {} {
  set fd [socket [srv host] [srv port]]
  fconfigure $fd -translation binary -blocking 1 -buffering none
  return $fd
}

# Reads one line ending in "\n" (keep-alive newlines skipped), without
# the line end.
proc read_sync_line {fd} {
  while 1 {
    set line [gets $fd]
    if {[eof $fd]} { fail "connection closed while reading the SYNC reply" }
    if {$line ne ""} { return [string trimright $line "\r"] }
  }
}

# Reads exactly n bytes.
proc read_exact {fd n} {
  set data ""
  while {[string length $data] < $n} {
    set chunk [read $fd [expr {$n - [string length $data]}]]
    if {$chunk eq "" && [eof $fd]} { fail "connection closed after [string length $data] of $n bytes" }
    append data $chunk
  }
  return $data
}

# Waits until the file at path contains `pattern` (string match).
proc wait_file_match {path pattern} {
  wait_for_condition 100 50 {
    [file exists $path] && [string match $pattern [read_file $path]]
  } {
    fail "$path never matched $pattern: [read_file $path]"
  }
}

start_server {tags {cli repl external:skip needs:debug} overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
  test {cli --rdb (diskless): the file loads back with the same data and functions} {
    fill_mixed_data
    set digest [r debug digest]
    set path [file join [tmp_root] cli-rdb-[pid].rdb]
    lassign [cli --rdb $path] status out err
    assert_equal 0 $status
    assert_equal "sending REPLCONF capa eof\nsending REPLCONF rdb-only 1\nSYNC sent to master, writing bytes of bulk transfer until EOF marker to '$path'\nTransfer finished with success after [file size $path] bytes\n" $err
    set loaded [with_server_on_rdb $path {
      list [r debug digest] [r get str] [r lrange list 0 -1] [r fcall clirdbfn 0] [expr {[r pttl withttl] > 900000}] [r select 5] [r get indb5]
    }]
    file delete $path
    assert_equal [list $digest hello {a b c 1 2 3} ok 1 OK five] $loaded
  }

  test {cli --rdb (disk target): "$<size>" transfer, the file loads back} {
    r config set repl-diskless-sync no
    set digest [r debug digest]
    set path [file join [tmp_root] cli-rdb-disk-[pid].rdb]
    lassign [cli --rdb $path] status out err
    r config set repl-diskless-sync yes
    assert_equal 0 $status
    assert_equal "sending REPLCONF capa eof\nsending REPLCONF rdb-only 1\nSYNC sent to master, writing [file size $path] bytes to '$path'\nTransfer finished with success.\n" $err
    set loaded [with_server_on_rdb $path { r debug digest }]
    file delete $path
    assert_equal $digest $loaded
  }

  test {cli --rdb over a Unix socket} {
    set digest [r debug digest]
    set path [file join [tmp_root] cli-rdb-unix-[pid].rdb]
    set errf [file join [tmp_root] cli-rdb-unix-err.[pid]]
    exec $::cfg(cli_bin) -s [srv unixsocket] --rdb $path 2> $errf < /dev/null
    set err [read_file $errf]
    set loaded [with_server_on_rdb $path { r debug digest }]
    set size [file size $path]
    file delete $path $errf
    list [expr {$loaded eq $digest}] [string match "*Transfer finished with success after $size bytes\n" $err]
  } {1 1}

  test {cli --rdb (disk target) of an RDB larger than the output chunks} {
    r flushall
    set kv {}
    for {set i 0} {$i < 20000} {incr i} { lappend kv big:$i [string repeat "v$i-" 300] }
    r mset {*}$kv
    r config set repl-diskless-sync no
    r config set rdbcompression no
    set digest [r debug digest]
    set path [file join [tmp_root] cli-rdb-big-[pid].rdb]
    lassign [cli --rdb $path] status out err
    r config set repl-diskless-sync yes
    r config set rdbcompression yes
    set size [file size $path]
    set loaded [with_server_on_rdb $path { r debug digest }]
    file delete $path
    list $status [expr {$size > 20000000}] [expr {$loaded eq $digest}] \
        [string match "*SYNC sent to master, writing $size bytes to*" $err]
  } {0 1 1 1}

  test {cli --rdb - writes the RDB (then, diskless, its end mark) to stdout} {
    set path [file join [tmp_root] cli-rdb-ref-[pid].rdb]
    set stdout_path [file join [tmp_root] cli-rdb-stdout-[pid].rdb]
    set err_path [file join [tmp_root] cli-rdb-stderr-[pid]]
    cli_out --rdb $path
    exec $::cfg(cli_bin) -h [srv host] -p [srv port] --rdb - > $stdout_path 2> $err_path < /dev/null
    set size [file size $path]
    set fd [open $stdout_path rb]
    set out [read $fd]
    close $fd
    set err [read_file $err_path]
    file delete $path $stdout_path $err_path
    list [string range $out 0 8] [expr {[string length $out] - $size}] \
        [string match "*Transfer finished with success after $size bytes\n" $err]
  } {REDIS0010 40 1}

  test {cli --functions-rdb: the file holds the functions and no keys} {
    set path [file join [tmp_root] cli-frdb-[pid].rdb]
    lassign [cli --functions-rdb $path] status out err
    assert_equal 0 $status
    assert_equal "sending REPLCONF capa eof\nsending REPLCONF rdb-only 1\nsending REPLCONF rdb-filter-only functions\nSYNC sent to master, writing bytes of bulk transfer until EOF marker to '$path'\nTransfer finished with success after [file size $path] bytes\n" $err
    set loaded [with_server_on_rdb $path {
      list [r dbsize] [r select 5] [r dbsize] [r fcall clirdbfn 0]
    }]
    file delete $path
    set loaded
  } {0 OK 0 ok}

  test {cli --rdb: an error from the server ends with redis-cli's message and status 1} {
    r config set requirepass clirdbpw
    set path [file join [tmp_root] cli-rdb-auth-[pid].rdb]
    lassign [cli --rdb $path] status out err
    r auth clirdbpw
    r config set requirepass ""
    list $status $err
  } [list 1 "sending REPLCONF capa eof\nREPLCONF capa error: NOAUTH Authentication required.\nsending REPLCONF rdb-only 1\nREPLCONF rdb-only error: NOAUTH Authentication required.\nSYNC with master failed: -NOAUTH Authentication required.\r\n"]

  test {cli --replica prints the writes streamed after the RDB, SELECT included} {
    r flushall
    set outf [file join [tmp_root] cli-replica-out.[pid]]
    set errf [file join [tmp_root] cli-replica-err.[pid]]
    set pid [exec $::cfg(cli_bin) -h [srv host] -p [srv port] --replica > $outf 2> $errf < /dev/null &]
    wait_file_match $errf "*sending REPLCONF ACK 0\n"
    # redis-cli takes the first item after its ACK as the ACK's reply: it
    # is never printed, so the checks look at what follows.
    r select 0
    r set first 1
    r set second 2
    r select 3
    r set third 3
    wait_file_match $outf "*\"set\",\"second\",\"2\"\n\"SELECT\",\"3\"\n\"set\",\"third\",\"3\"\n"
    set info [r info replication]
    set flags [r client list]
    exec kill $pid
    wait_for_condition 50 100 {
      [string match "*connected_slaves:0*" [r info replication]]
    } {
      fail "the replica is still listed after its cli exited"
    }
    r select 9
    set err [read_file $errf]
    file delete $outf $errf
    list [string match "*connected_slaves:1\r\nslave0:ip=127.0.0.1,port=0,state=online,*" $info] \
        [regexp {flags=S } $flags] \
        [string match "sending REPLCONF capa eof\nsending REPLCONF rdb-filter-only \nSYNC with master, discarding bytes of bulk transfer until EOF marker...\nSYNC done after * bytes. Logging commands from master.\nsending REPLCONF ACK 0\n" $err]
  } {1 1 1}
}

start_server {tags {repl external:skip needs:debug} overrides {repl-diskless-sync-delay 0 enable-debug-command yes}} {
  test {REPLCONF options and their errors as Redis 7.0} {
    set fd [raw_conn]
    puts -nonewline $fd "REPLCONF rdb-only 2\r\nREPLCONF foo bar\r\nREPLCONF capa\r\nREPLCONF rdb-filter-only keys\r\nREPLCONF ack 5\r\nREPLCONF getack 1\r\nREPLCONF capa xyz listening-port 6380 ip-address 10.0.0.1\r\nREPLCONF rdb-only x\r\nREPLCONF rdb-filter-only \"functions\"\r\nPING\r\n"
    set lines {}
    for {set i 0} {$i < 8} {incr i} { lappend lines [read_sync_line $fd] }
    close $fd
    set lines
  } [list {-ERR value is out of range, value must between 0 and 1} \
          {-ERR Unrecognized REPLCONF option: foo} \
          {-ERR syntax error} \
          {-ERR Unsupported rdb-filter-only option: keys} \
          {+OK} \
          {-ERR value is not an integer or out of range} \
          {+OK} \
          {+PONG}]

  test {SYNC: errors for pending output, MULTI and a filter without capa eof} {
    set fd [raw_conn]
    puts -nonewline $fd "PING\r\nSYNC\r\n"
    set a [read_sync_line $fd]
    set b [read_sync_line $fd]
    puts -nonewline $fd "MULTI\r\nSYNC\r\nDISCARD\r\n"
    set c [read_sync_line $fd]
    set d [read_sync_line $fd]
    read_sync_line $fd
    puts -nonewline $fd "REPLCONF rdb-filter-only functions\r\n"
    read_sync_line $fd
    puts -nonewline $fd "SYNC\r\n"
    set e [read_sync_line $fd]
    close $fd
    list $a $b $c $d $e
  } [list +PONG {-ERR SYNC and PSYNC are invalid with pending output} +OK \
          {-ERR Command not allowed inside a transaction} \
          {-ERR Filtered replica requires EOF capability}]

  test {SYNC without capa eof: "$<size>" RDB, then the write stream with SELECT} {
    r flushall
    r set before 1
    set fd [raw_conn]
    puts -nonewline $fd "SYNC\r\n"
    set hdr [read_sync_line $fd]
    assert_match {$[0-9]*} $hdr
    set rdb [read_exact $fd [string range $hdr 1 end]]
    assert_equal REDIS0010 [string range $rdb 0 8]
    r select 4
    r set foo bar
    r select 9
    set want "*2\r\n\$6\r\nSELECT\r\n\$1\r\n4\r\n*3\r\n\$3\r\nset\r\n\$3\r\nfoo\r\n\$3\r\nbar\r\n"
    set got [read_exact $fd [string length $want]]
    # A PING of the replication cron may come first.
    while {[string match "\*1\r\n\$4\r\nping\r\n*" $got]} {
      set got [string range $got 14 end][read_exact $fd 14]
    }
    close $fd
    set got
  } "*2\r\n\$6\r\nSELECT\r\n\$1\r\n4\r\n*3\r\n\$3\r\nset\r\n\$3\r\nfoo\r\n\$3\r\nbar\r\n"

  test {PSYNC ? -1 answers +FULLRESYNC <replid> <offset>, then the $EOF: RDB with capa eof} {
    set fd [raw_conn]
    puts -nonewline $fd "REPLCONF capa eof capa psync2\r\n"
    read_sync_line $fd
    puts -nonewline $fd "PSYNC ? -1\r\n"
    set full [read_sync_line $fd]
    set hdr [read_sync_line $fd]
    close $fd
    set replid [lindex [regexp -inline {master_replid:([0-9a-f]+)} [r info replication]] 1]
    list [regexp "^\\+FULLRESYNC $replid \[0-9\]+\$" $full] [regexp {^\$EOF:[0-9a-f]{40}$} $hdr]
  } {1 1}

  test {Replicas get a PING every repl-ping-replica-period seconds} {
    r config set repl-ping-replica-period 1
    set fd [raw_conn]
    puts -nonewline $fd "SYNC\r\n"
    set hdr [read_sync_line $fd]
    read_exact $fd [string range $hdr 1 end]
    set got [read_exact $fd 14]
    close $fd
    r config set repl-ping-replica-period 10
    set got
  } "*1\r\n\$4\r\nping\r\n"

  test {A replica that sends a command other than REPLCONF is disconnected} {
    set fd [raw_conn]
    puts -nonewline $fd "SYNC\r\n"
    set hdr [read_sync_line $fd]
    read_exact $fd [string range $hdr 1 end]
    puts -nonewline $fd "REPLCONF ACK 0\r\nSET x y\r\n"
    fconfigure $fd -blocking 1
    set rest [read $fd]
    set closed [eof $fd]
    close $fd
    # Only pings may have come; SET neither ran nor got a reply.
    list $closed [string map [list "*1\r\n\$4\r\nping\r\n" ""] $rest] [r exists x]
  } {1 {} 0}

  test {A replica that stops reading is closed at client-output-buffer-limit replica} {
    r flushall
    r config set client-output-buffer-limit "replica 1mb 0 0"
    set fd [raw_conn]
    puts -nonewline $fd "SYNC\r\n"
    set hdr [read_sync_line $fd]
    read_exact $fd [string range $hdr 1 end]
    # The replica reads no more; the stream grows until the limit.
    set val [string repeat x 100000]
    for {set i 0} {$i < 200} {incr i} { r set obuf:$i $val }
    wait_for_condition 50 100 {
      [string match "*connected_slaves:0*" [r info replication]]
    } { fail "the replica over its output limit is still attached" }
    close $fd
    r config set client-output-buffer-limit "replica 256mb 64mb 60"
    r dbsize
  } {200}

  test {A client that sends SYNC and vanishes mid-transfer does not hurt the server} {
    r flushall
    set kv {}
    for {set i 0} {$i < 2000} {incr i} { lappend kv key:$i [string repeat x 100] }
    r mset {*}$kv
    r config set rdb-key-save-delay 500
    set fd [raw_conn]
    puts -nonewline $fd "REPLCONF capa eof\r\n"
    read_sync_line $fd
    puts -nonewline $fd "SYNC\r\n"
    set hdr [read_sync_line $fd]
    read $fd 10
    close $fd
    wait_for_condition 100 100 {
      [string match "*rdb_bgsave_in_progress:0*" [r info persistence]]
    } {
      fail "the SYNC child did not end after its replica vanished"
    }
    r config set rdb-key-save-delay 0
    set info [r info replication]
    list [string range $hdr 0 4] [r dbsize] [r ping] [string match "*connected_slaves:0*" $info]
  } {{$EOF:} 2000 PONG 1}
}
