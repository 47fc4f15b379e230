#!/usr/bin/env bash
# The fairness study: a root-only book of 1 000 strong self-play games for
# each variant of the pente.org family on 19x19, then the table and its plot.
#
#   bash scripts/fairness.sh                      # every variant, into data/books/fairness/
#   VARIANTS="pente keryo" GAMES=200 bash scripts/fairness.sh
#   OUT=/tmp/f TEMPERATURE_PLIES=2 bash scripts/fairness.sh   # how the games' variety moves the figure
#   MODEL=data/models/variants VARIANTS="keryo o-pente" bash scripts/fairness.sh   # another player
#
# Every variant is played by the shipped network unless MODEL names another;
# the committed study plays the five variants it plays weakly again with the
# network fine-tuned for them (see docs/fairness.md):
#   OUT=data/books/fairness-variants MODEL=data/models/variants \
#     VARIANTS="keryo free-keryo swap2-keryo o-pente dk-pente" bash scripts/fairness.sh
#
# Each book is resumable: run the same command again after a kill.
set -euo pipefail
cd "$(dirname "$0")/.."
pente="${PENTE:-target/release/pente}"
out="${OUT:-data/books/fairness}"
variants="${VARIANTS:-pente keryo free-pente free-keryo g-pente d-pente dk-pente swap2-pente swap2-keryo poof-pente boat-pente o-pente connect6}"
config="${CONFIG:-configs/book-fairness.toml}"
if [ -n "${TEMPERATURE_PLIES:-}" ]; then
    config="$(mktemp)"
    sed "s/^temperature_plies = .*/temperature_plies = $TEMPERATURE_PLIES/" configs/book-fairness.toml > "$config"
fi
mkdir -p "$out"
books=()
all="pente keryo free-pente free-keryo g-pente d-pente dk-pente swap2-pente swap2-keryo poof-pente boat-pente o-pente connect6"
for variant in $variants; do
    "$pente" book build --config "$config" --variant "$variant" --out "$out/$variant.sqlite" \
        ${MODEL:+--model "$MODEL"} ${GAMES:+--root-games "$GAMES"} ${THREADS:+--threads "$THREADS"} ${QUIET:+--quiet}
done
# The table holds every book of the study that is there, whoever played it.
for variant in $all; do
    if [ -f "$out/$variant.sqlite" ]; then books+=("$out/$variant.sqlite"); fi
done
"$pente" book fairness "${books[@]}" --plot "$out/fairness.png" | tee "$out/fairness.txt"
"$pente" book fairness "${books[@]}" --format csv > "$out/fairness.csv"
