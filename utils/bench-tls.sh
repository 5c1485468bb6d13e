#!/usr/bin/env bash
# `make bench`, TLS part: GET and SET over TLS at -P 1 and -P 16, and new
# connections per second (a TLS handshake for every PING: -k 0), this
# server against Debian's redis-server 7.0 with the same certificates
# (made here with the openssl command) and Debian's redis-benchmark --tls.
# Prints a Markdown section (bench.sh appends it to BENCHMARKS.md): medians
# of interleaved rounds; server pinned to CPU 0, load generator to CPU 1
# when there are two.
# Knobs: BENCH_ROUNDS (default 3), BENCH_N (requests per run, default
# 200000; the handshake case runs a hundredth of it).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${BENCH_ROUNDS:-3}
N=${BENCH_N:-200000}
# shellcheck source=utils/bench-lib.sh
. utils/bench-lib.sh
bench_init bench-tls

ssl() { openssl "$@" >/dev/null 2>&1; }
ssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/ca.key" -out "$work/ca.crt" -days 2 \
  -subj "/CN=bench CA"
for name in server client; do
  ssl req -newkey rsa:2048 -nodes -keyout "$work/$name.key" -out "$work/$name.csr" \
    -subj "/CN=$name"
  ssl x509 -req -in "$work/$name.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" \
    -CAcreateserial -out "$work/$name.crt" -days 2
done
TLS_CLIENT=(--tls --cacert "$work/ca.crt" --cert "$work/client.crt" --key "$work/client.key")

CASES="set-P1 get-P1 set-P16 get-P16 handshakes"
rps() {  # case -> requests/s
  local t p=1 n=$N k=1
  case $1 in
    set-P1) t=set ;;
    get-P1) t=get ;;
    set-P16) t=set p=16 ;;
    get-P16) t=get p=16 ;;
    handshakes) t=ping_mbulk k=0 n=$((N / 100)) ;;
  esac
  taskset -c $GEN_CPU $RB -p "$TPORT" "${TLS_CLIENT[@]}" -n "$n" -c 50 -P "$p" -k "$k" \
    -r 100000 -t "$t" --csv | tail -n 1 | tr -d '"' | awk -F, '{printf "%.0f", $2}'
}

declare -A res
for round in $(seq "$ROUNDS"); do
  for srv in $(round_order "$round"); do
    bin=$(server_bin "$srv")
    TPORT=$(free_port)
    start_server "$bin" "$work/server.log" taskset -c $SRV_CPU "$bin" --tls-port "$TPORT" \
      --tls-cert-file "$work/server.crt" --tls-key-file "$work/server.key" \
      --tls-ca-cert-file "$work/ca.crt"
    for c in $CASES; do
      res[$srv,$c,$round]=$(rps $c)
      echo "bench-tls: round $round $srv $c ${res[$srv,$c,$round]} requests/s" >&2
    done
    stop_server "$PORT" "$PID"
  done
done

echo
echo "## TLS"
echo
echo "Debian's redis-benchmark --tls (client certificate, -c 50, -r 100000) against"
echo "each server with the same certificates (RSA 2048, TLSv1.3); $N requests per run"
echo "($((N / 100)) for handshakes: PING with -k 0, a new TLS connection per request);"
echo "$ROUNDS interleaved rounds, medians."
echo
echo "| case | ours req/s | Redis req/s | ratio |"
echo "|---|---|---|---|"
for c in $CASES; do
  o=$(for r in $(seq "$ROUNDS"); do echo "${res[ours,$c,$r]}"; done | median)
  d=$(for r in $(seq "$ROUNDS"); do echo "${res[redis,$c,$r]}"; done | median)
  echo "| $c | $o | $d | $(ratio "$o" "$d") |"
done
