# shellcheck shell=bash
# Shared by the benchmarks that run inside the soft-RoCE VM (bench-in-vm.sh,
# bench-repl.sh, bench-cluster.sh, bench-flow.sh): sourced after `cd` to the
# repository root. Servers there listen on the VM's address, not loopback,
# and are reached with our own redis-cli.
#
#   median              the median of the numbers on stdin (utils/bench-lib.sh)
#   wait_pong HOST PORT waits up to 20 s for PONG from the server at
#                       HOST:PORT; returns 1 when it never answers

# shellcheck source=utils/bench-lib.sh
. utils/bench-lib.sh

wait_pong() {  # host port
  local _
  for _ in $(seq 100); do
    if src/redis-cli -h "$1" -p "$2" ping 2>/dev/null | grep -q PONG; then return 0; fi
    sleep 0.2
  done
  return 1
}
