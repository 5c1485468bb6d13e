# Limits that protect the server from its clients and its environment: the
# output-buffer cap on clients that have not authenticated (CVE-2025-21605),
# and a server started under a low open-files limit.

# Pipelines $n PINGs on a fresh connection without reading, then reads what
# comes back. Returns {bytes_received closed?}.
proc limits_ping_flood {n {auth ""}} {
  set c [::redis::connect [srv host] [srv port] -timeout 700]
  if {$auth ne ""} { $c auth $auth }
  $c readraw 1
  catch {$c write [string repeat "PING\r\n" $n]}
  set got 0
  set closed 0
  while 1 {
    if {[catch {$c read} line]} {
      if {![string match "*timeout*" $line]} { set closed 1 }
      break
    }
    incr got [expr {[string length $line] + 2}]
  }
  $c close
  list $got $closed
}

start_server {tags {limits external:skip} overrides {requirepass flood}} {
  test {A client that has not authenticated is closed once 16 KiB of replies pile up} {
    # 2000 NOAUTH errors are 68,000 bytes; Redis closes the client without
    # sending them (the default normal class has no limit at all).
    lassign [limits_ping_flood 2000] got closed
    assert_equal $closed 1
    assert_lessthan $got 16385
    assert_match {*scheduled to be closed ASAP for overcoming of output buffer limits*} \
      [read_file [srv stdout]]
  }

  test {Replies that fit in 16 KiB are all sent to a client that has not authenticated} {
    # 400 NOAUTH errors are 13,600 bytes.
    limits_ping_flood 400
  } {13600 0}

  test {An authenticated client may pipeline without reading} {
    limits_ping_flood 5000 flood
  } {35000 0}

  test {The server stays usable after the flood} {
    set c [redis_client]
    $c auth flood
    set p [$c ping]
    $c close
    set p
  } {PONG}
}
