#!/usr/bin/env bash
# Compares two benchmark directories (say, two commits) side by side, with
# the ratio new/old, and exits 1 saying REGRESSION when a gated figure got
# more than 10% worse:
#  - directories of bench/run_benchmark.sh: the single-threaded mean and the
#    best mean flush duration (both gated);
#  - directories of bench/run_events.sh: the round-trip figures, each the
#    median over the repeats (p50 and p99 gated), and the capacity table.
# Exits 2 when the two cannot be compared (round trips at different loads, a
# gated figure missing).
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: bench/compare.sh OLD_DIR NEW_DIR (directories written by bench/run_benchmark.sh or bench/run_events.sh)" >&2; exit 2; }

regressed=0
# row NAME OLD NEW GATED: prints the row; a gated one more than 10% worse (new/old > 1.10) regresses,
# and a gated one without a positive old figure cannot be compared (exit 2).
row() {
  awk -v n="$1" -v a="$2" -v b="$3" -v gated="$4" 'BEGIN {
    if (gated && !(a > 0 && b > 0)) { printf "%-34s %12s %12s: not comparable (a figure is missing or zero)\n", n, a, b; exit 2 }
    r = (a > 0) ? b / a : 0
    bad = gated && r > 1.10
    printf "%-34s %12s %12s %8.3f %s\n", n, a, b, r, (bad ? "REGRESSION" : "")
    exit bad
  }' || { status=$?; [ "$status" -eq 2 ] && exit 2; regressed=1; }
}
header() { printf "%-34s %12s %12s %8s\n" "$1" "old" "new" "new/old"; }

if [ -f "$1/roundtrip.csv" ] && [ -f "$2/roundtrip.csv" ]; then
  # The median over the repeats of a roundtrip.csv column.
  median_of() {
    awk -F, -v c="$2" 'NR > 1 { v[++n] = $c }
      END { for (i = 2; i <= n; i++) { y = v[i]; for (j = i - 1; j >= 1 && v[j] + 0 > y + 0; j--) v[j + 1] = v[j]; v[j + 1] = y }
            print (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) }' "$1/roundtrip.csv"
  }
  # The same offered rate and count, or the latencies measure different loads.
  load_of() { awk -F, 'NR == 2 { print $3 "/s x " $5 }' "$1/roundtrip.csv"; }
  if [ "$(load_of "$1")" != "$(load_of "$2")" ]; then
    echo "compare.sh: the round trips ran at different loads ($(load_of "$1") against $(load_of "$2")): give both runs the same --rate and --count" >&2
    exit 2
  fi
  header "round trips, microseconds"
  for figure in min:6:0 median:7:0 average:8:0 p50:9:1 p75:10:0 p90:11:0 p99:12:1 p99.9:13:0 p99.99:14:0 max:15:0; do
    IFS=: read -r name column gated <<< "$figure"
    row "$name (median of repeats)" "$(median_of "$1" "$column")" "$(median_of "$2" "$column")" "$gated"
  done
  echo "amendments offered per repeat: $(load_of "$1")"
  if [ -f "$1/capacity.csv" ] && [ -f "$2/capacity.csv" ]; then
    header "capacity, commands/s (old/new: higher is better)"
    while IFS=, read -r key old; do
      new=$(awk -F, -v k="$key" 'NR > 1 && $1 "/" $2 == k { print $5 }' "$2/capacity.csv")
      [ -n "$new" ] && row "$key" "$old" "$new" 0
    done < <(awk -F, 'NR > 1 { print $1 "/" $2 "," $5 }' "$1/capacity.csv")
  fi
  exit "$regressed"
fi

for d in "$1" "$2"; do
  [ -f "$d/summary.csv" ] || { echo "compare.sh: $d has neither roundtrip.csv (bench/run_events.sh) nor summary.csv (run bench/plot.sh $d first)" >&2; exit 1; }
done
# "ST_MEAN BEST_MEAN BEST_THREADS BEST_SERIES" of a summary.csv.
figures() {
  awk -F, 'NR > 1 && $2 == 0 && st == "" { st = $4 }
    NR > 1 && $2 > 0 && (best == "" || $4 < best) { best = $4; t = $2; s = $1 }
    END { printf "%s %s %s %s\n", (st == "" ? "nan" : st), (best == "" ? "nan" : best), t, s }' "$1/summary.csv"
}
read -r old_st old_best old_t old_s <<< "$(figures "$1")"
read -r new_st new_best new_t new_s <<< "$(figures "$2")"
header ""
row "single-threaded mean s" "$old_st" "$new_st" 1
row "best mean s" "$old_best" "$new_best" 1
echo "best old: NUM_THREADS=$old_t ($old_s); best new: NUM_THREADS=$new_t ($new_s)"
exit "$regressed"
