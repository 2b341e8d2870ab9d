#!/usr/bin/env bash
# Compares two benchmark directories (say, two commits): the single-threaded
# mean and the best mean duration side by side, with the ratio new/old.
# Exits 1 and says REGRESSION when either got more than 10% slower.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: bench/compare.sh OLD_DIR NEW_DIR (directories written by bench/run_benchmark.sh)" >&2; exit 2; }
for d in "$1" "$2"; do
  [ -f "$d/summary.csv" ] || { echo "compare.sh: $d/summary.csv is missing (run bench/plot.sh $d first)" >&2; exit 1; }
done

# "ST_MEAN BEST_MEAN BEST_THREADS BEST_SERIES" of a summary.csv.
figures() {
  awk -F, 'NR > 1 && $2 == 0 && st == "" { st = $4 }
    NR > 1 && $2 > 0 && (best == "" || $4 < best) { best = $4; t = $2; s = $1 }
    END { printf "%s %s %s %s\n", (st == "" ? "nan" : st), (best == "" ? "nan" : best), t, s }' "$1/summary.csv"
}
read -r old_st old_best old_t old_s <<< "$(figures "$1")"
read -r new_st new_best new_t new_s <<< "$(figures "$2")"

regressed=0
row() {  # name old new
  awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN {
    r = (a > 0) ? b / a : 0
    printf "%-24s %12s %12s %8.3f %s\n", n, a, b, r, (r > 1.10 ? "REGRESSION" : "")
    exit (r > 1.10)
  }' || regressed=1
}
printf "%-24s %12s %12s %8s\n" "" "old" "new" "new/old"
row "single-threaded mean s" "$old_st" "$new_st"
row "best mean s" "$old_best" "$new_best"
echo "best old: NUM_THREADS=$old_t ($old_s); best new: NUM_THREADS=$new_t ($new_s)"
exit "$regressed"
