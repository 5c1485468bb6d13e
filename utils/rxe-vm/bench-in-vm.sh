#!/usr/bin/env bash
# Runs INSIDE the soft-RoCE VM (utils/rxe-vm/run-bench.sh starts it): one
# server listening on TCP and RDMA at the VM's rxe address, and our
# redis-benchmark against it over each transport, alternating, in the same
# run, each case with the server sleeping, the server busy polling
# (busy-poll-us), and both server and benchmark busy polling (its
# --busy-poll-us); then the server's system calls per request over RDMA,
# counted by strace; then redis-cli --pipe of BENCH_PIPE_N SETs (default
# 200000) over each transport; last, replication over RDMA against TCP
# (utils/rxe-vm/bench-repl.sh, its own master and replica; BENCH_REPL_*), and a
# cluster of three masters over RDMA against TCP (utils/rxe-vm/bench-cluster.sh;
# BENCH_CLUSTER_*), and flow control against none (utils/rxe-vm/bench-flow.sh;
# BENCH_FLOW_*).
# Prints Markdown on stdout. Builds nothing.
# Knobs: BENCH_N (requests per run, default 20000), BENCH_ROUNDS (default 3),
# BENCH_BUSY_POLL_US (default 1000: longer than a round trip in this VM).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=utils/rxe-vm/bench-vm-lib.sh
. utils/rxe-vm/bench-vm-lib.sh
ADDR=${RXE_VM_ADDR:-10.99.0.1}
N=${BENCH_N:-20000}
ROUNDS=${BENCH_ROUNDS:-3}
BP=${BENCH_BUSY_POLL_US:-1000}
TCP_PORT=6379
RDMA_PORT=6380
work=$(mktemp -d)
src/redis-server --port $TCP_PORT --bind "$ADDR" --rdma-port $RDMA_PORT --rdma-bind "$ADDR" \
  --save "" --protected-mode no --logfile "$work/server.log" &
srv=$!
trap 'kill -9 $srv 2>/dev/null || true; rm -rf "$work"' EXIT
wait_pong "$ADDR" $TCP_PORT || { echo "bench-in-vm: the server did not start" >&2; exit 1; }

cli() { src/redis-cli -h "$ADDR" -p $TCP_PORT "$@"; }
rinfo() { cli info rdma | tr -d '\r' | awk -F: -v k="$1" '$1 == k {print $2}'; }
declare -A res
cases=("ping -c 1 -P 1" "get -c 1 -P 1" "set -c 1 -P 1" "get -c 10 -P 1" "get -c 10 -P 16")
# server busy-poll-us / benchmark --busy-poll-us
modes=("0/0" "$BP/0" "$BP/$BP")
for round in $(seq "$ROUNDS"); do
  for bp in "${modes[@]}"; do
    cli config set busy-poll-us "${bp%/*}" >/dev/null
    for t in tcp rdma; do
      for c in "${cases[@]}"; do
        read -r test args <<<"$c"
        [ "$test" = ping ] && test=ping_mbulk
        flags=(-h "$ADDR" -p $TCP_PORT)
        [ $t = rdma ] && flags=(-h "$ADDR" -p $RDMA_PORT --rdma)
        # shellcheck disable=SC2086
        line=$(src/redis-benchmark "${flags[@]}" -t "$test" -n "$N" -r 10000 -d 3 --csv $args \
          --busy-poll-us "${bp#*/}" |
          tail -n 1 | tr -d '"')
        # "test","rps","avg","min","p50","p95","p99","max"
        res[$t,$c,$bp,$round]=$(awk -F, '{print $2, $5, $7}' <<<"$line")
        echo "round $round busy-poll-us $bp $t $c: ${res[$t,$c,$bp,$round]}" >&2
      done
    done
  done
done

# System calls the server makes per request over RDMA: strace -c attached to
# it over SC_N GETs from one client, sleeping and busy polling. Clock reads
# are left out (vDSO calls on real hardware; system calls in this VM, which
# has no usable clocksource for the vDSO), and so is epoll_wait, which a spin
# calls as often as time allows.
SC_N=2000
declare -A sc ev po
for bp in 0 "$BP"; do
  cli config set busy-poll-us "$bp" >/dev/null
  e0=$(rinfo rdma_completion_events)
  p0=$(rinfo rdma_polled_completions)
  strace -c -f -p $srv -o "$work/strace.$bp" 2>/dev/null &
  st=$!
  sleep 1
  src/redis-benchmark -h "$ADDR" -p $RDMA_PORT --rdma -t get -n $SC_N -c 1 -r 10000 -q >/dev/null
  kill -INT $st
  wait $st || true
  e1=$(rinfo rdma_completion_events)
  p1=$(rinfo rdma_polled_completions)
  ev[$bp]=$((e1 - e0)) po[$bp]=$((p1 - p0))
  # strace -c rows: % time, seconds, usecs/call, calls, [errors,] syscall.
  sc[$bp]=$(awk -v n=$SC_N '
    $NF ~ /^[a-z_0-9]+$/ && $4 ~ /^[0-9]+$/ && $NF != "total" {
      if ($NF ~ /^(clock_gettime|gettimeofday|epoll_wait)$/) next
      calls[$NF] += $4; all += $4
    }
    END {
      out = sprintf("%.2f", all / n)
      for (k in calls) if (calls[k] / n >= 0.05) out = out sprintf(" %s %.2f", k, calls[k] / n)
      print out
    }' "$work/strace.$bp")
  echo "syscalls busy-poll-us $bp: ${sc[$bp]} events ${ev[$bp]} polled ${po[$bp]}" >&2
done
cli config set busy-poll-us 0 >/dev/null

# redis-cli --pipe (mass insertion) of PIPE_N SETs from one file, over TCP
# and over RDMA, alternating, into an emptied server: wall seconds.
PIPE_N=${BENCH_PIPE_N:-200000}
awk -v n="$PIPE_N" 'BEGIN {
  for (i = 0; i < n; i++) {
    k = "key:" i; v = "value:" i
    printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, length(v), v
  }
}' >"$work/pipe.in"
declare -A piped
for round in $(seq "$ROUNDS"); do
  for t in tcp rdma; do
    flags=(-h "$ADDR" -p $TCP_PORT)
    [ $t = rdma ] && flags=(-h "$ADDR" -p $RDMA_PORT --rdma)
    cli flushall >/dev/null
    t0=$(date +%s.%N)
    out=$(src/redis-cli "${flags[@]}" --pipe <"$work/pipe.in")
    t1=$(date +%s.%N)
    grep -q "errors: 0, replies: $PIPE_N" <<<"$out" || { echo "bench: --pipe over $t failed: $out" >&2; exit 1; }
    [ "$(cli dbsize)" = "$PIPE_N" ] || { echo "bench: --pipe over $t lost keys" >&2; exit 1; }
    piped[$t,$round]=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
    echo "round $round --pipe over $t: ${piped[$t,$round]} s" >&2
  done
done
cli flushall >/dev/null

field() { for r in $(seq "$ROUNDS"); do awk -v k="$4" '{print $k}' <<<"${res[$1,$2,$3,$r]}"; done | median; }
echo "# RDMA benchmark (soft-RoCE, functional)"
echo
echo "Produced by \`make bench-rdma\` (utils/rxe-vm/run-bench.sh) on $(date -u '+%Y-%m-%d %H:%M UTC'),"
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
echo
echo "**Not a hardware figure.** Both transports run inside a qemu VM without hardware"
echo "virtualisation (CPU emulation), RDMA through the kernel's software RoCE driver (rxe)"
echo "on a dummy netdev. It shows that the RDMA path works end to end under load and how it"
echo "compares with TCP on the same emulated machine; on RDMA NICs the ratios differ."
echo
echo "One server listening on both; our redis-benchmark, $N requests per run, -r 10000 -d 3,"
echo "$ROUNDS alternating rounds, medians. Ratio = RDMA / TCP. Each case runs with the server"
echo "sleeping between requests (busy-poll-us 0, the default), busy polling (busy-poll-us"
echo "$BP), and with the benchmark busy polling too (its --busy-poll-us $BP): column"
echo "busy-poll-us, server/benchmark."
echo
echo "| case | busy-poll-us | TCP ops/s | RDMA ops/s | ratio | TCP p50 ms | RDMA p50 ms | TCP p99 ms | RDMA p99 ms |"
echo "|---|---|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  for bp in "${modes[@]}"; do
    to=$(field tcp "$c" "$bp" 1); ro=$(field rdma "$c" "$bp" 1)
    ratio=$(awk -v a="$ro" -v b="$to" 'BEGIN {printf (b > 0 ? "%.2f" : "-"), a / b}')
    echo "| $c | $bp | $to | $ro | $ratio | $(field tcp "$c" "$bp" 2) | $(field rdma "$c" "$bp" 2) | $(field tcp "$c" "$bp" 3) | $(field rdma "$c" "$bp" 3) |"
  done
done
echo
echo "Server system calls per request over RDMA (strace -c attached to the server, $SC_N"
echo "GETs, -c 1; clock reads and epoll_wait left out, see utils/rxe-vm/bench-in-vm.sh), and"
echo "how its completions were reaped (INFO rdma):"
echo
echo "| busy-poll-us | syscalls/request | by call | completion events | polled completions |"
echo "|---|---|---|---|---|"
for bp in 0 "$BP"; do
  read -r total rest <<<"${sc[$bp]}"
  echo "| $bp | $total | ${rest:--} | ${ev[$bp]} | ${po[$bp]} |"
done
echo
echo "redis-cli --pipe of $PIPE_N SETs (our cli; Debian's reaches no RDMA), wall seconds,"
echo "median of $ROUNDS alternating rounds, into an emptied server:"
echo
echo "| transport | seconds | SETs/s |"
echo "|---|---|---|"
for t in tcp rdma; do
  m=$(for r in $(seq "$ROUNDS"); do echo "${piped[$t,$r]}"; done | median)
  awk -v t="$t" -v m="$m" -v n="$PIPE_N" 'BEGIN {printf "| %s | %s | %.0f |\n", toupper(t), m, n / m}'
done

# Replication over each transport: a section of its own, with its own
# servers (this one stays up, emptied). Its failure leaves the figures above.
echo
if ! utils/rxe-vm/bench-repl.sh; then
  echo "**The replication section failed** (utils/rxe-vm/bench-repl.sh; its reason is on stderr)."
fi

# A cluster of three masters over RDMA against TCP: a section of its own,
# with its own servers.
echo
if ! utils/rxe-vm/bench-cluster.sh; then
  echo "**The cluster section failed** (utils/rxe-vm/bench-cluster.sh; its reason is on stderr)."
fi

# Flow control against none: idle connections' pinned memory, a large
# value's throughput next to ib_write_bw, small requests (its own servers).
echo
if ! utils/rxe-vm/bench-flow.sh; then
  echo "**The flow-control section failed** (utils/rxe-vm/bench-flow.sh; its reason is on stderr)."
fi
