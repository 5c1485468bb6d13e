# The libraries scripts get: cjson, bit, struct and cmsgpack. struct and
# cmsgpack are checked byte for byte against their documented formats
# (the MessagePack specification; struct's format letters).

# Runs `body` (Lua returning a string) and gives the result as hex.
proc lua_hex {body} {
  r eval "local function hex(s) return (s:gsub('.', function(c) return string.format('%02x', string.byte(c)) end)) end
          return hex($body)" 0
}

start_server {tags {scripting}} {
  test {cjson encodes and decodes} {
    list [r eval {return cjson.encode({1, 2, {a = 'b'}})} 0] \
      [r eval {return cjson.decode('[1,"two",{"k":[true]}]')[3].k[1]} 0] \
      [r eval {return cjson.encode(cjson.decode('{"x":null}').x)} 0] \
      [r eval {return cjson._VERSION} 0]
  } {{[1,2,{"a":"b"}]} 1 null 2.1.0}

  test {cjson errors are script errors} {
    assert_error {*Expected value but found invalid token at character 1*} {r eval {return cjson.decode('x')} 0}
  }

  test {bit operations} {
    r eval {return {bit.band(0xff, 0x0f), bit.bor(1, 2), bit.bxor(3, 1), bit.lshift(1, 4),
                    bit.rshift(256, 4), bit.arshift(-256, 4), bit.tohex(255), bit.tobit(0xffffffff),
                    bit.bnot(0), bit.bswap(0x12345678), bit.rol(1, 1), bit.ror(1, 1)}} 0
  } {15 3 2 16 16 -16 000000ff -1 -1 2018915346 2 -2147483648}

  # Native order here is little endian; '!' aligns to at most 8 bytes.
  test {struct.pack: integer sizes and byte order} {
    list [lua_hex {struct.pack('>I2', 258)}] [lua_hex {struct.pack('<i4', -2)}] \
      [lua_hex {struct.pack('bBhH', -1, 255, -2, 65535)}] [lua_hex {struct.pack('>l', 1)}] \
      [lua_hex {struct.pack('>i3', 65536)}] [lua_hex {struct.pack('>i8', -1)}] \
      [lua_hex {struct.pack('>T', 7)}]
  } {0102 feffffff fffffeffffff 0000000000000001 010000 ffffffffffffffff 0000000000000007}

  test {struct.pack: alignment, padding, floats, strings} {
    list [lua_hex {struct.pack('!4 b i4', 1, 2)}] [lua_hex {struct.pack('!b d', 1, 2.5)}] \
      [lua_hex {struct.pack('x x B', 7)}] [lua_hex {struct.pack('>f >d', 1.5, -2.25)}] \
      [lua_hex {struct.pack('s c3 c0', 'ab', 'xyz', 'hi')}]
  } {0100000002000000 01000000000000000000000000000440 000007 3fc00000c002000000000000 61620078797a6869}

  test {struct.unpack returns the values and the next position} {
    list [r eval {return {struct.unpack('bBhHiI', struct.pack('bBhHiI', -1, 255, -2, 65535, -6, 7))}} 0] \
      [r eval {return {struct.unpack('s c3 B c0', 'ab\0xyz' .. string.char(5) .. 'hello')}} 0] \
      [r eval {return {struct.unpack('>i2', '\1\2\3\4', 3)}} 0] \
      [r eval {local a, b = struct.unpack('>d', struct.pack('>d', -2.25)) return tostring(a)} 0] \
      [r eval {return struct.size('!8 b d i3')} 0]
  } {{-1 255 -2 65535 -6 7 15} {ab xyz hello 13} {772 5} -2.25 21}

  test {struct errors} {
    assert_error {*invalid format option 'q'*} {r eval {return struct.pack('q', 1)} 0}
    assert_error {*integral size 33 is larger than limit of 32*} {r eval {return struct.pack('i33', 1)} 0}
    assert_error {*alignment 3 is not a power of 2*} {r eval {return struct.pack('!3 i', 1)} 0}
    assert_error {*data string too short*} {r eval {return struct.unpack('i4', 'ab')} 0}
    assert_error {*unfinished string in data*} {r eval {return struct.unpack('s', 'abc')} 0}
    assert_error {*format 'c0' needs a previous size*} {r eval {return struct.unpack('c0', 'abc')} 0}
    assert_error {*option 's' has no fixed size*} {r eval {return struct.size('s')} 0}
    assert_error {*string too short*} {r eval {return struct.pack('c5', 'abc')} 0}
  }

  # -32769 no longer fits int16, -2147483649 no longer int32.
  test {cmsgpack.pack: integers in their smallest MessagePack form} {
    lua_hex {cmsgpack.pack(1, -1, -32, -33, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296,
                           -128, -129, -32768, -32769, -2147483648, -2147483649)}
  } {01ffe0d0df7fcc80ccffcd0100cdffffce00010000ceffffffffcf0000000100000000d080d1ff7fd18000d2ffff7fffd280000000d3ffffffff7fffffff}

  test {cmsgpack.pack: floats, booleans, nil, strings} {
    list [lua_hex {cmsgpack.pack(1.5, 0.1, true, false, nil)}] \
      [lua_hex {cmsgpack.pack(string.rep('a', 3))}] \
      [string range [lua_hex {cmsgpack.pack(string.rep('b', 32))}] 0 5] \
      [string range [lua_hex {cmsgpack.pack(string.rep('c', 256))}] 0 7] \
      [string range [lua_hex {cmsgpack.pack(string.rep('d', 70000))}] 0 11]
  } {ca3fc00000cb3fb999999999999ac3c2c0 a3616161 d92062 da010063 db0001117064}

  # {1, 2, nil, 4} has keys 1, 2, 4: not 1..n, so it is a map.
  test {cmsgpack.pack: arrays and maps} {
    list [lua_hex {cmsgpack.pack({1, 2, 3})}] [lua_hex {cmsgpack.pack({})}] \
      [lua_hex {cmsgpack.pack({a = 1})}] [lua_hex {cmsgpack.pack({1, 2, nil, 4})}] \
      [r eval {local t = {} for i = 1, 20 do t[i] = i end return string.sub(cmsgpack.pack(t), 1, 3) == '\220\0\20'} 0] \
      [r eval {local t = {} for i = 1, 20 do t['k' .. i] = 1 end return string.sub(cmsgpack.pack(t), 1, 3) == '\222\0\20'} 0]
  } {93010203 90 81a16101 83010102020404 1 1}

  test {cmsgpack: tables nested deeper than 16 levels encode as nil} {
    lua_hex {(function() local t = {} local c = t for i = 1, 20 do c[1] = {} c = c[1] end return cmsgpack.pack(t) end)()}
  } {91919191919191919191919191919191c0}

  test {cmsgpack.unpack, unpack_one, unpack_limit} {
    list [r eval {return {cmsgpack.unpack(cmsgpack.pack(1, 'a', {1, 2, {3}}, -5, 70000, -70000, 5000000000))}} 0] \
      [r eval {return cjson.encode({cmsgpack.unpack(cmsgpack.pack({a = {b = 'c'}}))})} 0] \
      [r eval {return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3))}} 0] \
      [r eval {return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 2)}} 0] \
      [r eval {return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2)}} 0] \
      [r eval {return tostring(cmsgpack.unpack(cmsgpack.pack(0.1)))} 0]
  } {{1 a {1 2 3} -5 70000 -70000 5000000000} {[{"a":{"b":"c"}}]} {1 1} {-1 3} {2 1 2} 0.1}

  test {cmsgpack errors} {
    assert_error {*Missing bytes in input.*} {r eval {return cmsgpack.unpack('\205')} 0}
    assert_error {*Bad data format in input.*} {r eval {return cmsgpack.unpack('\193')} 0}
    assert_error {*Bad data format in input.*} {r eval {return cmsgpack.unpack('\196\2ab')} 0}
    assert_error {*Start offset 5 greater than input length 0.*} {r eval {return cmsgpack.unpack_one('', 5)} 0}
    assert_error {*MessagePack pack needs input.*} {r eval {return cmsgpack.pack()} 0}
    r eval {return cmsgpack._VERSION} 0
  } {lua-cmsgpack 0.4.0}

  test {cmsgpack: deeply nested input is refused, not a crash} {
    assert_error {ERR user_script:1: *} {r eval {return cmsgpack.unpack(string.rep('\145', 100000) .. '\1')} 0}
    r ping
  } {PONG}
}
