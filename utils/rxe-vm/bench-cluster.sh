#!/usr/bin/env bash
# Runs INSIDE the soft-RoCE VM: a cluster of three of our masters on the VM's
# rxe address (each with a TCP and an RDMA port, the bus over RDMA:
# cluster-bus-transport rdma), driven by our redis-benchmark --cluster over
# TCP and over RDMA (--rdma), alternating, in the same run: SET and GET at
# -c 10 -P 1 and -P 16, BENCH_CLUSTER_N requests per run (default 20000),
# BENCH_CLUSTER_ROUNDS rounds (default 3), medians. The cluster is created by
# our redis-cli --cluster create --rdma. utils/rxe-vm/bench-in-vm.sh runs it
# after the replication section (make bench-rdma); alone:
#   utils/rxe-vm/run.sh --timeout 900 -- utils/rxe-vm/bench-cluster.sh
# Prints Markdown on stdout, progress on stderr. Builds nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=utils/rxe-vm/bench-vm-lib.sh
. utils/rxe-vm/bench-vm-lib.sh
ADDR=${RXE_VM_ADDR:-10.99.0.1}
N=${BENCH_CLUSTER_N:-20000}
ROUNDS=${BENCH_CLUSTER_ROUNDS:-3}
TCP=(7301 7302 7303)
RDMA=(7311 7312 7313)
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do
    kill -9 "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
for i in 0 1 2; do
  mkdir -p "$work/$i"
  src/redis-server --port "${TCP[$i]}" --bind "$ADDR" --rdma-port "${RDMA[$i]}" --rdma-bind "$ADDR" \
    --cluster-enabled yes --cluster-bus-transport rdma --cluster-node-timeout 5000 \
    --save "" --protected-mode no --dir "$work/$i" --logfile "$work/$i/log" &
  pids+=($!)
done
for i in 0 1 2; do
  wait_pong "$ADDR" "${TCP[$i]}" || { echo "bench-cluster: node $i did not start" >&2; exit 1; }
done
src/redis-cli --rdma --cluster create "$ADDR:${RDMA[0]}" "$ADDR:${RDMA[1]}" "$ADDR:${RDMA[2]}" \
  --cluster-yes >"$work/create.log" 2>&1 || { cat "$work/create.log" >&2; exit 1; }
info() { src/redis-cli -h "$ADDR" -p "${TCP[0]}" cluster info | tr -d '\r' | awk -F: -v k="$1" '$1 == k {print $2}'; }
for _ in $(seq 150); do
  [ "$(info cluster_state)" = ok ] && [ "$(info cluster_links_rdma)" = 4 ] && break
  sleep 0.2
done
[ "$(info cluster_state)" = ok ] || { echo "bench-cluster: the cluster never became ok" >&2; exit 1; }

declare -A res
cases=("set -P 1" "get -P 1" "set -P 16" "get -P 16")
for round in $(seq "$ROUNDS"); do
  for t in tcp rdma; do
    for c in "${cases[@]}"; do
      read -r test pflag p <<<"$c"
      flags=(-h "$ADDR" -p "${TCP[0]}")
      [ $t = rdma ] && flags=(-h "$ADDR" -p "${RDMA[0]}" --rdma)
      line=$(src/redis-benchmark "${flags[@]}" --cluster -t "$test" -n "$N" -c 10 "$pflag" "$p" \
        -r 10000 -d 3 --csv 2>/dev/null | tail -n 1 | tr -d '"')
      res[$t,$c,$round]=$(awk -F, '{print $2, $5}' <<<"$line")
      echo "round $round cluster $t $c: ${res[$t,$c,$round]}" >&2
    done
  done
done
field() { for r in $(seq "$ROUNDS"); do awk -v k="$3" '{print $k}' <<<"${res[$1,$2,$r]}"; done | median; }

echo "## Cluster: redis-benchmark --cluster over RDMA against TCP"
echo
echo "Three of our masters in the VM (utils/rxe-vm/bench-cluster.sh), each with a TCP and"
echo "an RDMA port, their bus over RDMA (cluster-bus-transport rdma), created by our"
echo "redis-cli --cluster create --rdma. Our redis-benchmark --cluster (one thread per"
echo "master, hash-tagged keys), -c 10, $N requests per run, -r 10000 -d 3, $ROUNDS"
echo "alternating rounds, medians. Ratio = RDMA / TCP."
echo
echo "| case | TCP ops/s | RDMA ops/s | ratio | TCP p50 ms | RDMA p50 ms |"
echo "|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  to=$(field tcp "$c" 1); ro=$(field rdma "$c" 1)
  ratio=$(awk -v a="$ro" -v b="$to" 'BEGIN {printf (b > 0 ? "%.2f" : "-"), a / b}')
  echo "| $c | $to | $ro | $ratio | $(field tcp "$c" 2) | $(field rdma "$c" 2) |"
done
