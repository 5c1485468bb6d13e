#!/usr/bin/env bash
# Runs one command inside a throw-away VM (Debian's kernel under qemu) where a
# soft-RoCE device rxe0 sits on dummy0 with address 10.99.0.1/24.
#
# Usage: utils/rxe-vm/run.sh [OPTIONS] -- CMD [ARGS...]
#   --timeout S       kill the VM after S seconds and exit 124 (default 600)
#   --mem MB          guest memory (default 2048)
#   --smp N           guest CPUs (default 2)
#   --env NAME        pass the caller's variable NAME (repeatable)
#   --env NAME=VALUE  set NAME in the guest (repeatable)
#   --out DIR         writable share: what the command writes under DIR is on
#                     the host afterwards (repeatable; REPO/tests/tmp always is)
#   --timing          print boot and run times to stderr at the end
#   --shell           interactive shell on this terminal instead of CMD (no
#                     time limit; 'exit N' powers off and run.sh exits N)
#   --keep            keep the job folder (console.log, qemu.log) for debugging
#
# Inside the VM: the host's whole file system (read-only 9p, under a RAM
# overlay, so writes elsewhere succeed but vanish), the same working
# directory, PATH=/usr/local/sbin:...:/bin, HOME=/root, RLIMIT_MEMLOCK and
# RLIMIT_NOFILE raised, running as root, and RXE_VM=1 RXE_VM_ADDR=10.99.0.1
# RXE_VM_DEVICE=rxe0 RXE_VM_NETDEV=dummy0. Passed through from the caller:
# LANG LC_ALL TZ, the --env names, and the names listed in $RXE_VM_ENV
# (space-separated). The VM has no network card.
#
# CMD's stdout and stderr arrive live on run.sh's stdout and stderr.
# Exit status: CMD's own; 124 timeout; 77 the VM cannot be had here (no qemu,
# no kernel package; said loudly); 125 the harness failed (VM did not boot,
# set-up failed: the reason and the console's last lines go to stderr);
# 2 bad usage.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${RXE_VM_CACHE:-$repo/.cache/rxe-vm}

usage() {
  sed -n '/^# Usage:/,/^# *--keep/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
die() {
  echo "rxe-vm: $*" >&2
  exit 125
}

timeout_s=600 mem=2048 smp=2 timing=0 shell=0 keep=0
env_names=(LANG LC_ALL TZ)
env_sets=()
outs=("$repo/tests/tmp")
read -r -a extra_names <<<"${RXE_VM_ENV:-}"
env_names+=("${extra_names[@]}")
while [ $# -gt 0 ]; do
  case "$1" in
    --timeout) timeout_s=${2:?--timeout needs seconds}; shift 2 ;;
    --mem) mem=${2:?--mem needs MB}; shift 2 ;;
    --smp) smp=${2:?--smp needs a count}; shift 2 ;;
    --env)
      case "${2:?--env needs NAME or NAME=VALUE}" in
        *=*) env_sets+=("$2") ;;
        *) env_names+=("$2") ;;
      esac
      shift 2
      ;;
    --out) outs+=("${2:?--out needs a folder}"); shift 2 ;;
    --timing) timing=1; shift ;;
    --shell) shell=1; shift ;;
    --keep) keep=1; shift ;;
    --) shift; break ;;
    -h | --help) usage ;;
    *) echo "rxe-vm: unknown option '$1'" >&2; usage ;;
  esac
done
[ $# -gt 0 ] || [ "$shell" = 1 ] || usage
for n in "$timeout_s" "$mem" "$smp"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "rxe-vm: '$n' is not a positive number" >&2; exit 2; }
done

# Exit 77 (skip) passes through; anything else from prepare is our failure.
prep_rc=0
"$here/prepare.sh" || prep_rc=$?
[ "$prep_rc" = 0 ] || { [ "$prep_rc" = 77 ] && exit 77; die "prepare.sh failed (exit $prep_rc)"; }
kver=$(cat "$cache/current")
kernel=$cache/$kver/vmlinuz
initrd=$cache/$kver/initrd.gz

# Job folders of run.sh processes that were SIGKILLed (no trap ran) are
# removed by the next run: each folder names its owner's pid.
for stale in "${TMPDIR:-/tmp}"/rxe-vm.*/owner; do
  [ -f "$stale" ] || continue
  read -r owner <"$stale" || continue
  if [[ "$owner" =~ ^[0-9]+$ ]] && ! kill -0 "$owner" 2>/dev/null; then rm -rf "${stale%/owner}"; fi
done
job=$(mktemp -d "${TMPDIR:-/tmp}/rxe-vm.XXXXXX")
echo $$ >"$job/owner"
qpid='' spid='' tails=()
cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
    kill -TERM "$qpid" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$qpid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$qpid" 2>/dev/null || true
    wait "$qpid" 2>/dev/null || true
  fi
  [ -z "$spid" ] || kill "$spid" 2>/dev/null || true
  for t in "${tails[@]}"; do kill "$t" 2>/dev/null || true; done
  if [ "$keep" = 1 ]; then echo "rxe-vm: job folder kept: $job" >&2; else rm -rf "$job"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# The job folder: what the guest's /init and guest-job.sh read (see there).
cp "$here/guest-job.sh" "$job/guest-job.sh"
{
  printf 'cmd=('
  printf ' %q' "$@"
  printf ' )\n'
} >"$job/cmd"
{
  for name in "${env_names[@]}"; do
    [[ "$name" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || { echo "rxe-vm: bad variable name '$name'" >&2; exit 2; }
    if [ -n "${!name+set}" ]; then printf 'export %s=%q\n' "$name" "${!name}"; fi
  done
  for set in "${env_sets[@]}"; do
    name=${set%%=*}
    [[ "$name" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || { echo "rxe-vm: bad variable name '$name'" >&2; exit 2; }
    printf 'export %s=%q\n' "$name" "${set#*=}"
  done
} >"$job/env"
printf '%s\n' "$PWD" >"$job/cwd"
if [ "$shell" = 1 ]; then touch "$job/shell"; fi

# qemu's -virtfs takes comma-separated options: a comma in a path is ",,".
qarg() { printf '%s' "${1//,/,,}"; }
shares=(-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
  -virtfs "local,path=$(qarg "$job"),mount_tag=job,security_model=none,multidevs=remap")
: >"$job/mounts"
i=0
for dir in "${outs[@]}"; do
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd -P)
  [[ "$dir" != *$'\n'* ]] || die "--out folder name has a newline"
  shares+=(-virtfs "local,path=$(qarg "$dir"),mount_tag=out$i,security_model=none,multidevs=remap")
  printf 'out%d %s\n' "$i" "$dir" >>"$job/mounts"
  i=$((i + 1))
done

: >"$job/stdout.log"
: >"$job/stderr.log"
if [ "$shell" = 1 ]; then
  console=(-serial mon:stdio)
else
  console=(-serial "file:$(qarg "$job/console.log")")
fi
read -r -a qemu_extra <<<"${RXE_VM_QEMU_ARGS:-}" # debugging only, word-split
# No network card (-nic none): the guest's 10.99.0.1 exists only in its kernel.
# Nested KVM does not boot this guest on the CI machines: software emulation.
# shellcheck disable=SC2054 # the commas are qemu's, inside single arguments
qemu=(qemu-system-x86_64 -nodefaults -no-user-config -accel tcg,thread=multi -cpu max
  -smp "$smp" -m "$mem" -display none -no-reboot -nic none
  -kernel "$kernel" -initrd "$initrd"
  -append "console=ttyS0 panic=-1 ${RXE_VM_KARGS:-quiet loglevel=3} mitigations=off"
  "${console[@]}" "${shares[@]}"
  "${qemu_extra[@]}"
  -device virtio-serial-pci
  -chardev "file,id=so,path=$(qarg "$job/stdout.log")" -device virtserialport,chardev=so,name=stdout
  -chardev "file,id=se,path=$(qarg "$job/stderr.log")" -device virtserialport,chardev=se,name=stderr)

# If run.sh itself is killed (SIGKILL, no trap), the kernel kills qemu too.
orphan_guard=()
if setpriv --help 2>/dev/null | grep -q -- --pdeathsig; then orphan_guard=(setpriv --pdeathsig KILL --); fi

t0=$(date +%s.%N)
if [ "$shell" = 1 ]; then
  # In the foreground, so the terminal is qemu's (a background job's stdin
  # would be /dev/null); no time limit.
  "${orphan_guard[@]}" "${qemu[@]}" 2>"$job/qemu.log" || true
  [ -s "$job/status" ] || { keep=1; die "the VM stopped without a status; see console.log, qemu.log"; }
  exit "$(cat "$job/status")"
fi
"${orphan_guard[@]}" "${qemu[@]}" </dev/null 2>"$job/qemu.log" &
qpid=$!
# Live output: follow the port files until qemu is gone, then drain them.
tail -q -c +1 -s 0.2 --pid="$qpid" -f "$job/stdout.log" &
tails+=($!)
tail -q -c +1 -s 0.2 --pid="$qpid" -f "$job/stderr.log" >&2 &
tails+=($!)
"${orphan_guard[@]}" sleep "$timeout_s" &
spid=$!
finished=''
wait -n -p finished "$qpid" "$spid" || true
t1=$(date +%s.%N)
if [ "$finished" = "$spid" ]; then
  spid=''
  kill -KILL "$qpid" 2>/dev/null || true
  wait "$qpid" 2>/dev/null || true
  qpid=''
  for t in "${tails[@]}"; do wait "$t" 2>/dev/null || true; done
  tails=()
  echo "rxe-vm: TIMEOUT: the command did not finish within ${timeout_s} s; the VM was killed." >&2
  if [ ! -f "$job/started" ]; then
    echo "rxe-vm: the VM had not even started the command (still booting: host overloaded or out of memory?)" >&2
  fi
  exit 124
fi
qpid=''
kill "$spid" 2>/dev/null || true
spid=''
for t in "${tails[@]}"; do wait "$t" 2>/dev/null || true; done
tails=()

if [ "$timing" = 1 ]; then
  if [ -f "$job/started" ]; then
    started=$(stat -c %.3Y "$job/started")
    awk -v a="$t0" -v b="$started" -v c="$t1" \
      'BEGIN { printf "rxe-vm: boot %.1f s, command %.1f s, total %.1f s\n", b - a, c - b, c - a }' >&2
  else
    awk -v a="$t0" -v c="$t1" 'BEGIN { printf "rxe-vm: total %.1f s (the job never started)\n", c - a }' >&2
  fi
fi

if [ -f "$job/setup_failed" ]; then
  echo "rxe-vm: the VM's set-up failed: $(cat "$job/setup_failed")" >&2
  tail -n 20 "$job/console.log" 2>/dev/null >&2 || true
  exit 125
fi
if [ ! -s "$job/status" ]; then
  echo "rxe-vm: the VM stopped without reporting the command's exit status." >&2
  echo "rxe-vm: --- qemu ($kver) ---" >&2
  tail -n 20 "$job/qemu.log" >&2 || true
  echo "rxe-vm: --- console, last lines ---" >&2
  tail -n 30 "$job/console.log" 2>/dev/null >&2 || true
  exit 125
fi
status=$(cat "$job/status")
[[ "$status" =~ ^[0-9]+$ ]] || die "bad status '$status' from the VM"
exit "$status"
