#!/usr/bin/env bash
# Runs INSIDE the soft-RoCE VM: replication over RDMA (repl-transport rdma)
# against over TCP, with a master and a replica on the VM's rxe address.
# utils/rxe-vm/bench-in-vm.sh runs it last (make bench-rdma); alone:
#   utils/rxe-vm/run.sh --timeout 900 --mem 3072 -- utils/rxe-vm/bench-repl.sh
# 1. Full sync: BENCH_REPL_KEYS keys (default 50000) of BENCH_REPL_SIZE bytes
#    (default 1000) made with DEBUG POPULATE, rdbcompression no (the whole
#    data set crosses the link), diskless (repl-diskless-sync yes) and from
#    disk (no); seconds from connecting to the master to the RDB loaded,
#    and the RDB's arrival, from the replica's log.
# 2. Stream: our redis-benchmark SET -P 16 -c 10 against the master over TCP,
#    BENCH_REPL_STREAM_N requests (default 30000) of the same size on
#    100000 keys, with no replica, with the replica over rdma and over tcp;
#    the master's rate and the seconds the replica needs afterwards to reach
#    the master's offset.
# The first round's syncs and streams end with DEBUG DIGEST equal on both
# sides (every round checks the key count of a sync). Rounds
# alternate rdma and tcp (BENCH_REPL_ROUNDS, default 3); medians, since a
# shared host's load moves single runs by 2x and more. The defaults take
# 3.5 to 6 minutes under TCG (6 with another job on the host's 2 cores;
# 200000 keys and a 200000 request stream, one round, took 12 minutes on a
# busy host).
# Memory: both servers hold the data set, and the RDB file and the replica's
# copy of it live in the VM's RAM: give the VM 3 GiB (run-bench.sh does).
# Prints Markdown on stdout, progress on stderr. Builds nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=utils/rxe-vm/bench-vm-lib.sh
. utils/rxe-vm/bench-vm-lib.sh
ADDR=${RXE_VM_ADDR:-10.99.0.1}
KEYS=${BENCH_REPL_KEYS:-50000}
SIZE=${BENCH_REPL_SIZE:-1000}
SN=${BENCH_REPL_STREAM_N:-30000}
ROUNDS=${BENCH_REPL_ROUNDS:-3}
M_TCP=6390 M_RDMA=6391 R_TCP=6392
work=$(mktemp -d)
mkdir -p "$work/m" "$work/r"
pids=()
cleanup() {
  for p in "${pids[@]}"; do
    kill -9 "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
common=(--bind "$ADDR" --save "" --protected-mode no --enable-debug-command yes
  --client-output-buffer-limit "replica 0 0 0")
src/redis-server --port $M_TCP --rdma-port $M_RDMA --rdma-bind "$ADDR" "${common[@]}" \
  --dir "$work/m" --logfile "$work/m/log" --rdbcompression no --repl-diskless-sync-delay 0 &
pids+=($!)
src/redis-server --port $R_TCP "${common[@]}" --dir "$work/r" --logfile "$work/r/log" &
pids+=($!)

m() { src/redis-cli -h "$ADDR" -p $M_TCP "$@"; }
r() { src/redis-cli -h "$ADDR" -p $R_TCP "$@"; }
if ! wait_pong "$ADDR" $M_TCP || ! wait_pong "$ADDR" $R_TCP; then
  echo "bench-repl (VM): the master or the replica did not start" >&2
  exit 1
fi
field() { tr -d '\r' | awk -F: -v k="$1" '$1 == k {print $2}'; }
die() {
  echo "bench-repl: $*" >&2
  tail -n 20 "$work/m/log" "$work/r/log" >&2
  exit 1
}
# Starting a process costs 0.3-0.8 s in this VM (its binaries come over 9p,
# under emulation), so what is timed starts none: bash's own clock
# (EPOCHREALTIME, in microseconds below), one connection to each server
# held open (bash's /dev/tcp) for INFO, and a FIFO nobody writes for naps.
exec {MFD}<>"/dev/tcp/$ADDR/$M_TCP" {RFD}<>"/dev/tcp/$ADDR/$R_TCP"
mkfifo "$work/nap"
exec {NAP}<>"$work/nap"
nap() { read -r -t "$1" -u "$NAP" _ || true; }
# INFO replication of the server on fd $1, into INFO_TEXT.
info_repl() {
  local hdr
  # shellcheck disable=SC2016 # RESP's $ lengths, not expansions
  printf '*2\r\n$4\r\nINFO\r\n$11\r\nreplication\r\n' >&"$1"
  IFS= read -r hdr <&"$1"
  hdr=${hdr%$'\r'}
  [[ $hdr == \$* ]] || die "INFO replication answered '$hdr'"
  IFS= read -r -N "$((${hdr#\$} + 2))" INFO_TEXT <&"$1"
}
# Field $1 of INFO_TEXT, into F.
ifield() {
  F=''
  if [[ $INFO_TEXT =~ (^|$'\n')$1:([^$'\r']*) ]]; then F=${BASH_REMATCH[2]}; fi
}
# Microseconds as seconds with two decimals: secs FROM_US TO_US.
secs() {
  local d=$((($2 - $1 + 5000) / 10000))
  printf '%d.%02d' $((d / 100)) $((d % 100))
}
# Waits until `cond` (a shell command) succeeds, polling every 10 ms; dies
# after `limit` seconds.
wait_until() {
  local limit=$1 what=$2
  shift 2
  local t0=${EPOCHREALTIME/./}
  until "$@"; do
    ((${EPOCHREALTIME/./} - t0 > limit * 1000000)) && die "no $what in ${limit} s"
    nap 0.01
  done
}
link_up() {
  info_repl "$RFD"
  ifield master_link_status
  [ "$F" = up ] || return 1
  ifield master_sync_in_progress
  [ "$F" = 0 ]
}
caught_up() {
  info_repl "$RFD"
  ifield master_link_status
  [ "$F" = up ] || return 1
  ifield master_repl_offset
  [ "${F:-0}" -ge "$1" ]
}
same_data() {
  local md rd
  md=$(m debug digest) rd=$(r debug digest)
  [ "$md" = "$rd" ] || die "digests differ after $1: master $md, replica $rd"
}
# Points the replica at the master over transport $1 (rdma | tcp).
attach() {
  r config set repl-transport "$1" >/dev/null
  if [ "$1" = rdma ]; then r replicaof "$ADDR" $M_RDMA >/dev/null; else r replicaof "$ADDR" $M_TCP >/dev/null; fi
}
check_transport() {
  m client list type replica | grep -q "transport=$1" ||
    die "the replica is not on $1: $(m client list type replica)"
}
detach() {
  r replicaof no one >/dev/null
  # A new id: the next REPLICAOF cannot continue and syncs whole.
  m debug change-repl-id >/dev/null
}

# ---- 0. warm-up: a process's first RDMA connection pays a one-time verbs
# set-up (about 1 s here) that no later sync does; one empty sync each way.
for t in rdma tcp; do
  attach $t
  wait_until 120 "warm-up link over $t" link_up
  detach
done

# ---- 1. full sync of KEYS keys
m debug populate "$KEYS" key "$SIZE" >/dev/null
declare -A sync xfer load
# Microseconds since the epoch of the replica's last log line containing $1
# (its "27 Nov 2026 03:22:45.083" stamp, milliseconds).
log_us() {
  local line
  line=$(grep -F "$1" "$work/r/log" | tail -n 1)
  [ -n "$line" ] || die "no '$1' in the replica's log"
  date -d "$(awk '{print $2, $3, $4, $5}' <<<"$line")" +%s%6N
}
rdb_bytes=0
for round in $(seq "$ROUNDS"); do
  for mode in diskless disk; do
    m config set repl-diskless-sync "$([ $mode = diskless ] && echo yes || echo no)" >/dev/null
    for t in rdma tcp; do
      r flushall >/dev/null
      full=$(m info stats | field sync_full)
      attach $t
      wait_until 600 "full sync over $t ($mode)" link_up
      # Timed by the replica's log: from connecting to the master, through
      # the RDB received, to the RDB loaded.
      t0=$(log_us "Connecting to MASTER")
      loading=$(log_us "MASTER <-> REPLICA sync: Loading DB in memory")
      done_at=$(log_us "MASTER <-> REPLICA sync: Finished with success")
      sync[$t,$mode,$round]=$(secs "$t0" "$done_at")
      xfer[$t,$mode,$round]=$(secs "$t0" "$loading")
      load[$t,$mode,$round]=$(secs "$loading" "$done_at")
      [ "$(m info stats | field sync_full)" -gt "$full" ] || die "no full sync over $t ($mode)"
      check_transport $t
      if [ "$round" = 1 ]; then same_data "the $mode full sync over $t"; fi
      [ "$(r dbsize)" = "$KEYS" ] || die "replica has $(r dbsize) keys after the $mode sync over $t"
      if [ $mode = disk ] && [ -f "$work/m/dump.rdb" ]; then rdb_bytes=$(stat -c %s "$work/m/dump.rdb"); fi
      detach
      echo "round $round full sync $mode over $t: ${sync[$t,$mode,$round]} s" \
        "(RDB received ${xfer[$t,$mode,$round]} s, loaded ${load[$t,$mode,$round]} s)" >&2
    done
  done
done
m flushall >/dev/null
r flushall >/dev/null
rm -f "$work/m/dump.rdb" "$work/r/dump.rdb"

# ---- 2. stream: the master's SET rate and the replica's catch-up
declare -A rate catch
stream() {  # transport|none round
  local t=$1 round=$2 line off t1
  if [ "$t" != none ]; then
    attach "$t"
    wait_until 120 "link over $t" link_up
    check_transport "$t"
  fi
  line=$(src/redis-benchmark -h "$ADDR" -p $M_TCP -t set -n "$SN" -P 16 -c 10 -d "$SIZE" -r 100000 --csv |
    tail -n 1 | tr -d '"')
  t1=${EPOCHREALTIME/./}
  info_repl "$MFD"
  ifield master_repl_offset
  off=$F
  rate[$t,$round]=$(awk -F, '{print $2}' <<<"$line")
  if [ "$t" != none ]; then
    wait_until 600 "catch-up over $t" caught_up "$off"
    catch[$t,$round]=$(secs "$t1" "${EPOCHREALTIME/./}")
    if [ "$round" = 1 ]; then same_data "the stream over $t"; fi
    detach
  fi
  m flushall >/dev/null
  r flushall >/dev/null
  echo "round $round stream, replica over $t: ${rate[$t,$round]} SET/s, catch-up ${catch[$t,$round]:--} s" >&2
}
for round in $(seq "$ROUNDS"); do
  for t in none rdma tcp; do stream "$t" "$round"; done
done

med() {  # array-name key
  local -n a=$1
  for round in $(seq "$ROUNDS"); do echo "${a[$2,$round]}"; done | median
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf (b > 0 ? "%.2f" : "-"), a / b}'; }
mb=$(awk -v n="$KEYS" -v s="$SIZE" 'BEGIN {printf "%.0f", n * s / 1e6}')
echo "## Replication: RDMA against TCP"
echo
echo "Produced by utils/rxe-vm/bench-repl.sh on $(date -u '+%Y-%m-%d %H:%M UTC'),"
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown). One master and one replica in the same VM, the"
echo "replica reaching the master's rdma-port (repl-transport rdma) or its TCP port (tcp),"
echo "both on the VM's address. $ROUNDS alternating rounds, medians; ratio = RDMA / TCP"
echo "(for seconds, below 1 means RDMA is faster)."
echo
echo "Full sync of $KEYS keys of $SIZE bytes (DEBUG POPULATE, about $mb MB of values;"
echo "rdbcompression no on the master, so the whole data set crosses the link: the RDB"
echo "from disk was $rdb_bytes bytes), seconds from the replica's \"Connecting to MASTER\""
echo "to its \"sync: Finished with success\" (its log); of which RDB received (until its"
echo "\"Loading DB in memory\": connecting, the master's fork and RDB writing, and the"
echo "transfer) and loaded (repl-diskless-load disabled: the replica saves the RDB to a"
echo "file, then loads it):"
echo
echo "| repl-diskless-sync | TCP s | RDMA s | ratio | TCP received s | RDMA received s | ratio | TCP loaded s | RDMA loaded s |"
echo "|---|---|---|---|---|---|---|---|---|"
for mode in diskless disk; do
  ts=$(med sync "tcp,$mode") rs=$(med sync "rdma,$mode")
  tx=$(med xfer "tcp,$mode") rx=$(med xfer "rdma,$mode")
  echo "| $([ $mode = diskless ] && echo yes || echo no) | $ts | $rs | $(ratio "$rs" "$ts") |" \
    "$tx | $rx | $(ratio "$rx" "$tx") | $(med load "tcp,$mode") | $(med load "rdma,$mode") |"
done
echo
echo "Stream: our redis-benchmark -t set -n $SN -P 16 -c 10 -d $SIZE -r 100000 against"
echo "the master over TCP, with no replica and with one replica attached over each"
echo "transport; catch-up = seconds from the benchmark's end until the replica's offset"
echo "reached the master's (polled every 10 ms):"
echo
echo "| replica | master SET/s | catch-up s |"
echo "|---|---|---|"
echo "| none | $(med rate none) | - |"
for t in tcp rdma; do echo "| over ${t^^} | $(med rate "$t") | $(med catch "$t") |"; done
echo "| ratio RDMA / TCP | $(ratio "$(med rate rdma)" "$(med rate tcp)") | $(ratio "$(med catch rdma)" "$(med catch tcp)") |"
