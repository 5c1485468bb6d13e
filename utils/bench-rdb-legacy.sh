#!/usr/bin/env bash
# Loading a snapshot written in the encodings of Redis 5.0-6.2 (RDB 9:
# ziplist hashes and sorted sets, quicklists of ziplist nodes, intsets,
# strings), this server against Debian's redis-server 7.0, which converts
# the same encodings on load (run by utils/bench.sh, which appends the output
# to BENCHMARKS.md; runs alone too). The file, BENCH_LEGACY_MB megabytes
# (default 1024), is built by tests/support/old_rdb.py. Each round
# (BENCH_LEGACY_ROUNDS, default 3, medians reported, the servers' order
# alternating) starts each server on it and reads:
#   - the load time ("DB loaded from disk: X seconds" in the log),
#   - the CPU the process used until ready,
#   - the peak resident memory (VmHWM: the data, the allocator's overhead
#     and whatever of the file stayed mapped or buffered) and used_memory.
# Prints a Markdown section on stdout; progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${BENCH_LEGACY_MB:-1024}
ROUNDS=${BENCH_LEGACY_ROUNDS:-3}
# shellcheck source=utils/bench-lib.sh
. utils/bench-lib.sh
bench_init bench-rdb-legacy
BENCH_START_TRIES=6000  # a big file takes a while: up to 10 minutes

echo "bench-rdb-legacy: building a ${MB} MB RDB 9 file" >&2
keys=$($PY tests/support/old_rdb.py bulk "$MB" "$work/old.rdb")
declare -A load cpu hwm used
for r in $(seq "$ROUNDS"); do
  for side in $(round_order "$r"); do
    dir=$work/$side
    mkdir -p "$dir"
    ln -sf "$work/old.rdb" "$dir/dump.rdb"
    : >"$dir/log"
    echo "bench-rdb-legacy: round $r, $side" >&2
    start_server $side "$dir/log" taskset -c $SRV_CPU "$(server_bin $side)" --dir "$dir"
    grep -o 'DB loaded from disk: [0-9.]* seconds' "$dir/log" | awk '{print $5}' >>"$work/$side.load"
    echo $(($(awk '{print $14+$15}' "/proc/$PID/stat") * 10)) >>"$work/$side.cpu"
    awk '/VmHWM/{print $2}' "/proc/$PID/status" >>"$work/$side.hwm"
    $RCLI -p "$PORT" info memory | tr -d '\r' | awk -F: '$1=="used_memory"{print $2}' \
      >>"$work/$side.used"
    n=$($RCLI -p "$PORT" dbsize)
    [ "$n" = "$keys" ] || { echo "bench: $side loaded $n keys of $keys" >&2; exit 1; }
    stop_server "$PORT" "$PID"
  done
done
for side in ours redis; do
  load[$side]=$(median <"$work/$side.load")
  cpu[$side]=$(median <"$work/$side.cpu")
  hwm[$side]=$(median <"$work/$side.hwm")
  used[$side]=$(median <"$work/$side.used")
done
row() {  # label array-name
  local -n a=$2
  echo "| $1 | ${a[ours]} | ${a[redis]} | $(ratio "${a[ours]}" "${a[redis]}") |"
}
echo
echo "Loading a ${MB} MB snapshot in Redis 5.0-6.2's encodings (RDB 9, $keys keys: ziplist"
echo "hashes of 8 fields, ziplist sorted sets of 8 members, one-node quicklists of 16 elements,"
echo "intsets of 8, strings), converted on load by both servers: medians of $ROUNDS rounds."
echo
echo "| measure | ours | Redis 7.0 | ratio |"
echo "|---|---|---|---|"
row "load at start (s, from the log)" load
row "load at start, CPU time (ms)" cpu
row "peak resident memory (VmHWM, kB)" hwm
row "used_memory after the load (bytes)" used
