#!/usr/bin/env bash
# `make bench`, replication part (utils/bench.sh runs it and appends its
# output to BENCHMARKS.md; runs alone too): ours master -> ours replica
# against Debian's redis-server 7.0 master -> its replica.
#   - Full sync of a data set of BENCH_REPL_MB megabytes (default 1024) of
#     1000-byte values that do not compress (base64 of random bytes), one
#     key per KB, loaded with redis-cli --pipe into one master per server
#     that stays up for the whole run. Each sync is a fresh, empty replica
#     told REPLICAOF, once disk-based (repl-diskless-sync no), once
#     diskless (yes, delay 0) and once diskless into a replica that loads
#     the RDB from the socket as it arrives (repl-diskless-load swapdb):
#     wall time until the replica reports
#     master_link_status:up and holds the master's key count; the master's
#     peak memory, it and its fork child together (proportional set size,
#     so that pages the two share count once), sampled every 50 ms; the
#     replica's peak resident memory (VmHWM). Master on CPU 0, replica on 1.
#   - The stream: redis-benchmark -t set -P 16 -c 50 -d 100 -r 1000000
#     -n BENCH_REPL_N (default 3000000) against a fresh master with 0, 1 and
#     2 replicas of the same binary attached (replica output buffers
#     unlimited, so none is dropped): the master's requests/s and CPU per
#     request, each over its own figure with 0 replicas; then, when the
#     benchmark ends, the replicas' lag (bytes behind master_repl_offset)
#     and the time until every slave_repl_offset reaches it.
# BENCH_REPL_ROUNDS rounds (default 3); each visits the servers in
# alternating order; medians, ratios the median of per-round ratios.
# BENCH_REPL_REPLICA_CPU moves the stream test's replicas (default: the
# load generator's CPU).
# Prints a Markdown section on stdout; progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${BENCH_REPL_MB:-1024}
ROUNDS=${BENCH_REPL_ROUNDS:-3}
N=${BENCH_REPL_N:-3000000}
KEYS=$((MB * 1024))
# shellcheck source=utils/bench-lib.sh
. utils/bench-lib.sh
bench_init bench-repl
# Where the replicas of the stream test run: beside the load generator, so
# that the master's CPU is its own.
REPL_CPU=${BENCH_REPL_REPLICA_CPU:-$GEN_CPU}
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
HZ=$(getconf CLK_TCK)
info() { $RCLI -p "$1" info "$2" | tr -d '\r' | awk -F: -v k="$3" '$1==k{print $2}'; }

# Watches a replication from outside, over plain sockets (one process, so
# that polling costs the servers little):
#   sync MPORT MPID RPORT RPID KEYS: REPLICAOF on the replica, then polls it
#     every 10 ms; prints "ms base_kb peak_kb": the wall time until the
#     link is up with KEYS keys, the master's PSS before it and at its peak
#     (with its children), sampled by a thread every 50 ms.
#   stream OUT MPORT RPORT... -- CMD...: runs CMD (its output into OUT);
#     prints "lag_bytes ms wall_s": how far the furthest replica was behind
#     the master as CMD ended, how long until none was, and CMD's run time.
cat >"$work/watch.py" <<'PYEOF'
import os, socket, subprocess, sys, threading, time
def conn(port):
    s = socket.create_connection(("127.0.0.1", int(port)))
    return s, s.makefile("rb")
def call(c, *args):
    c[0].sendall(b"*%d\r\n" % len(args) + b"".join(
        b"$%d\r\n%s\r\n" % (len(a), a) for a in (x.encode() for x in args)))
    line = c[1].readline()
    if line[:1] == b"-":
        sys.exit("bench-repl: %s answered %s" % (args[0], line.decode().strip()))
    if line[:1] == b"$":
        return c[1].read(int(line[1:]) + 2)[:-2].decode()
    return line[1:-2].decode()
def field(c, section, key):
    for line in call(c, "INFO", section).split("\r\n"):
        if line.startswith(key + ":"):
            return line.split(":", 1)[1]
def pss_kb(pid):
    pids = [pid]
    for t in os.listdir("/proc/%s/task" % pid):
        try:
            pids += open("/proc/%s/task/%s/children" % (pid, t)).read().split()
        except OSError:
            pass
    kb = 0
    for p in pids:
        try:
            kb += next(int(l.split()[1]) for l in open("/proc/%s/smaps_rollup" % p)
                       if l.startswith("Pss:"))
        except (OSError, StopIteration):
            pass  # a child that exited meanwhile
    return kb
mode, args = sys.argv[1], sys.argv[2:]
if mode == "sync":
    mport, mpid, rport, keys = args[0], args[1], args[2], args[4]
    r = conn(rport)
    base = pss_kb(mpid)
    peak, done = [base], threading.Event()
    def sample():
        while not done.wait(0.05):
            peak[0] = max(peak[0], pss_kb(mpid))
    th = threading.Thread(target=sample, daemon=True)
    th.start()
    t0 = time.monotonic()
    call(r, "REPLICAOF", "127.0.0.1", mport)
    while not (field(r, "replication", "master_link_status") == "up"
               and call(r, "DBSIZE") == keys):
        if time.monotonic() - t0 > 1800:
            sys.exit("bench-repl: the replica on port %s never synced" % rport)
        time.sleep(0.01)
    ms = (time.monotonic() - t0) * 1000
    done.set()
    th.join()
    print("%.0f %d %d" % (ms, base, peak[0]))
else:
    # stream OUT MPORT RPORT... -- CMD...: CMD's output into OUT.
    cut = args.index("--")
    m, rs = conn(args[1]), [conn(p) for p in args[2:cut]]
    t0 = time.monotonic()
    with open(args[0], "wb") as out:
        subprocess.run(args[cut + 1:], stdout=out, stderr=subprocess.DEVNULL, check=True)
    t1, lag = time.monotonic(), None
    while True:
        moff = int(field(m, "replication", "master_repl_offset"))
        behind = [moff - int(field(r, "replication", "slave_repl_offset")) for r in rs]
        lag = max(behind + [0]) if lag is None else lag
        if max(behind + [0]) <= 0:
            break
        if time.monotonic() - t1 > 600:
            sys.exit("bench-repl: the replicas never caught up")
        time.sleep(0.002)
    print("%d %.0f %.3f" % (lag, (time.monotonic() - t1) * 1000, t1 - t0))
PYEOF
watch() { $PY "$work/watch.py" "$@"; }

# KEYS SETs of key:NNNNNNNNNN to 1000 bytes each, slices of one random pool.
$PY - "$KEYS" >"$work/data.resp" <<'PYEOF'
import base64, os, sys
n, out = int(sys.argv[1]), sys.stdout.buffer
pool = base64.b64encode(os.urandom(3 << 20))
step, span = 7919, len(pool) - 1000
for i0 in range(0, n, 10000):
    buf = []
    for i in range(i0, min(n, i0 + 10000)):
        o = i * step % span
        buf.append(b"*3\r\n$3\r\nSET\r\n$14\r\nkey:%010d\r\n$1000\r\n%s\r\n" % (i, pool[o:o + 1000]))
    out.write(b"".join(buf))
PYEOF

# Full sync: one master per server for the whole run, fresh replicas.
declare -A mport mpid used rdb res
for side in ours redis; do
  mkdir -p "$work/$side"
  echo "bench-repl: $side master: loading $KEYS keys of 1000 bytes" >&2
  start_server "$side master" "$work/$side/log" taskset -c "$SRV_CPU" "$(server_bin $side)" \
    --dir "$work/$side" --repl-diskless-sync-delay 0
  mport[$side]=$PORT
  mpid[$side]=$PID
  taskset -c "$GEN_CPU" "$RCLI" -p "$PORT" --pipe <"$work/data.resp" >/dev/null
  keys=$($RCLI -p "$PORT" dbsize)
  [ "$keys" = "$KEYS" ] || { echo "bench-repl: $side holds $keys keys, not $KEYS" >&2; exit 1; }
  used[$side]=$(info "$PORT" memory used_memory)
done
rm -f "$work/data.resp"

mib() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }  # kB -> MiB
one_sync() {  # side mode round
  local side=$1 mode=$2 r=$3 dir=$work/$1-replica out ms base peak hwm
  local mp=${mport[$side]} yes=yes load=disabled
  [ "$mode" = disk ] && yes=no
  [ "$mode" = socket ] && load=swapdb
  while [ "$(info "$mp" persistence rdb_bgsave_in_progress)" = 1 ]; do sleep 0.1; done
  $RCLI -p "$mp" config set repl-diskless-sync $yes >/dev/null
  rm -rf "$dir" && mkdir -p "$dir"
  start_server "$side replica" "$dir/log" taskset -c "$GEN_CPU" "$(server_bin "$side")" --dir "$dir" \
    --repl-diskless-load "$load"
  out=$(watch sync "$mp" "${mpid[$side]}" "$PORT" "$PID" "$KEYS")
  read -r ms base peak <<<"$out"
  hwm=$(awk '/^VmHWM/{print $2}' "/proc/$PID/status")
  stop_server "$PORT" "$PID"
  rm -rf "$dir"
  res[$side,$mode,ms,$r]=$ms
  res[$side,$mode,mpeak,$r]=$(mib "$peak")
  res[$side,$mode,mgrow,$r]=$(mib $((peak - base)))
  res[$side,$mode,rpeak,$r]=$(mib "$hwm")
  echo "bench-repl: round $r $side $mode sync: $ms ms, master $(mib "$base") -> $(mib "$peak") MB, replica $(mib "$hwm") MB" >&2
}
for r in $(seq "$ROUNDS"); do
  modes="disk diskless socket"
  [ $((r % 2)) -eq 0 ] && modes="socket diskless disk"
  for side in $(round_order "$r"); do
    for mode in $modes; do one_sync "$side" "$mode" "$r"; done
  done
done
for side in ours redis; do
  while [ "$(info "${mport[$side]}" persistence rdb_bgsave_in_progress)" = 1 ]; do sleep 0.1; done
  rdb[$side]=$(stat -c %s "$work/$side/dump.rdb")
  stop_server "${mport[$side]}" "${mpid[$side]}"
  rm -rf "${work:?}/$side"
done

# The stream: a fresh master, N replicas, one benchmark run.
one_stream() {  # side replicas round
  local side=$1 n=$2 r=$3 bin mp c0 c1 rps i rports=() rpids=() lag ms wall rcpu=0 p
  bin=$(server_bin "$side")
  mkdir -p "$work/stream"
  start_server "$side master" "$work/stream/log" taskset -c "$SRV_CPU" "$bin" --dir "$work/stream" \
    --repl-diskless-sync yes --repl-diskless-sync-delay 0 --client-output-buffer-limit "replica 0 0 0"
  mp=$PORT
  local pid=$PID
  for i in $(seq "$n"); do
    mkdir -p "$work/stream/r$i"
    start_server "$side replica" "$work/stream/r$i/log" taskset -c "$REPL_CPU" "$bin" --dir "$work/stream/r$i"
    watch sync "$mp" "$pid" "$PORT" "$PID" 0 >/dev/null
    rports+=("$PORT")
    rpids+=("$PID")
  done
  c0=$(cpu_ticks "$pid")
  read -r lag ms wall <<<"$(watch stream "$work/stream/rb.csv" "$mp" "${rports[@]}" -- \
    taskset -c "$GEN_CPU" "$RB" -p "$mp" -t set -P 16 -c 50 -d 100 -r 1000000 -n "$N" --csv)"
  c1=$(cpu_ticks "$pid")
  rps=$(tail -1 "$work/stream/rb.csv" | tr -d '"' | awk -F, '{printf "%.0f", $2}')
  if [ "$(info "$mp" stats sync_full)" != "$n" ] ||
    [ "$(info "$mp" replication connected_slaves)" != "$n" ]; then
    echo "bench-repl: $side with $n replicas: a replica resynced or dropped" >&2
  fi
  for p in "${rpids[@]}"; do rcpu=$((rcpu + $(cpu_ticks "$p"))); done
  for i in $(seq "$n"); do stop_server "${rports[$((i - 1))]}" "${rpids[$((i - 1))]}"; done
  stop_server "$mp" "$pid"
  rm -rf "$work/stream"
  # CPU per request (µs): the master's over the run and the catch-up, the
  # replicas' (since they started: the empty sync is a few ms) per replica.
  res[$side,$n,rps,$r]=$rps
  res[$side,$n,cpu,$r]=$(awk -v t=$((c1 - c0)) -v hz="$HZ" -v n="$N" 'BEGIN {printf "%.3f", t / hz / n * 1e6}')
  res[$side,$n,busy,$r]=$(awk -v t=$((c1 - c0)) -v hz="$HZ" -v w="$wall" -v c="$ms" \
    'BEGIN {printf "%.2f", t / hz / (w + c / 1000)}')
  res[$side,$n,rcpu,$r]=$(awk -v t="$rcpu" -v hz="$HZ" -v n="$N" -v k="$n" \
    'BEGIN {if (k) printf "%.3f", t / hz / n / k * 1e6; else print "-"}')
  res[$side,$n,lag,$r]=$lag
  res[$side,$n,catch,$r]=$ms
  echo "bench-repl: round $r $side $n replicas: $rps SET/s, master ${res[$side,$n,cpu,$r]} µs/op, lag $lag bytes, caught up in $ms ms" >&2
}
for r in $(seq "$ROUNDS"); do
  nrep="0 1 2"
  [ $((r % 2)) -eq 0 ] && nrep="2 1 0"
  for side in $(round_order "$r"); do
    for n in $nrep; do one_stream "$side" "$n" "$r"; done
  done
done

med() {  # side case measure
  local fmt=%.0f
  case $3 in mpeak | mgrow | rpeak) fmt=%.1f ;; cpu | rcpu) fmt=%.3f ;; busy) fmt=%.2f ;; esac
  for r in $(seq "$ROUNDS"); do echo "${res[$1,$2,$3,$r]}"; done | median | awk -v f="$fmt" '{printf f, $1}'
}
# The median over rounds of A's measure over B's, both of the same round.
med_ratio() {  # measure sideA caseA sideB caseB
  for r in $(seq "$ROUNDS"); do
    awk -v a="${res[$2,$3,$1,$r]}" -v b="${res[$4,$5,$1,$r]}" 'BEGIN {if (b > 0) printf "%.6f\n", a / b}'
  done | median | awk '{printf "%.2f", $1}'
}
echo
echo "## Replication"
echo
echo "utils/bench-repl.sh: $ROUNDS round(s), the servers in alternating order; medians, and ratios"
echo "that are the median of the per-round ratios. Each side is a master and replicas of one"
echo "binary: ours -> ours against Redis 7.0 -> Redis 7.0."
echo
echo "Full sync of $KEYS keys of 1000-byte values that do not compress (BENCH_REPL_MB=$MB):"
echo "used_memory on the master ${used[ours]} bytes (ours), ${used[redis]} (Redis); RDB file"
echo "${rdb[ours]} bytes (ours), ${rdb[redis]} (Redis). A fresh, empty replica on CPU $GEN_CPU is"
echo "told REPLICAOF the master on CPU $SRV_CPU; time until its master_link_status is up and it"
echo "holds the master's key count. Master memory: the master and its fork child together, as"
echo "proportional set size (pages they share count once), sampled every 50 ms; \"growth\" is"
echo "its peak less its size before the sync. Replica memory: its VmHWM. MB are MiB."
echo
echo "| measure | ours | Redis 7.0 | ratio |"
echo "|---|---|---|---|"
for mode in disk diskless socket; do
  label="disk-based (repl-diskless-sync no)"
  [ $mode = diskless ] && label="diskless (repl-diskless-sync yes, delay 0)"
  [ $mode = socket ] && label="diskless, loaded from the socket (repl-diskless-load swapdb)"
  for m in "ms|full sync wall time (ms)" "mpeak|master peak memory (MB)" \
    "mgrow|master growth during the sync (MB)" "rpeak|replica peak memory, VmHWM (MB)"; do
    echo "| $label: ${m#*|} | $(med ours $mode "${m%%|*}") | $(med redis $mode "${m%%|*}") | $(med_ratio "${m%%|*}" ours $mode redis $mode) |"
  done
done
echo
echo "The stream: Debian's redis-benchmark -t set -P 16 -c 50 -d 100 -r 1000000 -n $N on CPU"
echo "$GEN_CPU against a fresh master on CPU $SRV_CPU with 0, 1 or 2 replicas of the same binary"
echo "(output buffers for replicas unlimited), the replicas on CPU $REPL_CPU beside the load generator:"
echo "with two cores they take CPU from the generator, so SET/s fall with them for reasons outside"
echo "the master, while the master's CPU per request is its own cost. Master CPU: its user+system"
echo "time from the start of the run until every replica caught up, per request; busy: that over"
echo "the same wall time (1.00 a saturated core). Replica CPU: per replica, per request. \"vs 0\":"
echo "the master's figure over its own with no replica, in the same round. Lag: bytes the furthest"
echo "replica was behind master_repl_offset as the benchmark ended; catch-up: the time until"
echo "every replica's slave_repl_offset reached the master's."
echo
echo "| server | replicas | SET/s | vs 0 | master CPU µs/op | vs 0 | master busy | replica CPU µs/op | lag at the end (bytes) | catch-up (ms) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for side in ours redis; do
  name=ours
  [ $side = redis ] && name="Redis 7.0"
  for n in 0 1 2; do
    rc=-
    [ $n -gt 0 ] && rc=$(med $side $n rcpu)
    echo "| $name | $n | $(med $side $n rps) | $(med_ratio rps $side $n $side 0) | $(med $side $n cpu) | $(med_ratio cpu $side $n $side 0) | $(med $side $n busy) | $rc | $(med $side $n lag) | $(med $side $n catch) |"
  done
done
echo
echo "Ours over Redis 7.0, same rounds: SET/s with 2 replicas $(med_ratio rps ours 2 redis 2);"
echo "full sync time disk-based $(med_ratio ms ours disk redis disk), diskless $(med_ratio ms ours diskless redis diskless),"
echo "loaded from the socket $(med_ratio ms ours socket redis socket); replica peak memory loaded from the socket"
echo "$(med_ratio rpeak ours socket redis socket)."
