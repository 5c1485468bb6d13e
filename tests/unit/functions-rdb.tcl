# Function libraries are saved in the RDB file (FUNCTION2 records, as Redis
# 7.0 writes them) and loaded back: across DEBUG RELOAD, across a restart,
# and between this server and Redis 7.0.15 in both directions.

set ::fn_lib {#!lua name=rdblib
redis.register_function('rdbfn', function(keys, args) return 'from-rdb:' .. args[1] end)
redis.register_function{function_name='rdbro', callback=function() return 1 end, flags={'no-writes'}}}

start_server {tags {functions rdb external:skip needs:debug} overrides {enable-debug-command yes}} {
  test {Functions survive DEBUG RELOAD} {
    r function flush
    r function load $::fn_lib
    r set k v
    assert_equal [r debug reload] OK
    list [r fcall rdbfn 0 x] [r fcall_ro rdbro 0] [r get k]
  } {from-rdb:x 1 v}

  test {DEBUG RELOAD replaces the libraries with the file's} {
    r save
    r function load {#!lua name=later
      redis.register_function('laterfn', function() return 2 end)}
    assert_equal [r debug reload nosave] OK
    lsort [lmap lib [r function list] {dict get $lib library_name}]
  } {rdblib}

  test {Functions survive a restart} {
    set dir [lindex [r config get dir] 1]
    catch {r shutdown save}
    wait_server_exit [srv dir] 5000
    start_server [list overrides [list dir $dir enable-debug-command yes]] {
      set out [list [r fcall rdbfn 0 y] [r get k]]
    }
    set out
  } {from-rdb:y v}
}

start_server {tags {functions rdb external:skip needs:debug} overrides {enable-debug-command yes enable-protected-configs yes}} {
  test {An RDB file with functions moves between Redis 7.0.15 and this server} {
    if {![file executable /usr/bin/redis-server]} { fail "/usr/bin/redis-server missing" }
    set dir [lindex [r config get dir] 1]
    # Ours -> Redis.
    r function load replace $::fn_lib
    r set shared 1
    r config set dbfilename fn-ours.rdb
    r save
    set port [find_free_port]
    set pid [exec /usr/bin/redis-server --port $port --bind 127.0.0.1 --dir $dir \
                 --dbfilename fn-ours.rdb --save "" --daemonize no --logfile $dir/fn-redis.log &]
    wait_for_condition 200 50 {[catch {exec redis-cli -p $port ping}] == 0} {
      fail "Redis did not start: [read_file $dir/fn-redis.log]"
    }
    set theirs [exec redis-cli -p $port fcall rdbfn 0 z]
    # Redis -> ours.
    exec redis-cli -p $port function load {#!lua name=fromredis
      redis.register_function('redisfn', function() return 'made-by-redis' end)}
    # Redis saves over the file it loaded (dbfilename is protected there).
    assert_equal [exec redis-cli -p $port save] OK
    exec redis-cli -p $port shutdown nosave
    r function flush
    assert_equal [r debug reload nosave] OK
    list $theirs [r fcall redisfn 0] [r fcall rdbfn 0 w]
  } {from-rdb:z made-by-redis from-rdb:w}
}
