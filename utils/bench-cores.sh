#!/usr/bin/env bash
# Per-core scaling of the I/O threads: this server against Redis 7.0.15 with
# the same io-threads (and io-threads-do-reads yes), Debian's
# redis-benchmark as the one load generator, server and generator pinned to
# separate cores. Prints a Markdown table: ops/s (SET and GET averaged),
# p99, and the CPU each side used (in cores) next to what it was given, so
# that the table says who saturated first.
#
# Usage:
#   utils/bench-cores.sh                     in the repository (make bench)
#   utils/bench-cores.sh --make-bundle DIR   copies the three binaries, their
#                                            shared libraries, the loader and
#                                            this script into DIR
#   DIR/bench-cores.sh --bundle DIR          runs from such a bundle on another
#                                            machine (nothing installed there)
# Knobs (environment): THREADS ("1 2 4 8"; in the repository: 1 up to twice
# the server's cores), SRV_CORES / GEN_CORES (taskset lists; default: the
# first half of the cores for the server, the rest for the generator),
# PIPELINES ("1 16"), CLIENTS (300), GEN_THREADS (the generator's cores),
# N (requests per run; default 2000000, 200000 in the repository).
set -euo pipefail

mode=repo
bundle=
case "${1:-}" in
  --make-bundle) mode=make; bundle=$2 ;;
  --bundle) mode=bundle; bundle=$(cd "$2" && pwd) ;;
  "") ;;
  *) echo "usage: $0 [--make-bundle DIR | --bundle DIR]" >&2; exit 2 ;;
esac

if [ "$mode" = make ]; then
  cd "$(dirname "$0")/.."
  mkdir -p "$bundle/lib"
  cp src/redis-server "$bundle/ours-server"
  cp /usr/bin/redis-server "$bundle/redis-server"
  cp /usr/bin/redis-benchmark "$bundle/redis-benchmark"
  strip "$bundle/ours-server" "$bundle/redis-server" "$bundle/redis-benchmark"
  for b in ours-server redis-server redis-benchmark; do
    ldd "$bundle/$b" | awk '/=> \// {print $3} /^\s*\/lib/ {print $1}' | while read -r lib; do
      cp -L "$lib" "$bundle/lib/"
    done
  done
  loader=$(ldd "$bundle/ours-server" | awk '/ld-linux/ {print $1}')
  cp -L "$loader" "$bundle/lib/ld.so"
  cp "$0" "$bundle/bench-cores.sh"
  du -sh "$bundle"
  exit 0
fi

ncpu=$(nproc)
half=$(( ncpu / 2 > 0 ? ncpu / 2 : 1 ))
SRV_CORES=${SRV_CORES:-0-$((half - 1))}
if [ "$ncpu" -ge 2 ]; then GEN_CORES=${GEN_CORES:-$half-$((ncpu - 1))}; else GEN_CORES=${GEN_CORES:-0}; fi
count_cores() { awk -F, '{n=0; for (i=1;i<=NF;i++) {split($i,r,"-"); n+=(r[2]==""?1:r[2]-r[1]+1)} print n}' <<<"$1"; }
srv_n=$(count_cores "$SRV_CORES")
gen_n=$(count_cores "$GEN_CORES")
GEN_THREADS=${GEN_THREADS:-$gen_n}
PIPELINES=${PIPELINES:-1 16}
CLIENTS=${CLIENTS:-300}

# The command that runs binary $1: through the bundle's own loader and
# libraries, or as it is.
bin_cmd() {
  if [ "$mode" = bundle ]; then
    CMD=("$bundle/lib/ld.so" --library-path "$bundle/lib" "$bundle/$1")
  else
    CMD=("$1")
  fi
}
if [ "$mode" = bundle ]; then
  OURS=ours-server REDIS=redis-server RB=redis-benchmark
  N=${N:-2000000}
  THREADS=${THREADS:-1 2 4 8}
else
  cd "$(dirname "$0")/.."
  OURS=src/redis-server REDIS=/usr/bin/redis-server RB=/usr/bin/redis-benchmark
  N=${N:-200000}
  if [ -z "${THREADS:-}" ]; then
    THREADS=1
    for t in 2 4 8; do [ "$t" -le $((srv_n * 2)) ] && THREADS="$THREADS $t"; done
  fi
fi
work=$(mktemp -d /tmp/bench-cores.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

# PONG from the server at 127.0.0.1:$1, in plain bash (no client needed).
ping_port() {
  local line
  { exec 3<>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null || return 1
  printf 'PING\r\n' >&3
  read -r -t 2 line <&3 || true
  exec 3<&-
  [[ $line == +PONG* ]]
}
ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
# bash's `times` line for children ("0m1.250s 0m0.310s") in seconds.
times_s() { tr -d 's' <<<"$1" | awk -F'[ m]' '{print $1 * 60 + $2 + $3 * 60 + $4}'; }

# Runs one server with `threads`, one benchmark per pipeline depth; prints
# "P rps p99 server_cores gen_cores" lines.
measure() {  # binary threads
  local threads=$2 port=$((20000 + RANDOM % 20000)) pid p
  bin_cmd "$1"
  taskset -c "$SRV_CORES" "${CMD[@]}" --port "$port" --bind 127.0.0.1 --save "" \
    --appendonly no --io-threads "$threads" --io-threads-do-reads yes --maxclients 10000 \
    --logfile "$work/server.log" >/dev/null 2>&1 &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 100); do ping_port "$port" && break; sleep 0.1; done
  bin_cmd "$RB"
  for p in $PIPELINES; do
    local s0 s1 w0 w1 g
    s0=$(ticks "$pid")
    w0=$(date +%s%N)
    # The generator's CPU: the children line of `times` in a subshell.
    g=$( (taskset -c "$GEN_CORES" "${CMD[@]}" -p "$port" -c "$CLIENTS" -n "$N" -r 1000000 -d 3 \
           -t set,get -P "$p" --threads "$GEN_THREADS" --csv >"$work/rb.csv"; times) | tail -n 1)
    w1=$(date +%s%N)
    s1=$(ticks "$pid")
    tr -d '"' <"$work/rb.csv" | awk -F, -v p="$p" -v st=$((s1 - s0)) -v hz="$hz" \
      -v wall="$(( (w1 - w0) / 1000 ))" -v g="$(times_s "$g")" '
      NR > 1 {rps += $2; p99 += $7; n++}
      END {printf "%s %.0f %.3f %.2f %.2f\n", p, rps / n, p99 / n, st / hz / (wall / 1e6),
             g / (wall / 1e6)}'
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

echo "### I/O threads: per-core scaling"
echo
echo "$(uname -m), $ncpu cores ($(awk -F: '/model name/ {print $2; exit}' /proc/cpuinfo | sed 's/^ *//')):"
echo "server on cores $SRV_CORES ($srv_n), redis-benchmark on cores $GEN_CORES ($gen_n,"
echo "\`--threads $GEN_THREADS -c $CLIENTS -n $N -r 1000000 -d 3 -t set,get\`); both servers with"
echo "\`--io-threads T --io-threads-do-reads yes\`. CPU columns: cores used over the run (the server"
echo "is given $srv_n, the generator $gen_n); a side near its share is the one that saturated."
echo
echo "| io-threads | -P | ours ops/s | Redis ops/s | ratio | ours p99 ms | Redis p99 ms | ours CPU | Redis CPU | generator CPU (ours / Redis) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for t in $THREADS; do
  measure "$OURS" "$t" >"$work/ours"
  measure "$REDIS" "$t" >"$work/redis"
  paste -d' ' "$work/ours" "$work/redis" | while read -r p ro qo co go _ rr qr cr gr; do
    echo "| $t | $p | $ro | $rr | $(awk -v a="$ro" -v b="$rr" 'BEGIN {printf "%.2f", a / b}') | $qo | $qr | $co | $cr | $go / $gr |"
  done
done
