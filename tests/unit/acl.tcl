# ACL (Redis 7.0): users, rules, AUTH with a user name, -NOPERM for commands,
# keys and channels, MULTI/EXEC, ACL LOG, the ACL subcommands, CLIENT KILL
# USER, requirepass, `user` lines and the aclfile. Every expectation was
# taken from Redis 7.0.15; the file passes against /usr/bin/redis-server.

# (Arguments given to exec, as server command lines are, must not start
# with '>' or '<', which exec reads as redirections: passwords there are
# given as #<sha256>; 9513...49a8 is "pa".)

# A new client authenticated as user/pass.
proc acl_client {user pass} {
  set c [redis_client]
  $c auth $user $pass
  return $c
}

# Compares two rule descriptions: Redis 7.0 lists the single-command rules
# after the category ones in hash-table order (it varies between runs),
# so those are compared as a set; every other word in order.
proc assert_rules {got want} {
  foreach v {got want} {
    set fixed($v) {}
    set cmds($v) {}
    foreach w [set $v] {
      if {[regexp {^[+-][^@]} $w]} { lappend cmds($v) $w } else { lappend fixed($v) $w }
    }
  }
  assert_equal $fixed(got) $fixed(want) "rules '$got', expected '$want'"
  assert_equal [lsort $cmds(got)] [lsort $cmds(want)] "rules '$got', expected '$want'"
}

# Reads a flat map reply (RESP2) into a dict.
proc acl_dict {reply} {
  set d {}
  foreach {k v} $reply { dict set d $k $v }
  return $d
}

start_server {tags {acl}} {
  test {The default user is open and unrestricted} {
    assert_equal [r acl whoami] default
    assert_equal [r acl users] default
    r acl list
  } {{user default on nopass ~* &* +@all}}

  test {ACL SETUSER creates a disabled user with no rights} {
    r acl setuser newbie
    set u [acl_dict [r acl getuser newbie]]
    assert_equal [dict get $u flags] off
    assert_equal [dict get $u passwords] {}
    assert_equal [dict get $u commands] -@all
    assert_equal [dict get $u keys] {}
    assert_equal [dict get $u channels] {}
    assert_equal [dict get $u selectors] {}
    r acl deluser newbie
  } {1}

  test {ACL GETUSER and LIST describe rules as Redis 7.0 does} {
    r acl setuser u1 on >p1 +@all -@dangerous +get -set {~foo*} {%R~bar} {&ch*} \
      +config|get +select|0
    set u [acl_dict [r acl getuser u1]]
    assert_equal [dict get $u flags] on
    assert_equal [dict get $u passwords] \
      f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a
    assert_rules [dict get $u commands] {+@all -@dangerous -set +config|get}
    assert_equal [dict get $u keys] {~foo* %R~bar}
    assert_equal [dict get $u channels] {&ch*}
    set line [lsearch -inline [r acl list] {user u1 *}]
    assert_rules $line {user u1 on #f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a ~foo* %R~bar resetchannels &ch* +@all -@dangerous -set +config|get}
    r acl setuser u4 +@all -@string -@hash +hget
    r acl setuser u5 -@all +@string +@hash -hget
    r acl setuser t2 +select|0 -@all +select|1 +select|2
    r acl setuser t3 {%W~w*} {%R~r*} {%RW~rw} {~x} {%R~a} {%W~a}
    assert_equal [lsearch -inline [r acl list] {user u4 *}] \
      {user u4 off resetchannels +@all -@string -@hash +hget}
    assert_equal [lsearch -inline [r acl list] {user u5 *}] \
      {user u5 off resetchannels -@all +@string +@hash -hget}
    assert_equal [lsearch -inline [r acl list] {user t2 *}] \
      {user t2 off resetchannels -@all +select|1 +select|2}
    assert_equal [lsearch -inline [r acl list] {user t3 *}] \
      {user t3 off %W~w* %R~r* ~rw ~x ~a resetchannels -@all}
    r acl deluser u1 u4 u5 t2 t3
  } {5}

  test {Selectors appear in GETUSER and LIST} {
    r acl setuser sel on nopass +get {~a*} {(+set ~b*)} {(%R~c* +@read &x)}
    set u [acl_dict [r acl getuser sel]]
    set sels [dict get $u selectors]
    assert_equal [llength $sels] 2
    assert_equal [acl_dict [lindex $sels 0]] {commands {-@all +set} keys ~b* channels {}}
    assert_equal [acl_dict [lindex $sels 1]] {commands {-@all +@read} keys %R~c* channels &x}
    assert_equal [lsearch -inline [r acl list] {user sel *}] \
      {user sel on nopass ~a* resetchannels -@all +get (~b* resetchannels -@all +set) (%R~c* resetchannels &x -@all +@read)}
    r acl setuser sel clearselectors
    assert_equal [dict get [acl_dict [r acl getuser sel]] selectors] {}
    r acl deluser sel
  } {1}

  test {ACL SETUSER errors name the modifier and the reason} {
    assert_error {ERR Error in ACL SETUSER modifier 'foo': Syntax error} {r acl setuser t foo}
    assert_error {ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL} \
      {r acl setuser t +nosuch}
    assert_error {ERR Error in ACL SETUSER modifier '+@nosuch': Unknown command or category name in ACL} \
      {r acl setuser t +@nosuch}
    assert_error {ERR Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters} \
      {r acl setuser t #abc}
    assert_error {ERR Error in ACL SETUSER modifier '<nopw': The password you are trying to remove from the user does not exist} \
      {r acl setuser t <nopw}
    assert_error {ERR Error in ACL SETUSER modifier '-get|x': Unknown command or category name in ACL} \
      {r acl setuser t -get|x}
    assert_error {ERR Error in ACL SETUSER modifier '+config|get|x': Allowing first-arg of a subcommand is not supported} \
      {r acl setuser t +config|get|x}
    assert_error {ERR Error in ACL SETUSER modifier '+client|nosuch': Unknown command or category name in ACL} \
      {r acl setuser t +client|nosuch}
    assert_error {ERR Error in ACL SETUSER modifier '%X~k': Syntax error} {r acl setuser t %X~k}
    assert_error {ERR Unmatched parenthesis in acl selector starting at '('.} {r acl setuser t (}
    assert_error {ERR Error in ACL SETUSER modifier '(foo)': Syntax error} {r acl setuser t (foo)}
    assert_error {ERR Error in ACL SETUSER modifier '~foo': Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns} \
      {r acl setuser t allkeys ~foo}
    assert_error {ERR Error in ACL SETUSER modifier '&foo': Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels} \
      {r acl setuser t allchannels &foo}
    assert_error {ERR Usernames can't contain spaces or null characters} {r acl setuser {a b}}
    # A failing SETUSER changes nothing, not even the rules before the bad one.
    r acl setuser t
    catch {r acl setuser t on +get foo}
    set u [acl_dict [r acl getuser t]]
    r acl deluser t
    list [dict get $u flags] [dict get $u commands]
  } {off -@all}

  test {Passwords: >, <, #, !, nopass, resetpass} {
    r acl setuser pw >one >two
    set h1 [dict get [acl_dict [r acl getuser pw]] passwords]
    assert_equal [llength $h1] 2
    r acl setuser pw <one
    assert_equal [llength [dict get [acl_dict [r acl getuser pw]] passwords]] 1
    r acl setuser pw #f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a
    r acl setuser pw !f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a
    r acl setuser pw nopass
    set u [acl_dict [r acl getuser pw]]
    assert_equal [dict get $u flags] {off nopass}
    assert_equal [dict get $u passwords] {}
    r acl setuser pw resetpass
    assert_equal [dict get [acl_dict [r acl getuser pw]] flags] off
    r acl deluser pw
  } {1}

  test {AUTH and HELLO AUTH with a user name} {
    r acl setuser alice on >wonder +@all ~*
    set c [redis_client]
    assert_equal [$c auth alice wonder] OK
    assert_equal [$c acl whoami] alice
    assert_error {WRONGPASS invalid username-password pair or user is disabled.} {$c auth alice bad}
    assert_error {WRONGPASS invalid username-password pair or user is disabled.} {$c auth nobody x}
    # Still alice after failed attempts.
    assert_equal [$c acl whoami] alice
    $c close
    set c [redis_client]
    set reply [$c hello 3 auth alice wonder]
    assert_equal [dict get $reply proto] 3
    assert_equal [$c acl whoami] alice
    $c close
    r acl setuser alice off
    set c [redis_client]
    assert_error {WRONGPASS invalid username-password pair or user is disabled.} {$c auth alice wonder}
    $c close
    r acl deluser alice
  } {1}

  test {A disabled or unknown user in HELLO AUTH gets WRONGPASS} {
    r acl setuser dis off >p +@all
    set c [redis_client]
    assert_error {WRONGPASS invalid username-password pair or user is disabled.} {$c hello 2 auth dis p}
    $c close
    r acl deluser dis
  } {1}
}

start_server {tags {acl}} {
  r acl setuser r on >pw +@all -config|set {%R~r*} {%W~w*} {~k*} {&ch} {&p*} -flushall

  test {NOPERM for a denied command and subcommand} {
    set c [acl_client r pw]
    assert_error {NOPERM this user has no permissions to run the 'flushall' command} {$c flushall}
    assert_error {NOPERM this user has no permissions to run the 'config|set' command} \
      {$c config set maxmemory 1}
    assert_equal [llength [$c config get maxmemory]] 2
    $c close
  }

  test {Key permissions: %R allows reads, %W writes, ~ both} {
    set c [acl_client r pw]
    assert_error {NOPERM this user has no permissions to access one of the keys used as arguments} {$c get w1}
    assert_error {NOPERM this user has no permissions to access one of the keys used as arguments} {$c set r1 x}
    assert_equal [$c set w1 x] OK
    assert_equal [$c set k1 v] OK
    assert_equal [$c get k1] v
    assert_equal [$c get r1] {}
    assert_error {NOPERM*keys*} {$c get other}
    # Keys used without access, insert, delete or update (EXISTS, TOUCH,
    # OBJECT ENCODING) need only a matching pattern.
    assert_equal [$c exists w1] 1
    assert_equal [$c touch w1] 1
    assert_equal [$c object encoding w1] embstr
    assert_error {NOPERM*keys*} {$c ttl w1}
    assert_error {NOPERM*keys*} {$c del r1}
    # SET ... GET reads the key as well.
    assert_error {NOPERM*keys*} {$c set w1 v get}
    assert_equal [$c set k1 v2 get] v
    # Several keys: every one must be allowed.
    assert_error {NOPERM*keys*} {$c mget k1 w1}
    assert_equal [$c mget k1 r1] {v2 {}}
    $c rpush k2 a
    assert_equal [$c lmove k2 w2 left right] a
    assert_error {NOPERM*keys*} {$c lmove r2 k2 left right}
    assert_error {NOPERM*keys*} {$c copy k1 r3}
    $c close
  }

  test {SORT BY and GET patterns need access to every key} {
    set c [acl_client r pw]
    $c del k1
    $c rpush k1 3 1 2
    assert_error {ERR BY option of SORT denied due to insufficient ACL permissions.} \
      {$c sort k1 by w*}
    assert_error {ERR GET option of SORT denied due to insufficient ACL permissions.} \
      {$c sort k1 get #}
    # A BY without '*' looks nothing up.
    assert_equal [$c sort k1 by nosort] {3 1 2}
    assert_equal [$c sort k1] {1 2 3}
    $c close
    r acl setuser rall on >pw +@all {%R~*}
    set c [acl_client rall pw]
    assert_equal [$c sort k1 by nosuch* get #] {1 2 3}
    $c close
    r acl deluser rall
  } {1}

  test {Channel permissions for PUBLISH, SUBSCRIBE and PSUBSCRIBE} {
    set c [acl_client r pw]
    assert_error {NOPERM this user has no permissions to access one of the channels used as arguments} \
      {$c publish x y}
    assert_equal [$c publish ch y] 0
    assert_equal [$c publish p1 y] 0
    assert_error {NOPERM*channels*} {$c subscribe ch nope}
    # PSUBSCRIBE needs the very pattern, not one the rule matches.
    assert_error {NOPERM*channels*} {$c psubscribe p1*}
    $c close
    set c [acl_client r pw]
    assert_equal [$c psubscribe p*] {psubscribe p* 1}
    $c close
  }

  test {MULTI: a denied command is refused when queued and EXEC aborts} {
    set c [acl_client r pw]
    $c multi
    assert_error {NOPERM*keys*} {$c get w1}
    assert_equal [$c set k1 v] QUEUED
    assert_error {EXECABORT Transaction discarded because of previous errors.} {$c exec}
    $c close
  }

  test {MULTI: rules changed after queuing are checked again at EXEC} {
    r acl setuser later on >pw +@all ~*
    set c [acl_client later pw]
    $c multi
    $c set a 1
    $c get a
    r acl setuser later -get
    set res [$c exec]
    assert_equal [lindex $res 0] OK
    assert_equal [lindex $res 1] {NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: no permission to execute the command or subcommand}
    $c multi
    $c set a 2
    r acl setuser later resetkeys {~b*}
    set res [$c exec]
    assert_equal [lindex $res 0] {NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: no permission to touch the specified keys}
    $c close
    r acl deluser later
  } {1}

  test {AUTH, HELLO, RESET and QUIT are allowed whatever the rules} {
    r acl setuser na on >pw -@all +ping
    set c [acl_client na pw]
    assert_equal [$c auth na pw] OK
    assert_equal [dict get [$c hello 2 auth na pw] proto] 2
    assert_error {NOPERM this user has no permissions to run the 'echo' command} {$c echo x}
    assert_equal [r acl dryrun na auth x] OK
    assert_equal [$c quit] OK
    $c close
    r acl deluser na
  } {1}

  test {Scripts run with their caller's rights} {
    r acl setuser sc on >pw +@all -set {~k*} {&ch}
    set c [acl_client sc pw]
    assert_error {*The user executing the script can't run this command or subcommand*} \
      {$c eval {return redis.call('set','k1','1')} 0}
    assert_error {*The user executing the script can't access at least one of the keys mentioned in the command*} \
      {$c eval {return redis.call('get','other')} 0}
    assert_error {*The user executing the script can't publish to the channel mentioned in the command*} \
      {$c eval {return redis.call('publish','nope','m')} 0}
    assert_equal [$c eval {return redis.call('incr','k2')} 0] 1
    assert_equal [$c eval {return redis.acl_check_cmd('set','k1','v')} 0] {}
    assert_equal [$c eval {return redis.acl_check_cmd('get','k1')} 0] 1
    $c close
    set e [lindex [r acl log] 0]
    set d {}
    foreach {k v} $e { dict set d $k $v }
    r acl deluser sc
    list [dict get $d context] [dict get $d reason] [dict get $d object]
  } {lua channel nope}

  test {First-argument rules: +select|0} {
    r acl setuser fa on >pw -@all +select|0 +ping
    set c [acl_client fa pw]
    assert_equal [$c select 0] OK
    assert_error {NOPERM this user has no permissions to run the 'select' command} {$c select 1}
    $c close
    r acl deluser fa
  } {1}

  test {Selectors: a command is allowed when one selector allows all of it} {
    r acl setuser sel on >pw +get {~a*} {(+set ~b*)}
    set c [acl_client sel pw]
    assert_equal [$c get a1] {}
    assert_equal [$c set b1 x] OK
    assert_error {NOPERM*keys*} {$c get b1}
    assert_error {NOPERM this user has no permissions to run the 'incr' command} {$c incr a1}
    # The reported denial is the one that got furthest: the root selector
    # denies SET, the other selector only the key.
    assert_error {NOPERM*keys*} {$c set a1 x}
    $c close
    r acl deluser sel
  } {1}

  test {ACL SETUSER changes apply to connected clients at once} {
    r acl setuser live on >pw +@all ~*
    set c [acl_client live pw]
    assert_equal [$c ping] PONG
    r acl setuser live -ping
    assert_error {NOPERM this user has no permissions to run the 'ping' command} {$c ping}
    # Turning the user off does not disconnect it (Redis 7.0).
    r acl setuser live off +ping
    assert_equal [$c ping] PONG
    $c close
    r acl deluser live
  } {1}

  test {ACL DRYRUN} {
    assert_equal [r acl dryrun r get k1] OK
    assert_equal [r acl dryrun r get w1] {This user has no permissions to access the 'w1' key}
    assert_equal [r acl dryrun r flushall] {This user has no permissions to run the 'flushall' command}
    assert_equal [r acl dryrun r publish zz x] {This user has no permissions to access the 'zz' channel}
    assert_error {ERR Command 'nosuch' not found} {r acl dryrun r nosuch}
    assert_error {ERR User 'nouser' not found} {r acl dryrun nouser get a}
    assert_error {ERR wrong number of arguments for 'get' command} {r acl dryrun r get}
  }
}

start_server {tags {acl external:skip}} {
  r acl setuser r on >pw +@all -flushall {~k*} {&ch}

  test {ACL LOG records denials with Redis 7.0's fields} {
    r acl log reset
    set c [acl_client r pw]
    catch {$c flushall}
    catch {$c get other}
    catch {$c publish nope x}
    $c multi
    catch {$c get other2}
    $c discard
    catch {$c auth r wrong}
    $c close
    set log [r acl log]
    assert_equal [llength $log] 5
    set e [acl_dict [lindex $log 0]]
    assert_equal [lsort [dict keys $e]] \
      [lsort {count reason context object username age-seconds client-info}]
    assert_equal [dict get $e reason] auth
    assert_equal [dict get $e object] auth
    assert_equal [dict get $e username] r
    assert_equal [dict get $e context] toplevel
    set e [acl_dict [lindex $log 1]]
    assert_equal [list [dict get $e reason] [dict get $e context] [dict get $e object]] \
      {key multi other2}
    set e [acl_dict [lindex $log 2]]
    assert_equal [list [dict get $e reason] [dict get $e object]] {channel nope}
    set e [acl_dict [lindex $log 3]]
    assert_equal [list [dict get $e reason] [dict get $e object]] {key other}
    assert_match {*cmd=get user=r *} [dict get $e client-info]
    set e [acl_dict [lindex $log 4]]
    assert_equal [list [dict get $e count] [dict get $e reason] [dict get $e object] \
                    [dict get $e username] [dict get $e context]] \
      {1 command flushall r toplevel}
    assert {[dict get $e age-seconds] >= 0}
    assert_equal [llength [r acl log 2]] 2
  }

  test {ACL LOG names a failed AUTH by the command as typed} {
    r acl log reset
    catch {r AUTH nosuchuser wrong}
    catch {r hello 2 auth nosuchuser wrong}
    set log [r acl log]
    list [dict get [acl_dict [lindex $log 1]] object] [dict get [acl_dict [lindex $log 0]] object] \
      [dict get [acl_dict [lindex $log 0]] reason]
  } {AUTH hello auth}

  test {ACL LOG groups repeated denials and RESET clears it} {
    r acl log reset
    set c [acl_client r pw]
    catch {$c flushall}
    catch {$c flushall}
    catch {$c flushall}
    $c close
    set log [r acl log]
    assert_equal [llength $log] 1
    assert_equal [dict get [acl_dict [lindex $log 0]] count] 3
    assert_equal [r acl log reset] OK
    r acl log
  } {}

  test {acllog-max-len bounds the log} {
    r acl log reset
    r config set acllog-max-len 2
    set c [acl_client r pw]
    foreach k {o1 o2 o3 o4} { catch {$c get $k} }
    $c close
    set n [llength [r acl log]]
    r config set acllog-max-len 128
    set n
  } {2}

  test {ACL DELUSER closes the user's clients} {
    r acl setuser gone on >pw +@all ~*
    set c [acl_client gone pw]
    assert_equal [$c ping] PONG
    assert_error {ERR The 'default' user cannot be removed} {r acl deluser default}
    assert_equal [r acl deluser gone nosuch] 1
    assert_error {*} {$c ping}
    catch {$c close}
  }

  test {CLIENT KILL USER and the user= field of CLIENT LIST} {
    r acl setuser kk on >pw +@all ~*
    set c1 [acl_client kk pw]
    set c2 [acl_client kk pw]
    assert_match {*user=kk*} [$c1 client info]
    assert_equal [llength [regexp -all -inline {user=kk } [r client list]]] 2
    assert_error {ERR No such user 'nobody'} {r client kill user nobody}
    assert_equal [r client kill user kk] 2
    assert_error {*} {$c1 ping}
    catch {$c1 close}
    catch {$c2 close}
    r acl deluser kk
  } {1}

  test {ACL CAT, GENPASS, USERS, HELP} {
    set cats [r acl cat]
    assert_equal $cats {keyspace read write set sortedset list hash string bitmap hyperloglog geo stream pubsub admin fast slow blocking dangerous connection transaction scripting}
    assert {[lsearch [r acl cat string] get] >= 0}
    assert {[lsearch [r acl cat string] hset] < 0}
    assert {[lsearch [r acl cat dangerous] flushall] >= 0}
    assert_error {ERR Unknown category 'nosuch'} {r acl cat nosuch}
    assert_error {ERR unknown subcommand or wrong number of arguments for 'cat'. Try ACL HELP.} \
      {r acl cat string extra}
    assert_match {[0-9a-f]*} [r acl genpass]
    assert_equal [string length [r acl genpass]] 64
    assert_equal [string length [r acl genpass 5]] 2
    assert_equal [string length [r acl genpass 129]] 33
    assert_error {ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096} {r acl genpass 0}
    assert_error {ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096} {r acl genpass 4097}
    assert_equal [lsort [r acl users]] {default r}
    assert_match {ACL <subcommand>*} [lindex [r acl help] 0]
    assert_error {ERR unknown subcommand 'nosuch'. Try ACL HELP.} {r acl nosuch}
  }

  test {acl-pubsub-default decides the channels of new users and reset} {
    assert_equal [r config get acl-pubsub-default] {acl-pubsub-default resetchannels}
    r config set acl-pubsub-default allchannels
    r acl setuser pub1
    set line1 [lsearch -inline [r acl list] {user pub1 *}]
    r acl setuser pub1 resetchannels &x
    r acl setuser pub1 reset
    set line2 [lsearch -inline [r acl list] {user pub1 *}]
    r config set acl-pubsub-default resetchannels
    r acl setuser pub2
    set line3 [lsearch -inline [r acl list] {user pub2 *}]
    r acl deluser pub1 pub2
    list $line1 $line2 $line3
  } {{user pub1 off &* -@all} {user pub1 off sanitize-payload &* -@all} {user pub2 off resetchannels -@all}}

  test {SLOWLOG hides ACL SETUSER's user and rules} {
    r config set slowlog-log-slower-than 0
    r slowlog reset
    r acl setuser hidden on >topsecret +get
    set entry [lindex [r slowlog get 1] 0]
    r config set slowlog-log-slower-than 10000
    r acl deluser hidden
    lindex $entry 3
  } {acl setuser (redacted) (redacted) (redacted) (redacted)}

  test {ACL SAVE and LOAD without an aclfile are errors} {
    assert_error {ERR This Redis instance is not configured to use an ACL file*} {r acl save}
    assert_error {ERR This Redis instance is not configured to use an ACL file*} {r acl load}
  }
}

start_server {tags {acl external:skip} overrides {requirepass s3cret}} {
  test {requirepass is the default user's password} {
    set c [redis_client]
    $c auth s3cret
    set line [lindex [$c acl list] 0]
    assert_equal $line "user default on #[exec python3 -c {import hashlib;print(hashlib.sha256(b's3cret').hexdigest())}] ~* &* +@all"
    $c config set requirepass other
    set c2 [redis_client]
    assert_error {WRONGPASS*} {$c2 auth s3cret}
    assert_equal [$c2 auth default other] OK
    $c2 close
    # ACL SETUSER default nopass opens the server, CONFIG GET still shows
    # the configured string.
    $c acl setuser default nopass
    assert_equal [$c config get requirepass] {requirepass other}
    set c3 [redis_client]
    assert_equal [$c3 ping] PONG
    $c3 close
    $c close
  }
}

start_server {tags {acl external:skip} args {--user alice on #9513229d435978263d82902c59d4e0fb86c941a9bf09b605cd8a6643f40149a8 {~a*} +@read --user bob on nopass +@all {~*}}} {
  test {`user` lines of the configuration define users} {
    set c [acl_client alice pa]
    assert_equal [$c get a1] {}
    assert_error {NOPERM this user has no permissions to run the 'set' command} {$c set a1 x}
    assert_error {NOPERM*keys*} {$c get b1}
    $c close
    set c [acl_client bob anything]
    assert_equal [$c set b1 x] OK
    $c close
    lsort [r acl users]
  } {alice bob default}

  test {CONFIG REWRITE writes the users as user lines} {
    r acl setuser carl on nopass +get
    r acl deluser bob
    r config rewrite
    set text [read_file [file join [srv dir] redis.conf]]
    assert_match "*\nuser alice on #9513229d435978263d82902c59d4e0fb86c941a9bf09b605cd8a6643f40149a8 ~a* resetchannels -@all +@read\n*" $text
    assert_match "*\nuser carl on nopass resetchannels -@all +get\n*" $text
    assert_match "*\nuser default on nopass ~* &* +@all\n*" $text
    assert_no_match "*user bob*" $text
  }
}

set ::acl_dir [file join [tmp_root] "aclfile.[pid]"]
file mkdir $::acl_dir
set ::acl_file [file join $::acl_dir users.acl]
set fd [open $::acl_file w]
puts $fd "user default on nopass ~* &* +@all"
puts $fd "user carol on >cpw ~c* +@all -flushall"
close $fd

start_server [list tags {acl external:skip} overrides [list aclfile $::acl_file]] {
  test {Users come from the aclfile} {
    set c [acl_client carol cpw]
    assert_equal [$c set c1 x] OK
    assert_error {NOPERM*keys*} {$c set d1 x}
    $c close
    lsort [r acl users]
  } {carol default}

  test {ACL SAVE writes the users, ACL LOAD reads them back} {
    r acl setuser dave on >dpw +get {~d*}
    assert_equal [r acl save] OK
    set text [read_file $::acl_file]
    assert_match "*user dave on #* ~d* resetchannels -@all +get*" $text
    r acl deluser dave
    assert_equal [r acl load] OK
    assert_equal [lsort [r acl users]] {carol dave default}
    set c [acl_client dave dpw]
    assert_equal [$c get d1] {}
    $c close
  }

  test {ACL LOAD closes the clients of the users it replaces} {
    set c [acl_client carol cpw]
    set d [redis_client]
    assert_equal [r acl load] OK
    assert_error {*} {$c ping}
    catch {$c close}
    # A default-user client stays.
    assert_equal [$d ping] PONG
    $d close
  }

  test {ACL LOAD with a bad file keeps the current users} {
    set fd [open $::acl_file a]
    puts $fd "user eve bad-rule"
    puts $fd "nonsense line"
    close $fd
    catch {r acl load} err
    assert_match "*users.acl:4: Syntax error.*users.acl:5 should start with user keyword followed by the username.*WARNING: ACL errors detected, no change to the previously active ACL rules was performed" $err
    lsort [r acl users]
  } {carol dave default}

  test {ACL LOAD refuses a file that defines a user twice; the caller of a reload gets its reply} {
    r acl save
    set fd [open $::acl_file a]
    puts $fd "user carol on nopass +@all"
    close $fd
    catch {r acl load} err
    assert_match "*WARNING: Duplicate user 'carol' found on line 4.*no change*" $err
    r acl save
    # A client of a user the reload replaces gets the OK, then is closed.
    set c [acl_client carol cpw]
    $c acl setuser carol +acl
    assert_equal [$c acl load] OK
    assert_error {*} {$c ping}
    catch {$c close}
    lsort [r acl users]
  } {carol dave default}
}

test {An aclfile together with user lines is refused at start-up} {
  if {$::cfg(external)} { return }
  set out ""
  catch {exec timeout 5 $::cfg(server_bin) --port [find_free_port] --aclfile $::acl_file \
           --user bob on nopass +@all 2>@1} out
  assert_match "*Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid*" $out
}

test {A user defined twice in the configuration is refused at start-up} {
  if {$::cfg(external)} { return }
  set out {}
  foreach name {foo default} {
    catch {exec timeout 5 $::cfg(server_bin) --port [find_free_port] --user $name --user $name 2>@1} o
    lappend out [string match "*Error in user declaration '$name': Duplicate user found. A user can only be defined once in config files*" $o]
  }
  set out
} {1 1}

file delete -force $::acl_dir
