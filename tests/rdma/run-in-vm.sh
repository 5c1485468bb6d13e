#!/usr/bin/env bash
# The RDMA suite, run INSIDE the soft-RoCE VM with the repository root as the
# working directory:
#   utils/rxe-vm/run.sh --timeout 1500 -- tests/rdma/run-in-vm.sh
# It runs the RDMA unit tests (build/unit-tests, gtest filter *rdma*/*Rdma*),
# the Tcl files tests/rdma/*.tcl (./runtest --tags needs:rdma), and four of
# them again with I/O threads serving every client (--io-threads 4), on
# binaries already built on the host: it builds nothing. A missing binary
# counts as one failure. The last line sums both parts:
#   N passed, M failed, K skipped
# Exit status: 0 when nothing failed and something passed, 1 otherwise.
# RDMA_TEST_ADDR (default $RXE_VM_ADDR, else 10.99.0.1) is the address the
# Tcl files bind and connect to; RDMA_TCL_TIMEOUT the per-file limit (s);
# RDMA_TCL_CLIENTS how many files run at once (default 2, one per VM CPU:
# every file starts its own servers on free ports, and under emulation the
# suite spends most of its time waiting on one CPU; 640 s with 1, 360 s with
# 2 in the same VM).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

export RDMA_TEST_ADDR=${RDMA_TEST_ADDR:-${RXE_VM_ADDR:-10.99.0.1}}
logdir=tests/tmp/logs
mkdir -p "$logdir"
pass=0 fail=0 skip=0
start=$(date +%s)

# Last "[  PASSED  ] N" / "[  FAILED  ] N tests," / "[  SKIPPED ] N" of a gtest log.
gtest_count() {  # label log
  grep -aoE "^\\[  $1 *\\] [0-9]+" "$2" | grep -oE '[0-9]+$' | tail -n 1
}

echo "=== rdma unit tests: build/unit-tests --gtest_filter='*rdma*:*Rdma*'"
if [ -x build/unit-tests ]; then
  log=$logdir/rdma-unit.log
  build/unit-tests --gtest_brief=1 --gtest_filter='*rdma*:*Rdma*' 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  p=$(gtest_count PASSED "$log")
  f=$(gtest_count FAILED "$log")
  s=$(gtest_count SKIPPED "$log")
  if [ -z "$p" ] && [ -z "$f" ]; then
    echo "=== rdma unit tests: no gtest summary (exit $rc): counted as one failure"
    f=1
  elif [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
    echo "=== rdma unit tests exited $rc with no failed test: counted as one failure"
    f=1
  fi
  echo "=== rdma unit tests: ${p:-0} passed, ${f:-0} failed, ${s:-0} skipped"
  pass=$((pass + ${p:-0})) fail=$((fail + ${f:-0})) skip=$((skip + ${s:-0}))
else
  echo "=== build/unit-tests not built (make build/unit-tests on the host): one failure"
  fail=$((fail + 1))
fi

# One ./runtest run over RDMA files, counted into the totals: rdma_tcl
# SUFFIX ARGS... (the log is rdma-tcl[-SUFFIX].log).
rdma_tcl() {
  local suffix=$1 log line rc p f s
  shift
  log=$logdir/rdma-tcl${suffix:+-$suffix}.log
  ./runtest --tags "needs:rdma" --clients "${RDMA_TCL_CLIENTS:-2}" --timeout "${RDMA_TCL_TIMEOUT:-600}" "$@" 2>&1 |
    tee "$log"
  rc=${PIPESTATUS[0]}
  line=$(grep -aE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -n 1)
  if [ -z "$line" ]; then
    echo "=== rdma tcl tests${suffix:+ ($suffix)}: no summary line (exit $rc): counted as one failure"
    fail=$((fail + 1))
    return
  fi
  read -r p _ f _ s _ <<<"${line//,/}"
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "=== rdma tcl tests${suffix:+ ($suffix)} exited $rc with no failed test: counted as one failure"
    f=1
  fi
  pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
}

echo "=== rdma tcl tests: ./runtest --tags needs:rdma over tests/rdma/*.tcl"
singles=()
for f in tests/rdma/*.tcl; do singles+=(--single "$f"); done
missing=''
for bin in src/redis-server src/redis-cli src/rdma-test-peer; do
  [ -x "$bin" ] || missing="$missing $bin"
done
if [ -n "$missing" ]; then
  echo "=== not built:$missing (run make on the host): one failure"
  fail=$((fail + 1))
elif [ ${#singles[@]} -eq 0 ]; then
  echo "=== no tests/rdma/*.tcl files: one failure"
  fail=$((fail + 1))
else
  rdma_tcl "" "${singles[@]}"
  # The threaded pass: a few files again on servers whose I/O threads serve
  # every client, RDMA connections included (io-threads 4, IO_THREADS_ALWAYS=1).
  threaded=()
  for f in blocking-pubsub tracking scripting acl; do
    threaded+=(--single "tests/rdma/$f.tcl")
  done
  rdma_tcl threads --io-threads 4 "${threaded[@]}"
fi

echo "=== rdma suite time: $(($(date +%s) - start)) s"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
