#!/usr/bin/env bash
# `make bench`, cluster part (utils/bench.sh runs it and appends its output
# to BENCHMARKS.md; runs alone too): a cluster of three masters of ours on
# loopback against the same of Debian's redis-server 7.0.15, each built by
# Debian's redis-cli --cluster create.
#   - Throughput: Debian's redis-benchmark --cluster -t set,get -c 50
#     -n BENCH_CLUSTER_N (default 300000), at -P 1 and -P 16: requests/s
#     over the whole cluster. The three masters share CPU 0, the load
#     generator runs on CPU 1.
#   - Resharding: BENCH_CLUSTER_KEYS (default 1000000) SETs of 16-byte
#     values (random keys over as many names, so about 63% distinct) are
#     loaded through the cluster, then redis-cli --cluster reshard moves all
#     of the first master's slots to the second (--cluster-pipeline 100):
#     wall time and keys moved.
# BENCH_CLUSTER_ROUNDS rounds (default 3), in alternating order; medians,
# ratios of medians. Prints a Markdown section on stdout; progress on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${BENCH_CLUSTER_ROUNDS:-3}
N=${BENCH_CLUSTER_N:-300000}
KEYS=${BENCH_CLUSTER_KEYS:-1000000}
# shellcheck source=utils/bench-lib.sh
. utils/bench-lib.sh
bench_init bench-cluster

PORTS=()
PIDS=()
# Three masters of one side, in one cluster; sets PORTS and PIDS.
start_cluster() {  # side
  local bin i dir bus
  bin=$(server_bin "$1")
  PORTS=()
  PIDS=()
  for i in 0 1 2; do
    dir=$work/$1-$i
    rm -rf "$dir"
    mkdir -p "$dir"
    bus=$(free_port)
    start_server "$1-$i" "$dir/log" taskset -c "$SRV_CPU" "$bin" --cluster-enabled yes \
      --cluster-port "$bus" --cluster-config-file nodes.conf --dir "$dir" \
      --cluster-node-timeout 5000
    PORTS+=("$PORT")
    PIDS+=("$PID")
  done
  $RCLI --cluster create "127.0.0.1:${PORTS[0]}" "127.0.0.1:${PORTS[1]}" \
    "127.0.0.1:${PORTS[2]}" --cluster-yes >"$work/create.log" 2>&1
  for _ in $(seq 200); do
    if $RCLI --cluster check "127.0.0.1:${PORTS[0]}" >/dev/null 2>&1 &&
      [ "$($RCLI -p "${PORTS[0]}" cluster info | tr -d '\r' | grep cluster_state)" = \
        "cluster_state:ok" ]; then
      return 0
    fi
    sleep 0.1
  done
  echo "bench-cluster: the $1 cluster never became ok" >&2
  exit 1
}

stop_cluster() {
  local i
  for i in 0 1 2; do stop_server "${PORTS[$i]}" "${PIDS[$i]}"; done
}

rps() {  # pipeline test
  taskset -c "$GEN_CPU" "$RB" -p "${PORTS[0]}" --cluster -t "$2" -n "$N" -c 50 -P "$1" \
    -r 1000000 --csv 2>/dev/null | tail -n 1 | tr -d '"' | cut -d, -f2
}

keys_total() {
  local i t=0
  for i in 0 1 2; do t=$((t + $($RCLI -p "${PORTS[$i]}" dbsize))); done
  echo "$t"
}

declare -A res
for r in $(seq "$ROUNDS"); do
  for side in $(round_order "$r"); do
    echo "bench-cluster: round $r, $side" >&2
    start_cluster "$side"
    for p in 1 16; do
      for t in set get; do res[$side.$t.$p]+="$(rps $p $t) "; done
    done
    $RCLI -p "${PORTS[0]}" flushall >/dev/null
    $RCLI -p "${PORTS[1]}" flushall >/dev/null
    $RCLI -p "${PORTS[2]}" flushall >/dev/null
    taskset -c "$GEN_CPU" "$RB" -p "${PORTS[0]}" --cluster -t set -n "$KEYS" -c 50 -P 16 \
      -r "$KEYS" -d 16 -q >/dev/null 2>&1
    from=$($RCLI -p "${PORTS[0]}" cluster myid)
    to=$($RCLI -p "${PORTS[1]}" cluster myid)
    moved=$($RCLI -p "${PORTS[0]}" dbsize)
    t0=$(date +%s.%N)
    $RCLI --cluster reshard "127.0.0.1:${PORTS[0]}" --cluster-from "$from" --cluster-to "$to" \
      --cluster-slots 5461 --cluster-yes --cluster-pipeline 100 >"$work/reshard.log" 2>&1
    t1=$(date +%s.%N)
    left=$($RCLI -p "${PORTS[0]}" dbsize)
    if [ "$left" != 0 ]; then
      echo "bench-cluster: $side kept $left keys after resharding" >&2
      exit 1
    fi
    res[$side.reshard]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}') "
    res[$side.moved]+="$moved "
    res[$side.total]+="$(keys_total) "
    stop_cluster
  done
done

med() { tr ' ' '\n' <<<"$1" | grep -v '^$' | median; }

echo
echo "## Cluster: three masters, ours against Redis 7.0.15 (utils/bench-cluster.sh)"
echo
echo "Debian's redis-benchmark --cluster (-c 50, -n $N, -r 1000000) against three masters"
echo "on CPU $SRV_CPU, the load generator on CPU $GEN_CPU; $ROUNDS rounds, medians."
echo
echo "| test | ours (req/s) | Redis 7.0.15 (req/s) | ours / Redis |"
echo "|---|---|---|---|"
for p in 1 16; do
  for t in set get; do
    o=$(med "${res[ours.$t.$p]}")
    d=$(med "${res[redis.$t.$p]}")
    echo "| ${t^^} -P $p | $o | $d | $(ratio "$o" "$d") |"
  done
done
o=$(med "${res[ours.reshard]}")
d=$(med "${res[redis.reshard]}")
echo
echo "Resharding: all slots of one master (about $(med "${res[ours.moved]}") of"
echo "$(med "${res[ours.total]}") keys for ours, $(med "${res[redis.moved]}") of"
echo "$(med "${res[redis.total]}") for Redis) moved to another by redis-cli --cluster reshard"
echo "--cluster-pipeline 100: ours ${o} s, Redis ${d} s, ours / Redis $(ratio "$o" "$d")."
