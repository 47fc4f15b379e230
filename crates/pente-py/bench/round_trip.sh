#!/usr/bin/env bash
# Train in PyTorch, play in Rust: one fresh network trained on the same
# samples for the same steps by `pente train` (burn) and by
# `python -m pente.torchnet train` (PyTorch), their losses side by side, and
# an arena between the two networks.
#
#   bash crates/pente-py/bench/round_trip.sh [OUT]     (default /tmp/round-trip)
#
# Needs target/release/pente and a Python with this package, torch and
# safetensors (PYTHON, default python3). GAMES, STEPS, VISITS and ARENA_GAMES
# size it; the defaults take about 25 minutes on two cores.
set -euo pipefail
out=${1:-/tmp/round-trip}
pente=${PENTE_BIN:-target/release/pente}
python=${PYTHON:-python3}
games=${GAMES:-200}
steps=${STEPS:-600}
visits=${VISITS:-64}
arena_games=${ARENA_GAMES:-100}
mkdir -p "$out"

# Samples: the shipped network's self-play on 19x19 Pente.
cat > "$out/selfplay.toml" <<TOML
games = $games
seed = 5
threads = 0
games_in_flight = 16
model = "data/models/default"

[[rules]]
variant = "pente"
size = 19

[search]
visits = $visits
noise = true
TOML
"$pente" selfplay --config "$out/selfplay.toml" --out "$out/samples" --quiet
"$pente" model init --out "$out/start" --blocks 4 --channels 32 --seed 1
# The same settings both ways: configs/train.toml's (batch 128, Adam 1e-3
# with 50 warm-up steps and cosine decay to 10 %, weight decay 1e-4, value
# weight 1, symmetries).
"$pente" train --model "$out/start" --samples "$out/samples" --steps "$steps" --out "$out/burn" --id burn --quiet
"$python" -m pente.torchnet train "$out/start" "$out/samples" --out "$out/torch" --id torch --steps "$steps" \
    --batch-size 128 --learning-rate 0.001 --warmup-steps 50 --final-fraction 0.1 --weight-decay 0.0001 --log-every 100
"$python" - "$out" <<'PY'
import csv, sys
from pathlib import Path
out = Path(sys.argv[1])
def rows(path):
    with open(path) as f:
        return [{k: float(v) for k, v in r.items() if v not in ("", None)} for r in csv.DictReader(f)]
burn, torch = rows(out / "burn" / "metrics.csv"), rows(out / "torch" / "metrics.csv")
print("| steps | burn policy loss | PyTorch policy loss | burn value loss | PyTorch value loss |")
print("| --- | --- | --- | --- | --- |")
span = max(-(-len(torch) // 5), 1)  # five rows
for start in range(0, len(torch), span):
    end = min(start + span, len(torch))
    mean = lambda rs, k: sum(r[k] for r in rs if start < r["step"] <= end) / sum(start < r["step"] <= end for r in rs)
    print(f"| {start + 1}-{end} | {mean(burn, 'policy_loss'):.3f} | {mean(torch, 'policy_loss'):.3f} "
          f"| {mean(burn, 'value_loss'):.3f} | {mean(torch, 'value_loss'):.3f} |")
PY
"$pente" arena --a "$out/torch@$visits" --b "$out/burn/checkpoint@$visits" --games "$arena_games" --seed 3 --out "$out/arena.jsonl"
"$pente" arena --a "$out/torch@$visits" --b "heuristic@$visits" --games 20 --seed 4
"$pente" arena --a "$out/burn/checkpoint@$visits" --b "heuristic@$visits" --games 20 --seed 4
