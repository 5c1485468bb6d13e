#!/usr/bin/env bash
# RDB snapshots, this server against Debian's redis-server 7.0 (run by
# utils/bench.sh, which appends the output to BENCHMARKS.md; runs alone too).
# One mixed data set of BENCH_RDB_KEYS keys (default 1000000): 60% strings
# (half of them integers), 10% each small hashes, small sets (integer and
# string members), small sorted sets and small lists, loaded into each server
# with redis-cli --pipe. Then, per server and round (BENCH_RDB_ROUNDS,
# default 3, medians reported):
#   - SAVE wall time and the size of dump.rdb;
#   - load time at start ("DB loaded from disk: X seconds" in the log, the
#     same line in both servers);
#   - BGSAVE under a SET load (redis-benchmark, 50 clients, random keys):
#     fork time (latest_fork_usec) and copy-on-write bytes (rdb_last_cow_size).
# Prints a Markdown section on stdout; progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
KEYS=${BENCH_RDB_KEYS:-1000000}
ROUNDS=${BENCH_RDB_ROUNDS:-3}
# shellcheck source=utils/bench-lib.sh
. utils/bench-lib.sh
bench_init bench-rdb

start() {  # name binary dir -> sets PORT PID
  start_server "$1" "$3/log" taskset -c $SRV_CPU "$2" --dir "$3"
}
now_ms() { date +%s%3N; }
info() { $RCLI -p "$1" info "$2" | tr -d '\r' | awk -F: -v k="$3" '$1==k{print $2}'; }

gen() {
  $PY - "$KEYS" <<'PYEOF'
import sys
n = int(sys.argv[1])
out = sys.stdout.buffer
def cmd(*args):
    parts = [b'*%d\r\n' % len(args)]
    for a in args:
        parts.append(b'$%d\r\n%s\r\n' % (len(a), a))
    out.write(b''.join(parts))
for i in range(n):
    k = i % 10
    if k < 3:
        cmd(b'SET', b'str:%09d' % i, b'value-%d-abcdefghij' % i)
    elif k < 6:
        cmd(b'SET', b'int:%09d' % i, b'%d' % (i * 7919))
    elif k == 6:
        args = [b'HSET', b'hash:%09d' % i]
        for f in range(8):
            args += [b'field%d' % f, b'v%d' % (i + f)]
        cmd(*args)
    elif k == 7:
        if i % 20 < 10:
            cmd(b'SADD', b'iset:%09d' % i, *[b'%d' % (i + m) for m in range(8)])
        else:
            cmd(b'SADD', b'sset:%09d' % i, *[b'tag:%d' % (i + m) for m in range(8)])
    elif k == 8:
        args = [b'ZADD', b'zset:%09d' % i]
        for m in range(8):
            args += [b'%d.5' % (i + m), b'member:%d' % m]
        cmd(*args)
    else:
        cmd(b'RPUSH', b'list:%09d' % i, *[b'item-%d' % (i + m) for m in range(8)])
PYEOF
}

gen >"$work/data.resp"
declare -A save_ms load_s size fork_us cow
for side in ours redis; do
  bin=$(server_bin "$side")
  dir=$work/$side
  mkdir -p "$dir"
  echo "bench-rdb: $side: loading $KEYS keys" >&2
  start $side $bin "$dir"
  $RCLI -p "$PORT" --pipe <"$work/data.resp" >/dev/null
  keys=$($RCLI -p "$PORT" dbsize)
  [ "$keys" = "$KEYS" ] || echo "bench-rdb: $side holds $keys keys, expected $KEYS" >&2
  : >"$work/$side.save"
  for _ in $(seq $ROUNDS); do
    t0=$(now_ms)
    $RCLI -p "$PORT" save >/dev/null
    echo $(($(now_ms) - t0)) >>"$work/$side.save"
  done
  save_ms[$side]=$(median <"$work/$side.save")
  size[$side]=$(stat -c %s "$dir/dump.rdb")
  : >"$work/$side.fork"
  : >"$work/$side.cow"
  for _ in $(seq $ROUNDS); do
    taskset -c $GEN_CPU $RB -p "$PORT" -c 50 -n 2000000 -r "$KEYS" -d 20 -t set -q >/dev/null 2>&1 &
    gen_pid=$!
    sleep 1
    $RCLI -p "$PORT" bgsave >/dev/null
    while [ "$(info "$PORT" persistence rdb_bgsave_in_progress)" = 1 ]; do sleep 0.05; done
    kill $gen_pid 2>/dev/null || true
    wait $gen_pid 2>/dev/null || true
    info "$PORT" stats latest_fork_usec >>"$work/$side.fork"
    info "$PORT" persistence rdb_last_cow_size >>"$work/$side.cow"
  done
  fork_us[$side]=$(median <"$work/$side.fork")
  cow[$side]=$(median <"$work/$side.cow")
  # The snapshot the load times are taken on is the data set as generated.
  $RCLI -p "$PORT" flushall >/dev/null
  $RCLI -p "$PORT" --pipe <"$work/data.resp" >/dev/null
  $RCLI -p "$PORT" save >/dev/null
  stop_server "$PORT" "$PID"
  : >"$work/$side.load"
  for _ in $(seq $ROUNDS); do
    : >"$dir/log"
    start $side $bin "$dir"
    grep -o 'DB loaded from disk: [0-9.]* seconds' "$dir/log" | awk '{print $5}' >>"$work/$side.load"
    stop_server "$PORT" "$PID"
  done
  load_s[$side]=$(median <"$work/$side.load")
done

echo
echo "RDB snapshots of one mixed data set of $KEYS keys (60% strings, half integers; 10% each"
echo "hashes of 8 fields, sets of 8 members (integer or string), sorted sets of 8, lists of 8):"
echo "medians of $ROUNDS rounds. BGSAVE runs under a SET load of 50 clients on random keys."
echo
echo "| measure | ours | Redis 7.0 | ratio |"
echo "|---|---|---|---|"
echo "| SAVE wall time (ms) | ${save_ms[ours]} | ${save_ms[redis]} | $(ratio "${save_ms[ours]}" "${save_ms[redis]}") |"
echo "| dump.rdb size (bytes) | ${size[ours]} | ${size[redis]} | $(ratio "${size[ours]}" "${size[redis]}") |"
echo "| load at start (s, from the log) | ${load_s[ours]} | ${load_s[redis]} | $(ratio "${load_s[ours]}" "${load_s[redis]}") |"
echo "| BGSAVE fork time (latest_fork_usec) | ${fork_us[ours]} | ${fork_us[redis]} | $(ratio "${fork_us[ours]}" "${fork_us[redis]}") |"
echo "| BGSAVE copy-on-write (rdb_last_cow_size) | ${cow[ours]} | ${cow[redis]} | $(ratio "${cow[ours]}" "${cow[redis]}") |"
