#!/usr/bin/env bash
# Compares two binaries on `bond_risk bench-events`, side by side: runs OLD
# and NEW alternately (ABBA), ROUNDS times each, on the same database, and prints per
# series the median over the rounds of each one's p50 and p99.9 (microseconds;
# where each clock starts and stops: bench-events --help) and the median of
# the rounds' ratios NEW/OLD. On a shared, noisy host a pair taken together
# holds where two runs an hour apart do not. Rates (ticks acknowledged a
# second, paced and flat out; sustained durable amendments) likewise.
set -euo pipefail
# shellcheck source=bench/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

usage="usage: bench/pair_events.sh OLD_BIN NEW_BIN [--rounds N] [--out DIR] [-- BENCH-EVENTS OPTIONS...]
  (default: 5 rounds, DIR bench/out/pairs, options --db data/bond_risk_440k.db --events 3000 --bumps 30 --ticks 300)"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
old=$1 new=$2
shift 2
rounds=5 out=bench/out/pairs
options=(--db data/bond_risk_440k.db --events 3000 --bumps 30 --ticks 300)
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; options=("$@"); break ;;
    *) echo "pair_events.sh: unknown argument '$1'" >&2; echo "$usage" >&2; exit 2 ;;
  esac
done
for bin in "$old" "$new"; do
  [ -x "$bin" ] || { echo "pair_events.sh: $bin is not an executable (build it, e.g. in a git worktree of the older commit)" >&2; exit 2; }
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "pair_events.sh: --rounds takes a positive whole number, not '$rounds'" >&2; exit 2; }

mkdir -p "$out"
for r in $(seq "$rounds"); do
  for side in $(abba_sides "$r"); do
    bin=$old
    [ "$side" = new ] && bin=$new
    echo "round $r of $rounds: $side ($bin)" >&2
    "$bin" bench-events "${options[@]}" --out "$out/$side-$r" > "$out/$side-$r.log" 2>&1 ||
      { echo "pair_events.sh: $bin bench-events failed; see $out/$side-$r.log" >&2; exit 1; }
  done
done

# One row per figure: old and new medians over the rounds, and the median of the rounds' new/old.
files=()
for r in $(seq "$rounds"); do files+=("$out/old-$r/summary.txt" "$out/new-$r/summary.txt"); done
awk -v rounds="$rounds" "$(median_awk)"'
  function keep(name, value) {
    if (!(name in seen)) { seen[name] = 1; order[++count] = name }
    values[name, side] = values[name, side] " " value
    if (side == "new") ratios[name] = ratios[name] " " (last[name] > 0 ? value / last[name] : 0)
    else last[name] = value
  }
  FNR == 1 { side = (FILENAME ~ /\/old-[0-9]+\/summary.txt$/) ? "old" : "new"; acknowledged = 0 }
  $1 ~ /_(in_process|end_to_end)$/ && NF >= 10 { keep($1 " p50", $4); keep($1 " p99.9", $8) }
  /acknowledged a second/ { for (i = 1; i <= NF; i++) if ($(i + 1) == "acknowledged") keep((++acknowledged == 1 ? "ticks paced" : "ticks flat out") " acknowledged/s", $i) }
  /sustained durable amendments/ { keep("sustained amendments/s", $(NF - 2)) }
  END {
    printf "%-44s %12s %12s %10s   (medians of %d rounds)\n", "figure", "old", "new", "new/old", rounds
    for (k = 1; k <= count; k++) {
      name = order[k]
      if (values[name, "old"] == "") {  # a figure the old binary does not measure
        printf "%-44s %12s %12.1f %10s\n", name, "-", median(values[name, "new"]), "-"
        continue
      }
      printf "%-44s %12.1f %12.1f %10.3f\n", name, median(values[name, "old"]), median(values[name, "new"]), median(ratios[name])
    }
  }' "${files[@]}" | tee "$out/pairs.txt"
