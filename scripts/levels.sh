#!/usr/bin/env bash
# Rates the strength levels (`--level`, `@levelN`) of a network on 19x19
# Pente: each level plays each opponent with the same openings.
#
#   scripts/levels.sh [MODEL_DIR] [OUT_DIR]
#
# Defaults: data/models/default, MODEL_DIR/levels. LEVELS (default "1 2 3 4
# 5 6 7 8 9") picks the levels, OPPONENTS (default "heuristic@64
# pente-text:6") the opponents, GAMES (default 20) the games of each match.
# Writes each match's games (OUT_DIR/level<N>-<opponent>.jsonl) and its
# result line to OUT_DIR/results.txt (appended, so a rerun of some levels
# adds to the rest). The pente-text opponents need `apt-get install pente`.
set -euo pipefail
cd "$(dirname "$0")/.."

model=${1:-data/models/default}
out=${2:-$model/levels}
pente=${PENTE:-target/release/pente}

[ -x "$pente" ] || cargo build --release -p pente-cli
mkdir -p "$out"
for level in ${LEVELS:-1 2 3 4 5 6 7 8 9}; do
    for opponent in ${OPPONENTS:-heuristic@64 pente-text:6}; do
        name=${opponent//:/-}
        "$pente" arena --a "$model@level$level" --b "$opponent" --games "${GAMES:-20}" --seed 11 --quiet \
            --out "$out/level$level-${name%@*}.jsonl" | tee -a "$out/results.txt"
    done
done
