# DUMP payloads with valid checksums but malformed contents: RESTORE must
# answer "Bad data format" and the server must stay up, whatever the bytes.
# Payloads are built here (type byte, body, version 10, CRC-64 computed in
# Tcl), so the checksum never hides a bug in the decoder.

# CRC-64/Jones (reflected, as Redis), bit by bit: slow but only for short
# payloads.
proc crc64 {data} {
  set poly 0x95ac9329ac4bc9b5
  set crc 0
  foreach byte [split $data ""] {
    set crc [expr {$crc ^ [scan $byte %c]}]
    for {set i 0} {$i < 8} {incr i} {
      if {$crc & 1} {
        set crc [expr {(($crc >> 1) ^ $poly) & 0xffffffffffffffff}]
      } else {
        set crc [expr {$crc >> 1}]
      }
    }
  }
  return $crc
}

proc make_payload {body} {
  set p "$body\x0a\x00"
  set crc [crc64 $p]
  for {set i 0} {$i < 8} {incr i} {
    append p [format %c [expr {($crc >> (8 * $i)) & 0xff}]]
  }
  return $p
}

start_server {tags {dump}} {
  test {A payload built here with our CRC-64 is accepted (the helper is right)} {
    # type 0 (string), length 5, "hello"
    r del k
    r restore k 0 [make_payload "\x00\x05hello"]
    r get k
  } {hello}

  test {Malformed payloads with valid checksums: Bad data format, server intact} {
    # Deep checks, so that Redis 7.0 refuses every case too (this server
    # always validates fully).
    r config set sanitize-dump-payload yes
    set cases [list \
      "\x00\x3fhello" \
      "\x00" \
      "\x63\x05hello" \
      "\x00\xc3\x05\x10abc" \
      "\x02\x03\x01a\x01a\x01b" \
      "\x0b\x08\x02\x00\x00\x00\x02\x00\x00\x00\x05\x00\x03\x00" \
      "\x0b\x07\x03\x00\x00\x00\x01\x00\x00" \
      "\x10\x0a\x0a\x00\x00\x00\x01\x00\x81a\x02\xff" \
      "\x10\x07\x07\x00\x00\x00\x01\x00\xff" \
      "\x11\x0e\x0e\x00\x00\x00\x02\x00\x81a\x02\xc5\x02\xff" \
      "\x12\x01\x02\x0b\x0b\x00\x00\x00\x01\x00\x81a\x09\xff" \
      "\x12\x01\x07\x01a" \
      "\x05\x01\x01a\x00\x00\x00\x00\x00\x00\xf8\x7f" \
      "\x04\x02\x01a\x01b\x01a\x01c" \
      "\x0f\x00" \
    ]
    set n 0
    foreach body $cases {
      r del k
      catch {r restore k 0 [make_payload $body]} e
      assert_match {*Bad data format*} $e
      incr n
    }
    assert_equal [r ping] PONG
    set n
  } {15}
}
