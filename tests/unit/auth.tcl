# Authentication with requirepass: NOAUTH before AUTH, WRONGPASS texts, the
# AUTH user pass form for the default user, HELLO AUTH, RESET.

start_server {tags {auth}} {
  test {AUTH without a configured password is an error} {
    assert_error {ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?} {r auth foo}
  }

  test {AUTH default with any password succeeds when the user has nopass} {
    r auth default anything
  } {OK}

  test {AUTH with too many arguments} {
    assert_error {ERR syntax error} {r auth a b c}
  }
}

start_server {tags {auth external:skip} overrides {requirepass foobar}} {
  test {Commands before AUTH get NOAUTH} {
    set c [redis_client]
    assert_error {NOAUTH Authentication required.} {$c ping}
    assert_error {NOAUTH Authentication required.} {$c get a}
    $c close
  }

  test {HELLO without AUTH is refused} {
    set c [redis_client]
    assert_error {NOAUTH HELLO must be called with the client already authenticated*} {$c hello 3}
    $c close
  }

  test {AUTH with a wrong password or user} {
    set c [redis_client]
    assert_error {WRONGPASS invalid username-password pair or user is disabled.} {$c auth wrong}
    assert_error {WRONGPASS invalid username-password pair or user is disabled.} \
      {$c auth default wrong}
    assert_error {WRONGPASS invalid username-password pair or user is disabled.} \
      {$c auth nouser foobar}
    assert_error {NOAUTH Authentication required.} {$c ping}
    $c close
  }

  test {AUTH password and AUTH default password} {
    set c [redis_client]
    assert_equal [$c auth foobar] OK
    assert_equal [$c ping] PONG
    $c close
    set c [redis_client]
    assert_equal [$c auth default foobar] OK
    $c set k v
    set v [$c get k]
    $c close
    set v
  } {v}

  test {A failed AUTH keeps an authenticated connection authenticated} {
    set c [redis_client]
    $c auth foobar
    catch {$c auth wrong}
    set p [$c ping]
    $c close
    set p
  } {PONG}

  test {HELLO AUTH authenticates and switches protocol} {
    set c [redis_client]
    assert_error {WRONGPASS*} {$c hello 3 auth default wrong}
    set reply [$c hello 3 auth default foobar setname me]
    assert_equal [dict get $reply proto] 3
    assert_equal [$c client getname] me
    $c close
  }

  test {RESET drops authentication} {
    set c [redis_client]
    $c auth foobar
    assert_equal [$c reset] RESET
    assert_error {NOAUTH Authentication required.} {$c ping}
    $c close
  }

  test {The shared test client cannot run commands either} {
    assert_error {NOAUTH*} {r dbsize}
    r auth foobar
    r dbsize
  } {1}

  test {CONFIG SET requirepass changes the password at runtime} {
    r config set requirepass newpass
    set c [redis_client]
    assert_error {WRONGPASS*} {$c auth foobar}
    assert_equal [$c auth newpass] OK
    $c close
    r config set requirepass ""
    set c [redis_client]
    set p [$c ping]
    $c close
    set p
  } {PONG}
}
