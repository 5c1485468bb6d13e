#!/usr/bin/env bash
# Runs the test suites and prints one closing line that sums them all:
#   "N passed, M failed, K skipped"
# Usage: utils/run-tests.sh all|unit|tcl|tcl-threads|compat|rdma ...
# Each suite prints its own summary; a suite that cannot report counts (it
# crashed, or printed nothing) counts as one failure.
set -uo pipefail
cd "$(dirname "$0")/.."

total_pass=0 total_fail=0 total_skip=0
logdir=tests/tmp/logs
mkdir -p "$logdir"

add_counts() {  # suite-name pass fail skip
  printf '=== %s: %d passed, %d failed, %d skipped\n' "$1" "$2" "$3" "$4"
  total_pass=$((total_pass + $2))
  total_fail=$((total_fail + $3))
  total_skip=$((total_skip + $4))
}

# Reads the last "N passed, M failed[, K skipped]" line of a log.
summary_of() {
  grep -aE '^[A-Za-z-]*:? ?[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$1" | tail -n 1
}

run_counted() {  # name log cmd...
  local name=$1 log=$2
  shift 2
  echo "=== running $name: $*"
  "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local line p f s
  line=$(summary_of "$log")
  if [ -z "$line" ]; then
    echo "=== $name: no summary line (exit $rc): counted as one failure"
    add_counts "$name" 0 1 0
    return
  fi
  p=$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+')
  f=$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+')
  s=$(grep -oE '[0-9]+ skipped' <<<"$line" | grep -oE '[0-9]+' || echo 0)
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "=== $name exited $rc with no failed test: counted as one failure"
    f=1
  fi
  add_counts "$name" "$p" "$f" "${s:-0}"
}

suite_unit() {
  local log=$logdir/unit.log
  echo "=== running unit: build/unit-tests"
  build/unit-tests --gtest_brief=1 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local p f s
  p=$(grep -aoE '^\[  PASSED  \] [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -n1)
  # --gtest_brief=1 prints one "[  FAILED  ] Suite.Test (N ms)" line per
  # failed test and no "N tests, listed below" summary: count the names.
  f=$(grep -aoE '^\[  FAILED  \] [A-Za-z0-9_/]+\.[A-Za-z0-9_/]+' "$log" | sort -u | wc -l)
  s=$(grep -aoE '^\[  SKIPPED \] [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -n1)
  if [ -z "$p" ] && [ "$f" -eq 0 ]; then
    echo "=== unit: no gtest summary (exit $rc): counted as one failure"
    add_counts unit 0 1 0
    return
  fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "=== unit exited $rc with no failed test: counted as one failure"
    f=1
  fi
  add_counts unit "${p:-0}" "${f:-0}" "${s:-0}"
}

suite_tcl() { run_counted tcl "$logdir/tcl.log" ./runtest; }
# The threaded pass: every file of tests/unit (each type, MULTI, blocking,
# pub/sub, tracking, scripting, ...) again, with io-threads 4 serving every
# client. tests/integration is left out: the replication links it is about
# stay on the main thread whatever io-threads says.
suite_tcl_threads() {
  local files=() f
  for f in tests/unit/*.tcl tests/unit/*/*.tcl; do files+=(--single "$f"); done
  run_counted tcl-threads "$logdir/tcl-threads.log" ./runtest --io-threads 4 "${files[@]}"
}
suite_compat() { run_counted compat "$logdir/compat.log" tests/compat/run.sh src/redis-server; }
suite_rdma() {
  local log=$logdir/rdma.log
  echo "=== running rdma: the RDMA suite inside the soft-RoCE VM"
  utils/rxe-vm/run.sh --timeout 1500 -- tests/rdma/run-in-vm.sh 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 77 ]; then
    echo "!!! ================================================================== !!!"
    echo "!!! RDMA SUITE SKIPPED: the soft-RoCE VM could not be started here.    !!!"
    echo "!!! See the message above (qemu or the Debian kernel package missing). !!!"
    echo "!!! ================================================================== !!!"
    add_counts rdma 0 0 1
    return
  fi
  local line p f s
  line=$(summary_of "$log")
  if [ -z "$line" ]; then
    echo "=== rdma: no summary line (exit $rc): counted as one failure"
    add_counts rdma 0 1 0
    return
  fi
  p=$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+')
  f=$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+')
  s=$(grep -oE '[0-9]+ skipped' <<<"$line" | grep -oE '[0-9]+' || echo 0)
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  add_counts rdma "$p" "$f" "${s:-0}"
}

suites=("$@")
[ ${#suites[@]} -eq 0 ] && suites=(all)
[ "${suites[0]}" = all ] && suites=(unit tcl tcl-threads compat rdma)
start=$(date +%s)
for s in "${suites[@]}"; do
  case "$s" in
    unit) suite_unit ;;
    tcl) suite_tcl ;;
    tcl-threads) suite_tcl_threads ;;
    compat) suite_compat ;;
    rdma) suite_rdma ;;
    *) echo "run-tests: unknown suite '$s'" >&2; exit 2 ;;
  esac
done
# CI shows only the tail of this output: name every failure again here.
recap=$(for s in "${suites[@]}"; do
  f=$logdir/$s.log
  [ -f "$f" ] && grep -aE '^\[(err|exception|timeout|  FAILED  )\]' "$f" | sed "s/^/$s: /"
done | sort -u | head -n 40)
if [ -n "$recap" ]; then
  echo "=== failures, all suites:"
  echo "$recap"
fi
echo "=== total time: $(( $(date +%s) - start )) s"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
