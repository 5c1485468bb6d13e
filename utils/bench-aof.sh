#!/usr/bin/env bash
# SET throughput with the append-only file on (appendonly yes, appendfsync
# everysec), this server against Debian's redis-server 7.0 (run by
# utils/bench.sh, which appends the output to BENCHMARKS.md; runs alone too).
# Same flags for both: Debian's redis-benchmark, 50 clients, random keys out
# of 100000, 64-byte values, BENCH_AOF_N requests (default 300000) per run;
# BENCH_AOF_ROUNDS rounds (default 3) in alternating order, medians reported.
# Server pinned to CPU 0, load generator to CPU 1 (when there are 2).
# Prints a Markdown section on stdout; progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${BENCH_AOF_N:-300000}
ROUNDS=${BENCH_AOF_ROUNDS:-3}
OURS=src/redis-server
REDIS=/usr/bin/redis-server
RB=/usr/bin/redis-benchmark
RCLI=/usr/bin/redis-cli
PY=/usr/bin/python3
work=$(mktemp -d /tmp/bench-aof.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
if [ "$(nproc)" -ge 2 ]; then SRV_CPU=0 GEN_CPU=1; else SRV_CPU=0 GEN_CPU=0; fi
free_port() { $PY -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

run_side() {  # name binary
  local name=$1 bin=$2 dir port pid
  dir=$work/$name.$RANDOM
  mkdir -p "$dir"
  port=$(free_port)
  taskset -c $SRV_CPU "$bin" --port "$port" --bind 127.0.0.1 --save "" --appendonly yes \
    --appendfsync everysec --dir "$dir" --logfile "$dir/log" &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 100); do $RCLI -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  taskset -c $GEN_CPU $RB -p "$port" -c 50 -n "$N" -r 100000 -d 64 -t set --csv 2>/dev/null |
    tail -n +2 | tr -d '"' | awk -F, '{print int($2)}' >>"$work/$name.rps"
  # The AOF really holds the writes: its size grew past the requests' bytes.
  local size
  size=$($RCLI -p "$port" info persistence | tr -d '\r' | awk -F: '$1=="aof_current_size"{print $2}')
  echo "$size" >>"$work/$name.size"
  $RCLI -p "$port" shutdown nosave >/dev/null 2>&1 || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$dir"
}

for r in $(seq "$ROUNDS"); do
  echo "bench-aof: round $r/$ROUNDS" >&2
  if [ $((r % 2)) -eq 1 ]; then
    run_side ours "$OURS"; run_side redis "$REDIS"
  else
    run_side redis "$REDIS"; run_side ours "$OURS"
  fi
done
ours=$(median <"$work/ours.rps")
redis=$(median <"$work/redis.rps")
ours_size=$(median <"$work/ours.size")
redis_size=$(median <"$work/redis.size")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf (b > 0 ? "%.2f" : "-"), a / b}'; }
echo
echo "SET with the AOF on (appendonly yes, appendfsync everysec): redis-benchmark -c 50 -n $N"
echo "-r 100000 -d 64 -t set, medians of $ROUNDS rounds."
echo
echo "| measure | ours | Redis 7.0 | ratio |"
echo "|---|---|---|---|"
echo "| SET requests/s | $ours | $redis | $(ratio "$ours" "$redis") |"
echo "| AOF size after the run (aof_current_size, bytes) | $ours_size | $redis_size | $(ratio "$ours_size" "$redis_size") |"
