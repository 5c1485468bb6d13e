# ACL v2 (Redis 7.0): selectors, read/write key permissions across
# selectors, DRYRUN with selectors, and subscribers closed when their user
# loses the channel. Expectations from Redis 7.0.15; passes against
# /usr/bin/redis-server too.

proc v2_client {user pass} {
  set c [redis_client]
  $c auth $user $pass
  return $c
}

proc v2_dict {reply} {
  set d {}
  foreach {k v} $reply { dict set d $k $v }
  return $d
}

start_server {tags {acl}} {
  test {Selectors: read in one selector, write in another} {
    r acl setuser v2 on >pw +@all {%R~read*} {(%W~write* +set +del)}
    set c [v2_client v2 pw]
    assert_equal [$c get read1] {}
    assert_error {NOPERM*keys*} {$c set read1 x}
    assert_equal [$c set write1 x] OK
    assert_error {NOPERM*keys*} {$c get write1}
    assert_equal [$c del write1] 1
    # A command touching both kinds of key needs one selector allowing all.
    assert_error {NOPERM*keys*} {$c copy read1 write1}
    $c close
    r acl deluser v2
  } {1}

  test {Selectors do not add up across one command} {
    r acl setuser v2 on >pw -@all +mget {~a*} {(+mget ~b*)}
    set c [v2_client v2 pw]
    assert_equal [$c mget a1 a2] {{} {}}
    assert_equal [$c mget b1 b2] {{} {}}
    assert_error {NOPERM*keys*} {$c mget a1 b1}
    $c close
    r acl deluser v2
  } {1}

  test {Selector rules start from nothing and keep their own channels} {
    r acl setuser v2 on >pw resetchannels {(&sel* +publish)}
    set u [v2_dict [r acl getuser v2]]
    assert_equal [dict get $u channels] {}
    assert_equal [v2_dict [lindex [dict get $u selectors] 0]] \
      {commands {-@all +publish} keys {} channels &sel*}
    set c [v2_client v2 pw]
    assert_equal [$c publish sel1 m] 0
    assert_error {NOPERM*channels*} {$c publish other m}
    $c close
    r acl deluser v2
  } {1}

  test {ACL DRYRUN reports the selector that got furthest} {
    r acl setuser v2 on >pw +get {~a*} {(+set ~b*)}
    assert_equal [r acl dryrun v2 get a1] OK
    assert_equal [r acl dryrun v2 set b1 x] OK
    assert_equal [r acl dryrun v2 set a1 x] {This user has no permissions to access the 'a1' key}
    assert_equal [r acl dryrun v2 incr a1] {This user has no permissions to run the 'incr' command}
    # Denials of the same kind: the one that got furthest in the arguments.
    r acl setuser v3 on nopass +mget ~k {(+mget ~k ~o)}
    assert_equal [r acl dryrun v3 mget o so] {This user has no permissions to access the 'so' key}
    r acl deluser v3
    r acl setuser v2 clearselectors
    assert_equal [r acl dryrun v2 set b1 x] {This user has no permissions to run the 'set' command}
    r acl deluser v2
  } {1}

  test {reset clears selectors, passwords, keys and channels} {
    r acl setuser v2 on >pw allkeys allchannels +@all {(+get ~x)}
    r acl setuser v2 reset
    lsearch -inline [r acl list] {user v2 *}
  } {user v2 off sanitize-payload resetchannels -@all}

  test {A subscriber whose user loses the channel is disconnected} {
    r acl setuser ps on >pw +@all {~*} {&ch} {&p*}
    set s [v2_client ps pw]
    $s subscribe ch
    set other [v2_client ps pw]
    # A change that keeps the channel keeps the subscriber.
    r acl setuser ps {&more}
    assert_equal [$s ping] {pong {}}
    r acl setuser ps resetchannels {&p*}
    assert_error {*} {$s ping}
    catch {$s close}
    # The user's clients without subscriptions stay.
    assert_equal [$other ping] PONG
    $other close
    r acl deluser ps
  } {1}
}
