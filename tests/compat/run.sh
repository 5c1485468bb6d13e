#!/usr/bin/env bash
# Client compatibility suite: hiredis (C), redis-py and Debian's stock
# redis-cli / redis-benchmark against a server this script starts, and its
# COMMAND DOCS / INFO tips against Debian's redis-server 7.0; RDB files and
# DUMP payloads moved both ways with Debian's redis-server 7.0
# (rdb_compat_test.py starts its own servers).
# Usage: tests/compat/run.sh [SERVER_BIN]   (default src/redis-server)
# Every check counts; the last line is "N passed, M failed"; the exit status
# is non-zero when anything failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
server=${1:-$root/src/redis-server}
if [ ! -x "$server" ]; then
  echo "server binary not executable: $server"
  echo "0 passed, 1 failed"
  exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/compat.XXXXXX")
server_pid=
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid"
    for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=
for _ in $(seq 1 100); do
  p=$((21000 + RANDOM % 9000))
  if port_free "$p"; then port=$p; break; fi
done
sock=$tmp/redis.sock
cat >"$tmp/redis.conf" <<CONF
port $port
bind 127.0.0.1
unixsocket $sock
unixsocketperm 700
dir $tmp
logfile ""
save ""
appendonly no
CONF
"$server" "$tmp/redis.conf" >"$tmp/server.log" 2>&1 &
server_pid=$!
up=0
for _ in $(seq 1 100); do
  if /usr/bin/redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; then up=1; break; fi
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if [ "$up" -ne 1 ]; then
  echo "[err] server did not answer PING on port $port; output:"
  tail -n 30 "$tmp/server.log"
  echo "0 passed, 1 failed"
  exit 1
fi

passed=0
failed=0
run_part() {  # label command...
  echo "== $1"
  shift
  local out
  # A part that hangs is stopped; what it printed so far still counts.
  out=$(timeout 300 "$@" 2>&1)
  echo "$out"
  local ok err
  ok=$(grep -c '^\[ok\]' <<<"$out")
  err=$(grep -c '^\[err\]' <<<"$out")
  # A part that crashed without reporting anything is one failure.
  if [ "$ok" -eq 0 ] && [ "$err" -eq 0 ]; then err=1; fi
  passed=$((passed + ok))
  failed=$((failed + err))
}

hiredis_bin=$tmp/hiredis_test
if gcc -O1 -Wall -Werror -o "$hiredis_bin" "$here/hiredis_test.c" -lhiredis 2>"$tmp/gcc.log"; then
  run_part "hiredis" "$hiredis_bin" 127.0.0.1 "$port" "$sock"
else
  echo "== hiredis"
  cat "$tmp/gcc.log"
  echo "[err] hiredis_test.c does not compile (libhiredis-dev installed?)"
  failed=$((failed + 1))
fi
run_part "redis-py" /usr/bin/python3 "$here/redispy_test.py" 127.0.0.1 "$port" "$sock"
run_part "COMMAND DOCS / tips against Redis 7.0" /usr/bin/python3 "$here/command_docs_test.py" 127.0.0.1 "$port"
run_part "geo replies against Redis 7.0" /usr/bin/python3 "$here/geo_compat_test.py" 127.0.0.1 "$port"
run_part "RDB files and DUMP/RESTORE both ways with Redis 7.0" /usr/bin/python3 "$here/rdb_compat_test.py" "$server"
run_part "stock redis-cli / redis-benchmark" bash "$here/stock_tools.sh" 127.0.0.1 "$port" "$sock"

if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "[err] server died during the compatibility suite; log tail:"
  tail -n 30 "$tmp/server.log"
  failed=$((failed + 1))
fi
if grep -Eq 'AddressSanitizer|LeakSanitizer|runtime error:' "$tmp/server.log"; then
  echo "[err] sanitizer report in server output"
  failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
