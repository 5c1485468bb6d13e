# The request protocol: inline and multibulk requests, pipelining, malformed
# input (error reply then the connection is closed), size limits and error
# texts for unknown commands and wrong arity.

# Sends payload on a fresh connection; returns the reply lines received
# (verbatim, without CRLF) followed by "<closed>" if the server closed it.
proc raw_exchange {payload {max_lines 10}} {
  set c [::redis::connect [srv host] [srv port] -timeout 2000]
  $c readraw 1
  set lines {}
  if {[catch {$c write $payload} err]} { lappend lines "<write failed>" }
  for {set i 0} {$i < $max_lines} {incr i} {
    if {[catch {$c read} line]} {
      if {[string match "*timeout*" $line]} break
      lappend lines "<closed>"
      break
    }
    lappend lines $line
  }
  $c close
  return $lines
}

# Like raw_exchange but for payloads that must end the connection: waits for
# the close (a reply timeout shorter than the default).
proc expect_protocol_error {payload} {
  set c [::redis::connect [srv host] [srv port] -timeout 3000]
  $c readraw 1
  catch {$c write $payload}
  set lines {}
  while {![catch {$c read} line]} { lappend lines $line }
  $c close
  if {[string match "*timeout*" $line]} { lappend lines "<still open>" } else { lappend lines "<closed>" }
  return $lines
}

start_server {tags {protocol}} {
  test {Inline commands} {
    raw_exchange "SET inl hello\r\nGET inl\r\nPING\r\n" 4
  } {+OK {$5} hello +PONG}

  test {Inline commands accept a bare LF and extra spaces} {
    raw_exchange "  ping  \nEcHo   a\n" 3
  } {+PONG {$1} a}

  test {Inline commands with quoted arguments and escapes} {
    set lines [raw_exchange "echo \"a\\x41\\tb\"\r\necho 'c d'\r\n" 4]
    assert_equal $lines [list {$4} "aA\tb" {$3} {c d}]
  }

  test {Empty lines and empty multibulks are ignored} {
    raw_exchange "\r\n\r\n   \r\n*0\r\n*-1\r\nPING\r\n" 2
  } {+PONG}

  test {Multibulk requests, including binary and empty arguments} {
    set c [redis_client]
    $c write "*3\r\n\$3\r\nSET\r\n\$4\r\nk\r\nx\r\n\$0\r\n\r\n"
    assert_equal [$c read] OK
    assert_equal [$c get "k\r\nx"] ""
    $c close
  }

  test {Multibulk request split across many writes} {
    set c [redis_client]
    foreach chunk [list "*3\r" "\n\$3\r\nS" "ET\r\n\$" "2\r\nsp\r\n\$5\r\nhel" "lo\r" "\n"] {
      $c write $chunk
      after 5
    }
    assert_equal [$c read] OK
    set v [$c get sp]
    $c close
    set v
  } {hello}

  test {Pipelining: 10000 commands in one write} {
    r del counter
    set payload ""
    for {set i 0} {$i < 10000} {incr i} { append payload [::redis::encode {INCR counter}] }
    set c [redis_client]
    $c write $payload
    for {set i 1} {$i <= 10000} {incr i} {
      set v [$c read]
      if {$v != $i} { fail "reply $i was $v" }
    }
    $c close
    r get counter
  } {10000}

  test {Pipelining mixes inline and multibulk requests} {
    raw_exchange "PING\r\n*2\r\n\$4\r\nECHO\r\n\$2\r\nhi\r\nPING x\r\n" 5
  } {+PONG {$2} hi {$1} x}

  test {Invalid multibulk length closes the connection} {
    assert_equal [expect_protocol_error "*3000000000\r\n"] \
      {{-ERR Protocol error: invalid multibulk length} <closed>}
    expect_protocol_error "*abc\r\n"
  } {{-ERR Protocol error: invalid multibulk length} <closed>}

  test {Invalid bulk length closes the connection} {
    assert_equal [expect_protocol_error "*1\r\n\$abc\r\n"] \
      {{-ERR Protocol error: invalid bulk length} <closed>}
    expect_protocol_error "*1\r\n\$-1\r\n"
  } {{-ERR Protocol error: invalid bulk length} <closed>}

  test {Missing '$' closes the connection} {
    expect_protocol_error "*1\r\nfoo\r\n"
  } {{-ERR Protocol error: expected '$', got 'f'} <closed>}

  test {Unbalanced quotes in an inline request} {
    assert_equal [expect_protocol_error "set \"foo\r\n"] \
      {{-ERR Protocol error: unbalanced quotes in request} <closed>}
    expect_protocol_error "set k \"a\"b\r\n"
  } {{-ERR Protocol error: unbalanced quotes in request} <closed>}

  test {Too big inline request} {
    expect_protocol_error [string repeat a 70000]
  } {{-ERR Protocol error: too big inline request} <closed>}

  test {Too big multibulk and bulk count strings} {
    assert_equal [expect_protocol_error "*[string repeat 1 70000]"] \
      {{-ERR Protocol error: too big mbulk count string} <closed>}
    expect_protocol_error "*1\r\n\$[string repeat 1 70000]"
  } {{-ERR Protocol error: too big bulk count string} <closed>}

  test {Replies before a protocol error are still delivered} {
    expect_protocol_error "PING\r\n*1\r\nfoo\r\n"
  } {+PONG {-ERR Protocol error: expected '$', got 'f'} <closed>}

  test {Unknown command error text} {
    assert_error {ERR unknown command 'nosuchcmd', with args beginning with: 'a' 'b' } \
      {r nosuchcmd a b}
    assert_error {ERR unknown command 'nosuchcmd', with args beginning with: } {r nosuchcmd}
  }

  test {Unknown command error text over the inline protocol} {
    raw_exchange "foo a b\r\n" 1
  } {{-ERR unknown command 'foo', with args beginning with: 'a' 'b' }}

  test {Wrong arity error text} {
    assert_error {ERR wrong number of arguments for 'get' command} {r get}
    assert_error {ERR wrong number of arguments for 'get' command} {r get a b}
    assert_error {ERR wrong number of arguments for 'ping' command} {r ping a b}
    # Command names are case-insensitive; the error shows them lowercased.
    assert_error {ERR wrong number of arguments for 'get' command} {r GeT}
  }

  test {The connection stays usable after command errors} {
    catch {r nosuchcmd}
    catch {r get}
    r ping
  } {PONG}

  test {A client disconnecting mid-request leaves the server fine} {
    for {set i 0} {$i < 20} {incr i} {
      set c [redis_client]
      $c write "*3\r\n\$3\r\nSET\r\n\$5\r\nhalf$i\r\n\$100\r\nabc"
      $c close
    }
    set c [redis_client]
    $c write "*2\r\n\$3\r\nGET"
    $c close
    assert_equal [r ping] PONG
    r exists half0 half19
  } {0}
}

start_server {tags {protocol external:skip}} {
  test {proto-max-bulk-len: a bulk over the limit is a protocol error} {
    r config set proto-max-bulk-len 1mb
    assert_equal [r config get proto-max-bulk-len] {proto-max-bulk-len 1048576}
    set lines [expect_protocol_error "*3\r\n\$3\r\nSET\r\n\$1\r\nk\r\n\$1048577\r\n"]
    assert_equal $lines {{-ERR Protocol error: invalid bulk length} <closed>}
    # Exactly at the limit is accepted.
    r set k [string repeat x 1048576]
    assert_equal [r strlen k] 1048576
    r config set proto-max-bulk-len 512mb
    r config get proto-max-bulk-len
  } {proto-max-bulk-len 536870912}

  test {proto-max-bulk-len limits SETRANGE and APPEND results} {
    r config set proto-max-bulk-len 1mb
    r set k x
    assert_error {ERR string exceeds maximum allowed size (proto-max-bulk-len)} \
      {r setrange k 1048576 y}
    r set k [string repeat x 1048570]
    assert_error {ERR string exceeds maximum allowed size (proto-max-bulk-len)} \
      {r append k 1234567}
    r config set proto-max-bulk-len 512mb
    r strlen k
  } {1048570}

  test {client-query-buffer-limit: a client over the limit is disconnected} {
    r config set client-query-buffer-limit 1mb
    set c [::redis::connect [srv host] [srv port] -timeout 3000]
    set closed 0
    if {[catch {
      $c write "*3\r\n\$3\r\nSET\r\n\$3\r\nqbk\r\n\$3000000\r\n"
      $c write [string repeat x 2000000]
      $c read
    } err]} {
      set closed [string match "I/O error*" $err]
    }
    $c close
    r config set client-query-buffer-limit 1gb
    list $closed [r exists qbk] [r ping]
  } {1 0 PONG}

  test {CONFIG SET of the limits below their minimum is refused} {
    assert_error {ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len')*} \
      {r config set proto-max-bulk-len 1000}
    assert_error {ERR CONFIG SET failed (possibly related to argument 'client-query-buffer-limit')*} \
      {r config set client-query-buffer-limit 100}
  }
}
