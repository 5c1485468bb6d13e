# redis-cli's special modes (--pipe, --scan, --bigkeys, --memkeys, --hotkeys,
# --json, --quoted-json, --eval, --stat, --latency*, --intrinsic-latency,
# --lru-test, --askpass) checked against the output Debian's redis-cli 7.0
# prints on the same data. Every expectation here also holds for
# `--cli-bin /usr/bin/redis-cli`.

source [file join $::support_dir cli.tcl]

# Runs the cli on a pseudo-terminal, typing `input` (see pty_run.py: "\p"
# pauses, "\x03" is Ctrl-C); returns what it wrote, with "\r\n" as "\n".
proc cli_pty {input args} {
  set pty [file join $::support_dir pty_run.py]
  set out [exec /usr/bin/python3 $pty $input $::cfg(cli_bin) -h [srv host] -p [srv port] {*}$args]
  string map [list "\r\n" "\n"] $out
}

# Writes `text` to a file of the test's own and returns its path.
proc write_tmp {name text} {
  set path [file join [tmp_root] $name.[pid]]
  set fd [open $path w]
  fconfigure $fd -translation binary
  puts -nonewline $fd $text
  close $fd
  return $path
}

# The lines after the "-------- summary -------" line of a keyspace report,
# sorted: redis-cli 7.0 lists the types in its hash table's order, which
# changes from run to run.
proc summary_of {out} {
  set at [string first "-------- summary -------" $out]
  if {$at < 0} { fail "no summary in: $out" }
  lsort [split [string range $out $at end] "\n"]
}

start_server {tags {cli}} {
  test {cli --pipe streams RESP and inline commands and counts the replies} {
    r flushdb
    set input "SET pa 1\r\nSET pb 2\r\nINCR pa\r\nINCR pz x\r\n*3\r\n\$3\r\nSET\r\n\$2\r\npc\r\n\$1\r\n3\r\n"
    lassign [cli -stdin $input --pipe] status out err
    assert_equal $out "All data transferred. Waiting for the last reply...\nLast reply received from server.\nerrors: 1, replies: 5\n"
    assert_equal $err "ERR wrong number of arguments for 'incr' command\n"
    assert_equal $status 1
    list [r get pa] [r get pb] [r get pc]
  } {2 2 3}

  test {cli --pipe with no input exits 0 with no replies} {
    lassign [cli --pipe] status out err
    list $status $out $err
  } [list 0 "All data transferred. Waiting for the last reply...\nLast reply received from server.\nerrors: 0, replies: 0\n" ""]

  test {cli --pipe of 1,000,000 SETs} {
    r flushdb
    set path [file join [tmp_root] pipe-1m.[pid]]
    set fd [open $path w]
    fconfigure $fd -translation binary -buffering full -buffersize 1048576
    for {set i 0} {$i < 1000000} {incr i} {
      set k "k$i"
      puts -nonewline $fd "*3\r\n\$3\r\nSET\r\n\$[string length $k]\r\n$k\r\n\$[string length $i]\r\n$i\r\n"
    }
    close $fd
    set t0 [clock milliseconds]
    set out [exec $::cfg(cli_bin) -h [srv host] -p [srv port] --pipe < $path]
    file delete $path
    assert_match "*errors: 0, replies: 1000000" $out
    list [r dbsize] [r get k999999] [r get k0]
  } {1000000 999999 0}

  test {cli --pipe-timeout: no reply within the timeout is an error} {
    # CLIENT PAUSE holds every reply back longer than the timeout.
    r flushdb
    set rd [redis_deferring_client]
    r client pause 3000 ALL
    lassign [cli -stdin "SET pt 1\r\n" --pipe --pipe-timeout 1] status out err
    r client unpause
    $rd close
    list $status [string match "*errors: 1, replies: 0\n" $out] $err
  } [list 1 1 "No replies for 1 seconds: exiting.\n"]

  test {cli --scan lists every key; --pattern and --quoted-pattern filter} {
    r flushdb
    foreach k {user:1 user:2 order:1 "bin\x01key"} { r set $k v }
    set all [lsort [split [string trimright [cli_out --scan] "\n"] "\n"]]
    set users [lsort [split [string trimright [cli_out --scan --pattern user:*] "\n"] "\n"]]
    set quoted [cli_out --scan --quoted-pattern {"bin\x01*"}]
    list [llength $all] $users [string length $quoted]
  } {4 {user:1 user:2} 8}

  test {cli --bigkeys: the summary of every type} {
    r flushdb
    r rpush biglist a b c
    r hset bighash f1 v1 f2 v2
    r sadd bigset 1 2 3 4
    r zadd bigzset 1 a 2 b
    r set bigstr hello
    r set smallstr hi
    r set empty ""
    set out [cli_out --bigkeys]
    assert_match "\n# Scanning the entire keyspace to find biggest keys as well as\n# average sizes per key type.  You can use -i 0.1 to sleep 0.1 sec\n# per 100 SCAN commands (not usually needed).\n\n*" $out
    assert {[string first "\[00.00%\] Biggest list   found so far '\"biglist\"' with 3 items\n" $out] > 0}
    summary_of $out
  } [lsort [split {-------- summary -------

Sampled 7 keys in the keyspace!
Total key length in bytes is 46 (avg len 6.57)

Biggest   list found '"biglist"' has 3 items
Biggest   hash found '"bighash"' has 2 fields
Biggest string found '"bigstr"' has 5 bytes
Biggest    set found '"bigset"' has 4 members
Biggest   zset found '"bigzset"' has 2 members

1 lists with 3 items (14.29% of keys, avg size 3.00)
1 hashs with 2 fields (14.29% of keys, avg size 2.00)
3 strings with 7 bytes (42.86% of keys, avg size 2.33)
0 streams with 0 entries (00.00% of keys, avg size 0.00)
1 sets with 4 members (14.29% of keys, avg size 4.00)
1 zsets with 2 members (14.29% of keys, avg size 2.00)
} "\n"]]

  test {cli --bigkeys on an empty database} {
    r flushdb
    summary_of [cli_out --bigkeys]
  } [lsort [split {-------- summary -------

Sampled 0 keys in the keyspace!
Total key length in bytes is 0 (avg len 0.00)


0 lists with 0 items (00.00% of keys, avg size 0.00)
0 hashs with 0 fields (00.00% of keys, avg size 0.00)
0 strings with 0 bytes (00.00% of keys, avg size 0.00)
0 streams with 0 entries (00.00% of keys, avg size 0.00)
0 sets with 0 members (00.00% of keys, avg size 0.00)
0 zsets with 0 members (00.00% of keys, avg size 0.00)
} "\n"]]

  test {cli --memkeys reports MEMORY USAGE per type} {
    r flushdb
    r rpush ml a b c
    r set ms [string repeat x 1000]
    set out [join [summary_of [cli_out --memkeys --memkeys-samples 10]] "\n"]
    set ms_bytes [r memory usage ms samples 10]
    assert_match "*Biggest string found '\"ms\"' has $ms_bytes bytes\n*" $out
    assert_match "*\n1 lists with * bytes (50.00% of keys, avg size *)*" $out
    assert_match "*\n1 strings with $ms_bytes bytes (50.00% of keys, avg size $ms_bytes.00)*" $out
  }

  test {cli --hotkeys needs an LFU policy} {
    r flushdb
    r set hk v
    r config set maxmemory-policy noeviction
    lassign [cli --hotkeys] status out err
    list $status [string match "*An LFU maxmemory policy is not selected*" $err]
  } {1 1}

  test {cli --hotkeys lists the keys with the highest LFU counters} {
    r flushdb
    r config set maxmemory-policy allkeys-lfu
    r set cold v
    r set hot v
    for {set i 0} {$i < 20} {incr i} { r get hot }
    set freq [r object freq hot]
    set out [join [summary_of [cli_out --hotkeys]] "\n"]
    r config set maxmemory-policy noeviction
    assert_match "*hot key found with counter: $freq\tkeyname: \"hot\"*" $out
    string match "*Sampled 2 keys in the keyspace!*" $out
  } {1}

  test {cli --json: strings, maps, nil, numbers and errors} {
    r flushdb
    r hset jh f1 v1 f2 v2
    r set js "a\x01b\x7f\"\\"
    r set jc "x\ny\tz\r\bq\fw"
    r zadd jz 1.5 c 2 b
    list [cli_out --json hgetall jh] [cli_out --json -2 hgetall jh] [cli_out --json get js] \
        [cli_out --json get jc] [cli_out --json get nokey] [cli_out --json incr jn] \
        [cli_out --json zrange jz 0 -1 withscores] [cli_out --json set jk v] \
        [cli_out --json hget js f]
  } [list "{\"f1\":\"v1\",\"f2\":\"v2\"}\n" "\[\"f1\",\"v1\",\"f2\",\"v2\"\]\n" \
         "\"a\\u0001b\x7f\\\"\\\\\"\n" "\"x\\ny\\tz\\r\\bq\\fw\"\n" "null\n" "1\n" \
         "\[\[\"c\",1.5\],\[\"b\",2\]\]\n" "\"OK\"\n" \
         "error:\"WRONGTYPE Operation against a key holding the wrong kind of value\"\n"]

  test {cli --quoted-json: ASCII only, bytes as escapes} {
    r set js "a\x01b\x7f\"\\"
    cli_out --quoted-json get js
  } "\"a\\\\x01b\\\\x7f\\\\\"\\\\\\\\\"\n"

  test {cli --eval: keys before the lone comma, arguments after} {
    set path [write_tmp eval.lua "return {KEYS\[1\],ARGV\[1\],#KEYS,#ARGV}"]
    set out [cli_out --eval $path k1 k2 , a1 a2]
    set missing [cli --eval /nonexistent/x.lua]
    file delete $path
    list $out $missing
  } [list "k1\na1\n2\n2\n" [list 1 "" "Can't open file '/nonexistent/x.lua': No such file or directory\n"]]

  test {cli --latency without a tty: one line "min max avg samples" after the interval} {
    set out [cli_out --latency -i 0.3]
    assert_match {[0-9]* [0-9]* [0-9]*.[0-9][0-9] [0-9]*} [string trim $out]
    lassign $out min max avg samples
    assert_range $samples 5 40
    assert {$min <= $max}
    set csv [cli_out --latency --csv -i 0.2]
    llength [split [string trim $csv] ,]
  } {4}

  test {cli --latency on a terminal redraws "min: .., max: .., avg: .." until Ctrl-C} {
    set out [cli_pty {\p\p\x03} --latency]
    assert {[string first "\x1b\[0G\x1b\[2Kmin: " $out] >= 0}
    assert_match "*, max: *, avg: *.* (1 samples)*" $out
    string match "*(20 samples)*" $out
  } {1}

  test {cli --latency-history closes each window with its range} {
    set out [cli_pty {\p\p\p\x03} --latency-history -i 0.5]
    regexp { -- 0\.[5-9][0-9] seconds range\n} $out
  } {1}

  test {cli --latency-dist prints the legend and spectrum lines} {
    set out [cli_pty {\p\p\p\x03} --latency-dist -i 0.3]
    assert_match "*. - * #          .01 .125 .25 .5 milliseconds\n*" $out
    assert_match "*K,L,M,N,O,P,Q,?  1,2,4,8,16,30,60,>60 seconds\n*" $out
    # A spectrum line: black glyphs, each bucket on its own background.
    regexp "\x1b\\\[38;5;0m(\x1b\\\[48;5;\[0-9\]+m.){31}\x1b\\\[0m\n" $out
  } {1}

  test {cli --stat prints the header and one line per interval} {
    r flushdb
    r set s1 v
    set out [cli_pty {\p\p\x03} --stat -i 0.2]
    set lines [split $out "\n"]
    assert_equal [lindex $lines 0] "------- data ------ --------------------- load -------------------- - child -"
    assert_equal [lindex $lines 1] "keys       mem      clients blocked requests            connections          "
    # keys %-11s, mem %-8s, clients " %-8s", blocked %-8s, requests %-19s, connections " %-12s"
    regexp {^1          [0-9.]+[BKMG] +[0-9]+ +0       [0-9]+ \(\+0\) +[0-9]+ +$} [lindex $lines 2]
  } {1}
}

start_server {tags {cli}} {
  # Interactive mode, on a terminal (pty_run.py).
  set ::env(REDISCLI_HISTFILE) /dev/null

  test {cli interactive: grey hints show the arguments still to type} {
    set hints {}
    foreach typed {{hset k f} {get} {subscribe ch} {config get ma}} {
      # The last key on its own, so the hint is drawn for the whole line;
      # then Ctrl-C leaves (Ctrl-D only ends an empty line).
      set head [string range $typed 0 end-1]
      set last [string index $typed end]
      set out [cli_pty "\\p\\p$head\\p$last\\p\\x03"]
      # The last hint drawn, in redis-cli's colours.
      set found [regexp -all -inline "\x1b\\\[0;90;49m(\[^\x1b\]*)\x1b\\\[0m" $out]
      lappend hints [lindex $found end]
    }
    set hints
  } {{ value [field value ...]} { key} { [channel ...]} { [parameter ...]}}

  test {cli interactive: Ctrl-C ends SUBSCRIBE and MONITOR, not the session} {
    set sub [cli_pty {subscribe ch1\r\p\p\x03\p\pping\r\p\x04}]
    set mon [cli_pty {monitor\r\p\p\x03\p\pping\r\p\x04}]
    list [string match "*Reading messages... (press Ctrl-C to quit)*" $sub] \
        [regexp {\^C\([0-9]+\.[0-9]{2}s\)\n} $sub] [string match "*PONG*" $sub] \
        [regexp {\^C\([0-9]+\.[0-9]{2}s\)\n} $mon] [string match "*PONG*" $mon]
  } {1 1 1 1 1}

  test {cli interactive: Ctrl-C during a blocking command exits} {
    set out [cli_pty {blpop nolist:cc 0\r\p\p\x03\p\pping\r\p\x04}]
    string match "*PONG*" $out
  } {0}

  unset ::env(REDISCLI_HISTFILE)
}

start_server {tags {cli needs:unix external:skip}} {
  test {cli --intrinsic-latency needs no server and reports its runs} {
    set out [exec $::cfg(cli_bin) -p 1 --intrinsic-latency 1]
    assert_match "Max latency so far: * microseconds.\n*" $out
    regexp {\n\n[0-9]+ total runs \(avg latency: [0-9.]+ microseconds / [0-9.]+ nanoseconds per run\)\.\nWorst run took [0-9]+x longer than the average latency\.$} $out
  } {1}

  test {cli --lru-test drives SETs and GETs and reports the hit rate} {
    set out [cli_pty {\p\p\p\p\x03} --lru-test 1000]
    assert_match "*Gets/sec | Hits: * (*%) | Misses: * (*%)\n*" $out
    assert_morethan [r dbsize] 10
    set keys [r keys lru:*]
    assert_morethan [llength $keys] 0
  }

  test {cli --scan over the unix socket} {
    r flushdb
    r set unixscan v
    exec $::cfg(cli_bin) -s [srv unixsocket] --scan
  } {unixscan}
}

start_server {tags {cli external:skip} overrides {requirepass askpw}} {
  test {cli --askpass reads the password from standard input, ignoring -a} {
    exec $::cfg(cli_bin) -h [srv host] -p [srv port] -a wrong --no-auth-warning \
        --askpass ping << "askpw\n"
  } {PONG}

  test {cli --askpass on a terminal prompts and masks what is typed} {
    set out [cli_pty {\p\paskpw\r\p} --askpass ping]
    list [string match "*Please input password: \*\*\*\*\*\n*" $out] [string match "*PONG*" $out] \
        [string match "*askpw*" $out]
  } {1 1 0}
}
