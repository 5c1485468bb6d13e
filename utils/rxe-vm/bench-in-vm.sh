#!/usr/bin/env bash
# Runs INSIDE the soft-RoCE VM (utils/rxe-vm/run-bench.sh starts it): one
# server listening on TCP and RDMA at the VM's rxe address, and our
# redis-benchmark against it over each transport, alternating, in the same
# run. Prints a Markdown table on stdout. Builds nothing.
# Knobs: BENCH_N (requests per run, default 20000), BENCH_ROUNDS (default 3).
set -euo pipefail
cd "$(dirname "$0")/../.."
ADDR=${RXE_VM_ADDR:-10.99.0.1}
N=${BENCH_N:-20000}
ROUNDS=${BENCH_ROUNDS:-3}
TCP_PORT=6379
RDMA_PORT=6380
work=$(mktemp -d)
src/redis-server --port $TCP_PORT --bind "$ADDR" --rdma-port $RDMA_PORT --rdma-bind "$ADDR" \
  --save "" --protected-mode no --logfile "$work/server.log" &
srv=$!
trap 'kill -9 $srv 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  src/redis-cli -h "$ADDR" -p $TCP_PORT ping >/dev/null 2>&1 && break
  sleep 0.2
done

declare -A res
cases=("ping -c 1 -P 1" "get -c 1 -P 1" "set -c 1 -P 1" "get -c 10 -P 1" "get -c 10 -P 16")
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for round in $(seq "$ROUNDS"); do
  for t in tcp rdma; do
    for c in "${cases[@]}"; do
      read -r test args <<<"$c"
      [ "$test" = ping ] && test=ping_mbulk
      flags=(-h "$ADDR" -p $TCP_PORT)
      [ $t = rdma ] && flags=(-h "$ADDR" -p $RDMA_PORT --rdma)
      # shellcheck disable=SC2086
      line=$(src/redis-benchmark "${flags[@]}" -t "$test" -n "$N" -r 10000 -d 3 --csv $args |
        tail -n 1 | tr -d '"')
      # "test","rps","avg","min","p50","p95","p99","max"
      res[$t,$c,$round]=$(awk -F, '{print $2, $5, $7}' <<<"$line")
      echo "round $round $t $c: ${res[$t,$c,$round]}" >&2
    done
  done
done

field() { for r in $(seq "$ROUNDS"); do awk -v k="$3" '{print $k}' <<<"${res[$1,$2,$r]}"; done | median; }
echo "# RDMA benchmark (soft-RoCE, functional)"
echo
echo "Produced by \`make bench-rdma\` (utils/rxe-vm/run-bench.sh) on $(date -u '+%Y-%m-%d %H:%M UTC'),"
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
echo
echo "**Not a hardware figure.** Both transports run inside a qemu VM without hardware"
echo "virtualisation (CPU emulation), RDMA through the kernel's software RoCE driver (rxe)"
echo "on a dummy netdev. It shows that the RDMA path works end to end under load and how it"
echo "compares with TCP on the same emulated machine; on RDMA NICs the ratios differ."
echo
echo "One server listening on both; our redis-benchmark, $N requests per run, -r 10000 -d 3,"
echo "$ROUNDS alternating rounds, medians. Ratio = RDMA / TCP."
echo
echo "| case | TCP ops/s | RDMA ops/s | ratio | TCP p50 ms | RDMA p50 ms | TCP p99 ms | RDMA p99 ms |"
echo "|---|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  to=$(field tcp "$c" 1); ro=$(field rdma "$c" 1)
  ratio=$(awk -v a="$ro" -v b="$to" 'BEGIN {printf (b > 0 ? "%.2f" : "-"), a / b}')
  echo "| $c | $to | $ro | $ratio | $(field tcp "$c" 2) | $(field rdma "$c" 2) | $(field tcp "$c" 3) | $(field rdma "$c" 3) |"
done
