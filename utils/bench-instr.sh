#!/usr/bin/env bash
# The hot path's yardstick on its own: callgrind instructions per request of
# GET and SET (redis-benchmark -c 50 -r 100000 -d 3, the difference of a 60k
# and a 20k request run, as `make bench` measures them) for this server and
# Redis 7.0.15, and SET+GET (one of each) as a ratio; and SET on a master
# with one replica attached (the replication stream's cost). A few minutes; run it
# before and after a change that touches every request.
# Usage: utils/bench-instr.sh [OUR_BINARY [REDIS_BINARY]]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=utils/bench-lib.sh
. utils/bench-lib.sh
bench_init bench-instr
OURS=${1:-$OURS}
REDIS=${2:-$REDIS}
ig_ours=$(instr_per_op "$OURS" get)
is_ours=$(instr_per_op "$OURS" set)
ig_redis=$(instr_per_op "$REDIS" get)
is_redis=$(instr_per_op "$REDIS" set)
# SET on a master with one replica: what building the stream adds.
ir_ours=$(instr_per_op "$OURS" set replica)
ir_redis=$(instr_per_op "$REDIS" set replica)
sum_ours=$((ig_ours + is_ours)) sum_redis=$((ig_redis + is_redis))
echo "| command | ours | Redis | ratio |"
echo "|---|---|---|---|"
echo "| GET | $ig_ours | $ig_redis | $(ratio "$ig_ours" "$ig_redis") |"
echo "| SET | $is_ours | $is_redis | $(ratio "$is_ours" "$is_redis") |"
echo "| SET+GET | $sum_ours | $sum_redis | $(ratio3 "$sum_ours" "$sum_redis") |"
echo "| SET, 1 replica | $ir_ours | $ir_redis | $(ratio "$ir_ours" "$ir_redis") |"
