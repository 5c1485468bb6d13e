#!/usr/bin/env bash
# Installs the Debian 12 packages a make target needs, and nothing else.
# Usage: utils/install-deps.sh GROUP...   (groups: build test rdma-vm bench all)
# Idempotent and silent when every package is already there. deps/README.md
# says why each package is needed.
set -euo pipefail

build_pkgs=(g++ make pkg-config libjemalloc-dev libedit-dev liblzf-dev libibverbs-dev librdmacm-dev liblua5.1-0-dev lua-cjson-dev lua-bitop-dev libsystemd-dev libssl-dev)
test_pkgs=(tcl libgtest-dev libgmock-dev libhiredis-dev python3 python3-redis redis-tools redis-server redis-sentinel procps util-linux iproute2 openssl)
rdmavm_pkgs=(qemu-system-x86 busybox-static cpio kmod rdma-core ibverbs-providers iproute2 ibverbs-utils rdmacm-utils strace libcap2-bin)
bench_pkgs=(redis-server redis-tools valgrind util-linux procps strace python3 openssl perftest)

want=()
for group in "$@"; do
  case "$group" in
    build) want+=("${build_pkgs[@]}") ;;
    test) want+=("${test_pkgs[@]}") ;;
    rdma-vm) want+=("${rdmavm_pkgs[@]}") ;;
    bench) want+=("${bench_pkgs[@]}") ;;
    all) want+=("${build_pkgs[@]}" "${test_pkgs[@]}" "${rdmavm_pkgs[@]}" "${bench_pkgs[@]}") ;;
    *) echo "install-deps: unknown group '$group'" >&2; exit 2 ;;
  esac
done

missing=()
for pkg in "${want[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

# De-duplicate while keeping order.
readarray -t missing < <(printf '%s\n' "${missing[@]}" | awk '!seen[$0]++')
echo "install-deps: installing ${missing[*]}" >&2
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then sudo=(sudo); else
    echo "install-deps: not root and no sudo; install as root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
# Never let a package's maintainer script start a service (redis-server would
# take port 6379): policy-rc.d exit 101 forbids it for the length of the install.
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
  "${sudo[@]}" chmod +x "$policy"
  made_policy=1
fi
# An if, not `[ ] && ...`: an EXIT trap's last status becomes the script's, and
# a pre-existing policy-rc.d (as in container images) must not turn a good
# install into a failure.
cleanup() {
  if [ "$made_policy" = 1 ]; then "${sudo[@]}" rm -f "$policy"; fi
}
trap cleanup EXIT
if ! "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/install-deps.$$.log 2>&1; then
  "${sudo[@]}" apt-get update -q >>/tmp/install-deps.$$.log 2>&1 || true
  if ! "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >>/tmp/install-deps.$$.log 2>&1; then
    tail -n 30 /tmp/install-deps.$$.log >&2
    echo "install-deps: apt-get install failed (log: /tmp/install-deps.$$.log)" >&2
    exit 1
  fi
fi
rm -f /tmp/install-deps.$$.log
