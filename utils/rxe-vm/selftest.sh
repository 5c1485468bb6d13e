#!/usr/bin/env bash
# Checks that real RDMA works in the rxe VM: boots it with run.sh and runs
# this same script inside (where RXE_VM=1), which checks the rxe0 link, the
# verbs device list, a verbs program built here from verbs-check.c, an rping
# server and client over 10.99.0.1 and, when perftest is installed,
# ib_write_lat. Prints each check, the boot and total times; exits 0 when
# all pass, 77 when the VM cannot be had, 1 otherwise.
# Usage: utils/rxe-vm/selftest.sh [--timeout S]   (default 240)
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

if [ "${RXE_VM:-}" != 1 ]; then
  # Host side. The verbs program goes to tests/tmp, which the VM shares.
  timeout_s=240
  [ "${1:-}" = --timeout ] && timeout_s=${2:?--timeout needs seconds}
  bin=$repo/tests/tmp/rxe-vm-selftest
  mkdir -p "$bin"
  if command -v cc >/dev/null && [ -f /usr/include/infiniband/verbs.h ]; then
    cc -std=c11 -O2 -Wall -Wextra -Werror -o "$bin/verbs-check" "$here/verbs-check.c" -libverbs ||
      { echo "selftest: building verbs-check failed" >&2; exit 1; }
  else
    rm -f "$bin/verbs-check"
  fi
  cd "$repo" || exit 1
  rc=0
  "$here/run.sh" --timing --timeout "$timeout_s" --env RXE_SELFTEST_BIN="$bin" -- "$here/selftest.sh" || rc=$?
  case $rc in
    0) echo "selftest: PASS" ;;
    77) echo "selftest: SKIPPED (no VM here)" ;;
    124) echo "selftest: FAIL (timeout)" ;;
    *) echo "selftest: FAIL (exit $rc)" ;;
  esac
  exit "$rc"
fi

# Inside the VM.
failures=0
check() {
  local what=$1
  shift
  if "$@"; then
    echo "ok   $what"
  else
    echo "FAIL $what"
    failures=$((failures + 1))
  fi
}
addr=${RXE_VM_ADDR:-10.99.0.1}
dev=${RXE_VM_DEVICE:-rxe0}
log=$(mktemp -d)

link_active() { rdma link show "$dev/1" | tee "$log/link" && grep -q 'state ACTIVE' "$log/link"; }
check "rdma link: $dev/1 ACTIVE on ${RXE_VM_NETDEV:-dummy0}" link_active

has_device() { ibv_devices | tee "$log/devices" && grep -qw "$dev" "$log/devices"; }
check "ibv_devices lists $dev" has_device

port_active() { ibv_devinfo -d "$dev" >"$log/devinfo" && grep -q 'PORT_ACTIVE' "$log/devinfo"; }
check "ibv_devinfo -d $dev: port active" port_active

gid_set() {
  # RoCE v2 GID of 10.99.0.1: ::ffff:10.99.0.1 (0a63:0001 in the low bits).
  grep -qs '0a63:0001' /sys/class/infiniband/"$dev"/ports/1/gids/*
}
check "GID table holds $addr" gid_set

if [ -x "${RXE_SELFTEST_BIN:-}/verbs-check" ]; then
  check "host-built verbs program (PD, 64 MiB MR, CQ, RC QP)" "$RXE_SELFTEST_BIN/verbs-check" "$dev"
else
  echo "skip host-built verbs program (no compiler or verbs headers on the host)"
fi

rping_pair() {
  local port=$((20000 + RANDOM % 10000))
  timeout 60 rping -s -a "$addr" -p "$port" -C 5 -S 64 >"$log/rping-server" 2>&1 &
  local server=$!
  # rping has no "listening" signal; retry the client until the server is up.
  local _
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    if timeout 60 rping -c -a "$addr" -p "$port" -C 5 -S 64 -v >"$log/rping-client" 2>&1; then
      break
    fi
    sleep 0.5
  done
  wait "$server" || {
    echo "rping server failed:"
    cat "$log/rping-server"
    return 1
  }
  cat "$log/rping-client"
  [ "$(grep -c 'ping data' "$log/rping-client")" -eq 5 ]
}
check "rping server+client on $addr (5 x 64 B)" rping_pair

if command -v ib_write_lat >/dev/null; then
  write_lat() {
    local port=$((20000 + RANDOM % 10000))
    timeout 60 ib_write_lat -d "$dev" -R -p "$port" -n 200 >"$log/lat-server" 2>&1 &
    local server=$! _
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      sleep 0.5
      timeout 60 ib_write_lat -d "$dev" -R -p "$port" -n 200 "$addr" >"$log/lat-client" 2>&1 && break
    done
    wait "$server" && tail -n 3 "$log/lat-client" && grep -q '^ *2 ' "$log/lat-client"
  }
  check "ib_write_lat -R over $addr" write_lat
else
  echo "skip ib_write_lat (perftest not installed)"
fi

if [ "$failures" -ne 0 ]; then
  echo "--- dmesg, last lines ---"
  dmesg | tail -n 20
  exit 1
fi
exit 0
