#!/usr/bin/env bash
# What carrying the replay window across sittings is worth, at equal CPU:
# for each seed, a first sitting of the quick loop (configs/loop-quick.toml,
# 4 iterations, its export keeping the newest 3 iterations' samples, as
# `carry_window = 3` does), then two sittings of 2 iterations from its
# network, one starting with those samples (A) and one without (B): the same
# games and steps, so the same CPU. Gates are off (promote_score = 0) so each
# sitting's network is its last candidate; then A plays B.
#
#   scripts/carry-window-trial.sh [OUT_DIR]
#
# Defaults: runs/carry-window. SEEDS (default "1 2 3 4 5 6") picks the
# seeds, GAMES (default 200) the games of each match. Rerunning skips the
# sittings already done; each seed's match result goes to OUT_DIR/results.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-runs/carry-window}
pente=${PENTE:-target/release/pente}
games=${GAMES:-200}
[ -x "$pente" ] || cargo build --release -p pente-cli

for seed in ${SEEDS:-1 2 3 4 5 6}; do
    dir=$out/s$seed
    mkdir -p "$dir"
    python3 - "$dir" "$seed" <<'PY'
import re, sys
dir, seed = sys.argv[1], sys.argv[2]
def set_key(text, key, value):
    return re.sub(rf'^{key} = .*$', f'{key} = {value}', text, count=1, flags=re.M)
base = open('configs/loop-quick.toml').read()
base = set_key(base, 'name', '"cw"')
base = set_key(base, 'seed', seed)
base = set_key(base, 'promote_score', '0.0')
first = set_key(base, 'runs_dir', f'"{dir}/runs"')
first = set_key(first, 'iterations', f'4\nexport = "{dir}/base"\ncarry_window = 3')
open(f'{dir}/first.toml', 'w').write(first)
# The later sittings start from the first's network: no teacher, no [net].
later = re.sub(r'^bootstrap = .*\n', '', base, flags=re.M)
later = re.sub(r'\[bootstrap_iteration\]\n[^\[]*', '', later)
later = re.sub(r'\[net\]\n[^\[]*', '', later)
for arm, carry in (('a', 3), ('b', 0)):
    text = set_key(later, 'runs_dir', f'"{dir}/runs-{arm}"')
    text = set_key(text, 'iterations', f'2\nstart = "{dir}/{arm}"\nexport = "{dir}/{arm}"\ncarry_window = {carry}')
    open(f'{dir}/{arm}.toml', 'w').write(text)
PY
    [ -f "$dir/base/model.json" ] || "$pente" loop --config "$dir/first.toml" --quiet > "$dir/first.log" 2>&1
    for arm in a b; do
        if [ ! -f "$dir/$arm.done" ]; then
            rm -rf "${dir:?}/$arm" "$dir/runs-$arm"
            cp -r "$dir/base" "$dir/$arm"
            [ "$arm" = b ] && rm -rf "$dir/b/window"
            "$pente" loop --config "$dir/$arm.toml" --quiet > "$dir/$arm.log" 2>&1
            touch "$dir/$arm.done"
        fi
    done
    rm -f "$dir/match.jsonl"
    result=$("$pente" arena --a "$dir/a@32" --b "$dir/b@32" --games "$games" --size 9 --seed "$seed" --quiet \
        --out "$dir/match.jsonl" 2>&1 | tail -1)
    echo "seed $seed, with the carried window (A) against without (B): $result" | tee -a "$out/results.txt"
done
