#!/bin/sh
# Starts SERVER with syslog-enabled yes and its ident/facility, with a
# capture socket standing in for /dev/log, and prints what reached it.
# Meant to run inside tests/support/in_container.sh (it replaces /dev with
# a tmpfs holding the capture socket and the device nodes the server uses).
# Usage: syslog_check.sh SERVER CLI PORT
server=$1
cli=$2
port=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /run/olddev
mount --bind /dev /run/olddev
mount -t tmpfs tmpfs /dev
for n in null zero random urandom; do
  touch /dev/$n
  mount --bind /run/olddev/$n /dev/$n
done
python3 "$here/dgram_capture.py" /dev/log /run/syslog.out 2 &
capture=$!
i=0
while [ $i -lt 100 ] && ! grep -q listening /run/syslog.out 2>/dev/null; do
  sleep 0.05
  i=$((i + 1))
done
"$server" --port "$port" --bind 127.0.0.1 --save "" --logfile /run/server.log \
  --syslog-enabled yes --syslog-ident testident --syslog-facility local3 &
pid=$!
i=0
while [ $i -lt 100 ] && [ "$("$cli" -p "$port" ping 2>/dev/null)" != PONG ]; do
  sleep 0.1
  i=$((i + 1))
done
"$cli" -p "$port" shutdown nosave >/dev/null 2>&1
wait $pid
wait $capture
echo "pid=$pid"
cat /run/syslog.out
