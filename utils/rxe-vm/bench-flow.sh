#!/usr/bin/env bash
# Runs INSIDE the soft-RoCE VM (bench-in-vm.sh calls it): the figures of
# RDMA flow control (RDMA.md, "Flow control"), each side by side with
# flow control off (rdma-flow-control no / --rdma-flow-control no), in one
# run:
# - registered memory with BENCH_FLOW_IDLE (default 2000) idle connections
#   of our dialect held by src/rdma-test-peer --mode hold (flow off:
#   BENCH_FLOW_IDLE_OFF, default 100, as each pins 2 MiB): the server's
#   VmPin and rdma_pinned_bytes per connection;
# - a BENCH_FLOW_MB (default 64) MiB value SET and GET through redis-cli
#   --rdma: MB/s and the server's stalls on a full peer buffer
#   (rdma_tx_full_waits), next to ib_write_bw's bandwidth on the same device;
# - small requests: redis-benchmark --rdma GET at -c 1 and -c 50 (p50 and
#   requests per second).
# The last two: medians of BENCH_FLOW_ROUNDS (default 3) alternating rounds.
# - BENCH_FLOW_MIXED (default 1000, 0: none) connections across the three
#   dialects held at once while large and small requests run.
# BENCH_FLOW_SKIP_IDLE=1 leaves out the first (2,000 handshakes take minutes
# under emulation).
# Prints Markdown on stdout. Builds nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=utils/rxe-vm/bench-vm-lib.sh
. utils/rxe-vm/bench-vm-lib.sh
ADDR=${RXE_VM_ADDR:-10.99.0.1}
DEV=${RXE_VM_DEVICE:-rxe0}
IDLE=${BENCH_FLOW_IDLE:-2000}
IDLE_OFF=${BENCH_FLOW_IDLE_OFF:-100}
MB=${BENCH_FLOW_MB:-64}
ROUNDS=${BENCH_FLOW_ROUNDS:-3}
N=${BENCH_N:-20000}
TCP_PORT=6391
RDMA_PORT=6392
work=$(mktemp -d)
srv=
stop_server() {
  if [ -n "$srv" ]; then
    kill "$srv" 2>/dev/null || true
    wait "$srv" 2>/dev/null || true
    srv=
  fi
}
trap 'stop_server; rm -rf "$work"' EXIT

start_server() {  # flow: yes|no, then more server options
  local flow=$1
  shift
  src/redis-server --port $TCP_PORT --bind "$ADDR" --rdma-port $RDMA_PORT --rdma-bind "$ADDR" \
    --save "" --protected-mode no --maxclients 10000 --rdma-flow-control "$flow" \
    --logfile "$work/server.log" "$@" &
  srv=$!
  wait_pong "$ADDR" $TCP_PORT && return 0
  echo "bench-flow: server did not start" >&2
  exit 1
}
cli() { src/redis-cli -h "$ADDR" -p $TCP_PORT "$@"; }
rinfo() { cli info rdma | tr -d '\r' | awk -F: -v k="$1" '$1 == k {print $2}'; }
vmpin() { awk '/^VmPin:/ {print $2}' "/proc/$srv/status"; }  # kB

# Idle connections: pinned bytes per connection.
idle() {  # flow count
  start_server "$1"
  local pin0 bytes0 flag=() out="$work/hold.out"
  pin0=$(vmpin)
  bytes0=$(rinfo rdma_pinned_bytes)
  [ "$1" = yes ] && flag=(--flow --rx-size 16384)
  src/rdma-test-peer --host "$ADDR" --port $RDMA_PORT "${flag[@]}" --mode hold \
    --connections "$2" --timeout-ms 600000 >"$out" 2>&1 &
  local peer=$!
  for _ in $(seq 3000); do
    grep -q 'result: holding' "$out" 2>/dev/null && break
    kill -0 $peer 2>/dev/null || { cat "$out" >&2; exit 1; }
    sleep 0.1
  done
  local pin bytes
  pin=$(vmpin)
  bytes=$(rinfo rdma_pinned_bytes)
  echo "| $1 | $2 | $(((pin - pin0) / $2)) | $(((bytes - bytes0) / $2 / 1024)) | $(((bytes - bytes0) / 1024 / 1024)) |"
  kill $peer 2>/dev/null || true
  wait $peer 2>/dev/null || true
  stop_server
}

# MB/s of redis-cli SET and GET of one big value, and the server's stalls
# during the GET: "SET GET stalls" on stdout.
bigvalue() {  # flow
  start_server "$1"
  local src="$work/big" out="$work/big.out" w1 w2 t0 t1 t2
  [ -f "$src" ] || head -c $((MB * 1024 * 1024)) /dev/urandom >"$src"
  t0=$(date +%s.%N)
  src/redis-cli --rdma -h "$ADDR" -p $RDMA_PORT --rdma-flow-control "$1" -x SET big <"$src" >/dev/null
  t1=$(date +%s.%N)
  w1=$(rinfo rdma_tx_full_waits)
  src/redis-cli --rdma -h "$ADDR" -p $RDMA_PORT --rdma-flow-control "$1" --raw GET big >"$out"
  t2=$(date +%s.%N)
  w2=$(rinfo rdma_tx_full_waits)
  head -c $((MB * 1024 * 1024)) "$out" | cmp -s - "$src" || { echo "bench-flow: GET differs" >&2; exit 1; }
  awk -v mb="$MB" -v a="$t0" -v b="$t1" -v c="$t2" -v w="$((w2 - w1))" \
    'BEGIN {printf "%.1f %.1f %d\n", mb * 1.048576 / (b - a), mb * 1.048576 / (c - b), w}'
  stop_server
}

echo "### RDMA flow control (bench-flow.sh)"
echo
if [ "${BENCH_FLOW_SKIP_IDLE:-0}" = 0 ]; then
  echo "Registered memory, idle connections of our dialect (server VmPin and rdma_pinned_bytes):"
  echo
  echo "| flow control | connections | VmPin KiB per connection | pinned KiB per connection | pinned MiB in all |"
  echo "|---|---|---|---|---|"
  idle yes "$IDLE"
  idle no "$IDLE_OFF"
fi
echo
# MIXED (default 1000) connections held at once, a third in each dialect
# (ours with flow control), while redis-cli moves a 4 MiB value both ways
# and redis-benchmark runs small requests; rdma-rx-size 64kb keeps the seed
# and Valkey connections' buffers (2 x rx-size each) inside the VM's memory.
mixed() {
  local n=$1 per=$(($1 / 3)) pids=() d
  start_server yes --rdma-rx-size 65536
  for d in ours seed valkey; do
    local flag=()
    [ $d = ours ] && flag=(--flow --rx-size 16384)
    [ $d = ours ] || flag=(--rx-size 65536)
    src/rdma-test-peer --host "$ADDR" --port $RDMA_PORT --dialect $d "${flag[@]}" --mode hold \
      --connections "$per" --timeout-ms 600000 >"$work/hold.$d" 2>&1 &
    pids+=($!)
  done
  for d in ours seed valkey; do
    for _ in $(seq 6000); do
      grep -q 'result: holding' "$work/hold.$d" 2>/dev/null && break
      sleep 0.1
    done
    grep -q 'result: holding' "$work/hold.$d" || { cat "$work/hold.$d" >&2; exit 1; }
  done
  local src="$work/mid" out="$work/mid.out" ok=no
  head -c $((4 * 1024 * 1024)) /dev/urandom >"$src"
  src/redis-cli --rdma -h "$ADDR" -p $RDMA_PORT -x SET mid <"$src" >/dev/null
  src/redis-cli --rdma -h "$ADDR" -p $RDMA_PORT --raw GET mid >"$out"
  head -c $((4 * 1024 * 1024)) "$out" | cmp -s - "$src" && ok=yes
  local rps
  rps=$(src/redis-benchmark --rdma -h "$ADDR" -p $RDMA_PORT -t get -n "$N" -c 50 -d 3 --csv |
    tail -n 1 | tr -d '"' | cut -d, -f2)
  echo "| $((per * 3)) | $(rinfo rdma_dialect_ours) | $(rinfo rdma_dialect_seed) | $(rinfo rdma_dialect_valkey) | $(($(rinfo rdma_pinned_bytes) / 1024 / 1024)) | $ok | $rps |"
  kill "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
  stop_server
}

if [ "${BENCH_FLOW_MIXED:-1000}" -gt 0 ]; then
  echo
  echo "Connections of all three dialects held at once (rdma-rx-size 64kb), while a 4 MiB value crosses both ways and redis-benchmark -c 50 runs GETs:"
  echo
  echo "| held | ours | seed | valkey | pinned MiB | 4 MiB value intact | GET rps |"
  echo "|---|---|---|---|---|---|---|"
  mixed "${BENCH_FLOW_MIXED:-1000}"
fi
echo
echo "A $MB MiB value through redis-cli --rdma, median of $ROUNDS alternating rounds (MB/s; GET stalls: the server's writes that found no room in the client's buffer):"
echo
declare -A big
for round in $(seq "$ROUNDS"); do
  for flow in yes no; do
    big[$flow,$round]=$(bigvalue $flow)
    echo "round $round flow $flow: ${big[$flow,$round]}" >&2
  done
done
echo "| flow control | SET MB/s | GET MB/s | GET stalls |"
echo "|---|---|---|---|"
for flow in yes no; do
  row="| $flow"
  for col in 1 2 3; do
    row="$row | $(for r in $(seq "$ROUNDS"); do echo "${big[$flow,$r]}" | cut -d' ' -f$col; done | median)"
  done
  echo "$row |"
done
if command -v ib_write_bw >/dev/null; then
  ib_write_bw -d "$DEV" -s 1048576 -n 100 -R >"$work/ibw.srv" 2>&1 &
  ibs=$!
  sleep 2
  ib_write_bw -d "$DEV" -s 1048576 -n 100 -R "$ADDR" >"$work/ibw.cli" 2>&1 || true
  wait $ibs 2>/dev/null || true
  bw=$(awk '$1 == 1048576 {print $4}' "$work/ibw.cli" | tail -n 1)
  [ -n "$bw" ] || cat "$work/ibw.cli" >&2
  echo
  echo "ib_write_bw on $DEV, 100 messages of 1 MiB: ${bw:-?} MB/s (average)."
fi
echo
echo "Small requests, redis-benchmark --rdma -t get -d 3 (median of $ROUNDS rounds, alternating):"
echo
declare -A res
for round in $(seq "$ROUNDS"); do
  for flow in yes no; do
    start_server "$flow"
    cli set key:__rand_int__ x >/dev/null
    for c in 1 50; do
      line=$(src/redis-benchmark --rdma -h "$ADDR" -p $RDMA_PORT --rdma-flow-control "$flow" \
        -t get -n "$N" -c $c -d 3 --csv | tail -n 1 | tr -d '"')
      res[$flow,$c,$round]=$(awk -F, '{print $2, $5}' <<<"$line")
    done
    stop_server
  done
done
echo "| flow control | -c 1 rps | -c 1 p50 ms | -c 50 rps | -c 50 p50 ms |"
echo "|---|---|---|---|---|"
for flow in yes no; do
  row="| $flow"
  for c in 1 50; do
    rps=$(for r in $(seq "$ROUNDS"); do echo "${res[$flow,$c,$r]}" | cut -d' ' -f1; done | median)
    p50=$(for r in $(seq "$ROUNDS"); do echo "${res[$flow,$c,$r]}" | cut -d' ' -f2; done | median)
    row="$row | $rps | $p50"
  done
  echo "$row |"
done
