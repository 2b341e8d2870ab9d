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

# Per series and thread count: runs, mean, std dev, min, max and median of the flush, mean context
# switches. On a shared machine a few runs are hit by other tenants: the median shows the typical run.
awk -F, 'NR > 1 {
    key = ($4 == 0 ? $1 "/single-threaded" : $1 "/" $2 ($3 == "-" ? "" : "/" $3)) "," $4
    n[key]++; s[key] += $6; ss[key] += $6 * $6; cs[key] += $13 + $14; sys[key] += $15
    all[key] = all[key] " " $6
  }
  END {
    for (k in n) {
      m = s[k] / n[k]; v = n[k] > 1 ? (ss[k] - n[k] * m * m) / (n[k] - 1) : 0
      c = split(all[k], x, " ")
      for (i = 2; i <= c; i++) { y = x[i]; for (j = i - 1; j >= 1 && x[j] + 0 > y + 0; j--) x[j + 1] = x[j]; x[j + 1] = y }
      med = (c % 2) ? x[(c + 1) / 2] : (x[c / 2] + x[c / 2 + 1]) / 2
      printf "%s,%d,%.6f,%.6f,%.6f,%.6f,%.1f,%.1f,%.6f\n", k, n[k], m, sqrt(v > 0 ? v : 0), x[1], x[c], cs[k] / n[k], sys[k] / n[k], med
    }
  }' "$dir/results.csv" | sort -t, -k1,1 -k2,2n > "$dir/summary.body"
{
  echo "series,threads,runs,mean_seconds,stddev_seconds,min_seconds,max_seconds,process_cs_per_run,system_cs_per_run,median_seconds"
  cat "$dir/summary.body"
} > "$dir/summary.csv"
rm "$dir/summary.body"

# The single-threaded statistics per variant: "variant runs mean variance stddev median".
awk -F, 'NR > 1 && $4 == 0 { n[$1]++; s[$1] += $6; ss[$1] += $6 * $6 }
  END {
    for (v in n) {
      m = s[v] / n[v]; var = n[v] > 1 ? (ss[v] - n[v] * m * m) / (n[v] - 1) : 0; if (var < 0) var = 0
      printf "%s %d %.6f %.9f %.6f\n", v, n[v], m, var, sqrt(var)
    }
  }' "$dir/results.csv" | sort > "$dir/single_threaded.txt"
[ -s "$dir/single_threaded.txt" ] || { echo "plot.sh: no NUM_THREADS=0 runs in $dir/results.csv" >&2; exit 1; }
cores=$(awk -F': ' '/^cores:/ { print $2 }' "$dir/host.txt")

# Plot data: one file per series (threads, mean, std dev, process cs, system cs, speedup over its
# variant's single-threaded mean) and one dashed line per variant's single-threaded mean.
rm -rf "$dir/plotdata"
mkdir -p "$dir/plotdata"
awk -F, -v dir="$dir/plotdata" 'FNR == NR { split($0, f, " "); st[f[1]] = f[3]; next }
  FNR > 1 && $2 > 0 {
    split($1, part, "/"); name = $1; gsub("/", "_", name)
    printf "%d %s %s %s %s %.4f\n", $2, $4, $5, $8, $9, (st[part[1]] > 0 ? st[part[1]] / $4 : 0) > (dir "/series_" name ".dat")
    if ($2 > top) top = $2
  }
  END { for (v in st) printf "1 %s\n%d %s\n", st[v], (top > 1 ? top : 2), st[v] > (dir "/st_" v ".dat") }' \
  "$dir/single_threaded.txt" "$dir/summary.csv"
if ! ls "$dir"/plotdata/series_*.dat >/dev/null 2>&1; then
  echo "plot.sh: no multi-threaded runs in $dir/results.csv; nothing to plot" >&2
  exit 1
fi
# Each kind's series in one file, a block each headed by its name (data, never code).
for kind in series st; do
  first=1
  for f in "$dir"/plotdata/"$kind"_*.dat; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .dat)
    name=${name#"${kind}_"}
    [ "$first" = 1 ] || printf '\n\n'
    first=0
    name=${name//_//}
    printf '"%s"\n' "${name//\"/\'}"
    cat "$f"
  done > "$dir/plotdata/$kind.dat"
done
(cd "$dir" && gnuplot -c "$here/plots.gp" "$cores")  # no path reaches gnuplot (plots.gp)

# The report.
{
  echo "# bond_risk benchmark"
  echo
  "$here/host_info.sh" --table "$dir/host.txt"
  echo
  echo "## Single-threaded (NUM_THREADS=0)"
  echo
  echo "| variant | runs | mean s | variance s² | std dev s | median s |"
  echo "| --- | --- | --- | --- | --- | --- |"
  while read -r v n m var sd; do
    echo "| $v | $n | $m | $var | $sd | $(awk -F, -v s="$v/single-threaded" '$1 == s { print $10 }' "$dir/summary.csv") |"
  done < "$dir/single_threaded.txt"
  echo
  echo "## Duration and context switches per series"
  echo
  echo "Means over the repeats of each run's duration (the median of its full flushes, see 'flushes per run');"
  echo "context switches are the process's own during the start-up flush (getrusage) and the whole system's"
  echo "during the run (/proc/stat ctxt); speedup is the single-threaded mean over the mean."
  echo
  echo "| series | threads | runs | mean s | std dev s | median s | min s | process cs/run | system cs/run | speedup |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  awk -F, 'FNR == NR { split($0, f, " "); st[f[1]] = f[3]; next } FNR > 1 {
      split($1, part, "/")
      printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f |\n", $1, $2, $3, $4, ($3 > 1 ? $5 : "- (one run)"), $10, $6, $8, $9, ($4 > 0 ? st[part[1]] / $4 : 0)
    }' "$dir/single_threaded.txt" "$dir/summary.csv"
  echo
  # A best point only from means of several runs: one run a point (--quick) is noise, not a result.
  awk -F, -v cores="$cores" 'FNR == NR { split($0, f, " "); st[f[1]] = f[3]; next }
    FNR > 1 && $2 > 0 {
      split($1, part, "/"); if (best == "" || $4 < best) { best = $4; s = $1; t = $2; v = part[1] }
      if (fewest == "" || $3 < fewest) fewest = $3
    }
    END {
      if (best == "") exit
      if (fewest < 3) {
        printf "**A smoke test, not a result:** %d run(s) at some thread counts (--quick runs each point once). It shows the benchmark works; ", fewest
        printf "a difference between thread counts means nothing until each point has several runs (--repeat 3 or more, without --quick).\n"
        exit
      }
      printf "**Best:** %s s mean with NUM_THREADS=%s (%s), a speedup of %.2fx over the %s single-threaded mean of %s s, on %s cores.\n", best, t, s, st[v] / best, v, st[v], cores
    }' "$dir/single_threaded.txt" "$dir/summary.csv"
  # The flush against its memory floor (bytes moved / bandwidth), when host.txt has them.
  awk -F': ' -v cores="$cores" 'FNR == NR {
      if ($1 == "flush traffic MB") mb = $2
      if ($1 == "bandwidth GB/s 1 threads") bw1 = $2
      if ($1 == "bandwidth GB/s " cores " threads") bwn = $2
      next
    }
    FNR > 1 {
      split($0, f, ","); if (f[1] ~ /single-threaded$/ && (st == "" || f[10] < st)) st = f[10]
      if (f[2] > 0 && (best == "" || f[10] < best)) best = f[10]
    }
    END {
      if (mb == "" || bw1 == "" || st == "") exit
      floor1 = mb / 1000 / bw1
      printf "\n**Memory floor:** a flush moves %s MB (read + twice written); at %s GB/s on one thread that takes %.6f s: the best single-threaded median is %.2fx the floor.", mb, bw1, floor1, st / floor1
      if (bwn != "" && best != "") printf " At %s GB/s on %s cores the floor is %.6f s: the best median is %.2fx it.", bwn, cores, mb / 1000 / bwn, best / (mb / 1000 / bwn)
      printf "\n"
    }' "$dir/host.txt" "$dir/summary.csv"
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
