#!/bin/sh
# Starts SERVER with Debian's /etc/redis/redis.conf exactly as packaged
# (daemonize yes, pidfile /run/redis/redis-server.pid, logfile
# /var/log/redis/redis-server.log, dir /var/lib/redis, port 6379), then
# prints what a user would check, one "key=value" per line, and stops it.
# Meant to run inside tests/support/in_container.sh.
# Usage: debian_conf.sh SERVER CLI
server=$1
cli=$2
conf=/etc/redis/redis.conf
pidfile=/run/redis/redis-server.pid
"$server" "$conf"
echo "launcher_exit=$?"
i=0
while [ $i -lt 100 ]; do
  if [ -s $pidfile ] && [ "$("$cli" -p 6379 ping 2>/dev/null)" = PONG ]; then break; fi
  sleep 0.1
  i=$((i + 1))
done
pid=$(cat $pidfile 2>/dev/null)
echo "pid=$pid"
echo "ping=$("$cli" -p 6379 ping 2>&1)"
echo "ping6=$("$cli" -h ::1 -p 6379 ping 2>&1)"
echo "daemonize=$("$cli" -p 6379 config get daemonize | tail -n 1)"
echo "dir=$("$cli" -p 6379 config get dir | tail -n 1)"
echo "set=$("$cli" -p 6379 set debkey debvalue)"
echo "get=$("$cli" -p 6379 get debkey)"
echo "title=$(tr '\0' ' ' </proc/"$pid"/cmdline | sed 's/ *$//')"
echo "stdout=$(readlink /proc/"$pid"/fd/1)"
echo "thp=$(awk '/^THP_enabled/ {print $2}' /proc/"$pid"/status)"
"$cli" -p 6379 shutdown nosave >/dev/null 2>&1
i=0
while [ $i -lt 100 ] && kill -0 "$pid" 2>/dev/null; do
  sleep 0.1
  i=$((i + 1))
done
echo "running_after_shutdown=$(kill -0 "$pid" 2>/dev/null && echo yes || echo no)"
echo "pidfile_after_shutdown=$(test -e $pidfile && echo yes || echo no)"
echo "--- log"
cat /var/log/redis/redis-server.log
