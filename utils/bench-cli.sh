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
# shellcheck source=utils/bench-lib.sh
. utils/bench-lib.sh
bench_init bench-cli

$PY - "$N" >"$work/input" <<'PYEOF'
import sys
out = sys.stdout.buffer
for i in range(int(sys.argv[1])):
    k = b"key:%d" % i
    v = b"value:%d" % i
    out.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(k), k, len(v), v))
PYEOF

one_run() {  # cli -> seconds
  start_server ours "$work/server.log" taskset -c $SRV_CPU src/redis-server
  local t0 t1 out
  t0=$(date +%s.%N)
  out=$(taskset -c $GEN_CPU "$1" -p "$PORT" --pipe <"$work/input")
  t1=$(date +%s.%N)
  grep -q "errors: 0, replies: $N" <<<"$out" || { echo "bench-cli: $1 --pipe failed: $out" >&2; exit 1; }
  [ "$($REDIS_CLI -p "$PORT" dbsize)" = "$N" ] || { echo "bench-cli: keys missing" >&2; exit 1; }
  stop_server "$PORT" "$PID"
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
mo=$(printf '%s\n' "${ours[@]}" | median)
mr=$(printf '%s\n' "${redis[@]}" | median)
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
