#!/usr/bin/env bash
# `make bench`: this server against Debian's redis-server 7.0 on loopback,
# side by side, with one neutral load generator (Debian's redis-benchmark).
# Interleaved A/B rounds, in alternating order; server pinned to CPU 0, load
# generator to CPU 1 (when there are at least 2). Writes the table to BENCHMARKS.md.
# Each round runs three servers: ours as shipped, ours with busy polling
# (`busy-poll-us`, off by default) and Redis.
# Knobs: BENCH_ROUNDS (default 3), BENCH_N (requests per run, default 200000),
#        BENCH_KEYS (keys, or zset members, per memory data set; default 1000000),
#        BENCH_BUSY_POLL_US (busy-poll-us of the third server; default 100).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${BENCH_ROUNDS:-3}
N=${BENCH_N:-200000}
KEYS=${BENCH_KEYS:-1000000}
BP_US=${BENCH_BUSY_POLL_US:-100}
OURS=src/redis-server
REDIS=/usr/bin/redis-server
RB=/usr/bin/redis-benchmark
RCLI=/usr/bin/redis-cli
PY=/usr/bin/python3
work=$(mktemp -d /tmp/bench.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

if [ "$(nproc)" -ge 2 ]; then SRV_CPU=0 GEN_CPU=1; else SRV_CPU=0 GEN_CPU=0; fi
free_port() { $PY -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }

start() {  # name binary [extra server args] -> sets PORT PID
  local name=$1 bin=$2
  shift 2
  PORT=$(free_port)
  taskset -c $SRV_CPU "$bin" "$@" --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no \
    --maxclients 2000 --logfile "$work/$name.log" &
  PID=$!
  pids+=("$PID")
  for _ in $(seq 100); do $RCLI -p "$PORT" ping >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "bench: $name did not start" >&2; exit 1
}
stop() { $RCLI -p "$1" shutdown nosave >/dev/null 2>&1 || true; wait "$2" 2>/dev/null || true; }
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
# Times the process blocked (voluntary context switches): each is a sleep in
# epoll_wait that a client's request must then pay to wake.
sleeps() { awk '/^voluntary_ctxt_switches/{print $2}' "/proc/$1/status"; }

# One benchmark run; prints "rps p50 p99 cpu sleeps genbusy srvbusy gencpu"
# (cpu, gencpu: server and load generator CPU microseconds per request;
# sleeps: server sleeps per request; genbusy, srvbusy: CPU seconds over wall
# seconds of the load generator and of the server over the generator's
# whole run, 1.00 being a saturated core). tests/support/count_sleeps.py
# reports the generator's CPU and wall time.
run_case() {  # port pid args...
  local port=$1 pid=$2
  shift 2
  local t0 t1 v0 v1 out ops gen
  ops=$(sed -E 's/.*-n ([0-9]+).*/\1/' <<<"$*")
  t0=$(cpu_ticks "$pid")
  v0=$(sleeps "$pid")
  $PY tests/support/count_sleeps.py taskset -c $GEN_CPU $RB -p "$port" --csv "$@" \
    >"$work/rb.out" 2>/dev/null
  t1=$(cpu_ticks "$pid")
  v1=$(sleeps "$pid")
  out=$(tail -n +2 "$work/rb.out" | grep -v '^sleeps:')
  # "sleeps: N cpu_s: C wall_s: W"
  gen=$(awk '/^sleeps:/ {print $2, $4, $6}' "$work/rb.out")
  # "test","rps","avg","min","p50","p95","p99","max" per test; average tests.
  echo "$out" | tr -d '"' | awk -F, -v ticks=$((t1 - t0)) -v vcs=$((v1 - v0)) -v hz="$(getconf CLK_TCK)" \
    -v ops="$ops" -v gen="$gen" '
    {rps+=$2; p50+=$5; p99+=$7; n++}
    END {
      split(gen, t, " ")
      printf "%.0f %.3f %.3f %.2f %.3f %.2f %.2f %.2f\n", rps/n, p50/n, p99/n, ticks/hz/ops*1e6,
        vcs/ops, t[2] / t[3], ticks / hz / t[3], t[2] / ops * 1e6
    }'
}

declare -A res
cases=(
  "get-P1-d3|-t get -P 1 -c 50 -r 100000 -d 3 -n $N"
  "set-P1-d3|-t set -P 1 -c 50 -r 100000 -d 3 -n $N"
  "get-P1-d512|-t get -P 1 -c 50 -r 100000 -d 512 -n $N"
  "set-P1-d512|-t set -P 1 -c 50 -r 100000 -d 512 -n $N"
  "get-P16-d3|-t get -P 16 -c 50 -r 100000 -d 3 -n $((N * 4))"
  "set-P16-d3|-t set -P 16 -c 50 -r 100000 -d 3 -n $((N * 4))"
  "get-P16-d512|-t get -P 16 -c 50 -r 100000 -d 512 -n $((N * 4))"
  "set-P16-d512|-t set -P 16 -c 50 -r 100000 -d 512 -n $((N * 4))"
  "get-c1|-t get -P 1 -c 1 -r 100000 -d 3 -n $((N / 4))"
  "get-c50|-t get -P 1 -c 50 -r 100000 -d 3 -n $N"
  "get-c1000|-t get -P 1 -c 1000 -r 100000 -d 3 -n $N"
)
echo "bench: $ROUNDS interleaved rounds, server on CPU $SRV_CPU, load on CPU $GEN_CPU"
for round in $(seq "$ROUNDS"); do
  # Odd rounds start with ours, even rounds with Redis: a machine whose
  # speed drifts within a round favours neither.
  order=(ours ours-bp redis)
  [ $((round % 2)) -eq 0 ] && order=(redis ours-bp ours)
  for srv in "${order[@]}"; do
    case $srv in
      ours) start $srv $OURS ;;
      ours-bp) start $srv $OURS --busy-poll-us "$BP_US" ;;
      redis) start $srv $REDIS ;;
    esac
    $RB -p "$PORT" -t set -r 100000 -n 200000 -d 3 -q >/dev/null 2>&1  # warm the keyspace
    for c in "${cases[@]}"; do
      name=${c%%|*}
      # shellcheck disable=SC2086
      r=$(run_case "$PORT" "$PID" ${c#*|})
      res[$srv,$name,$round]=$r
      echo "round $round $srv $name: $r"
    done
    stop "$PORT" "$PID"
  done
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
field() {  # srv case column(1=rps 2=p50 3=p99 4=cpu 5=sleeps 6=genbusy 7=srvbusy 8=gencpu)
  local fmt=%.2f
  case $3 in 1) fmt=%.0f ;; 2 | 3 | 5) fmt=%.3f ;; esac
  for round in $(seq "$ROUNDS"); do echo "${res[$1,$2,$round]}" | awk -v c="$3" '{print $c}'; done |
    median | awk -v f="$fmt" '{printf f, $1}'
}
# Median over rounds of srv's ops/s over Redis's in the same round: the two
# runs of a round are minutes apart at most, so a slow drift in the machine's
# load cancels, where a ratio of medians mixes rounds.
round_ratio() {  # srv case
  for round in $(seq "$ROUNDS"); do
    # Two results side by side: the second one's ops/s is the field after
    # the first one's last.
    echo "${res[$1,$2,$round]} ${res[redis,$2,$round]}" | awk '{printf "%.6f\n", $1 / $(NF / 2 + 1)}'
  done | median | awk '{printf "%.2f", $1}'
}

# Instructions per request: callgrind over two request counts; the
# difference divided by the extra requests cancels start-up and shutdown.
instr_per_op() {  # binary test
  local bin=$1 t=$2 counts=()
  for n in 20000 60000; do
    local port
    port=$(free_port)
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$bin" --port "$port" \
      --bind 127.0.0.1 --save "" --appendonly no --logfile "$work/cg.log" >/dev/null 2>&1 &
    local vp=$!
    for _ in $(seq 300); do $RCLI -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
    $RB -p "$port" -t "$t" -n "$n" -c 50 -r 100000 -d 3 -q >/dev/null 2>&1
    $RCLI -p "$port" shutdown nosave >/dev/null 2>&1 || true
    wait "$vp" 2>/dev/null || true
    counts+=("$(grep -E '^(summary|totals):' "$work/cg.out" | head -1 | awk '{print $2}')")
  done
  echo $(( (counts[1] - counts[0]) / 40000 ))
}

# RESP commands that load one memory data set, on stdout.
gen_dataset() {  # strings|hashes|sets-int|sets-str|zset
  $PY - "$1" "$KEYS" <<'PYEOF'
import sys
kind, n = sys.argv[1], int(sys.argv[2])
out = sys.stdout.buffer
def cmd(*args):
    parts = [b'*%d\r\n' % len(args)]
    for a in args:
        parts.append(b'$%d\r\n%s\r\n' % (len(a), a))
    out.write(b''.join(parts))
if kind == 'strings':
    for i in range(n):
        cmd(b'SET', b'key:%012d' % i, b'value12345')
elif kind == 'hashes':
    for i in range(n):
        args = [b'HSET', b'hash:%09d' % i]
        for f in range(10):
            args += [b'field%d' % f, b'val%d' % (i % 1000 + f)]
        cmd(*args)
elif kind == 'sets-int':
    for i in range(n):
        cmd(b'SADD', b'set:%09d' % i, *[b'%d' % (i % 1000 + m) for m in range(10)])
elif kind == 'sets-str':
    for i in range(n):
        cmd(b'SADD', b'set:%09d' % i, *[b'tag:%d' % (i % 1000 + m) for m in range(10)])
elif kind == 'zset':
    for i in range(0, n, 1000):
        args = [b'ZADD', b'zset']
        for m in range(i, min(n, i + 1000)):
            args += [b'%d' % (m * 7 % 100003), b'member:%09d' % m]
        cmd(*args)
PYEOF
}

mem_after_load() {  # binary dataset -> "used_memory rss keys"
  start mem "$1"
  gen_dataset "$2" | $RCLI -p "$PORT" --pipe >/dev/null
  local used rss
  used=$($RCLI -p "$PORT" info memory | tr -d '\r' | awk -F: '$1=="used_memory"{print $2}')
  rss=$(awk '/VmRSS/{print $2*1024}' "/proc/$PID/status")
  echo "$used $rss $($RCLI -p "$PORT" dbsize)"
  stop "$PORT" "$PID"
}

echo "bench: callgrind instruction counts"
ig_ours=$(instr_per_op $OURS get); ig_redis=$(instr_per_op $REDIS get)
is_ours=$(instr_per_op $OURS set); is_redis=$(instr_per_op $REDIS set)
datasets=(strings hashes sets-int sets-str zset)
declare -A mem_desc=(
  [strings]="$KEYS strings (16-byte keys, 10-byte values)"
  [hashes]="$KEYS small hashes (10 fields of 6 bytes, values 4-6 bytes)"
  [sets-int]="$KEYS small sets (10 integer members)"
  [sets-str]="$KEYS small sets (10 string members of 5-7 bytes)"
  [zset]="one sorted set of $KEYS members (16-byte members, integer scores)"
)
declare -A mem
for d in "${datasets[@]}"; do
  echo "bench: memory, $d"
  mem[ours.$d]=$(mem_after_load $OURS "$d")
  mem[redis.$d]=$(mem_after_load $REDIS "$d")
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf (b > 0 ? "%.2f" : "-"), a / b}'; }
{
  echo "# Benchmarks"
  echo
  echo "Produced by \`make bench\` (utils/bench.sh) on $(date -u '+%Y-%m-%d %H:%M UTC'),"
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) CPUs"
  echo "($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(uname -r)."
  echo "Load generator: Debian's redis-benchmark on CPU $GEN_CPU; servers on CPU $SRV_CPU,"
  echo "persistence off, one at a time, $ROUNDS interleaved rounds; medians. Ratio: the median over"
  echo "rounds of ours / Redis 7.0 ops/s within a round (not the ratio of the two medians)."
  echo "This machine is shared and noisy: trust ratios and instruction counts over absolute figures."
  echo
  echo "Sleeps/op: times the server blocked in epoll_wait per request (voluntary context"
  echo "switches); each one is a wake-up that the next request pays for."
  echo
  echo "| case | ours ops/s | Redis ops/s | ratio | ours p50 ms | Redis p50 ms | ours p99 ms | Redis p99 ms | ours CPU µs/op | Redis CPU µs/op | ours sleeps/op | Redis sleeps/op |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  for c in "${cases[@]}"; do
    name=${c%%|*}
    ro=$(field ours "$name" 1); rr=$(field redis "$name" 1)
    echo "| $name | $ro | $rr | $(round_ratio ours "$name") | $(field ours "$name" 2) | $(field redis "$name" 2) | $(field ours "$name" 3) | $(field redis "$name" 3) | $(field ours "$name" 4) | $(field redis "$name" 4) | $(field ours "$name" 5) | $(field redis "$name" 5) |"
  done
  echo
  echo "Which side is the limit: CPU seconds over wall seconds of the load generator's and"
  echo "the server's process over the generator's whole run (medians; 1.00 is a saturated"
  echo "core), and the generator's CPU microseconds per request. Where the generator is at"
  echo "1.00, ops/s are about 1,000,000 / its µs per request: its own cost per request sets"
  echo "the rate, and a server changes it only through the wake-ups its sleeps cause. The"
  echo "wall time includes the generator's connection set-up and teardown, which its ops/s"
  echo "leave out: at -c 1000 that is most of a second, so busy reads low there."
  echo
  echo "| case | ours: generator busy | generator µs/op | server busy | Redis: generator busy | generator µs/op | server busy |"
  echo "|---|---|---|---|---|---|---|"
  for c in "${cases[@]}"; do
    name=${c%%|*}
    row="| $name"
    for srv in ours redis; do
      for col in 6 8 7; do row="$row | $(field $srv "$name" $col)"; done
    done
    echo "$row |"
  done
  echo
  echo "Ours with \`busy-poll-us $BP_US\` (off by default; for a server with a core of its own),"
  echo "same rounds; ratio against Redis in the same round as above:"
  echo
  echo "| case | ops/s | ratio | p50 ms | p99 ms | CPU µs/op | sleeps/op | generator µs/op |"
  echo "|---|---|---|---|---|---|---|---|"
  for c in "${cases[@]}"; do
    name=${c%%|*}
    rb=$(field ours-bp "$name" 1)
    echo "| $name | $rb | $(round_ratio ours-bp "$name") | $(field ours-bp "$name" 2) | $(field ours-bp "$name" 3) | $(field ours-bp "$name" 4) | $(field ours-bp "$name" 5) | $(field ours-bp "$name" 8) |"
  done
  echo
  echo "Server instructions per request (callgrind, difference of 60k and 20k requests, -c 50):"
  echo
  echo "| command | ours | Redis | ratio |"
  echo "|---|---|---|---|"
  echo "| GET | $ig_ours | $ig_redis | $(ratio "$ig_ours" "$ig_redis") |"
  echo "| SET | $is_ours | $is_redis | $(ratio "$is_ours" "$is_redis") |"
  echo
  echo "Memory after loading each data set into an empty server (INFO used_memory, and RSS):"
  echo
  echo "| data set | keys | ours used_memory | Redis used_memory | ratio | ours RSS | Redis RSS | ratio |"
  echo "|---|---|---|---|---|---|---|---|"
  for d in "${datasets[@]}"; do
    read -r uo ro ko <<<"${mem[ours.$d]}"
    read -r ur rr kr <<<"${mem[redis.$d]}"
    echo "| ${mem_desc[$d]} | $ko / $kr | $uo | $ur | $(ratio "$uo" "$ur") | $ro | $rr | $(ratio "$ro" "$rr") |"
  done
} > BENCHMARKS.md
utils/bench-cli.sh >>BENCHMARKS.md
cat BENCHMARKS.md
