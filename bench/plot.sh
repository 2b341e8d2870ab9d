#!/usr/bin/env bash
# Regenerates a benchmark directory's summary, plots and report.md from its
# results.csv, cs_timeline.csv, host.txt and notes.txt.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: bench/plot.sh DIR (a directory written by bench/run_benchmark.sh)" >&2; exit 2; }
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
for f in results.csv cs_timeline.csv host.txt; do
  [ -f "$dir/$f" ] || { echo "plot.sh: $dir/$f is missing; is $dir a benchmark directory?" >&2; exit 1; }
done
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot is missing: run scripts/install-deps.sh" >&2; exit 1; }
[ "$(wc -l < "$dir/results.csv")" -gt 1 ] || { echo "plot.sh: $dir/results.csv has no runs" >&2; exit 1; }

# Per series and thread count: runs, mean, std dev, min and max of the flush, mean context switches.
awk -F, 'NR > 1 {
    key = ($4 == 0 ? $1 "/single-threaded" : $1 "/" $2 ($3 == "-" ? "" : "/" $3)) "," $4
    n[key]++; s[key] += $6; ss[key] += $6 * $6; cs[key] += $12 + $13; sys[key] += $14
    if (!(key in lo) || $6 < lo[key]) lo[key] = $6
    if (!(key in hi) || $6 > hi[key]) hi[key] = $6
  }
  END {
    for (k in n) {
      m = s[k] / n[k]; v = n[k] > 1 ? (ss[k] - n[k] * m * m) / (n[k] - 1) : 0
      printf "%s,%d,%.6f,%.6f,%.6f,%.6f,%.1f,%.1f\n", k, n[k], m, sqrt(v > 0 ? v : 0), lo[k], hi[k], cs[k] / n[k], sys[k] / n[k]
    }
  }' "$dir/results.csv" | sort -t, -k1,1 -k2,2n > "$dir/summary.body"
{
  echo "series,threads,runs,mean_seconds,stddev_seconds,min_seconds,max_seconds,process_cs_per_run,system_cs_per_run"
  cat "$dir/summary.body"
} > "$dir/summary.csv"
rm "$dir/summary.body"

# The single-threaded statistics (of the first variant that has them).
read -r st_n st_mean st_var st_sd <<< "$(awk -F, 'NR > 1 && $4 == 0 {
    if (v == "") v = $1
    if ($1 == v) { n++; s += $6; ss += $6 * $6 }
  }
  END {
    if (n == 0) { print "0 0 0 0"; exit }
    m = s / n; var = n > 1 ? (ss - n * m * m) / (n - 1) : 0; if (var < 0) var = 0
    printf "%d %.6f %.9f %.6f\n", n, m, var, sqrt(var)
  }' "$dir/results.csv")"
cores=$(awk -F': ' '/^cores:/ { print $2 }' "$dir/host.txt")

rm -rf "$dir/plotdata"
mkdir -p "$dir/plotdata"
awk -F, -v dir="$dir/plotdata" -v st="$st_mean" 'NR > 1 && $2 > 0 {
    name = $1; gsub("/", "_", name); f = dir "/" name ".dat"
    printf "%d %s %s %s %s %.4f\n", $2, $4, $5, $8, $9, ($4 > 0 && st > 0 ? st / $4 : 0) > f
  }' "$dir/summary.csv"
if [ -z "$(ls "$dir/plotdata")" ]; then
  echo "plot.sh: no multi-threaded runs in $dir/results.csv; nothing to plot" >&2
  exit 1
fi
gnuplot -e "dir='$dir'; st_mean=$st_mean; cores=$cores" "$here/plots.gp"

# The report.
{
  echo "# bond_risk benchmark"
  echo
  echo "## Host"
  echo
  echo "| | |"
  echo "| --- | --- |"
  sed 's/^\([^:]*\): \(.*\)$/| \1 | \2 |/' "$dir/host.txt"
  echo
  echo "## Single-threaded (NUM_THREADS=0)"
  echo
  echo "| runs | mean s | variance s² | std dev s |"
  echo "| --- | --- | --- | --- |"
  echo "| $st_n | $st_mean | $st_var | $st_sd |"
  echo
  echo "## Duration and context switches per series"
  echo
  echo "Means over the repeats; context switches are the process's own during the flush (getrusage) and the"
  echo "whole system's during the run (/proc/stat ctxt); speedup is the single-threaded mean over the mean."
  echo
  echo "| series | threads | runs | mean s | std dev s | process cs/run | system cs/run | speedup |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
  awk -F, -v st="$st_mean" 'NR > 1 {
      printf "| %s | %s | %s | %s | %s | %s | %s | %.2f |\n", $1, $2, $3, $4, $5, $8, $9, ($4 > 0 ? st / $4 : 0)
    }' "$dir/summary.csv"
  echo
  awk -F, -v st="$st_mean" -v cores="$cores" 'NR > 1 && $2 > 0 && (best == "" || $4 < best) { best = $4; s = $1; t = $2 }
    END {
      if (best == "") exit
      printf "**Best:** %s s with NUM_THREADS=%s (%s), a speedup of %.2fx over the single-threaded mean of %s s on %s cores.\n", best, t, s, st / best, st, cores
    }' "$dir/summary.csv"
  if [ -s "$dir/notes.txt" ]; then
    echo
    echo "## Notes"
    echo
    sed 's/^/- /' "$dir/notes.txt"
  fi
  echo
  echo "## Plots"
  echo
  for p in duration_vs_threads duration_and_cs_vs_threads cs_per_second speedup; do
    echo "![$p]($p.png)"
    echo
  done
} > "$dir/report.md"
echo "plot.sh: wrote $dir/report.md, $dir/summary.csv and 4 plots"
