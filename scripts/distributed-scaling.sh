#!/usr/bin/env bash
# Games/hour of distributed self-play on this machine: one worker per core
# (pinned with taskset, so that each sees one core: one search thread and a
# one-thread network), 1 worker and then 2 at once; and one unpinned worker
# on both cores for reference. Needs a release build (cargo build --release).
#
#   scripts/distributed-scaling.sh                      # a directory store
#   STORE=s3://bucket/prefix scripts/distributed-scaling.sh   # with AWS_* set
set -euo pipefail
cd "$(dirname "$0")/.."
P=target/release/pente
G=${G:-48}
S=$(mktemp -d /tmp/pente-scaling.XXXXXX)
STORE=${STORE:-$S/store}
$P store init --store "$STORE" --config configs/selfplay.toml >/dev/null
w() {
    taskset -c "$1" $P worker --store "$STORE" --id "$2" --games "$G" --chunk-games 16 --work "$S/w-$2" --quiet \
        2>/dev/null | tail -1
}
t0=$(date +%s.%N)
w 0 one
t1=$(date +%s.%N)
w 0 two-a &
w 1 two-b &
wait
t2=$(date +%s.%N)
w 0,1 both
t3=$(date +%s.%N)
python3 - "$t0" "$t1" "$t2" "$t3" "$G" <<'PY'
import sys
t0, t1, t2, t3, g = map(float, sys.argv[1:])
one, two, both = 3600 * g / (t1 - t0), 3600 * 2 * g / (t2 - t1), 3600 * g / (t3 - t2)
print(f"1 worker on 1 core:     {one:.0f} games/hour")
print(f"2 workers, 1 core each: {two:.0f} games/hour ({two / one:.2f}x)")
print(f"1 worker on 2 cores:    {both:.0f} games/hour")
PY
$P store status --store "$STORE"
rm -rf "$S"
