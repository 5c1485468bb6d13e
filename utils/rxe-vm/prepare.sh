#!/usr/bin/env bash
# Prepares what the rxe VM boots: Debian's current kernel and a tiny
# initramfs (static busybox, the modules soft-RoCE needs, init.sh as /init).
#
# Usage: utils/rxe-vm/prepare.sh [-v]
# Idempotent: with everything cached it only checks and returns (well under
# 2 s). Results, in the cache folder ($RXE_VM_CACHE, default .cache/rxe-vm/
# at the repository root, ignored by git):
#   current                 the kernel version in use (one line)
#   VERSION/vmlinuz         the kernel
#   VERSION/initrd.gz       the initramfs
# Exit status: 0 ready; 77 the VM cannot be had here (no qemu, no kernel
# package), said loudly on stderr, so callers can report "skipped"; other
# non-zero: a real failure.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${RXE_VM_CACHE:-$repo/.cache/rxe-vm}
verbose=0
[ "${1:-}" = -v ] && verbose=1

say() { if [ "$verbose" = 1 ]; then echo "rxe-vm prepare: $*" >&2; fi; }
skip() {
  {
    echo "################################################################"
    echo "rxe-vm: SKIPPED: $*"
    echo "rxe-vm: RDMA tests in the VM cannot run on this machine."
    echo "################################################################"
  } >&2
  exit 77
}

# Modules soft-RoCE and the VM's plumbing need; modprobe resolves their
# dependencies and the load order. crc32_generic: rdma_rxe asks the crypto
# API for "crc32" only when a device is added, so nothing pulls it in, and
# without it `rdma link add` fails with ENOENT.
modules=(virtio_pci virtio_console 9pnet_virtio 9p overlay dummy configfs
  crc32_generic ib_uverbs rdma_rxe rdma_ucm)

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9 # Two callers at once (parallel test runs) must not build together.

if ! "$repo/utils/install-deps.sh" rdma-vm; then
  echo "rxe-vm prepare: installing packages failed; going on with what is there" >&2
fi
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not found (Debian package qemu-system-x86)"
for tool in busybox cpio depmod modprobe dpkg; do
  command -v "$tool" >/dev/null || skip "$tool not found (run utils/install-deps.sh rdma-vm)"
done
[ -x /bin/busybox ] || skip "/bin/busybox missing (Debian package busybox-static)"

# The current kernel per the package lists; the cached one when offline.
# apt-cache parses every list (about 1 s of CPU where apt keeps no binary
# cache), so its answer is remembered until the lists change.
lists=$(stat -c '%n %s %Y' /var/lib/apt/lists/*Packages* 2>/dev/null | sha256sum | cut -c1-16)
pkg=''
if [ -f "$cache/resolved" ] && [ "$(head -n 1 "$cache/resolved")" = "$lists" ]; then
  pkg=$(sed -n 2p "$cache/resolved")
fi
if [ -z "$pkg" ]; then
  pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
    awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }' || true)
  if [ -n "$pkg" ]; then printf '%s\n%s\n' "$lists" "$pkg" >"$cache/resolved"; fi
fi
if [ -z "$pkg" ]; then
  if [ -s "$cache/current" ]; then
    pkg=linux-image-$(cat "$cache/current")
    say "apt-cache cannot resolve linux-image-amd64; using cached $pkg"
  else
    skip "cannot resolve the Debian kernel package (apt-cache depends linux-image-amd64 failed; run apt-get update?)"
  fi
fi
kver=${pkg#linux-image-}
kdir=$cache/$kver

# The stamp covers everything the initramfs is made of, so editing init.sh
# or this script rebuilds it on the next run.
stamp=$(cat "$here/init.sh" "$here/prepare.sh" /bin/busybox | sha256sum | cut -c1-16)
if [ -f "$kdir/vmlinuz" ] && [ -f "$kdir/initrd.gz" ] && [ "$(cat "$kdir/stamp" 2>/dev/null)" = "$stamp" ]; then
  [ "$(cat "$cache/current" 2>/dev/null)" = "$kver" ] || echo "$kver" >"$cache/current"
  say "ready: $kver (cached)"
  exit 0
fi

mkdir -p "$cache/debs"
deb=$(find "$cache/debs" -maxdepth 1 -name "${pkg}_*_amd64.deb" | sort | tail -n 1)
if [ -z "$deb" ]; then
  echo "rxe-vm prepare: downloading $pkg" >&2
  # As root apt warns that _apt cannot write here; the download still works.
  if ! (cd "$cache/debs" && apt-get download -q "$pkg" >"$cache/download.log" 2>&1); then
    tail -n 5 "$cache/download.log" >&2
    rm -f "$cache/debs"/*.deb.partial 2>/dev/null || true
    skip "apt-get download $pkg failed (no network or mirror?)"
  fi
  deb=$(find "$cache/debs" -maxdepth 1 -name "${pkg}_*_amd64.deb" | sort | tail -n 1)
  [ -n "$deb" ] || skip "apt-get download $pkg produced no .deb"
fi

echo "rxe-vm prepare: building the initramfs for $kver" >&2
work=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
dpkg -x "$deb" "$work/x"
[ -d "$work/x/lib/modules/$kver" ] || {
  echo "rxe-vm prepare: $deb has no lib/modules/$kver" >&2
  exit 1
}
depmod -b "$work/x" "$kver"

root=$work/initramfs
mkdir -p "$root/bin" "$root/modules"
cp /bin/busybox "$root/bin/busybox"
install -m 0755 "$here/init.sh" "$root/init"
# -C /dev/null: the host's modprobe.d options (e.g. dummy numdummies=0) are
# not the guest's. "builtin" lines need no file.
for m in "${modules[@]}"; do
  modprobe -C /dev/null -d "$work/x" -S "$kver" --show-depends "$m" ||
    {
      echo "rxe-vm prepare: module $m not found in $pkg" >&2
      exit 1
    }
done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' >"$work/paths"
while read -r path; do
  name=${path##*/}
  case "$name" in
    *.ko) cp "$path" "$root/modules/$name" ;;
    *.ko.xz)
      name=${name%.xz}
      busybox unxz -c "$path" >"$root/modules/$name"
      ;;
    *.ko.zst)
      command -v zstd >/dev/null || skip "kernel modules are zstd-compressed and zstd is missing"
      name=${name%.zst}
      zstd -q -d -c "$path" >"$root/modules/$name"
      ;;
    *) skip "unknown module format $name" ;;
  esac
  echo "$name" >>"$root/modules.order"
done <"$work/paths"

rm -rf "$kdir.new"
mkdir -p "$kdir.new"
cp "$work/x/boot/vmlinuz-$kver" "$kdir.new/vmlinuz"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$kdir.new/initrd.gz"
echo "$stamp" >"$kdir.new/stamp"
rm -rf "$kdir"
mv "$kdir.new" "$kdir"
echo "$kver" >"$cache/current"

# Keep only the current kernel: each old one is tens of MB.
for old in "$cache"/*/; do
  old=${old%/}
  case "${old##*/}" in debs | "$kver") ;; *) [ -f "$old/stamp" ] && rm -rf "$old" ;; esac
done
find "$cache/debs" -maxdepth 1 -name '*.deb' ! -name "${pkg}_*" -delete
echo "rxe-vm prepare: ready: $kver ($(wc -l <"$root/modules.order") modules)" >&2
