#!/bin/sh
# Runs a command as if in a fresh container: private mount and network
# namespaces (unshare, needs root), the loopback up, and empty tmpfs over
# the directories a packaged Redis writes to (/run, /var/log/redis,
# /var/lib/redis), so a config naming them works unchanged and the host
# is not touched. Port 6379 in here is not the host's.
#
# Usage: in_container.sh COMMAND ARGS...   (exit 77 when namespaces are not
# available: not root, or no unshare/ip)
if [ "$1" != "--inside" ]; then
  [ "$(id -u)" = 0 ] || exit 77
  command -v unshare >/dev/null && command -v ip >/dev/null || exit 77
  unshare --mount --net true 2>/dev/null || exit 77
  exec unshare --mount --net --fork "$0" --inside "$@"
fi
shift
set -e
mount --make-rprivate / 2>/dev/null || true
mount -t tmpfs tmpfs /run
mkdir -p /run/redis /var/log/redis /var/lib/redis
mount -t tmpfs tmpfs /var/log/redis
mount -t tmpfs tmpfs /var/lib/redis
ip link set lo up
exec "$@"
