# shellcheck shell=bash
# Shared by the `make bench` scripts (bench.sh, bench-scripting.sh,
# bench-rdb.sh, bench-cli.sh): sourced, after `cd` to the repository root.
#
#   bench_init TAG      makes the work folder $work (/tmp/TAG.XXXXXX); at exit
#                       it is removed and every server start_server started
#                       and stop_server did not stop is killed
#   free_port           a free loopback TCP port
#   start_server NAME LOG CMD...
#                       runs CMD (an optional wrapper such as taskset or
#                       valgrind, the server binary, extra options) with
#                       --port <free port> --bind 127.0.0.1 --save ""
#                       --appendonly no --logfile LOG in the background and
#                       waits until it answers PING with PONG (a large data
#                       set may take a while to load, valgrind to start):
#                       sets PORT and PID; exits 1 when it never answers
#   stop_server PORT PID SHUTDOWN NOSAVE, then waits for the process
#   median              the median of the numbers on stdin, one a line
#   ratio A B           A / B with two decimals ("-" when B is not above 0)
#   ratio3 A B          the same with three
#
#   instr_per_op BIN TEST [acl|tracking|replica]
#                       server instructions per request of redis-benchmark's
#                       TEST (get, set) under callgrind (bench.sh's table,
#                       bench-instr.sh)
#
#   round_order R       "ours redis" for odd rounds R, "redis ours" for even
#                       ones: a machine whose speed drifts within a round
#                       favours neither
#   server_bin SIDE     the binary of side "ours" or "redis"
#
# Also sets OURS, REDIS (the two servers), RB (Debian's redis-benchmark),
# RB_OURS (ours: the load generator of the tracking cases, since Debian's has
# no way to send CLIENT TRACKING ON on its connections), RCLI and PY, and SRV_CPU / GEN_CPU: servers are pinned to CPU 0, load
# generators to CPU 1 when there are at least two.

# shellcheck disable=SC2034  # used by the scripts that source this file
OURS=src/redis-server REDIS=/usr/bin/redis-server RB=/usr/bin/redis-benchmark
RB_OURS=src/redis-benchmark
RCLI=/usr/bin/redis-cli
PY=/usr/bin/python3
# shellcheck disable=SC2034  # used by the scripts that source this file
if [ "$(nproc)" -ge 2 ]; then SRV_CPU=0 GEN_CPU=1; else SRV_CPU=0 GEN_CPU=0; fi
# Tenths of a second start_server waits for PONG.
BENCH_START_TRIES=${BENCH_START_TRIES:-1200}

bench_pids=()
bench_cleanup() {
  local p
  for p in "${bench_pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
bench_init() {  # tag
  work=$(mktemp -d "/tmp/$1.XXXXXX")
  trap bench_cleanup EXIT
}

free_port() { $PY -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }

start_server() {  # name log cmd... -> sets PORT PID
  local name=$1 log=$2
  shift 2
  PORT=$(free_port)
  "$@" --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --logfile "$log" \
    >/dev/null 2>&1 &
  PID=$!
  bench_pids+=("$PID")
  for _ in $(seq "$BENCH_START_TRIES"); do
    if $RCLI -p "$PORT" ping 2>/dev/null | grep -q PONG; then return 0; fi
    sleep 0.1
  done
  echo "bench: $name did not start (log: $log)" >&2
  kill -9 "$PID" 2>/dev/null || true
  exit 1
}

stop_server() {  # port pid
  $RCLI -p "$1" shutdown nosave >/dev/null 2>&1 || true
  wait "$2" 2>/dev/null || true
  local p left=()
  for p in "${bench_pids[@]}"; do [ "$p" = "$2" ] || left+=("$p"); done
  bench_pids=("${left[@]}")
}

round_order() { if [ $(($1 % 2)) -eq 1 ]; then echo ours redis; else echo redis ours; fi; }
server_bin() { if [ "$1" = redis ]; then echo "$REDIS"; else echo "$OURS"; fi; }

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf (b > 0 ? "%.2f" : "-"), a / b}'; }
ratio3() { awk -v a="$1" -v b="$2" 'BEGIN {printf (b > 0 ? "%.3f" : "-"), a / b}'; }

# Instructions per request: callgrind over two request counts; the
# difference divided by the extra requests cancels start-up and shutdown.
# With "acl" as third argument the requests run as an ACL user whose rules
# allow every command but only the benchmark's keys (~key:*), so that the
# permission check (command bit and key pattern) is part of each request.
# With "tracking" they come from RESP3 connections with CLIENT TRACKING ON
# (our redis-benchmark, for both servers): every key read is remembered.
# With "replica" one replica of the same binary (outside callgrind) is in
# sync before the requests: the cost of building the replication stream.
instr_per_op() {  # binary test [acl|tracking|replica]
  local bin=$1 t=$2 counts=() srv_acl=() gen_acl=() gen=$RB mport mpid
  if [ "${3:-}" = acl ]; then
    srv_acl=(--user bench on '>benchpw' '~key:*' '+@all')
    gen_acl=(--user bench -a benchpw)
  elif [ "${3:-}" = tracking ]; then
    gen=$RB_OURS
    gen_acl=(-3 --tracking)
  fi
  for n in 20000 60000; do
    start_server callgrind "$work/cg.log" valgrind --tool=callgrind \
      --callgrind-out-file="$work/cg.out" "$bin" "${srv_acl[@]}"
    if [ "${3:-}" = replica ]; then
      mport=$PORT mpid=$PID
      # Its own dir: the synced RDB must not land where the next server starts.
      mkdir -p "$work/replica"
      start_server replica "$work/rep.log" "$bin" --replicaof 127.0.0.1 "$mport" --dir "$work/replica"
      for _ in $(seq 600); do
        $RCLI -p "$PORT" info replication | grep -q '^master_link_status:up' && break
        sleep 0.1
      done
      $RCLI -p "$PORT" info replication | grep -q '^master_link_status:up' ||
        { echo "bench: the replica never synced (log: $work/rep.log)" >&2; exit 1; }
      "$gen" -p "$mport" -t "$t" -n "$n" -c 50 -r 100000 -d 3 -q >/dev/null 2>&1
      stop_server "$PORT" "$PID"
      PORT=$mport PID=$mpid
    else
      "$gen" -p "$PORT" "${gen_acl[@]}" -t "$t" -n "$n" -c 50 -r 100000 -d 3 -q >/dev/null 2>&1
    fi
    stop_server "$PORT" "$PID"
    counts+=("$(grep -E '^(summary|totals):' "$work/cg.out" | head -1 | awk '{print $2}')")
  done
  echo $(( (counts[1] - counts[0]) / 40000 ))
}
