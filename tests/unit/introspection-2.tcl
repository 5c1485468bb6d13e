# Introspection, part 2: MEMORY, OBJECT FREQ/IDLETIME under the LFU
# policies, INFO keyspace over every db, COMMAND GETKEYS for the
# introspection commands.

start_server {tags {introspection}} {
  test {MEMORY USAGE: null for missing keys, grows with the value} {
    r del mu
    assert_equal [r memory usage mu] {}
    r set mu x
    set small [r memory usage mu]
    r set mu [string repeat x 5000]
    set big [r memory usage mu]
    assert_morethan $small 16
    assert_morethan $big [expr {$small + 4999}]
    # A longer key costs more too.
    r set [string repeat k 100] x
    assert_equal [r memory usage [string repeat k 100]] [expr {$small + 98}]
  }

  test {MEMORY USAGE SAMPLES and its errors (as Redis 7.0)} {
    r set mu v
    set n [r memory usage mu]
    assert_equal [r memory usage mu samples 0] $n
    assert_equal [r memory usage mu SAMPLES 5 samples 1] $n
    assert_error {ERR syntax error} {r memory usage mu samples}
    assert_error {ERR syntax error} {r memory usage mu samples -1}
    assert_error {ERR value is not an integer or out of range} {r memory usage mu samples x}
    assert_error {ERR syntax error} {r memory usage mu foo 1}
    assert_error {ERR wrong number of arguments for 'memory|usage' command} {r memory usage}
    assert_error {ERR unknown subcommand 'foo'. Try MEMORY HELP.} {r memory foo}
    assert_error {ERR wrong number of arguments for 'memory|stats' command} {r memory stats x}
  }

  test {MEMORY STATS has Redis 7.0's fields in order} {
    r flushall
    r set a 1
    r select 9
    r set b 2
    r expire b 100
    r select 0
    set stats [r memory stats]
    set names {}
    foreach {k v} $stats { lappend names $k }
    assert_equal $names [regexp -all -inline {\S+} {peak.allocated total.allocated startup.allocated replication.backlog
      clients.slaves clients.normal cluster.links aof.buffer lua.caches functions.caches db.0 db.9
      overhead.total keys.count keys.bytes-per-key dataset.bytes dataset.percentage
      peak.percentage allocator.allocated allocator.active allocator.resident
      allocator-fragmentation.ratio allocator-fragmentation.bytes allocator.rss-ratio
      allocator.rss-bytes rss-overhead.ratio rss-overhead.bytes fragmentation fragmentation.bytes}]
    assert_equal [dict get $stats keys.count] 2
    set db9 [dict get $stats db.9]
    assert_equal [dict keys $db9] {overhead.hashtable.main overhead.hashtable.expires overhead.hashtable.slot-to-keys}
    assert_morethan [dict get $db9 overhead.hashtable.expires] 0
    assert_equal [dict get [dict get $stats db.0] overhead.hashtable.expires] 0
    assert {[dict get $stats peak.allocated] >= [dict get $stats total.allocated]}
    assert_morethan [dict get $stats clients.normal] 0
  }

  test {MEMORY DOCTOR on a small instance, PURGE, MALLOC-STATS, HELP} {
    # Under 5 MB the doctor declines (Redis's rule); a sanitizer build's
    # allocator accounts for more, and then finds nothing wrong.
    if {[info_field [r info memory] used_memory] < 5 * 1024 * 1024} {
      assert_equal [r memory doctor] "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting."
    } else {
      assert_match "Hi Sam, I can't find any memory issue in your instance.*" [r memory doctor]
    }
    assert_equal [r memory purge] OK
    set ms [r memory malloc-stats]
    assert {[string match {___ Begin jemalloc statistics ___*} $ms] ||
            $ms eq "Stats not supported for the current allocator"}
    set h [r memory help]
    assert_equal [lindex $h 0] {MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:}
    assert_equal [lindex $h 10] {    Return memory in bytes used by <key> and its value. Nested values are}
    llength $h
  } {14}

  test {INFO keyspace lists every non-empty db} {
    r flushall
    foreach db {0 3 15} {
      r select $db
      r set k$db v
      r set e$db v
      r expire e$db 100
    }
    r select 0
    set lines {}
    foreach line [split [r info keyspace] "\r\n"] {
      if {[string match db* $line]} { lappend lines $line }
    }
    set lines
  } {db0:keys=2,expires=1,avg_ttl=0 db3:keys=2,expires=1,avg_ttl=0 db15:keys=2,expires=1,avg_ttl=0}

  test {COMMAND GETKEYS for the introspection commands} {
    assert_equal [r command getkeys memory usage k] k
    assert_equal [r command getkeys object freq k] k
    assert_equal [r command getkeys object encoding k] k
    assert_error {ERR The command has no key arguments} {r command getkeys slowlog get}
    assert_error {ERR The command has no key arguments} {r command getkeys memory doctor}
    assert_error {ERR The command has no key arguments} {r command getkeys client pause 1}
    assert_error {ERR Invalid number of arguments specified for command} {r command getkeys memory usage}
  }
}

start_server {tags {introspection external:skip}} {
  test {OBJECT FREQ without an LFU policy: null for missing keys, else Redis's error} {
    r set f v
    assert_equal [r object freq nokey] {}
    assert_error {ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.} \
      {r object freq f}
    r object idletime f
  } {0}

  test {OBJECT FREQ under allkeys-lfu: new keys start at 5, accesses count} {
    r config set maxmemory-policy allkeys-lfu
    r config set lfu-log-factor 0
    r config set lfu-decay-time 0
    r del f
    r set f v
    assert_equal [r object freq f] 5
    for {set i 0} {$i < 10} {incr i} { r get f }
    # OBJECT itself does not count as an access.
    assert_equal [r object freq f] 15
    assert_equal [r object freq f] 15
    assert_equal [r object freq nokey] {}
    assert_error {ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.} \
      {r object idletime f}
    # Overwriting keeps the counter and counts as an access, as Redis.
    r set f w
    r object freq f
  } {16}

  test {OBJECT FREQ grows logarithmically with the default log factor} {
    r config set maxmemory-policy volatile-lfu
    r config set lfu-log-factor 10
    r set hot v
    for {set i 0} {$i < 2000} {incr i} { r get hot }
    set f [r object freq hot]
    assert_range $f 15 60
    r config set lfu-decay-time 1
  }

  test {LFU options: CONFIG limits} {
    assert_equal [r config get lfu-*] {lfu-log-factor 10 lfu-decay-time 1}
    assert_error {ERR CONFIG SET failed (possibly related to argument 'lfu-log-factor') - argument must be between 0 and 2147483647 inclusive} \
      {r config set lfu-log-factor -1}
    assert_error {ERR CONFIG SET failed (possibly related to argument 'lfu-decay-time') - argument must be between 0 and 2147483647 inclusive} \
      {r config set lfu-decay-time -1}
  }

  test {Back to an LRU policy: IDLETIME answers, FREQ refuses} {
    r config set maxmemory-policy allkeys-lru
    r set g v
    assert_equal [r object idletime g] 0
    assert_error {ERR An LFU maxmemory policy is not selected*} {r object freq g}
    r config set maxmemory-policy noeviction
  } {OK}
}

start_server {tags {introspection external:skip} overrides {maxmemory-policy allkeys-lfu lfu-decay-time 0}} {
  test {An LFU policy from the config file applies from the start} {
    r set s v
    r get s
    assert_error {ERR An LFU maxmemory policy is selected*} {r object idletime s}
    r object freq s
  } {6}
}
