# EVAL / EVALSHA / EVAL_RO / EVALSHA_RO and SCRIPT with Redis 7.0's replies:
# conversions of script results, redis.call / pcall and their errors (with
# the script's line), the sandbox, shebang flags and read-only rules, the
# script cache, and what introspection (INFO, commandstats, SLOWLOG) shows.

source [file join $::support_dir typed_reply.tcl]

start_server {tags {scripting}} {
  set c [redis_client]

  test {EVAL converts Lua values to replies} {
    list [typed_reply $c eval {return 1} 0] \
      [typed_reply $c eval {return 3.99} 0] \
      [typed_reply $c eval {return -3.99} 0] \
      [typed_reply $c eval {return 'hello'} 0] \
      [typed_reply $c eval {return true} 0] \
      [typed_reply $c eval {return false} 0] \
      [typed_reply $c eval {return nil} 0] \
      [typed_reply $c eval {return {1, 'two', {3, 'four'}}} 0]
  } {{int 1} {int 3} {int -3} {bulk hello} {int 1} {bulk -1} {bulk -1} {array {{int 1} {bulk two} {array {{int 3} {bulk four}}}}}}

  test {EVAL: an array stops at the first nil, tables with ok/err become status/error} {
    list [typed_reply $c eval {return {1, 2, nil, 4}} 0] \
      [typed_reply $c eval {return {ok='FINE'}} 0] \
      [typed_reply $c eval {return {err='MYERR bad thing'}} 0] \
      [typed_reply $c eval {return {1, {err='ERR inner'}, {ok='fine'}}} 0] \
      [typed_reply $c eval {return {err=1}} 0]
  } {{array {{int 1} {int 2}}} {status FINE} {err {MYERR bad thing}} {array {{int 1} {err {ERR inner}} {status fine}}} {array {}}}

  test {EVAL: numbers out of the integer range and NaN give the minimum integer} {
    list [r eval {return math.huge} 0] [r eval {return -math.huge} 0] [r eval {return 0/0} 0]
  } {-9223372036854775808 -9223372036854775808 -9223372036854775808}

  test {EVAL passes KEYS and ARGV} {
    r eval {return {KEYS, ARGV, #KEYS, #ARGV}} 2 k1 k2 a1 a2 a3
  } {{k1 k2} {a1 a2 a3} 2 3}

  test {EVAL numkeys errors} {
    assert_error {ERR Number of keys can't be negative} {r eval {return 1} -1}
    assert_error {ERR Number of keys can't be greater than number of args} {r eval {return 1} 2 a}
    assert_error {ERR value is not an integer or out of range} {r eval {return 1} x}
  }

  test {redis.call returns replies converted to Lua} {
    r del list hash
    r rpush list a b c
    r hset hash f v
    list [r eval {return redis.call('lrange', KEYS[1], 0, -1)} 1 list] \
      [r eval {return redis.call('incrby', 'counter', 5)} 0] \
      [r eval {return type(redis.call('get', 'nosuchkey'))} 0] \
      [r eval {local r = redis.call('set', 'x', 1) return r['ok']} 0] \
      [r eval {return redis.call('hgetall', 'hash')} 0]
  } {{a b c} 5 boolean OK {f v}}

  test {redis.call takes numbers as arguments, as Redis formats them} {
    r eval {redis.call('set', 'n1', 10) redis.call('set', 'n2', 3.5) redis.call('set', 'n3', 0.1)
            return {redis.call('get', 'n1'), redis.call('get', 'n2'), redis.call('get', 'n3')}} 0
  } {10 3.5 0.10000000000000001}

  test {redis.call raises command errors with the script's name and line} {
    r set str foo
    set sha [r script load "local a = 1\nreturn redis.call('incr', 'str')"]
    assert_error "ERR value is not an integer or out of range script: $sha, on @user_script:2." \
      {r evalsha $sha 0}
    assert_error {ERR value is not an integer or out of range} \
      {r eval {return redis.pcall('incr', 'str')} 0}
    r eval {local t = redis.pcall('incr', 'str') return t['err']} 0
  } {ERR value is not an integer or out of range}

  test {redis.call refuses what scripts may not run} {
    assert_error {ERR Unknown Redis command called from script script: *, on @user_script:1.} \
      {r eval {return redis.call('nosuchcommand')} 0}
    assert_error {ERR Wrong number of args calling Redis command from script script: *} \
      {r eval {return redis.call('get')} 0}
    assert_error {ERR Please specify at least one argument for this redis lib call script: *} \
      {r eval {return redis.call()} 0}
    assert_error {ERR Lua redis lib command arguments must be strings or integers script: *} \
      {r eval {return redis.call('get', {})} 0}
    assert_error {ERR This Redis command is not allowed from script script: *} \
      {r eval {return redis.call('subscribe', 'x')} 0}
    assert_error {ERR This Redis command is not allowed from script script: *} \
      {r eval {return redis.call('multi')} 0}
  }

  test {redis.pcall returns the check error as a table} {
    catch {r eval {return redis.pcall('nosuchcommand')} 0} e
    set e
  } {ERR Unknown Redis command called from script}

  test {Script errors: error(), error tables, runtime errors} {
    assert_error {ERR user_script:1: my message script: *, on @user_script:1.} \
      {r eval {error('my message')} 0}
    assert_error {MY code script: *, on @user_script:1.} {r eval {error({err='MY code'})} 0}
    assert_error {ERR nil script: *} {r eval {error()} 0}
    assert_error {ERR user_script:3: attempt to perform arithmetic on local 'a' (a nil value) script: *, on @user_script:3.} \
      {r eval "local a\nlocal b\nreturn a + 1" 0}
    assert_error {ERR Error compiling script (new function): user_script:1: '=' expected near '1'} \
      {r eval {retur 1} 0}
  }

  test {redis.error_reply and redis.status_reply} {
    list [typed_reply $c eval {return redis.error_reply('My Error')} 0] \
      [typed_reply $c eval {return redis.error_reply('-CODE with code')} 0] \
      [typed_reply $c eval {return redis.status_reply('FINE')} 0] \
      [typed_reply $c eval {return redis.status_reply()} 0]
  } {{err {My Error}} {err {CODE with code}} {status FINE} {err {ERR wrong number or type of arguments}}}

  test {The sandbox protects globals} {
    assert_error {ERR user_script:1: Script attempted to access nonexistent global variable 'x' script: *} \
      {r eval {return x} 0}
    assert_error {ERR user_script:1: Attempt to modify a readonly table script: *} \
      {r eval {x = 1} 0}
    assert_error {ERR user_script:1: Attempt to modify a readonly table script: *} \
      {r eval {table.insert = nil} 0}
    assert_error {ERR user_script:1: Attempt to modify a readonly table script: *} \
      {r eval {redis.call = nil} 0}
    assert_error {ERR Attempt to modify a readonly table script: *} \
      {r eval {rawset(_G, 'x', 1)} 0}
    assert_error {ERR Attempt to modify a readonly table script: *} \
      {r eval {setmetatable(_G, nil)} 0}
    # Functions a script does not get in Redis 7.0.
    foreach name {print dofile loadfile setfenv getfenv require io os debug newproxy module} {
      assert_error "*nonexistent global variable '$name'*" [list r eval "return $name" 0]
    }
    assert_error {ERR user_script:1: Attempt to modify a readonly table script: *} \
      {r eval {getmetatable(_G).__index = {}} 0}
    r eval {return type(getmetatable(_G))} 0
  } {table}

  test {The sandbox: the globals a script sees} {
    r eval {local t = {} for k in pairs(_G) do t[#t+1] = k end table.sort(t) return t} 0
  } {ARGV KEYS _G _VERSION __redis__err__handler assert bit cjson cmsgpack collectgarbage coroutine error gcinfo getmetatable ipairs load loadstring math next pairs pcall rawequal rawget rawset redis select setmetatable string struct table tonumber tostring type unpack xpcall}

  test {loadstring and load refuse bytecode but compile source} {
    list [r eval {return loadstring(string.dump(function() return 1 end)) == nil} 0] \
      [r eval {return loadstring('return 7')()} 0] \
      [r eval {local done = false
               return load(function() if done then return nil end done = true return 'return 8' end)()} 0] \
      [r eval {local f = loadstring('return nosuch') local ok, e = pcall(f) return e} 0]
  } {1 7 8 {[string "return nosuch"]:1: Script attempted to access nonexistent global variable 'nosuch'}}

  test {The redis table: constants and helpers} {
    list [r eval {return redis.REDIS_VERSION} 0] [r eval {return redis.REDIS_VERSION_NUM} 0] \
      [r eval {return redis.sha1hex('')} 0] [r eval {return redis.replicate_commands()} 0] \
      [r eval {return redis.set_repl(redis.REPL_ALL)} 0] \
      [r eval {return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}} 0] \
      [r eval {return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_REPLICA, redis.REPL_SLAVE, redis.REPL_ALL}} 0]
  } {7.0.15 458767 da39a3ee5e6b4b0d3255bfef95601890afd80709 1 {} {0 1 2 3} {0 1 2 2 3}}

  test {The redis table: argument errors} {
    assert_error {ERR wrong number of arguments script: *} {r eval {return redis.sha1hex()} 0}
    assert_error {ERR RESP version must be 2 or 3. script: *} {r eval {redis.setresp(4)} 0}
    assert_error {ERR redis.log() requires two arguments or more. script: *} {r eval {redis.log(1)} 0}
    assert_error {ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE. script: *} \
      {r eval {redis.set_repl(8)} 0}
    assert_error {ERR Invalid command passed to redis.acl_check_cmd() script: *} \
      {r eval {return redis.acl_check_cmd('nosuch')} 0}
    r eval {return redis.acl_check_cmd('get', 'x')} 0
  } {1}

  test {EVALSHA, SCRIPT LOAD / EXISTS / FLUSH} {
    r script flush
    set sha [r script load {return 'loaded'}]
    assert_equal $sha [r eval {return redis.sha1hex('return \'loaded\'')} 0]
    assert_equal {1 0} [r script exists $sha 0000000000000000000000000000000000000000]
    assert_equal loaded [r evalsha $sha 0]
    assert_equal loaded [r evalsha [string toupper $sha] 0]
    assert_equal loaded [r evalsha_ro $sha 0]
    assert_error {NOSCRIPT No matching script. Please use EVAL.} {r evalsha abc 0}
    assert_error {ERR SCRIPT FLUSH only support SYNC|ASYNC option} {r script flush now}
    r script flush async
    assert_error {NOSCRIPT No matching script. Please use EVAL.} {r evalsha $sha 0}
    # EVAL caches what it runs.
    r eval {return 'cached'} 0
    r evalsha [r eval {return redis.sha1hex('return \'cached\'')} 0] 0
  } {cached}

  test {SCRIPT DEBUG: NO is accepted, a bad mode refused} {
    assert_error {ERR Use SCRIPT DEBUG YES/SYNC/NO} {r script debug maybe}
    r script debug no
  } {OK}

  test {SCRIPT LOAD reports compile errors and caches nothing} {
    assert_error {ERR Error compiling script (new function): user_script:1: *} {r script load {retur 1}}
    r script exists [r eval {return redis.sha1hex('retur 1')} 0]
  } {0}

  test {Shebang flags} {
    assert_error {ERR Unexpected flag in script shebang: bad} {r eval "#!lua flags=bad\nreturn 1" 0}
    assert_error {ERR Unknown lua shebang option: name=x} {r eval "#!lua name=x\nreturn 1" 0}
    assert_error {ERR Unexpected engine in script shebang: #!luax} {r eval "#!luax\nreturn 1" 0}
    assert_error {ERR Write commands are not allowed from read-only scripts. script: *, on @user_script:2.} \
      {r eval "#!lua flags=no-writes\nreturn redis.call('set','a','b')" 0}
    assert_equal 2 [r eval "#!lua flags=no-writes,allow-oom,allow-stale,no-cluster,allow-cross-slot-keys\nreturn 2" 0]
    # The shebang line counts as line 1.
    assert_error {*on @user_script:3.} {r eval "#!lua\nlocal x\nreturn nosuch" 0}
  }

  test {EVAL_RO: read-only scripts} {
    r set a 1
    assert_error {ERR Write commands are not allowed from read-only scripts. script: *} \
      {r eval_ro {return redis.call('set', 'a', 'b')} 0}
    assert_error {ERR Can not execute a script with write flag using \*_ro command.} \
      {r eval_ro "#!lua\nreturn 1" 0}
    list [r eval_ro {return redis.call('get', 'a')} 0] \
      [r eval_ro "#!lua flags=no-writes\nreturn redis.call('get', 'a')" 0] [r get a]
  } {1 1 1}

  test {Scripts run in the caller's database; SELECT inside one stays inside} {
    r select 9
    r set dbkey nine
    set v [r eval {local v = redis.call('get', 'dbkey') redis.call('select', 0) return {v, redis.call('get', 'dbkey')}} 0]
    set after [r get dbkey]
    r select 0
    list $v $after
  } {{nine {}} nine}

  test {Blocking commands are refused inside a script, so a script never blocks} {
    foreach cmd {{'blpop', 'emptylist', 0} {'brpoplpush', 'emptylist', 'dst', 0}
                 {'bzpopmin', 'emptyzset', 0} {'blmove', 'a', 'b', 'left', 'left', 0}} {
      assert_error {ERR This Redis command is not allowed from script script: *} \
        [list r eval "return redis.call($cmd)" 0]
    }
  }

  test {Scripts inside MULTI} {
    r del m
    r multi
    r eval {return redis.call('incr', 'm')} 0
    r eval {return redis.call('incr', 'm')} 0
    r exec
  } {1 2}

  test {Scripts are atomic: their writes appear together} {
    r del a b
    r eval {redis.call('set', 'a', 1) redis.call('set', 'b', 2) return redis.call('mget', 'a', 'b')} 0
  } {1 2}

  test {redis.setresp(3) converts RESP3 replies} {
    r del h s z
    r hset h f v
    r sadd s m
    r zadd z 1.5 m
    list [r eval {redis.setresp(3) local t = redis.call('hgetall', 'h') return t['map']['f']} 0] \
      [r eval {redis.setresp(3) local t = redis.call('smembers', 's') return tostring(t['set']['m'])} 0] \
      [r eval {redis.setresp(3) local t = redis.call('zscore', 'z', 'm') return tostring(t['double'])} 0] \
      [r eval {redis.setresp(3) return tostring(redis.call('get', 'nosuchkey'))} 0] \
      [r eval {redis.setresp(2) return tostring(redis.call('get', 'nosuchkey'))} 0] \
      [r eval {redis.setresp(3) return type(redis.call('exists', 'h'))} 0]
  } {v true 1.5 nil false number}

  test {Script results as RESP3 types} {
    set c3 [redis_client]
    $c3 hello 3
    set out [list [typed_reply $c3 eval {return {double=3.5}} 0] \
               [typed_reply $c3 eval {return {map={a=1}}} 0] \
               [typed_reply $c3 eval {return {set={a=true}}} 0] \
               [typed_reply $c3 eval {return {big_number='12345678901234567890'}} 0] \
               [typed_reply $c3 eval {return {verbatim_string={format='txt', string='hi'}}} 0] \
               [typed_reply $c3 eval {return nil} 0] \
               [typed_reply $c3 eval {return true} 0] \
               [typed_reply $c3 eval {redis.setresp(3) return true} 0] \
               [typed_reply $c3 eval {redis.setresp(3) return false} 0]]
    $c3 close
    set out
  } {{double 3.5} {map {{bulk a} {int 1}}} {set {{bulk a}}} {big 12345678901234567890} {verbatim txt:hi} {null {}} {int 1} {bool t} {bool f}}

  test {RESP3 types reach a RESP2 client in their RESP2 form} {
    list [typed_reply $c eval {return {double=3.5}} 0] \
      [typed_reply $c eval {return {map={a=1}}} 0] \
      [typed_reply $c eval {return {set={a=true}}} 0] \
      [typed_reply $c eval {return {big_number='123'}} 0] \
      [typed_reply $c eval {redis.setresp(3) return false} 0]
  } {{bulk 3.5} {array {{bulk a} {int 1}}} {array {{bulk a}}} {bulk 123} {int 0}}

  test {INFO memory has the scripting fields} {
    r script flush
    r eval {return 1} 0
    set info [r info memory]
    foreach f {used_memory_lua used_memory_vm_eval used_memory_scripts_eval number_of_cached_scripts
               number_of_functions number_of_libraries used_memory_vm_functions used_memory_vm_total
               used_memory_functions used_memory_scripts} {
      assert_match {[0-9]*} [info_field $info $f]
    }
    list [info_field $info number_of_cached_scripts] [expr {[info_field $info used_memory_lua] > 1024}]
  } {1 1}

  test {commandstats count scripts and the commands they call} {
    r config resetstat
    r eval {redis.call('set', 'cs', 1) return redis.call('get', 'cs')} 0
    set info [r info commandstats]
    list [string match {*cmdstat_eval:calls=1,*} $info] [string match {*cmdstat_set:calls=1,*} $info] \
      [string match {*cmdstat_get:calls=1,*} $info]
  } {1 1 1}

  test {A failing redis.call counts as a failed call of the script and of the command} {
    r config resetstat
    r set str foo
    catch {r eval {return redis.call('incr', 'str')} 0}
    set info [r info commandstats]
    list [string match {*cmdstat_eval:calls=1,*failed_calls=1*} $info] \
      [string match {*cmdstat_incr:calls=1,*failed_calls=1*} $info] \
      [info_field [r info errorstats] errorstat_ERR]
  } {1 1 count=1}

  test {Errors inside scripts are counted once, where they happen} {
    # cmdstat figures of one command: "calls rejected failed" (or "none").
    proc calls_of {name} {
      set line [info_field [r info commandstats] cmdstat_$name]
      if {$line eq ""} { return none }
      regexp {calls=(\d+),.*rejected_calls=(\d+),failed_calls=(\d+)} $line -> a b c
      return "$a $b $c"
    }
    proc err_figures {} {
      list [info_field [r info errorstats] errorstat_ERR] [info_field [r info errorstats] errorstat_OOM] \
        [info_field [r info stats] total_error_replies]
    }
    r set errs:s abc
    set out {}
    foreach script {
      {return redis.call('incr', 'errs:s')}
      {local t = redis.pcall('incr', 'errs:s') return 1}
      {local t = redis.pcall('nosuchcommand') return 1}
      {return redis.call('get')}
    } {
      r config resetstat
      catch {r eval $script 0}
      lappend out [list [err_figures] [calls_of eval] [calls_of incr] [calls_of get]]
    }
    # A call refused for memory counts for SET as rejected, not for EVAL.
    r config set maxmemory 1
    foreach script {
      {return redis.call('set', 'errs:x', 'y')}
      {local t = redis.pcall('set', 'errs:x', 'y') return 1}
    } {
      r config resetstat
      catch {r eval $script 0}
      lappend out [list [err_figures] [calls_of eval] [calls_of set]]
    }
    r config set maxmemory 0
    set out
  } [list {{count=1 {} 1} {1 0 1} {1 0 1} none} {{count=1 {} 1} {1 0 0} {1 0 1} none} \
          {{count=1 {} 1} {1 0 0} none none} {{count=1 {} 1} {1 0 1} none {0 1 0}} \
          {{{} count=1 1} {1 0 1} {0 1 0}} {{{} count=1 1} {1 0 0} {0 1 0}}]

  test {A script's SORT BY a constant of a set is sorted, and big calls get their reply} {
    r del sortset
    r sadd sortset c a b aa
    list [r eval {return redis.call('sort', KEYS[1], 'by', 'nokey')} 1 sortset] \
      [r eval {local a = {} for i = 1, 7999 do a[i] = 1 end
               return redis.call('rpush', 'biglist', unpack(a))} 0]
  } {{a aa b c} 7999}

  test {SLOWLOG shows the script and the commands it called} {
    r config set slowlog-log-slower-than 0
    r slowlog reset
    r eval {redis.call('set', 'sl', 1) return 1} 0
    r config set slowlog-log-slower-than 10000
    set entries [r slowlog get 3]
    list [lindex $entries 0 3] [lindex $entries 1 3] [lindex $entries 1 4]
  } {{eval {redis.call('set', 'sl', 1) return 1} 0} {set sl 1} ?:0}

  test {lua-time-limit is an alias of busy-reply-threshold} {
    r config set lua-time-limit 1234
    set v [list [r config get busy-reply-threshold] [r config get lua-time-limit]]
    r config set busy-reply-threshold 5000
    set v
  } {{busy-reply-threshold 1234} {lua-time-limit 1234}}

  $c close
}

start_server {tags {scripting external:skip}} {
  test {MONITOR shows EVAL before the commands of its script, as lua} {
    set m [redis_deferring_client]
    $m monitor
    $m read
    r eval {redis.call('set', 'mk', 1) return redis.call('get', 'mk')} 0
    set lines [list [$m read] [$m read] [$m read]]
    $m close
    list [string match {*\[0 127.0.0.1:*\] "eval" *} [lindex $lines 0]] \
      [string match {*\[0 lua\] "set" "mk" "1"} [lindex $lines 1]] \
      [string match {*\[0 lua\] "get" "mk"} [lindex $lines 2]]
  } {1 1 1}

  test {Scripts under maxmemory: allow-oom, no-writes and deny-oom commands} {
    r config set maxmemory 1
    set out [list]
    lappend out [catch {r eval "#!lua\nreturn 1" 0} e] $e
    lappend out [r eval "#!lua flags=allow-oom\nreturn redis.call('set','x','y')" 0]
    lappend out [r eval "#!lua flags=no-writes\nreturn 2" 0]
    lappend out [catch {r eval {return redis.call('set','x','y')} 0} e] [string range $e 0 54]
    lappend out [r eval {return redis.call('get','x')} 0]
    # Once the script wrote (DEL is not deny-oom), deny-oom commands pass.
    lappend out [r eval {redis.call('del','x') return redis.call('set','x','y')} 0]
    r config set maxmemory 0
    set out
  } {1 {OOM command not allowed when used memory > 'maxmemory'.} OK 2 1 {OOM command not allowed when used memory > 'maxmemory'.} y OK}

  test {redis.log writes to the server log} {
    r eval {redis.log(redis.LOG_WARNING, 'from', 'a script')} 0
    wait_for_condition 500 20 {
      [string match {*from a script*} [exec cat [srv 0 stdout]]]
    } {
      fail "redis.log line not in the log"
    }
  }
}

start_server {tags {scripting cluster external:skip} overrides {cluster-enabled yes}} {
  test {Cluster mode: a script's declared keys fix the slot the keys it touches must share} {
    r cluster addslotsrange 0 16383
    wait_for_condition 100 50 {[string match *cluster_state:ok* [r cluster info]]} {
      fail "the one-node cluster never came up"
    }
    # {a} and {b} hash to different slots.
    set touch_undeclared {return redis.call('set', 'k{b}', 'v')}
    set same_slot {*Script attempted to access keys that do not hash to the same slot*}
    assert_error $same_slot {r eval "#!lua\n$touch_undeclared" 1 k{a}}
    set lib "#!lua name=slots\nredis.register_function('touch', function() $touch_undeclared end)"
    r function load replace $lib
    assert_error $same_slot {r fcall touch 1 k{a}}
    # Declaring nothing leaves the first key touched to fix the slot; the
    # flag, or a script without a shebang, allows several.
    set got [list [r eval "#!lua\n$touch_undeclared" 0] [r fcall touch 0]]
    lappend got [r eval "#!lua flags=allow-cross-slot-keys\n$touch_undeclared" 1 k{a}]
    lappend got [r eval $touch_undeclared 1 k{a}]
  } {OK OK OK OK}
}
