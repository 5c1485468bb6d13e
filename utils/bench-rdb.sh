#!/usr/bin/env bash
# RDB snapshots, this server against Debian's redis-server 7.0 (run by
# utils/bench.sh, which appends the output to BENCHMARKS.md; runs alone too).
# One mixed data set of BENCH_RDB_KEYS keys (default 1000000): 60% strings
# (half of them integers), 10% each hashes, sets (integer and string
# members), sorted sets and lists, 99% of them small (listpack/intset) and 1%
# big (hashtable, skiplist, quicklist of several nodes); one key in 16 has a
# TTL. Loaded into each server with redis-cli --pipe; all servers run at
# once and each round (BENCH_RDB_ROUNDS, default 3, medians reported) visits
# them in a rotating order, so the machine's load falls on all alike:
#   - SAVE wall and CPU time (the server's user+system) and dump.rdb's size;
#   - load time at start ("DB loaded from disk: X seconds" in the log, the
#     same line in both servers) and the CPU the process used until ready;
#   - BGSAVE under a SET load (redis-benchmark, 50 clients, random keys):
#     fork time (latest_fork_usec) and copy-on-write bytes (rdb_last_cow_size).
# BENCH_RDB_OURS picks our binary (default src/redis-server); with
# BENCH_RDB_BEFORE=<binary> a second build of ours gets a column of its own
# (before/after a change, in the same run).
# Prints a Markdown section on stdout; progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
KEYS=${BENCH_RDB_KEYS:-1000000}
ROUNDS=${BENCH_RDB_ROUNDS:-3}
# shellcheck source=utils/bench-lib.sh
. utils/bench-lib.sh
bench_init bench-rdb
OURS=${BENCH_RDB_OURS:-$OURS}
# Optional: another build of ours (e.g. before a change), as a third column.
BEFORE=${BENCH_RDB_BEFORE:-}

start() {  # name binary dir -> sets PORT PID
  start_server "$1" "$3/log" taskset -c $SRV_CPU "$2" --dir "$3"
}
now_ms() { date +%s%3N; }
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }  # 10 ms ticks
info() { $RCLI -p "$1" info "$2" | tr -d '\r' | awk -F: -v k="$3" '$1==k{print $2}'; }

gen() {
  $PY - "$KEYS" <<'PYEOF'
import sys
n = int(sys.argv[1])
out = sys.stdout.buffer
buf = []
def cmd(*args):
    parts = [b'*%d\r\n' % len(args)]
    for a in args:
        parts.append(b'$%d\r\n%s\r\n' % (len(a), a))
    buf.append(b''.join(parts))
    if len(buf) >= 4096:
        out.write(b''.join(buf))
        buf.clear()
# Per 10 keys: 3 strings, 3 integers, then one hash, set, sorted set and
# list. One collection in 100 is big (a hashtable, skiplist or multi-node
# quicklist); every 16th key has a TTL far in the future.
for i in range(n):
    k = i % 10
    big = (i // 10) % 100 == 0
    if k < 3:
        key = b'str:%09d' % i
        cmd(b'SET', key, b'value-%d-abcdefghij' % i)
    elif k < 6:
        key = b'int:%09d' % i
        cmd(b'SET', key, b'%d' % (i * 7919))
    elif k == 6:
        key = b'hash:%09d' % i
        args = [b'HSET', key]
        for f in range(600 if big else 8):
            args += [b'field%d' % f, b'v%d' % (i + f)]
        cmd(*args)
    elif k == 7:
        if big:
            key = b'bset:%09d' % i
            cmd(b'SADD', key, *[b'member:%d' % (i + m) for m in range(600)])
        elif i % 20 < 10:
            key = b'iset:%09d' % i
            cmd(b'SADD', key, *[b'%d' % (i + m) for m in range(8)])
        else:
            key = b'sset:%09d' % i
            cmd(b'SADD', key, *[b'tag:%d' % (i + m) for m in range(8)])
    elif k == 8:
        key = b'zset:%09d' % i
        args = [b'ZADD', key]
        for m in range(300 if big else 8):
            args += [b'%d.5' % (i + m), b'member:%d' % m]
        cmd(*args)
    else:
        key = b'list:%09d' % i
        cmd(b'RPUSH', key, *[b'item-%d' % (i + m) for m in range(1000 if big else 8)])
    if i % 16 == 5:
        cmd(b'EXPIRE', key, b'%d' % (1000000 + i))
out.write(b''.join(buf))
PYEOF
}

gen >"$work/data.resp"
sides=(ours redis)
[ -n "$BEFORE" ] && sides=(ours before redis)
declare -A bin port pid save_ms save_cpu load_s load_cpu size fork_us cow
bin[ours]=$OURS
bin[redis]=$REDIS
bin[before]=$BEFORE
# Every side runs at once and the rounds alternate between them, so a
# change in the machine's load hits all sides alike.
for side in "${sides[@]}"; do
  mkdir -p "$work/$side"
  echo "bench-rdb: $side: loading $KEYS keys" >&2
  start $side "${bin[$side]}" "$work/$side"
  port[$side]=$PORT
  pid[$side]=$PID
  $RCLI -p "$PORT" --pipe <"$work/data.resp" >/dev/null
  keys=$($RCLI -p "$PORT" dbsize)
  [ "$keys" = "$KEYS" ] || echo "bench-rdb: $side holds $keys keys, expected $KEYS" >&2
  : >"$work/$side.save"
  : >"$work/$side.savecpu"
  : >"$work/$side.fork"
  : >"$work/$side.cow"
  : >"$work/$side.load"
  : >"$work/$side.loadcpu"
done
order() {  # round -> the sides, rotated by the round number
  local r=$1 n=${#sides[@]}
  for k in $(seq 0 $((n - 1))); do echo "${sides[$(((r + k) % n))]}"; done
}
for r in $(seq $ROUNDS); do
  for side in $(order "$r"); do
    c0=$(cpu_ticks "${pid[$side]}")
    t0=$(now_ms)
    $RCLI -p "${port[$side]}" save >/dev/null
    echo $(($(now_ms) - t0)) >>"$work/$side.save"
    echo $((($(cpu_ticks "${pid[$side]}") - c0) * 10)) >>"$work/$side.savecpu"
  done
done
for side in "${sides[@]}"; do
  save_ms[$side]=$(median <"$work/$side.save")
  save_cpu[$side]=$(median <"$work/$side.savecpu")
  size[$side]=$(stat -c %s "$work/$side/dump.rdb")
done
for r in $(seq $ROUNDS); do
  for side in $(order "$r"); do
    p=${port[$side]}
    taskset -c $GEN_CPU $RB -p "$p" -c 50 -n 2000000 -r "$KEYS" -d 20 -t set -q >/dev/null 2>&1 &
    gen_pid=$!
    sleep 1
    $RCLI -p "$p" bgsave >/dev/null
    while [ "$(info "$p" persistence rdb_bgsave_in_progress)" = 1 ]; do sleep 0.05; done
    kill $gen_pid 2>/dev/null || true
    wait $gen_pid 2>/dev/null || true
    info "$p" stats latest_fork_usec >>"$work/$side.fork"
    info "$p" persistence rdb_last_cow_size >>"$work/$side.cow"
  done
done
for side in "${sides[@]}"; do
  fork_us[$side]=$(median <"$work/$side.fork")
  cow[$side]=$(median <"$work/$side.cow")
  # The snapshot the load times are taken on is the data set as generated.
  p=${port[$side]}
  $RCLI -p "$p" flushall >/dev/null
  $RCLI -p "$p" --pipe <"$work/data.resp" >/dev/null
  $RCLI -p "$p" save >/dev/null
  stop_server "$p" "${pid[$side]}"
done
for r in $(seq $ROUNDS); do
  for side in $(order "$r"); do
    dir=$work/$side
    : >"$dir/log"
    start $side "${bin[$side]}" "$dir"
    grep -o 'DB loaded from disk: [0-9.]* seconds' "$dir/log" | awk '{print $5}' >>"$work/$side.load"
    # CPU of the process so far: start-up is a few ms, the rest is the load.
    echo $(($(cpu_ticks "$PID") * 10)) >>"$work/$side.loadcpu"
    stop_server "$PORT" "$PID"
  done
done
for side in "${sides[@]}"; do
  load_s[$side]=$(median <"$work/$side.load")
  load_cpu[$side]=$(median <"$work/$side.loadcpu")
done

row() {  # label array-name
  local label=$1
  local -n a=$2
  local line="| $label | ${a[ours]} |"
  [ -n "$BEFORE" ] && line="$line ${a[before]} |"
  echo "$line ${a[redis]} | $(ratio "${a[ours]}" "${a[redis]}") |"
}
echo
echo "RDB snapshots of one mixed data set of $KEYS keys (60% strings, half integers; 10% each"
echo "hashes, sets (integer or string members), sorted sets and lists, 99% of them of 8 elements"
echo "and 1% big: hashes and sets of 600, sorted sets of 300, lists of 1000; 1 key in 16 with a TTL):"
echo "medians of $ROUNDS rounds, alternating between the servers. CPU is the server process's"
echo "user+system time. BGSAVE runs under a SET load of 50 clients on random keys."
echo
if [ -n "$BEFORE" ]; then
  echo "| measure | ours | ours before ($BEFORE) | Redis 7.0 | ratio ours/Redis |"
  echo "|---|---|---|---|---|"
else
  echo "| measure | ours | Redis 7.0 | ratio |"
  echo "|---|---|---|---|"
fi
row "SAVE wall time (ms)" save_ms
row "SAVE CPU time (ms)" save_cpu
row "dump.rdb size (bytes)" size
row "load at start (s, from the log)" load_s
row "load at start, CPU time (ms)" load_cpu
row "BGSAVE fork time (latest_fork_usec)" fork_us
row "BGSAVE copy-on-write (rdb_last_cow_size)" cow
