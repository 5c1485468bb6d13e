#!/usr/bin/env bash
# Drives Debian's stock /usr/bin/redis-cli and /usr/bin/redis-benchmark
# against a running server and checks what they print and what they stored.
# Usage: stock_tools.sh HOST PORT UNIX_SOCKET
# Prints "[ok] name" / "[err] name: detail" per check; exit 1 on any failure.
set -u
host=$1 port=$2 sock=$3
cli=/usr/bin/redis-cli
bench=/usr/bin/redis-benchmark
failures=0

check() {  # name got want
  if [ "$2" == "$3" ]; then
    echo "[ok] $1"
  else
    echo "[err] $1: got '$2', want '$3'"
    failures=$((failures + 1))
  fi
}

check_match() {  # name text extended-regex
  # redis-benchmark redraws progress with CR; each CR starts a new line.
  if tr '\r' '\n' <<<"$2" | grep -Eq "$3"; then
    echo "[ok] $1"
  else
    echo "[err] $1: output did not match /$3/: $(head -c 300 <<<"$2")"
    failures=$((failures + 1))
  fi
}

for tool in "$cli" "$bench"; do
  if [ ! -x "$tool" ]; then
    echo "[err] $tool missing (install redis-tools)"
    exit 1
  fi
done

c=("$cli" -h "$host" -p "$port")
"${c[@]}" flushall >/dev/null

# One-shot commands in the default (non-tty) and --no-raw formats.
check "cli: set" "$("${c[@]}" set greeting hello)" "OK"
check "cli: get" "$("${c[@]}" get greeting)" "hello"
check "cli: get --no-raw" "$("${c[@]}" --no-raw get greeting)" '"hello"'
check "cli: nil --no-raw" "$("${c[@]}" --no-raw get nokey)" "(nil)"
check "cli: incr --no-raw" "$("${c[@]}" --no-raw incr counter)" "(integer) 1"
check "cli: mget --no-raw" "$("${c[@]}" --no-raw mget greeting nokey)" $'1) "hello"\n2) (nil)'
check "cli: error --no-raw" "$("${c[@]}" --no-raw get)" \
  "(error) ERR wrong number of arguments for 'get' command"
check "cli: --raw binary" "$("${c[@]}" --raw echo 'a b')" "a b"

# -x: last argument from stdin.
check "cli: -x set" "$(printf 'from\nstdin' | "${c[@]}" -x set xkey)" "OK"
check "cli: -x stored" "$("${c[@]}" get xkey)" $'from\nstdin'

# --scan walks the keyspace with SCAN.
for i in $(seq 1 50); do echo "SET scan:$i $i"; done | "${c[@]}" >/dev/null
check "cli: --scan count" "$("${c[@]}" --scan --pattern 'scan:*' | sort -u | wc -l)" "50"
check "cli: --scan all" "$("${c[@]}" --scan | wc -l)" "$("${c[@]}" dbsize)"

# Unix socket.
check "cli: -s ping" "$("$cli" -s "$sock" ping)" "PONG"
check "cli: -s get" "$("$cli" -s "$sock" get greeting)" "hello"

# redis-benchmark: quiet mode prints "<TEST>: <n> requests per second".
"${c[@]}" flushall >/dev/null
out=$("$bench" -h "$host" -p "$port" -t set,get,incr,ping -n 20000 -q 2>&1)
for t in SET GET INCR PING_INLINE PING_MBULK; do
  check_match "bench: $t throughput" "$out" "(^|[[:space:]])$t: [0-9.]+ requests per second"
done
check "bench: counter incremented 20000 times" "$("${c[@]}" get counter:__rand_int__)" "20000"
check "bench: key written" "$("${c[@]}" get key:__rand_int__ | wc -c)" "4"
check "bench: dbsize" "$("${c[@]}" dbsize)" "2"

out=$("$bench" -h "$host" -p "$port" -t set,get -n 20000 -P 16 -q 2>&1)
check_match "bench -P 16: SET throughput" "$out" "(^|[[:space:]])SET: [0-9.]+ requests per second"
check_match "bench -P 16: GET throughput" "$out" "(^|[[:space:]])GET: [0-9.]+ requests per second"

out=$("$bench" -s "$sock" -t ping -n 5000 -q 2>&1)
check_match "bench unix socket: PING throughput" "$out" "(^|[[:space:]])PING_MBULK: [0-9.]+ requests per second"

check "server alive after benchmarks" "$("${c[@]}" ping)" "PONG"
exit $((failures > 0))
