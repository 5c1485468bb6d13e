#!/usr/bin/env bash
# `make bench-rdma`: our redis-benchmark over RDMA against over TCP, for the
# same server, inside the soft-RoCE VM (utils/rxe-vm/bench-in-vm.sh).
# Writes BENCHMARKS-RDMA.md. Exit 77 when the VM cannot be had here.
set -uo pipefail
cd "$(dirname "$0")/../.."
mkdir -p tests/tmp
out=tests/tmp/bench-rdma.md
rm -f "$out"
# 3 GiB: the replication section (bench-repl.sh) holds its data set twice,
# plus the RDB and the replica's copy of it, in the VM's RAM.
utils/rxe-vm/run.sh --timeout 1800 --mem 3072 --env BENCH_N="${BENCH_N:-20000}" --env BENCH_ROUNDS="${BENCH_ROUNDS:-3}" \
  --env BENCH_PIPE_N="${BENCH_PIPE_N:-200000}" \
  --env BENCH_REPL_KEYS="${BENCH_REPL_KEYS:-50000}" --env BENCH_REPL_SIZE="${BENCH_REPL_SIZE:-1000}" \
  --env BENCH_REPL_STREAM_N="${BENCH_REPL_STREAM_N:-30000}" --env BENCH_REPL_ROUNDS="${BENCH_REPL_ROUNDS:-3}" \
  --env BENCH_CLUSTER_N="${BENCH_CLUSTER_N:-20000}" --env BENCH_CLUSTER_ROUNDS="${BENCH_CLUSTER_ROUNDS:-3}" -- \
  bash -c "utils/rxe-vm/bench-in-vm.sh > $out"
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$out" ]; then
  echo "bench-rdma: the VM run failed (exit $rc)" >&2
  exit $(( rc == 0 ? 1 : rc ))
fi
cp "$out" BENCHMARKS-RDMA.md
cat BENCHMARKS-RDMA.md
