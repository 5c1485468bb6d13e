#!/bin/busybox sh
# /init of the rxe VM's initramfs (busybox sh; packed by prepare.sh).
#
# Contract with run.sh (the host side):
#   - 9p tag "hostroot": the host's / (read-only); becomes the lower layer of
#     an overlay that is the guest's root, so the guest runs the host's own
#     binaries and libraries while writes stay in guest RAM.
#   - 9p tag "job": a writable per-run folder holding guest-job.sh, the
#     command, the environment and "mounts" (lines "TAG HOSTPATH": extra
#     writable 9p shares to mount over HOSTPATH inside the overlay). Mounted
#     at /run/rxe-job inside the new root. "shell" present: interactive mode.
#   - virtio-serial ports named "stdout" and "stderr" carry the job's output;
#     /init writes the job's exit status to the job folder's "status" file.
# Anything that goes wrong here is printed on the console (ttyS0), which
# run.sh keeps in console.log and shows when no status comes back.

/bin/busybox mkdir -p /proc /sys /dev /bin /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev

# Progress marks in the kernel log (info level: on the console only when
# run.sh is given verbose kernel arguments).
mark() { echo "rxe-vm init: $*" >/dev/kmsg; }

fail() {
  echo "rxe-vm init: $*" >/dev/console
  poweroff -f
  sleep 5
}

# modules.order lists the .ko files with each one's dependencies first.
while read -r ko; do
  insmod "/modules/$ko" || fail "insmod $ko failed"
done </modules.order
mark "modules loaded"

# 9p needs the virtio transport to have probed; it has by the time insmod returns.
mkdir -p /lower /rw /newroot /job
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 job /job || fail "mount job share failed"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro hostroot /lower ||
  fail "mount hostroot share failed"
mount -t tmpfs -o mode=0755 rw /rw
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay /newroot ||
  fail "mount overlay root failed"
mark "root mounted"

# The host's /proc, /sys, /dev, /run are meaningless here: cover them.
mount -t proc proc /newroot/proc
mount -t sysfs sys /newroot/sys
mount -t configfs configfs /newroot/sys/kernel/config 2>/dev/null
mount -t devtmpfs dev /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts /newroot/dev/pts
mount -t tmpfs -o mode=1777 shm /newroot/dev/shm
mount -t tmpfs -o mode=0755 run /newroot/run
mkdir -p /newroot/run/rxe-job
mount --move /job /newroot/run/rxe-job || fail "move job share failed"

# Writable result folders, mounted over their host path inside the overlay.
if [ -f /newroot/run/rxe-job/mounts ]; then
  while read -r tag path; do
    [ -n "$tag" ] || continue
    mkdir -p "/newroot$path"
    mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 "$tag" "/newroot$path" ||
      fail "mount $tag on $path failed"
  done </newroot/run/rxe-job/mounts
fi

# Find the output ports by name (no udev here to make /dev/virtio-ports/).
port_dev() {
  for p in /sys/class/virtio-ports/*; do
    if [ "$(cat "$p/name" 2>/dev/null)" = "$1" ]; then
      echo "/dev/${p##*/}"
      return 0
    fi
  done
  return 1
}

# The network soft-RoCE rides on, set up here with busybox (host tools start
# slowly over 9p). rdma_cm cannot route over lo, hence dummy0; the VM has no
# network card, so 10.99.0.1 exists only in this kernel. guest-job.sh adds
# rxe0 (that needs the host's `rdma` tool).
ip link set lo up || fail "ip link set lo up failed"
ip link show dummy0 >/dev/null 2>&1 || ip link add dummy0 type dummy ||
  fail "ip link add dummy0 type dummy failed"
ip link set dummy0 up || fail "ip link set dummy0 up failed"
ip addr add 10.99.0.1/24 dev dummy0 || fail "ip addr add 10.99.0.1/24 dev dummy0 failed"

mark "starting the job"
if [ -f /newroot/run/rxe-job/shell ]; then
  setsid -c chroot /newroot /bin/bash /run/rxe-job/guest-job.sh \
    </dev/ttyS0 >/dev/ttyS0 2>&1
  status=$?
else
  out=$(port_dev stdout) || fail "no stdout port"
  err=$(port_dev stderr) || fail "no stderr port"
  chroot /newroot /bin/bash /run/rxe-job/guest-job.sh </dev/null >"$out" 2>"$err"
  status=$?
fi
echo "$status" >/newroot/run/rxe-job/status
mark "job exited with status $status"

# 9p writes are synchronous; unmounting still makes sure nothing is pending.
sync
if [ -f /newroot/run/rxe-job/mounts ]; then
  while read -r tag path; do
    [ -n "$tag" ] && umount "/newroot$path" 2>/dev/null
  done </newroot/run/rxe-job/mounts
fi
umount /newroot/run/rxe-job 2>/dev/null
poweroff -f
