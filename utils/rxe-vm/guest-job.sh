#!/bin/bash
# Runs inside the rxe VM, chrooted into the overlay of the host's root, as
# root. Started by the VM's /init with stdout/stderr on the VM's output ports.
# run.sh copies it into the job folder, which /init mounts at /run/rxe-job:
#   cmd      bash source defining the array `cmd` (the command to run)
#   env      bash source exporting the variables the caller passed
#   cwd      the caller's working directory (one line)
#   shell    if present: start an interactive shell instead of `cmd`
# Sets up the soft-RoCE device, then runs the command; its exit status is
# this script's exit status. Set-up failures exit 125 and write
# /run/rxe-job/setup_failed so run.sh can tell them from the command's 125.
set -u
job=/run/rxe-job
date +%s.%N >"$job/started"
echo "rxe-vm job: started" >/dev/kmsg

setup_fail() {
  echo "rxe-vm: guest set-up failed: $*" >&2
  echo "$*" >"$job/setup_failed"
  exit 125
}

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root
# Kernel and loader interfaces that the host's tools expect.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd

# /init brought up dummy0 with 10.99.0.1/24 (rdma_cm cannot route over lo).
rdma link add rxe0 type rxe netdev dummy0 ||
  setup_fail "rdma link add rxe0 type rxe netdev dummy0 ($(dmesg | grep -i rxe | tail -n 2))"
ulimit -l unlimited || setup_fail "ulimit -l unlimited"
ulimit -n 65536 2>/dev/null || true

echo "rxe-vm job: rxe0 ready" >/dev/kmsg
export RXE_VM=1 RXE_VM_ADDR=10.99.0.1 RXE_VM_DEVICE=rxe0 RXE_VM_NETDEV=dummy0
# shellcheck source=/dev/null
. "$job/env" || setup_fail "reading the environment file"
IFS= read -r cwd <"$job/cwd"
cd "$cwd" || setup_fail "cd $cwd: not visible inside the VM"

if [ -e "$job/shell" ]; then
  echo "rxe-vm: interactive shell; rxe0 on dummy0 10.99.0.1; 'exit' powers off"
  exec bash -i
fi

# shellcheck source=/dev/null
. "$job/cmd" || setup_fail "reading the command file"
# Not exec: /init needs the status, and bash returns 127/126 for a command
# that is missing or not executable, as a shell would.
# shellcheck disable=SC2154 # cmd comes from the sourced file
"${cmd[@]}"
