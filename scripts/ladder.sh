#!/usr/bin/env bash
# Rates a network on 19x19 Pente: against the heuristic and uniform search at
# equal visits, and against Debian's `pente -text` at every computer level.
#
#   scripts/ladder.sh [MODEL_DIR] [BUDGET] [OUT_DIR]
#
# BUDGET is visits a move (64) or a time a move (1.5s, 500ms: the games
# then take turns, so that each move's time is its own). Append +nosolver
# to search without the threat solver (64+nosolver).
# Defaults: data/models/default, 64 visits, MODEL_DIR/arena. Writes each
# match's games (OUT_DIR/<opponent>.jsonl) and its result line to
# OUT_DIR/results.txt. Needs `apt-get install pente` for the pente-text levels.
# Games per match: GAMES (default 80) against the baselines, 20 against
# pente-text levels 1-6 and fewer against the slow top levels (level 9 thinks
# for seconds a move). Each game is written as it ends; RESUME=1 goes on from
# the games already in OUT_DIR (a killed ladder), playing only the rest.
set -euo pipefail
cd "$(dirname "$0")/.."

model=${1:-data/models/default}
budget=${2:-64}
out=${3:-$model/arena}
games=${GAMES:-80}
pente=${PENTE:-target/release/pente}

[ -x "$pente" ] || cargo build --release -p pente-cli
mkdir -p "$out"
: > "$out/results.txt"
play() { # opponent games
    local name=${1//:/-}
    "$pente" arena --a "$model@$budget" --b "$1" --games "$2" --seed 11 --quiet --out "$out/${name%@*}.jsonl" \
        ${RESUME:+--resume} |
        tee -a "$out/results.txt"
}
play "heuristic@$budget" "$games"
play "uniform@$budget" "$games"
for level_games in 1:20 2:20 3:20 4:20 5:20 6:20 7:10 8:6 9:4; do
    play "pente-text:${level_games%:*}" "${level_games#*:}"
done
