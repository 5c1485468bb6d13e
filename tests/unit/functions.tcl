# FUNCTION LOAD / DELETE / FLUSH / LIST / DUMP / RESTORE / STATS and FCALL /
# FCALL_RO with Redis 7.0's replies: library metadata, register_function in
# both forms with flags and descriptions, the load-time environment, name
# collisions, read-only rules, and DUMP payloads.

proc lib {name body} { return "#!lua name=$name\n$body" }

start_server {tags {functions}} {
  r function flush

  test {FUNCTION LOAD and FCALL} {
    assert_equal mylib [r function load [lib mylib {
      redis.register_function('echo_args', function(keys, args) return {keys, args} end)
      redis.register_function('setget', function(keys, args)
        redis.call('set', keys[1], args[1])
        return redis.call('get', keys[1])
      end)}]]
    list [r fcall echo_args 2 k1 k2 a1] [r fcall setget 1 fk fv] [r get fk]
  } {{{k1 k2} a1} fv fv}

  test {FCALL errors} {
    assert_error {ERR Function not found} {r fcall nosuch 0}
    assert_error {ERR Bad number of keys provided} {r fcall echo_args x}
    assert_error {ERR Number of keys can't be negative} {r fcall echo_args -1}
    assert_error {ERR Number of keys can't be greater than number of args} {r fcall echo_args 3 a}
  }

  test {Errors inside a function name it and its line} {
    r function load [lib errlib "redis.register_function('boom', function()\n  return nosuch\nend)"]
    assert_error {ERR user_function:3: Script attempted to access nonexistent global variable 'nosuch' script: boom, on @user_function:3.} \
      {r fcall boom 0}
    r function delete errlib
  }

  test {Library metadata errors} {
    assert_error {ERR Missing library metadata} {r function load {return 1}}
    assert_error {ERR Invalid library metadata} {r function load {#!lua name=x}}
    assert_error {ERR Engine 'luax' not found} {r function load "#!luax name=x\nreturn 1"}
    assert_error {ERR Library name was not given} {r function load "#!lua\nreturn 1"}
    assert_error {ERR Invalid metadata value given: foo=bar} {r function load "#!lua name=x foo=bar\nreturn 1"}
    assert_error {ERR Invalid metadata value, name argument was given multiple times} \
      {r function load "#!lua name=x name=y\nreturn 1"}
    assert_error {ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long} \
      {r function load "#!lua name=a-b\nreturn 1"}
    assert_error {ERR Library 'mylib' already exists} {r function load [lib mylib {return 1}]}
    assert_error {ERR Unknown option given: x} {r function load x y z}
    # The first word, "#!" included, is the engine; quotes work as in redis.conf.
    assert_error {ERR Engine '' not found} {r function load "#! name=x\nreturn 1"}
    assert_equal quoted [r function load "#!lua name=\"quoted\"\nredis.register_function('q', function() return 1 end)"]
    assert_error {ERR Invalid library metadata} {r function load "#!lua name=\"x\nreturn 1"}
    r function delete quoted
  }

  test {Function names: case-insensitive across libraries, no NUL inside} {
    r function load [lib cases {redis.register_function('MixedCase', function() return 'mc' end)}]
    assert_equal mc [r fcall mixedcase 0]
    assert_equal mc [r fcall MIXEDCASE 0]
    assert_error {ERR Function mixedCASE already exists} \
      {r function load [lib other {redis.register_function('mixedCASE', function() end)}]}
    assert_error {*Library names can only contain letters, numbers, or underscores(_)*} \
      {r function load [lib nul {redis.register_function('a\0b', function() end)}]}
    r function delete cases
    r function list libraryname nul
  } {}

  test {Load errors: compile, run, nothing registered, collisions} {
    assert_error {ERR Error compiling function: user_function:2: *} {r function load [lib bad {foo(}]}
    assert_error {ERR No functions registered} {r function load [lib bad {local a = 1}]}
    assert_error {ERR Function echo_args already exists} \
      {r function load [lib bad {redis.register_function('echo_args', function() end)}]}
    assert_error {ERR Error registering functions: ERR Function already exists in the library} \
      {r function load [lib bad {redis.register_function('f', function() end) redis.register_function('f', function() end)}]}
    assert_error {ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'b'} \
      {r function load [lib bad {local a = b}]}
  }

  test {Library code sees only redis.register_function, redis.log and constants while it loads} {
    foreach name {string table pairs error KEYS _G cjson} {
      assert_error "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable '$name'" \
        [list r function load [lib bad "local x = $name"]]
    }
    assert_error {ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'call'} \
      {r function load [lib bad {redis.call('ping')}]}
    assert_error {ERR Error registering functions: ERR user_function:2: Attempt to modify a readonly table} \
      {r function load [lib bad {x = 1}]}
    r function load [lib okload {
      local v = redis.REDIS_VERSION .. redis.REDIS_VERSION_NUM .. redis.LOG_NOTICE
      redis.log(redis.LOG_NOTICE, 'loading okload')
      redis.register_function('okf', function() return v end)}]
    r fcall okf 0
  } {7.0.154587672}

  test {At run time a function sees the full script environment, without register_function} {
    r function load [lib rt {
      redis.register_function('rt', function(keys, args) return {string.upper('x'), type(cjson), type(redis.register_function)} end)}]
    r fcall rt 0
  } {X table nil}

  test {register_function argument errors} {
    set cases {
      {redis.register_function()} {wrong number of arguments to redis.register_function}
      {redis.register_function('a','b','c')} {wrong number of arguments to redis.register_function}
      {redis.register_function('f3')} {calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).}
      {redis.register_function('f3', 1)} {second argument to redis.register_function must be a function}
      {redis.register_function('1-f', function() end)} {Library names can only contain letters, numbers, or underscores(_) and must be at least one character long}
      {redis.register_function{function_name='f3', callback=function() end, flags={'no-writes','bad'}}} {unknown flag given}
      {redis.register_function{function_name='f3', callback=function() end, flags='no-writes'}} {flags argument to redis.register_function must be a table representing function flags}
      {redis.register_function{function_name='f3', callback=function() end, x=1}} {unknown argument given to redis.register_function}
      {redis.register_function{function_name='f3'}} {redis.register_function must get a callback argument}
      {redis.register_function{callback=function() end}} {redis.register_function must get a function name argument}
      {redis.register_function{function_name={}, callback=function() end}} {function_name argument given to redis.register_function must be a string}
    }
    foreach {code msg} $cases {
      assert_error "ERR Error registering functions: ERR $msg" [list r function load [lib bad $code]]
    }
  }

  test {register_function with named arguments: flags and description} {
    r function load [lib named {
      redis.register_function{function_name='ro', callback=function(keys) return redis.call('get', keys[1]) end,
                              flags={'no-writes', 'allow-stale'}, description='reads a key'}
      redis.register_function{function_name='rw', callback=function(keys) return redis.call('set', keys[1], 'w') end}}]
    r set nk v
    assert_equal v [r fcall_ro ro 1 nk]
    assert_error {ERR Can not execute a script with write flag using \*_ro command.} {r fcall_ro rw 1 nk}
    r function load replace [lib named {
      redis.register_function{function_name='ro', callback=function(keys) return redis.call('set', keys[1], 'x') end,
                              flags={'no-writes'}}}]
    assert_error {ERR Write commands are not allowed from read-only scripts. script: ro, on @user_function:*} \
      {r fcall ro 1 nk}
    r get nk
  } {v}

  test {FUNCTION LIST} {
    r function flush
    r function load [lib l1 {redis.register_function{function_name='f1', callback=function() end, description='desc', flags={'no-writes', 'allow-oom'}}}]
    r function load [lib l2 {redis.register_function('f2', function() end)}]
    set all [lsort [r function list]]
    assert_equal {{library_name l1 engine LUA functions {{name f1 description desc flags {no-writes allow-oom}}}} {library_name l2 engine LUA functions {{name f2 description {} flags {}}}}} $all
    assert_equal [list [list library_name l2 engine LUA functions {{name f2 description {} flags {}}} library_code [lib l2 {redis.register_function('f2', function() end)}]]] \
      [r function list libraryname l2 withcode]
    assert_equal {} [r function list libraryname nomatch*]
    assert_error {ERR library name argument was not given} {r function list libraryname}
    assert_error {ERR Unknown argument x} {r function list x}
    # Each option once: a repeat is an unknown argument.
    assert_error {ERR Unknown argument withcode} {r function list withcode withcode}
    assert_error {ERR Unknown argument libraryname} {r function list libraryname a libraryname b}
    llength [r function list libraryname l*]
  } {2}

  test {FUNCTION DELETE, FLUSH, STATS} {
    assert_error {ERR Library not found} {r function delete nosuch}
    assert_equal OK [r function delete l1]
    assert_error {ERR Function not found} {r fcall f1 0}
    assert_equal {running_script {} engines {LUA {libraries_count 1 functions_count 1}}} [r function stats]
    assert_error {ERR FUNCTION FLUSH only supports SYNC|ASYNC option} {r function flush now}
    assert_error {ERR unknown subcommand or wrong number of arguments for 'flush'. Try FUNCTION HELP.} \
      {r function flush sync now}
    assert_error {ERR unknown subcommand or wrong number of arguments for 'restore'. Try FUNCTION HELP.} \
      {r function restore a b c}
    assert_equal OK [r function flush sync]
    assert_equal OK [r function flush async]
    set info [r info memory]
    list [r function list] [info_field $info number_of_functions] [info_field $info number_of_libraries]
  } {{} 0 0}

  test {FUNCTION LOAD REPLACE swaps a library and its functions} {
    r function load [lib rep {redis.register_function('old', function() return 'old' end)}]
    r function load replace [lib rep {redis.register_function('new', function() return 'new' end)}]
    assert_error {ERR Function not found} {r fcall old 0}
    r fcall new 0
  } {new}

  test {FUNCTION DUMP and RESTORE} {
    r function flush
    r function load [lib d1 {redis.register_function('d1f', function() return 'one' end)}]
    r function load [lib d2 "-- [string repeat {a long comment so the code is compressed } 5]\nredis.register_function('d2f', function() return 'two' end)"]
    set payload [r function dump]
    r function flush
    assert_equal OK [r function restore $payload]
    assert_equal {one two} [list [r fcall d1f 0] [r fcall d2f 0]]
    assert_error {ERR Library d? already exists} {r function restore $payload}
    assert_error {ERR Library d? already exists} {r function restore $payload append}
    assert_equal OK [r function restore $payload replace]
    r function load [lib other {redis.register_function('x', function() end)}]
    assert_equal OK [r function restore $payload flush]
    assert_error {ERR Function not found} {r fcall x 0}
    assert_error {ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.} \
      {r function restore $payload bad}
    assert_error {ERR DUMP payload version or checksum are wrong} {r function restore garbage}
    # A flipped byte breaks the checksum.
    set bad [string replace $payload 5 5 [format %c [expr {([scan [string index $payload 5] %c] + 1) % 256}]]]
    assert_error {ERR DUMP payload version or checksum are wrong} {r function restore $bad}
    # Function name collision with a library that stays: nothing restored.
    r function flush
    r function load [lib keep {redis.register_function('d1f', function() return 'kept' end)}]
    assert_error {ERR Function d1f already exists} {r function restore $payload}
    list [r fcall d1f 0] [llength [r function list]]
  } {kept 1}

  test {FUNCTION DUMP of no libraries restores to nothing} {
    r function flush
    set p [r function dump]
    list [string length $p] [r function restore $p] [r function list]
  } {10 OK {}}

  test {FUNCTION LOAD stops a library that loads forever} {
    assert_error {ERR Error registering functions: ERR FUNCTION LOAD timeout} \
      {r function load [lib forever {while true do end}]}
    r ping
  } {PONG}

  test {FUNCTION HELP} {
    set help [r function help]
    list [lindex $help 0] [llength $help]
  } {{FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} 40}
}

start_server {tags {functions external:skip needs:unix}} {
  test {FUNCTION DUMP payloads move to and from Redis 7.0.15} {
    if {![file executable /usr/bin/redis-server]} { return {skipped} }
    set code [lib interop "-- [string repeat {padding that compresses } 4]\nredis.register_function('inter', function(keys, args) return 'interop ' .. args\[1\] end)"]
    r function flush
    r function load $code
    set ours [r function dump]
    # The reference server, on a unix socket of its own (no TCP port to
    # collide with anything else on the machine).
    set sock [file join $::repo_root tests tmp "redis-ref-[pid].sock"]
    file delete $sock
    set pid [exec /usr/bin/redis-server --port 0 --unixsocket $sock --save {} --appendonly no \
               --logfile /dev/null &]
    set ref {}
    for {set i 0} {$i < 200} {incr i} {
      if {[file exists $sock] && ![catch {set ref [::redis::connect_unix $sock]}]} break
      after 50
    }
    set result {}
    catch {
      $ref function flush
      lappend result [$ref function restore $ours] [$ref fcall inter 0 x]
      lappend result [string equal [$ref function dump] $ours]
      $ref function flush
      $ref function load [lib fromref {redis.register_function('fromref', function() return 'made by redis' end)}]
      set theirs [$ref function dump]
      lappend result [r function restore $theirs] [r fcall fromref 0]
    } err
    catch {$ref shutdown nosave}
    catch {exec kill $pid}
    file delete $sock
    if {$result eq {}} { error $err }
    set result
  } {OK {interop x} 1 OK {made by redis}}
}

start_server {tags {functions external:skip}} {
  test {A replica with its link down judges scripts by their flags (replica-serve-stale-data no)} {
    r function load [lib stale {
      redis.register_function{function_name='reader', callback=function() return 'r' end, flags={'no-writes'}}
      redis.register_function{function_name='stale_reader', callback=function() return 's' end, flags={'no-writes', 'allow-stale'}}
      redis.register_function{function_name='writer', callback=function() return 'w' end, flags={'allow-stale'}}
    }]
    set flagless [r script load {return 'old style'}]
    r config set replica-serve-stale-data no
    # Nothing listens on port 1: the link stays down.
    r replicaof 127.0.0.1 1
    set masterdown {MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.}
    # Only allow-stale lets a script through; a script without a shebang
    # has no flags, so it never does.
    assert_error $masterdown {r fcall reader 0}
    assert_error $masterdown {r fcall_ro reader 0}
    assert_error $masterdown {r evalsha $flagless 0}
    assert_error $masterdown {r eval {return 1} 0}
    assert_error $masterdown {r eval "#!lua flags=no-writes\nreturn 1" 0}
    assert_equal s [r fcall stale_reader 0]
    assert_equal 2 [r eval "#!lua flags=no-writes,allow-stale\nreturn 2" 0]
    # A script that may write is refused as a write first.
    assert_error {READONLY You can't write against a read only replica.} {r fcall writer 0}
    # Unknown scripts get their own error.
    assert_error {ERR Function not found} {r fcall nosuch 0}
    assert_error {NOSCRIPT*} {r evalsha [string repeat 0 40] 0}
    r config set replica-read-only no
    set got [r fcall writer 0]
    r config set replica-read-only yes
    r replicaof no one
    r config set replica-serve-stale-data yes
    list $got [r fcall reader 0]
  } {w r}

  test {Inside an allow-stale script on a stale replica, only stale-safe commands run} {
    r function load [lib stale_calls {
      redis.register_function{function_name='get_x', callback=function() return redis.call('get', 'x') end, flags={'no-writes', 'allow-stale'}}
      redis.register_function{function_name='info_server', callback=function() return redis.call('info', 'server') end, flags={'no-writes', 'allow-stale'}}
    }]
    r config set replica-serve-stale-data no
    r replicaof 127.0.0.1 1
    catch {r fcall get_x 0} e
    set info [r fcall info_server 0]
    r replicaof no one
    r config set replica-serve-stale-data yes
    assert_match {*redis_version:*} $info
    assert_match {ERR Can not execute the command on a stale replica script: get_x,*} $e
    # Served again once the replica is a master.
    r fcall get_x 0
  } {}
}

start_server {tags {functions external:skip}} {
  test {A script's own flags count when EXEC runs on a replica, and PUBLISH is not a write} {
    set writer "#!lua\nreturn 1"
    set reader "#!lua flags=no-writes\nreturn 2"
    set c1 [redis_client]
    set c2 [redis_client]
    # Queued while a master; EXEC runs once it follows a master.
    $c1 multi
    $c1 eval $writer 0
    $c2 multi
    $c2 eval $reader 0
    # Nothing listens on port 1: the replica stays read-only and stale.
    r replicaof 127.0.0.1 1
    assert_error {EXECABORT Transaction discarded because of: READONLY *} {$c1 exec}
    set got [$c2 exec]
    # PUBLISH may replicate but writes nothing: a script without a shebang
    # may call it on a read-only replica.
    lappend got [r eval {return redis.call('publish', 'news', 'x')} 0]
    assert_error {READONLY*} {r eval "#!lua\nreturn redis.call('publish', 'news', 'x')" 0}
    r replicaof no one
    $c1 close
    $c2 close
    set got
  } {2 0}
}
