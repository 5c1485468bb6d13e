#!/usr/bin/env bash
# Streams (and geo, once the server has it), this server against Debian's
# redis-server 7.0 (run by utils/bench.sh, which appends the output to
# BENCHMARKS.md; runs alone too). Debian's redis-benchmark sends each
# command at -P 16 from 50 clients; BENCH_STREAM_ROUNDS interleaved rounds
# (default 3, medians; the ratio is the median of ours / Redis within a
# round). Cases:
#   XADD s * f v                      appends to one stream
#   XRANGE r - + COUNT 100            the first 100 of 10,000 entries
#   XREADGROUP ... COUNT 1 STREAMS q > one new entry each, into the PEL
#   XACK q g 0-<random>               then acknowledges them (random IDs of
#                                     the ones delivered; repeats ack nothing)
#   GEOADD / GEOSEARCH BYRADIUS 2 km  over 100,000 points in a 2x2 degree box
#                                     (about 30 per answer); skipped with a
#                                     note when the server has no GEOADD
# and used_memory after 1,000,000 XADDs of one field into an empty server.
# BENCH_STREAM_N: requests per case (default 400000; a 20th of it for
# XRANGE, a 5th for GEOSEARCH).
# Prints a Markdown section on stdout; progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${BENCH_STREAM_ROUNDS:-3}
N=${BENCH_STREAM_N:-400000}
# shellcheck source=utils/bench-lib.sh
. utils/bench-lib.sh
bench_init bench-streams

cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }

# Each case: a name, then the command's words, one per line, so that no
# word ("*", "-", "+", ">") is ever split again or matched against file
# names by the shell.
case_args() {  # name -> the command's words, one a line
  case $1 in
    xadd) printf '%s\n' XADD s '*' f v ;;
    xrange-100) printf '%s\n' XRANGE r - + COUNT 100 ;;
    xreadgroup) printf '%s\n' XREADGROUP GROUP g c COUNT 1 STREAMS q '>' ;;
    xack) printf '%s\n' XACK q g 0-__rand_int__ ;;
    geoadd) printf '%s\n' GEOADD gw 15.5 37.5 m:__rand_int__ ;;
    geosearch) printf '%s\n' GEOSEARCH geo FROMLONLAT 15 37 BYRADIUS 2 km ASC ;;
  esac
}
# Requests of a case: the slow ones (100 entries, 30 points a reply) fewer.
case_n() {  # name
  case $1 in
    xrange-100) echo $((N / 20)) ;;
    geosearch) echo $((N / 5)) ;;
    *) echo "$N" ;;
  esac
}
stream_cases=(xadd xrange-100 xreadgroup xack)
geo_cases=(geoadd geosearch)

# RESP commands that fill the data sets the cases read, on stdout.
gen_fill() {  # entries
  $PY - "$1" <<'PYEOF'
import random, sys
n = int(sys.argv[1])
out = sys.stdout.buffer
def cmd(*args):
    parts = [b'*%d\r\n' % len(args)]
    for a in args:
        parts.append(b'$%d\r\n%s\r\n' % (len(a), a))
    out.write(b''.join(parts))
for i in range(1, 10001):
    cmd(b'XADD', b'r', b'*', b'field', b'value:%d' % i)
# IDs 0-1 .. 0-n: XACK's 0-<random> names them.
for i in range(1, n + 1):
    cmd(b'XADD', b'q', b'0-%d' % i, b'f', b'v')
cmd(b'XGROUP', b'CREATE', b'q', b'g', b'0')
PYEOF
}
gen_geo() {
  $PY - <<'PYEOF'
import random, sys
random.seed(1)
out = sys.stdout.buffer
for i in range(0, 100000, 1000):
    args = [b'GEOADD', b'geo']
    for m in range(i, i + 1000):
        args += [b'%.6f' % random.uniform(14, 16), b'%.6f' % random.uniform(36, 38), b'p:%d' % m]
    out.write(b''.join([b'*%d\r\n' % len(args)] + [b'$%d\r\n%s\r\n' % (len(a), a) for a in args]))
PYEOF
}

# One case: "ops/s server-CPU-µs/op"
run_case() {  # port pid name
  local args t0 t1 n
  mapfile -t args < <(case_args "$3")
  n=$(case_n "$3")
  t0=$(cpu_ticks "$2")
  taskset -c "$GEN_CPU" "$RB" -p "$1" --csv -P 16 -c 50 -r "$N" -n "$n" "${args[@]}" \
    >"$work/rb.out" 2>/dev/null
  t1=$(cpu_ticks "$2")
  tail -n +2 "$work/rb.out" | head -1 | tr -d '"' |
    awk -F, -v ticks=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" -v n="$n" \
      '{printf "%.0f %.2f\n", $2, ticks / hz / n * 1e6}'
}

declare -A res
geo_note=""
for round in $(seq "$ROUNDS"); do
  for srv in $(round_order "$round"); do
    start_server "$srv" "$work/$srv.log" taskset -c "$SRV_CPU" "$(server_bin "$srv")"
    echo "bench-streams: round $round $srv: filling" >&2
    gen_fill "$N" | $RCLI -p "$PORT" --pipe >/dev/null
    cases=("${stream_cases[@]}")
    if $RCLI -p "$PORT" GEOADD probe 0 0 x 2>&1 | grep -qi "unknown command"; then
      geo_note="The geo cases were skipped: $srv answered GEOADD with \"unknown command\"."
    else
      gen_geo | $RCLI -p "$PORT" --pipe >/dev/null
      cases+=("${geo_cases[@]}")
    fi
    for c in "${cases[@]}"; do
      res[$srv,$c,$round]=$(run_case "$PORT" "$PID" "$c")
      echo "bench-streams: round $round $srv $c: ${res[$srv,$c,$round]}" >&2
    done
    stop_server "$PORT" "$PID"
  done
done

# used_memory added by 1,000,000 XADDs of one field (f v) to an empty server.
stream_memory() {  # binary -> bytes
  start_server mem "$work/mem.log" "$1"
  local before after
  before=$($RCLI -p "$PORT" info memory | tr -d '\r' | awk -F: '$1=="used_memory"{print $2}')
  $PY -c '
import sys
c = b"*5\r\n$4\r\nXADD\r\n$1\r\ns\r\n$1\r\n*\r\n$1\r\nf\r\n$1\r\nv\r\n"
sys.stdout.buffer.write(c * 1000000)' | $RCLI -p "$PORT" --pipe >/dev/null
  after=$($RCLI -p "$PORT" info memory | tr -d '\r' | awk -F: '$1=="used_memory"{print $2}')
  echo $((after - before))
  stop_server "$PORT" "$PID"
}
echo "bench-streams: memory" >&2
mem_ours=$(stream_memory "$OURS")
mem_redis=$(stream_memory "$REDIS")

field() {  # srv case column(1=ops/s 2=cpu)
  for round in $(seq "$ROUNDS"); do echo "${res[$1,$2,$round]:-}" | awk -v c="$3" 'NF {print $c}'; done |
    median | awk -v c="$3" '{printf (c == 1 ? "%.0f" : "%.2f"), $1}'
}
round_ratio() {  # case
  for round in $(seq "$ROUNDS"); do
    echo "${res[ours,$1,$round]:-} ${res[redis,$1,$round]:-}" | awk 'NF == 4 {printf "%.6f\n", $1 / $3}'
  done | median | awk '{printf "%.2f", $1}'
}

echo
echo "## Streams and geo"
echo
echo "utils/bench-streams.sh: Debian's redis-benchmark, -P 16 -c 50, $N requests per case"
echo "($((N / 20)) for xrange-100, $((N / 5)) for geosearch),"
echo "$ROUNDS interleaved round(s), medians; ratio: ours / Redis 7.0 ops/s within a round."
echo
echo "| case | command | ours ops/s | Redis ops/s | ratio | ours CPU µs/op | Redis CPU µs/op |"
echo "|---|---|---|---|---|---|---|"
for c in "${stream_cases[@]}" "${geo_cases[@]}"; do
  # A case is shown when both servers ran it (geo may be missing here).
  [ -n "${res[ours,$c,1]:-}" ] && [ -n "${res[redis,$c,1]:-}" ] || continue
  echo "| $c | \`$(case_args "$c" | paste -sd ' ')\` | $(field ours "$c" 1) | $(field redis "$c" 1) | $(round_ratio "$c") | $(field ours "$c" 2) | $(field redis "$c" 2) |"
done
[ -z "$geo_note" ] || { echo; echo "$geo_note"; }
echo
echo "Memory of one stream of 1,000,000 entries (XADD s * f v into an empty server, used_memory"
echo "added): ours $mem_ours bytes, Redis 7.0 $mem_redis bytes, ratio $(ratio "$mem_ours" "$mem_redis")."
