#!/usr/bin/env bash
# `make bench`, scripting part: EVALSHA of a small script (two redis.call:
# SET then GET of a random key) and FCALL of the same body as a function,
# this server against Debian's redis-server 7.0. Prints a Markdown section
# (bench.sh appends it to BENCHMARKS.md): ops/s from Debian's
# redis-benchmark (-c 50, interleaved rounds, medians; server pinned to CPU
# 0, load generator to CPU 1 when there are two) and server instructions per
# call (callgrind, the difference of 60k and 20k calls / 40k).
# Knobs: BENCH_ROUNDS (default 3), BENCH_N (calls per run, default 100000).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${BENCH_ROUNDS:-3}
N=${BENCH_N:-100000}
# shellcheck source=utils/bench-lib.sh
. utils/bench-lib.sh
bench_init bench-lua

SCRIPT="redis.call('set', KEYS[1], ARGV[1]) return redis.call('get', KEYS[1])"
LIB="#!lua name=benchlib
redis.register_function('setget', function(keys, args) redis.call('set', keys[1], args[1]) return redis.call('get', keys[1]) end)"

# Starts `bin` (optionally under a wrapper command) on a free port, loads
# the script and the library; sets PORT PID SHA.
start() {  # bin wrapper...
  local bin=$1
  shift
  start_server "$bin" "$work/server.log" "$@" "$bin"
  SHA=$($RCLI -p "$PORT" script load "$SCRIPT")
  $RCLI -p "$PORT" function load replace "$LIB" >/dev/null
}

# The command of a case, for redis-benchmark.
case_args() {  # case
  case $1 in
    evalsha) echo "evalsha $SHA 1 key:__rand_int__ value" ;;
    fcall) echo "fcall setget 1 key:__rand_int__ value" ;;
  esac
}

rps() {  # case n -> ops/s
  # shellcheck disable=SC2046
  taskset -c $GEN_CPU $RB -p "$PORT" -n "$2" -c 50 -r 100000 --csv $(case_args "$1") |
    tail -n 1 | tr -d '"' | awk -F, '{printf "%.0f", $2}'
}

declare -A res
for round in $(seq "$ROUNDS"); do
  for srv in $(round_order "$round"); do
    bin=$(server_bin "$srv")
    start "$bin" taskset -c $SRV_CPU
    for c in evalsha fcall; do
      res[$srv,$c,$round]=$(rps $c "$N")
      echo "bench-scripting: round $round $srv $c ${res[$srv,$c,$round]} ops/s" >&2
    done
    stop_server "$PORT" "$PID"
  done
done

instr_per_call() {  # binary case
  local counts=()
  for n in 20000 60000; do
    start "$1" valgrind --tool=callgrind --callgrind-out-file="$work/cg.out"
    # shellcheck disable=SC2046
    $RB -p "$PORT" -n "$n" -c 50 -r 100000 -q $(case_args "$2") >/dev/null 2>&1
    stop_server "$PORT" "$PID"
    counts+=("$(grep -E '^(summary|totals):' "$work/cg.out" | head -1 | awk '{print $2}')")
  done
  echo $(((counts[1] - counts[0]) / 40000))
}

declare -A instr
for c in evalsha fcall; do
  echo "bench-scripting: callgrind $c" >&2
  instr[ours,$c]=$(instr_per_call $OURS $c)
  instr[redis,$c]=$(instr_per_call $REDIS $c)
done

echo
echo "## Scripting"
echo
echo "EVALSHA of \`$SCRIPT\` (one random key of 100000) and FCALL of the same"
echo "body registered as a function; -c 50, $N calls per run, $ROUNDS interleaved rounds, medians."
echo "Instructions: the server's, per call (callgrind, 60k minus 20k calls)."
echo
echo "| case | ours ops/s | Redis ops/s | ratio | ours instr/call | Redis instr/call | ratio |"
echo "|---|---|---|---|---|---|---|"
for c in evalsha fcall; do
  o=$(for r in $(seq "$ROUNDS"); do echo "${res[ours,$c,$r]}"; done | median)
  d=$(for r in $(seq "$ROUNDS"); do echo "${res[redis,$c,$r]}"; done | median)
  awk -v c="$c" -v o="$o" -v d="$d" -v io="${instr[ours,$c]}" -v ir="${instr[redis,$c]}" \
    'BEGIN {printf "| %s | %.0f | %.0f | %.2f | %d | %d | %.2f |\n", c, o, d, o / d, io, ir, io / ir}'
done
