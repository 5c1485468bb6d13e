# DEBUG subcommands the Redis 7.0 test suite leans on (OBJECT, HTSTATS,
# HTSTATS-KEY, POPULATE, QUICKLIST-PACKED-THRESHOLD, PAUSE-CRON,
# SET-DISABLE-DENY-SCRIPTS, CHANGE-REPL-ID, RELOAD NOFLUSH/MERGE, LOG), the
# ones for client and tooling tests (ERROR, LISTPACK, QUICKLIST,
# STRINGMATCH-TEST) and LOLWUT, with Redis 7.0's reply shapes and error texts.

start_server {tags {debug external:skip} overrides {enable-debug-command yes}} {
  test {DEBUG OBJECT describes encoding, serialized length and list nodes} {
    r flushall
    r rpush l a b c
    r set s hello
    r set n 12
    set l [r debug object l]
    assert_match {Value at:* refcount:1 encoding:quicklist serializedlength:* lru:* lru_seconds_idle:* ql_nodes:1 ql_avg_node:3.00 ql_listpack_max:-2 ql_compressed:0 ql_uncompressed_size:*} $l
    assert_match {Value at:* refcount:1 encoding:embstr serializedlength:6 lru:* lru_seconds_idle:*} [r debug object s]
    assert_match {* refcount:2147483647 encoding:int serializedlength:2 *} [r debug object n]
    assert_error {ERR no such key} {r debug object nokey}
  }

  test {Small integers are shared objects, except with maxmemory under an LRU or LFU policy} {
    r set n 12
    set shared [r object refcount n]
    r config set maxmemory 1gb
    set got {}
    foreach policy {allkeys-lru volatile-lfu allkeys-random} {
      r config set maxmemory-policy $policy
      r set n 12
      lappend got [r object refcount n]
    }
    r config set maxmemory 0
    r config set maxmemory-policy noeviction
    list $shared {*}$got
  } {2147483647 1 1 2147483647}

  test {DEBUG OBJECT keeps the same address while INCR changes a big integer in place} {
    r set big 20000
    set a [lindex [split [r debug object big]] 1]
    r incr big
    set b [lindex [split [r debug object big]] 1]
    expr {$a eq $b && [string match at:* $a]}
  } {1}

  test {DEBUG POPULATE creates prefix:N keys, padded to a size, and skips existing ones} {
    r flushall
    r set pk:1 mine
    assert_equal [r debug populate 3 pk 10] OK
    assert_error {ERR value is out of range, must be positive} {r debug populate -1}
    list [r dbsize] [r get pk:1] [string length [r get pk:2]] [string range [r get pk:2] 0 6]
  } {3 mine 10 value:2}

  test {DEBUG QUICKLIST-PACKED-THRESHOLD bounds; big elements keep their values} {
    assert_error {ERR argument must be a memory value bigger than 1 and smaller than 4gb} \
        {r debug quicklist-packed-threshold 5gb}
    assert_equal [r debug quicklist-packed-threshold 5b] OK
    r del l
    r rpush l aa bb [string repeat x 100] cc
    r lset l 0 [string repeat y 50]
    r linsert l after cc [string repeat z 20]
    set got [r lrange l 0 -1]
    assert_equal [r debug quicklist-packed-threshold 0] OK
    set got
  } [list [string repeat y 50] bb [string repeat x 100] cc [string repeat z 20]]

  test {DEBUG SET-DISABLE-DENY-SCRIPTS lets a script call a no-script command} {
    r set k v
    assert_error {*not allowed from script*} {r eval "return redis.call('debug','object','k')" 0}
    r debug set-disable-deny-scripts 1
    set got [r eval "return redis.call('debug','object','k')" 0]
    r debug set-disable-deny-scripts 0
    string match {Value at:*} $got
  } {1}

  test {DEBUG PAUSE-CRON stops the cron's active expiry until resumed} {
    r flushall
    r debug pause-cron 1
    r set e v px 10
    after 300
    set during [r dbsize]
    r debug pause-cron 0
    wait_for_condition 100 20 {[r dbsize] == 0} { fail "the cron did not resume" }
    set during
  } {1}

  test {DEBUG CHANGE-REPL-ID gives a new master_replid} {
    set a [info_field [r info replication] master_replid]
    assert_equal [r debug change-repl-id] OK
    set b [info_field [r info replication] master_replid]
    list [expr {$a ne $b}] [string length $b]
  } {1 40}

  test {DEBUG RELOAD NOFLUSH adds the file to the data set; MERGE lets its keys replace ours} {
    r flushall
    r set a 1
    r save
    r set a 2
    r set b 2
    assert_equal [r debug reload nosave noflush merge] OK
    set got [list [r get a] [r get b]]
    r del a
    # Nothing in common: NOFLUSH alone adds the file's keys. (Redis stops
    # the whole server on a key both hold without MERGE; here the reload is
    # refused with an error instead, so no test of that case runs on both.)
    assert_equal [r debug reload nosave noflush] OK
    lappend got [r get a] [r dbsize]
  } {1 2 1 2}

  test {DEBUG RELOAD refuses unknown options} {
    catch {r debug reload foo} e
    set e
  } {ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.}
}

start_server {tags {debug external:skip} overrides {enable-debug-command yes}} {
  test {DEBUG MALLCTL and MALLCTL-STR read and drive jemalloc's settings} {
    if {![string match *jemalloc* [info_field [r info memory] mem_allocator]]} {
      # A sanitizer or libc build has no jemalloc to ask.
      assert_error {ERR No such file or directory} {r debug mallctl arenas.page}
      return
    }
    # The page size (a size_t), a string setting, an action (VOID: written
    # with nothing), and a name jemalloc does not know.
    assert_range [r debug mallctl arenas.page] 4096 65536
    assert_match {disabled} [r debug mallctl-str opt.metadata_thp]
    assert_equal OK [r debug mallctl-str thread.tcache.flush VOID]
    assert_error {ERR No such file or directory} {r debug mallctl no.such.setting}
    assert_error {ERR value is not an integer*} {r debug mallctl arenas.page x}
    assert_match {*MALLCTL <key>*} [r debug help]
  }
}

start_server {tags {debug external:skip} overrides {enable-debug-command yes}} {
  test {DEBUG HTSTATS describes the keyspace's and the expires' hash tables} {
    r select 9
    r debug populate 100
    r expire key:1 100
    set stats [r debug htstats 9]
    r select 0
    assert_match {Dictionary HT*main hash table*table size: 128*number of elements: 100*} \
      [string range $stats 1 end]
    assert_match {*Expires HT*table size: 4*number of elements: 1*Chain length distribution:*} $stats
    assert_error {ERR Out of range database} {r debug htstats 16}
    r debug htstats 3
  } "\[Dictionary HT\]\nHash table 0 stats (main hash table):\nNo stats available for empty dictionaries\n\[Expires HT\]\nHash table 0 stats (main hash table):\nNo stats available for empty dictionaries\n"

  test {DEBUG HTSTATS-KEY describes the hash table behind a set, hash or skiplist zset} {
    r flushall
    r sadd words alpha beta gamma
    assert_match "Hash table 0 stats (main hash table):\n table size: 4\n number of elements: 3\n*" \
      [r debug htstats-key words]
    # The fifth member outgrows four buckets: the table is caught mid-rehash.
    r sadd words delta epsilon
    assert_match {*main hash table*rehashing target*number of elements: 1*} \
      [r debug htstats-key words]
    # FULL (later Redis versions) is either refused, as Redis 7.0 does, or
    # the same report.
    if {![catch {r debug htstats-key words full} full]} {
      assert_equal [r debug htstats-key words] $full
    }
    r hset small f v
    r hset big f [string repeat v 100]
    r zadd rank 1 [string repeat m 100]
    assert_match {*number of elements: 1*} [r debug htstats-key big]
    assert_match {*number of elements: 1*} [r debug htstats-key rank]
    set no_table {ERR The value stored at the specified key is not represented using an hash table}
    r sadd digits 1 2 3
    r set text hello
    r rpush items a
    foreach k {small digits text items} {
      assert_error $no_table [list r debug htstats-key $k]
    }
    # An expired key is gone, as for OBJECT, even with active expiry off.
    r debug set-active-expire 0
    r sadd brief x
    r pexpire brief 1
    after 5
    assert_error {ERR no such key} {r debug htstats-key brief}
    r debug set-active-expire 1
    assert_error {ERR no such key} {r debug htstats-key missing}
    assert_error {ERR unknown subcommand*} {r debug htstats-key}
  }

  test {A set or hash that lost most of its members shrinks its table (HTSTATS-KEY)} {
    r flushall
    set sizes {}
    foreach {key fill drop touch} {
      s {r sadd s {*}$names} {r srem s {*}[lrange $names 10 end]} {r sismember s x}
      h {r hset h {*}[concat {*}[lmap n $names {list $n v}]]} {r hdel h {*}[lrange $names 10 end]}
        {r hexists h x}
    } {
      set names {}
      for {set i 0} {$i < 1000} {incr i} { lappend names member:$i }
      eval $fill
      assert_match {*table size: 1024*} [r debug htstats-key $key]
      eval $drop
      # Each lookup moves the shrinking rehash a step further.
      for {set i 0} {$i < 2000 && [string match {*rehashing target*} [r debug htstats-key $key]]} {incr i} {
        eval $touch
      }
      regexp {table size: ([0-9]+)} [r debug htstats-key $key] -> size
      lappend sizes [expr {$size <= 128 ? "shrunk" : $size}]
    }
    # 10 of 1024 left: the shrink started once fewer than a tenth were
    # used, to 128 buckets; whether a second one (to 16) followed within
    # the same removals depends on how far the first had got, which the
    # hash seed decides. Redis 7.0.15 passes this too.
    set sizes
  } {shrunk shrunk}
}

start_server {tags {debug external:skip} overrides {enable-debug-command yes}} {
  test {DEBUG LOG writes to the server log; DEBUG ERROR replies with the given line} {
    assert_equal OK [r debug log "marker-[srv port] in the log"]
    wait_for_condition 50 20 {
      [string match "*DEBUG LOG: marker-[srv port] in the log*" [read_file [srv stdout]]]
    } {
      fail "the DEBUG LOG line never reached the log"
    }
    r config resetstat
    # The whole line is the caller's, code included; line breaks become
    # spaces, and the reply is left out of the error statistics.
    assert_error {MYCODE two  lines} {r debug error "MYCODE two\r\nlines"}
    set counted [list [info_field [r info stats] total_error_replies] \
      [string match *errorstat_* [r info errorstats]]]
    assert_error {ERR unknown subcommand*} {r debug error}
    set counted
  } {0 0}

  test {DEBUG LISTPACK and QUICKLIST print a value's structure on stdout} {
    r flushall
    r hset h f 12
    r zadd z 1 m
    r rpush l a b 3
    r sadd st x
    assert_equal {Listpack structure printed on stdout} [r debug listpack h]
    assert_equal {Listpack structure printed on stdout} [r debug listpack z]
    assert_equal {Quicklist structure printed on stdout} [r debug quicklist l]
    assert_equal {Quicklist structure printed on stdout} [r debug quicklist l 1]
    # A list answers "quicklist" whatever its size, as in Redis 7.0.
    foreach k {l st} {
      assert_error {ERR Not a listpack encoded object.} [list r debug listpack $k]
    }
    foreach k {h z st} {
      assert_error {ERR Not a quicklist encoded object.} [list r debug quicklist $k]
    }
    assert_error {ERR no such key} {r debug listpack missing}
    assert_error {ERR no such key} {r debug quicklist missing}
    assert_error {ERR unknown subcommand*} {r debug quicklist l 1 2}
    r debug stringmatch-test
  } {Apparently Redis did not crash: test passed}
}

start_server {tags {lolwut}} {
  test {LOLWUT prints the version; VERSION 5 draws Schotter in Braille} {
    set plain [r lolwut]
    # Two rows of squares stand straight: the drawing is the same every time.
    set art [r lolwut version 5 10 2 2]
    set lines [split [string trimright $art "\n"] "\n"]
    assert_match {Georg Nees - schotter, plotter on paper, 1968. Redis ver. 7.0.*} [lindex $lines end]
    assert_equal [r lolwut version 5 10 2 2] $art
    assert_error {ERR value is not an integer or out of range} {r lolwut version x}
    # 10 columns: 20 by 20 pixels, five rows of ten 2x4-pixel characters
    # (three bytes each), a blank line, the credit.
    list [string match {Redis ver. 7.0.*} $plain] [llength $lines] [string length [lindex $lines 0]] \
        [lindex $lines 5]
  } {1 7 30 {}}
}
