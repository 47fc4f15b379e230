#!/usr/bin/env bash
# A soak run of distributed self-play under storage faults: moto's S3 server
# behind a fault-injecting proxy (crates/pente-store/examples/fault_proxy.rs:
# 503 Slow Down, connections cut mid-request, slow requests, throughout), a
# worker on one core and the trainer (`pente loop --store`) on the other,
# for DURATION seconds of real work. The worker is killed (-9) and restarted
# half way; at the end both are killed mid-work. Then it checks that every
# game the store holds is counted once, and prints the memory and disk of
# the start and the end.
#
#   bash scripts/soak.sh [OUT]        (default /tmp/pente-soak; DURATION=3600)
#
# Needs a release build (cargo build --release -p pente-cli; cargo build
# --release -p pente-store --example fault_proxy) and moto_server (pip install
# 'moto[server]').
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/pente-soak}
duration=${DURATION:-3600}
pente=$PWD/target/release/pente
proxy_bin=$PWD/target/release/examples/fault_proxy
rm -rf "$out" && mkdir -p "$out"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
s3=$(free_port)
moto_server -p "$s3" >"$out/moto.log" 2>&1 &
pids=($!)
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
until curl -s "http://127.0.0.1:$s3/" >/dev/null; do sleep 0.2; done
curl -s -X PUT "http://127.0.0.1:$s3/soak" >/dev/null
port=$(free_port)
"$proxy_bin" --listen "$port" --upstream "$s3" --throttle 5 --cut 7 --slow 11 --delay-ms 2000 --report 60 >"$out/proxy.log" 2>&1 &
pids+=($!)
export AWS_ENDPOINT="http://127.0.0.1:$port" AWS_ALLOW_HTTP=true AWS_ACCESS_KEY_ID=soak AWS_SECRET_ACCESS_KEY=soak AWS_REGION=us-east-1
export PENTE_STORE_CACHE="$out/cache"
store=s3://soak/run

# A small loop, so that it trains, gates and publishes many times in the hour.
cat >"$out/loop.toml" <<TOML
name = "soak"
runs_dir = "$out/runs"
iterations = 1000

[net]
blocks = 2
channels = 16

[selfplay]
games = 32
seed = 1
threads = 0
games_in_flight = 8
model = "the store's current model"

[[selfplay.rules]]
variant = "pente"
size = 9

[selfplay.search]
visits = 32
noise = true

[train]
window = 20000
batch_size = 64
steps = 60
learning_rate = 0.002
checkpoint_every = 20

[arena]
games = 8
visits = 32
baselines = []
TOML
# The workers' settings: the loop's [selfplay] (the trainer writes the same).
sed -n '/^\[selfplay\]/,/^\[train\]/p' "$out/loop.toml" | sed '1d;$d' | sed 's/^\[selfplay\.\(.*\)\]$/[\1]/; s/^\[\[selfplay\.rules\]\]$/[[rules]]/' >"$out/selfplay.toml"
"$pente" model init --out "$out/start" --blocks 2 --channels 16 --seed 3 >/dev/null
"$pente" store init --store "$store" --model "$out/start" --config "$out/selfplay.toml" >/dev/null

rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
worker() { taskset -c 0 "$pente" worker --store "$store" --id soak-worker --games 1000000 --chunk-games 8 --work "$out/work" --quiet >>"$out/worker.log" 2>&1 & echo $!; }
w=$(worker)
taskset -c 1 "$pente" loop --config "$out/loop.toml" --store "$store" --poll 2 --backend ort >"$out/trainer.log" 2>&1 &
t=$!
pids+=("$w" "$t")
echo "seconds,worker_rss_kib,trainer_rss_kib,disk_kib" >"$out/memory.csv"
start=$(date +%s)
restarted=0
while (( $(date +%s) - start < duration )); do
    sleep 30
    elapsed=$(( $(date +%s) - start ))
    kill -0 "$w" 2>/dev/null || { echo "the worker exited: see $out/worker.log"; tail -5 "$out/worker.log"; exit 1; }
    if (( !restarted && elapsed >= duration / 2 )); then
        kill -9 "$w" || true; wait "$w" 2>/dev/null || true
        w=$(worker); pids+=("$w"); restarted=1
        echo "$elapsed s: worker killed (-9) and restarted" >>"$out/events.log"
    fi
    kill -0 "$t" 2>/dev/null || { echo "the trainer exited: see $out/trainer.log"; tail -5 "$out/trainer.log"; exit 1; }
    echo "$elapsed,$(rss "$w"),$(rss "$t"),$(du -sk "$out" | cut -f1)" >>"$out/memory.csv"
done
kill -9 "$w" "$t" 2>/dev/null || true
wait "$w" "$t" 2>/dev/null || true

echo "== proxy"; tail -1 "$out/proxy.log"
echo "== store"; "$pente" store status --store "$store" | tee "$out/status.txt" | tail -15
echo "== validate"; "$pente" validate --store "$store" | tail -5
"$pente" stats --store "$store" --format json >"$out/stats.json"
python3 - "$out" <<'PY'
import csv, json, sys
from pathlib import Path
out = Path(sys.argv[1])
stats = json.loads((out / "stats.json").read_text())
rows = list(csv.DictReader(open(out / "memory.csv")))
first, last = rows[0], rows[-1]
total = next(line.split() for line in open(out / "status.txt") if line.startswith("total"))
chunks, games = int(total[1]), int(total[2])
print(f"chunks committed: {chunks}, their games: {games}; games counted over the store: {stats['games_counted']}")
if stats["games_counted"] != games:
    sys.exit("a game was lost or counted twice")
for key in ("worker_rss_kib", "trainer_rss_kib", "disk_kib"):
    print(f"{key}: {first[key]} at {first['seconds']} s, {last[key]} at {last['seconds']} s, peak {max(int(r[key]) for r in rows)}")
PY
grep -c "iteration" "$out/trainer.log" | sed 's/^/trainer log lines with "iteration": /'
