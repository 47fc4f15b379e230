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
# Games per match: GAMES (default 80) against the baselines, LEVEL_GAMES
# (default 20) against each pente-text level, LEVELS (default all, "1 2 3 4 5
# 6 7 8 9") the levels played. Level 9 thinks 10-30 s a move:
# at fixed visits a match plays its games side by side (level 9's 20 games took
# about 80 minutes of both cores), at a time a move they take turns (about 10
# minutes a level-9 game). Each game is written as it ends; RESUME=1 goes on
# from the games already in OUT_DIR (a killed ladder), playing only the rest.
# SEEDS="11 22" splits each match's games over the arena seeds listed (the
# first seed's games in OUT_DIR/<opponent>.jsonl, the others' in
# <opponent>-seed<S>.jsonl, one result line each), as the committed level-9
# matches were played; the default is one seed, 11.
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
read -r -a seeds <<< "${SEEDS:-11}"
play() { # opponent games
    local name=${1//:/-}
    name=${name%@*}
    local seed file
    for seed in "${seeds[@]}"; do
        file=$name
        [ "$seed" = "${seeds[0]}" ] || file=$name-seed$seed
        "$pente" arena --a "$model@$budget" --b "$1" --games $(($2 / ${#seeds[@]})) --seed "$seed" --quiet \
            --out "$out/$file.jsonl" ${RESUME:+--resume} |
            tee -a "$out/results.txt"
    done
}
play "heuristic@$budget" "$games"
play "uniform@$budget" "$games"
for level in ${LEVELS:-1 2 3 4 5 6 7 8 9}; do
    play "pente-text:$level" "${LEVEL_GAMES:-20}"
done
