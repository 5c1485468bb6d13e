#!/usr/bin/env bash
# `make bench`, redis-cli part (utils/bench.sh runs it and appends its
# output to BENCHMARKS.md): --pipe of BENCH_PIPE_N SETs (default 1,000,000)
# from one file, our redis-cli against Debian's, each into an empty server of
# ours, in alternating order over BENCH_ROUNDS rounds. The server is pinned to
# CPU 0 and the cli to CPU 1 (when there are 2), as in bench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${BENCH_ROUNDS:-3}
N=${BENCH_PIPE_N:-1000000}
OURS_CLI=src/redis-cli
REDIS_CLI=/usr/bin/redis-cli
PY=/usr/bin/python3
work=$(mktemp -d /tmp/bench-cli.XXXXXX)
pid=''
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
if [ "$(nproc)" -ge 2 ]; then SRV_CPU=0 CLI_CPU=1; else SRV_CPU=0 CLI_CPU=0; fi

$PY - "$N" >"$work/input" <<'PYEOF'
import sys
out = sys.stdout.buffer
for i in range(int(sys.argv[1])):
    k = b"key:%d" % i
    v = b"value:%d" % i
    out.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(k), k, len(v), v))
PYEOF

one_run() {  # cli -> seconds
  local port
  port=$($PY -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
  taskset -c $SRV_CPU src/redis-server --port "$port" --bind 127.0.0.1 --save "" \
    --logfile "$work/server.log" &
  pid=$!
  for _ in $(seq 100); do $REDIS_CLI -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  local t0 t1 out
  t0=$(date +%s.%N)
  out=$(taskset -c $CLI_CPU "$1" -p "$port" --pipe <"$work/input")
  t1=$(date +%s.%N)
  grep -q "errors: 0, replies: $N" <<<"$out" || { echo "bench-cli: $1 --pipe failed: $out" >&2; exit 1; }
  [ "$($REDIS_CLI -p "$port" dbsize)" = "$N" ] || { echo "bench-cli: keys missing" >&2; exit 1; }
  $REDIS_CLI -p "$port" shutdown nosave >/dev/null 2>&1 || true
  wait "$pid" 2>/dev/null || true
  pid=''
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}'
}

ours=() redis=()
for r in $(seq "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then
    ours+=("$(one_run $OURS_CLI)") redis+=("$(one_run $REDIS_CLI)")
  else
    redis+=("$(one_run $REDIS_CLI)") ours+=("$(one_run $OURS_CLI)")
  fi
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mo=$(median "${ours[@]}")
mr=$(median "${redis[@]}")
echo
echo "redis-cli --pipe of $N SETs into our server, wall seconds (median of $ROUNDS rounds;"
echo "each round: ours ${ours[*]}; Debian's ${redis[*]} in run order):"
echo
echo "| cli | seconds | SETs/s | time vs Debian's |"
echo "|---|---|---|---|"
awk -v n="$N" -v o="$mo" -v r="$mr" 'BEGIN {
  printf "| ours | %s | %.0f | %.2f |\n", o, n / o, o / r
  printf "| Debian redis-cli 7.0.15 | %s | %.0f | 1.00 |\n", r, n / r
}'
