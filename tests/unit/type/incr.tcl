# INCR family and INCRBYFLOAT, including overflow, parse errors and the exact
# formatting of float results (Redis 7.0 replies).

start_server {tags {incr}} {
  test {INCR creates the key at 1} {
    r del n
    list [r incr n] [r incr n] [r get n]
  } {1 2 2}

  test {DECR, INCRBY and DECRBY} {
    r set n 10
    list [r decr n] [r incrby n 100] [r decrby n 50] [r incrby n -60] [r decrby n -1]
  } {9 109 59 -1 0}

  test {INCR keeps the int encoding} {
    r set n 5
    r incr n
    r object encoding n
  } {int}

  test {INCR on a value with spaces or a leading zero fails} {
    r set n " 11"
    assert_error {ERR value is not an integer or out of range} {r incr n}
    r set n "11 "
    assert_error {ERR value is not an integer or out of range} {r incr n}
    r set n "011"
    assert_error {ERR value is not an integer or out of range} {r incr n}
    r set n "abc"
    assert_error {ERR value is not an integer or out of range} {r incr n}
    r set n ""
    assert_error {ERR value is not an integer or out of range} {r incr n}
  }

  test {INCR near the 64-bit limits} {
    r set n 9223372036854775806
    assert_equal [r incr n] 9223372036854775807
    assert_error {ERR increment or decrement would overflow} {r incr n}
    r set n -9223372036854775808
    assert_error {ERR increment or decrement would overflow} {r decr n}
    assert_error {ERR value is not an integer or out of range} {r incrby n 9223372036854775808}
    r set n 1
    assert_error {ERR increment or decrement would overflow} {r incrby n 9223372036854775807}
    assert_equal [r get n] 1
  }

  test {DECRBY the minimum integer is refused} {
    r set n 0
    assert_error {ERR decrement would overflow} {r decrby n -9223372036854775808}
  }

  test {INCRBY with a non-integer increment} {
    r set n 1
    assert_error {ERR value is not an integer or out of range} {r incrby n 1.5}
    assert_error {ERR value is not an integer or out of range} {r incrby n x}
  }

  test {INCR preserves the TTL} {
    r set n 1 ex 100
    r incr n
    assert_range [r ttl n] 95 100
  }

  test {INCR family arity errors} {
    assert_error {ERR wrong number of arguments for 'incr' command} {r incr}
    assert_error {ERR wrong number of arguments for 'incrby' command} {r incrby n}
    assert_error {ERR wrong number of arguments for 'decr' command} {r decr a b}
  }

  test {INCRBYFLOAT basic} {
    r set f 10.50
    list [r incrbyfloat f 0.1] [r incrbyfloat f -5] [r incrbyfloat f 1.25] [r get f]
  } {10.6 5.6 6.85 6.85}

  test {INCRBYFLOAT computes in long double and prints 17 significant digits} {
    r set f 10.5
    assert_equal [r incrbyfloat f 5.0e3] 5010.5
    # 5.6 is not exact in binary; Redis 7.0 shows the long double residue.
    r set f 5.6
    r incrbyfloat f 5000
  } {5005.60000000000000009}

  test {INCRBYFLOAT on a missing key and on integers} {
    r del f
    list [r incrbyfloat f 3] [r incrbyfloat f 2.5] [r incrbyfloat f -5.5]
  } {3 5.5 0}

  test {INCRBYFLOAT formatting: no exponent, trailing zeros removed} {
    r set f 0
    assert_equal [r incrbyfloat f 1e10] 10000000000
    r set f 0
    assert_equal [r incrbyfloat f 1.5e-5] 0.000015
    r set f 3.0e3
    assert_equal [r incrbyfloat f 1.0] 3001
    r set f 1
    assert_equal [r incrbyfloat f 0.2] 1.2
    r set f 5.0e2
    r incrbyfloat f 0
  } {500}

  test {INCRBYFLOAT errors} {
    r set f 1
    assert_error {ERR value is not a valid float} {r incrbyfloat f abc}
    assert_error {ERR value is not a valid float} {r incrbyfloat f ""}
    r set f abc
    assert_error {ERR value is not a valid float} {r incrbyfloat f 1}
    r set f " 1"
    assert_error {ERR value is not a valid float} {r incrbyfloat f 1}
    r set f 1
    assert_error {ERR increment would produce NaN or Infinity} {r incrbyfloat f inf}
    assert_error {ERR increment would produce NaN or Infinity} {r incrbyfloat f -inf}
    assert_error {ERR value is not a valid float} {r incrbyfloat f nan}
    assert_equal [r get f] 1
    r set f 1e4932
    assert_error {ERR increment would produce NaN or Infinity} {r incrbyfloat f 1e4932}
    r get f
  } {1e4932}

  test {INCRBYFLOAT is a string encoding, INCR on it fails} {
    r set f 1
    r incrbyfloat f 0.5
    assert_error {ERR value is not an integer or out of range} {r incr f}
    r object encoding f
  } {embstr}

  test {INCR on a float-looking string fails} {
    r set n 1.5
    assert_error {ERR value is not an integer or out of range} {r incr n}
  }
}
