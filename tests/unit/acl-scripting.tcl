# Commands run by scripts (redis.call / redis.pcall, EVAL and FCALL alike)
# obey the ACL rules of the user who called the script, as in Redis 7.0:
# denied commands, keys and channels, with ACL LOG entries in context "lua".

start_server {tags {acl scripting}} {
  proc user_client {user} {
    set c [redis_client]
    $c auth $user anypass
    return $c
  }

  test {A script cannot run a command its caller may not run} {
    r acl setuser scr-cmd on nopass +@all -set ~*
    set c [user_client scr-cmd]
    assert_error "*The user executing the script can't run this command or subcommand*" \
        {$c eval {return redis.call('set','scr:a','b')} 0}
    # pcall returns the error as a value instead of raising it.
    set err [$c eval {local r = redis.pcall('set','scr:a','b'); return r['err']} 0]
    $c close
    list $err [r exists scr:a]
  } {{ERR The user executing the script can't run this command or subcommand} 0}

  test {A script cannot touch keys outside its caller's patterns} {
    r acl setuser scr-key on nopass +@all ~allowed:*
    set c [user_client scr-key]
    assert_equal [$c eval {return redis.call('set','allowed:1','v')} 0] OK
    assert_error "*The user executing the script can't access at least one of the keys mentioned in the command arguments*" \
        {$c eval {return redis.call('get','secret')} 0}
    $c close
    set entry [lindex [r acl log 1] 0]
    list [dict get $entry reason] [dict get $entry context] [dict get $entry object] \
        [dict get $entry username]
  } {key lua secret scr-key}

  test {A script cannot publish outside its caller's channels} {
    r acl setuser scr-chan on nopass +@all ~* resetchannels &news:*
    set c [user_client scr-chan]
    assert_equal [$c eval {return redis.call('publish','news:1','m')} 0] 0
    assert_error "*The user executing the script can't publish to the channel mentioned in the command*" \
        {$c eval {return redis.call('publish','other','m')} 0}
    $c close
  }

  test {Functions called with FCALL obey the caller's rules too} {
    r function load replace {#!lua name=scracl
      redis.register_function('setit', function(keys, args) return redis.call('set', keys[1], 'x') end)}
    r acl setuser scr-fn on nopass +@all -set ~*
    set c [user_client scr-fn]
    assert_error "*The user executing the script can't run this command or subcommand*" \
        {$c fcall setit 1 scr:f}
    $c close
    r function delete scracl
    r exists scr:f
  } {0}

  test {The default user's scripts are not restricted} {
    r eval {return redis.call('set','scr:d','v')} 0
  } {OK}
}
