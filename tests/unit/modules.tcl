# This server cannot load modules. MODULE answers as a Redis 7.0.15 with
# none loaded: LIST is empty, LOAD/LOADEX/UNLOAD are refused while
# enable-module-command forbids them (its default), and fail with Redis's
# errors (the reason in the log) when it allows them.

start_server {tags {modules external:skip}} {
  test {MODULE LIST is empty; loading is refused under enable-module-command no} {
    set out [list [r module list]]
    foreach cmd {{module load /tmp/m.so} {module loadex /tmp/m.so} {module unload m}} {
      catch {r {*}$cmd} e
      lappend out [string match {ERR MODULE command not allowed.*} $e]
    }
    set out
  } {{} 1 1 1}

  test {MODULE HELP, arity and scripts} {
    assert_match {MODULE <subcommand>*} [lindex [r module help] 0]
    assert_error {ERR unknown subcommand 'nosuch'. Try MODULE HELP.} {r module nosuch}
    assert_error {*wrong number of arguments for 'module|load'*} {r module load}
    assert_error {*not allowed from script*} {r eval {return redis.call('module', 'list')} 0}
  }
}

start_server {tags {modules external:skip} overrides {enable-module-command yes}} {
  test {With enable-module-command yes, a load fails and says why in the log} {
    assert_error {ERR Error loading the extension. Please check the server logs.} \
      {r module load /tmp/m.so}
    assert_error {ERR Error unloading module: no such module with that name} {r module unload m}
    assert_match {*Module /tmp/m.so failed to load: this server does not support modules*} \
      [read_file [srv stdout]]
    r module list
  } {}

  test {enable-module-command is a working option, not logged as one without effect} {
    assert_no_match {*enable-module-command*} [read_file [srv stdout]]
    r config get enable-module-command
  } {enable-module-command yes}
}

start_server {tags {modules external:skip} overrides {enable-module-command local}} {
  test {With enable-module-command local, a loopback client may try to load} {
    assert_error {ERR Error loading the extension. Please check the server logs.} \
      {r module load /tmp/m.so}
    assert_no_match {*enable-module-command*} [read_file [srv stdout]]
    r config get enable-module-command
  } {enable-module-command local}
}
