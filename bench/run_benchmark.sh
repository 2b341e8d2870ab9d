#!/usr/bin/env bash
# The NUM_THREADS sweep of trad4's 2009 bond_risk analysis, reproduced and
# extended: every (optimisation variant, scheduler, wait policy, thread count)
# point is run as fresh `bond_risk run --batch --json` processes, interleaved
# so that the noise of a shared machine falls on every point alike, while a
# sampler records the system's context switches per second. A run's duration
# is the median of its --flushes full flushes (the start-up flush and its
# repeats), which a burst of other tenants' work moves less than a single
# flush; the start-up flush alone is kept beside it. Writes
# results.csv, cs_timeline.csv, host.txt, the plots and report.md to --out.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'USAGE'
usage: bench/run_benchmark.sh [options]

  --db PATH          database (default data/bond_risk_440k.db, generated if missing)
  --threads LIST     NUM_THREADS values (default "0 1 2 4 8 16 32 64 128 256 512 1024")
  --repeat K         runs per point (default 3); NUM_THREADS=0 always gets 10 runs
  --flushes K        full flushes per run (default 5); the run's duration is their median
  --schedulers LIST  pthreads and/or tbb (default "pthreads tbb")
  --wait LIST        wait policies of the pthreads series (default "block busy hybrid")
  --opt LIST         optimisation variants, e.g. "O0 O3", each built into build/<opt>
                     (default: the normal build, bin/bond_risk, labelled O3)
  --out DIR          output directory (default bench/out/<date-time>)
  --limit SECONDS    a run slower than this is killed and ends its series (default 300)
  --quick            a smoke test: the 50k preset, threads up to 64, one run a point (about a minute; no best is reported)

A second run of a series slower than 10x the best so far (one can be a burst of
another tenant's work), or one slower than --limit, ends the sweep of its series
at that thread count and above, with a note in the report.
Set BOND_RISK_BIN to benchmark a given binary instead of building one.
USAGE
}

# shellcheck source=bench/common.sh
. bench/common.sh

db=data/bond_risk_440k.db
threads="0 1 2 4 8 16 32 64 128 256 512 1024"
repeat=3
flushes=5
schedulers="pthreads tbb"
waits="block busy hybrid"
opts=""
out="bench/out/$(date +%Y%m%d-%H%M%S)"
limit=300
while [ $# -gt 0 ]; do
  case "$1" in
    --db) db=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --flushes) flushes=$2; shift 2 ;;
    --schedulers) schedulers=$2; shift 2 ;;
    --wait) waits=$2; shift 2 ;;
    --opt) opts=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --quick) db=data/bond_risk_50k.db; threads="0 1 2 4 8 16 32 64"; repeat=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run_benchmark.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || die "--repeat must be a whole number of at least 1, not '$repeat'"
[[ "$flushes" =~ ^[1-9][0-9]*$ ]] || die "--flushes must be a whole number of at least 1, not '$flushes'"
[[ "$limit" =~ ^[1-9][0-9]*$ ]] || die "--limit must be a whole number of seconds, not '$limit'"
need gnuplot

# The binaries, one per optimisation variant.
declare -A bins
variants=()
if [ -n "${BOND_RISK_BIN:-}" ]; then
  variants=(custom); bins[custom]=$BOND_RISK_BIN
elif [ -z "$opts" ]; then
  make -s bin/bond_risk
  variants=(O3); bins[O3]=bin/bond_risk
else
  for o in $opts; do
    make -s OPT_LEVEL="$o" "build/$o/bin/bond_risk" || die "cannot build variant $o (use O0, O1, O2 or O3)"
    variants+=("$o"); bins[$o]=build/$o/bin/bond_risk
  done
fi
first_bin=${bins[${variants[0]}]}

ensure_database "$first_bin" "$db"

series=()
for s in $schedulers; do
  case "$s" in
    pthreads) for w in $waits; do series+=("pthreads/$w"); done ;;
    tbb) series+=("tbb/-") ;;
    *) die "unknown scheduler $s (pthreads or tbb)" ;;
  esac
done

mkdir -p "$out/runs"
work=$(mktemp -d)
cp "$db" "$work/bench.db"  # --batch writes results: never into the caller's database

{
  bench/host_info.sh
  for v in "${variants[@]}"; do
    if [ "$v" = custom ]; then echo "flags $v: (BOND_RISK_BIN=$BOND_RISK_BIN)"
    elif [ "$v" = O3 ] && [ -z "$opts" ]; then echo "flags $v: $(make -s print-cxxflags | cut -d' ' -f2-)"
    else echo "flags $v: $(make -s OPT_LEVEL="$v" print-cxxflags | cut -d' ' -f2-)"; fi
  done
  echo "eigen: $(pkg-config --modversion eigen3)"
  echo "onetbb: $(pkg-config --modversion tbb)"
  echo "gnuplot: $(gnuplot --version)"
  echo "flushes per run: $flushes (a run's duration is their median; the first is the start-up flush)"
  echo "database: $db ($(sqlite3 "$db" 'SELECT (SELECT count(*) FROM bond) || " bonds, " || (SELECT count(*) FROM outright_trade) || " outright trades, " || (SELECT count(*) FROM repo_trade) || " repo trades"'))"
  # The memory floor: the bytes a flush moves over the bandwidth of a triad on 1 and on all cores.
  for t in 0 "$(nproc)"; do
    "$first_bin" run --batch --db "$work/bench.db" --threads "$t" --memory-floor |
      sed -n 's/^A full flush moves .*(\([0-9.]*\) MB of traffic.*/flush traffic MB: \1/p;
               s/^Memory bandwidth (triad, \([0-9]*\) threads*): \([0-9.]*\) GB\/s.*/bandwidth GB\/s \1 threads: \2/p'
  done | sort -u
} > "$out/host.txt"

system_cs() { awk '/^ctxt/ { print $2 }' /proc/stat; }

# The sampler: system-wide context switches per second every 100 ms, with the run that was active.
echo idle > "$work/active"
sample() {
  local last now cs t0 label
  echo "seconds,cs_per_s,active_run" > "$out/cs_timeline.csv"
  t0=$EPOCHREALTIME
  last=$(system_cs)
  while :; do
    sleep 0.1
    now=$(system_cs)
    read -r label < "$work/active" || label=idle
    cs=$(( (now - last) * 10 ))
    last=$now
    awk -v t0="$t0" -v t="$EPOCHREALTIME" -v cs="$cs" -v l="$label" \
      'BEGIN { printf "%.2f,%d,%s\n", t - t0, cs, l }' >> "$out/cs_timeline.csv"
  done
}
sample &
sampler=$!
trap 'kill "$sampler" 2>/dev/null || true; rm -rf "$work"' EXIT

csv="$out/results.csv"
echo "variant,scheduler,wait_policy,threads,run,flush_seconds,tier1_seconds,tier2_seconds,tier3_seconds,tier4_seconds,tier5_seconds,load_seconds,voluntary_cs,involuntary_cs,system_cs,peak_rss_kb,digest,startup_flush_seconds" > "$csv"
: > "$out/notes.txt"
declare -A stopped_at runs_done strikes
best=""

# One run: appends a line to results.csv and applies the stop condition.
one_run() {
  local variant=$1 sched=$2 wait=$3 t=$4 run=$5 key="$1/$2/$3"
  local bin=${bins[$variant]} json="$out/runs/$variant-$sched-$wait-$t-$run.json" args=(--threads "$t" --flushes "$flushes")
  [ "$sched" != - ] && args+=(--scheduler "$sched")
  [ "$wait" != - ] && args+=(--wait "$wait")
  echo "$key/$t#$run" > "$work/active"
  local before after status=0 text
  before=$(system_cs)
  text=$(timeout "$limit" "$bin" run --batch --db "$work/bench.db" --json "$json" "${args[@]}") || status=$?
  after=$(system_cs)
  echo idle > "$work/active"
  if [ "$status" -ne 0 ]; then
    echo "$key stopped at NUM_THREADS=$t: the run $([ "$status" -eq 124 ] && echo "took more than $limit s" || echo "failed with exit code $status")" | tee -a "$out/notes.txt" >&2
    stopped_at[$key]=$t
    return
  fi
  local line flush
  line=$(echo "$text" | awk -v prefix="$variant,$sched,$wait,$t,$run" -v sys=$((after - before)) -v rss="$(grep -o '"peak_rss_kb": [0-9]*' "$json" | grep -o '[0-9]*$')" '
    /^Loaded / { load = $(NF-1) }
    /^Tier [0-9]+ .* ran / { tier[$2] = $(NF-1) }
    /^All tiers ran / { startup = $(NF-1); if (median == "") median = startup }
    /^Full flush repeated / { median = $7; sub(",", "", median) }
    /^Context switches during the flush:/ { vol = $6; invol = $8 }
    /^Results digest:/ { digest = $3 }
    END { printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", prefix, median, tier[1] + 0, tier[2] + 0, tier[3] + 0, tier[4] + 0, tier[5] + 0, load, vol, invol, sys, rss, digest, startup }')
  echo "$line" >> "$csv"
  flush=$(echo "$line" | cut -d, -f6)
  printf '%-24s threads %5s run %2s: flush %s s\n' "$key" "$t" "$run" "$flush"
  if [ -z "$best" ] || awk -v a="$flush" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$flush; fi
  if awk -v a="$flush" -v b="$best" 'BEGIN { exit !(a > 10 * b) }'; then
    strikes[$key]=$(( ${strikes[$key]:-0} + 1 ))
    if [ "${strikes[$key]}" -ge 2 ]; then
      echo "$key stopped at NUM_THREADS=$t: flush $flush s is more than 10x the best so far ($best s), the second run of the series to be" | tee -a "$out/notes.txt" >&2
      stopped_at[$key]=$t
    else
      echo "$key at NUM_THREADS=$t run $run: flush $flush s is more than 10x the best so far ($best s); a second such run stops the series" | tee -a "$out/notes.txt" >&2
    fi
  fi
}

single_runs=10
for run in $(seq 1 "$repeat"); do
  for t in $threads; do
    for variant in "${variants[@]}"; do
      if [ "$t" = 0 ]; then
        # The single-threaded mean gets 10 runs whatever --repeat is, spread over the repeats.
        per_repeat=$(( (single_runs + repeat - 1) / repeat ))
        for _ in $(seq 1 "$per_repeat"); do
          n=$(( ${runs_done[$variant]:-0} + 1 ))
          [ "$n" -gt "$single_runs" ] && break
          runs_done[$variant]=$n
          one_run "$variant" - - 0 "$n"
        done
        continue
      fi
      for s in "${series[@]}"; do
        key="$variant/${s%%/*}/${s#*/}"
        if [ -n "${stopped_at[$key]:-}" ] && [ "$t" -ge "${stopped_at[$key]}" ]; then continue; fi
        one_run "$variant" "${s%%/*}" "${s#*/}" "$t" "$run"
      done
    done
  done
done

digests=$(tail -n +2 "$csv" | cut -d, -f17 | sort -u | wc -l)
if [ "$digests" -gt 1 ]; then
  echo "Results differ between runs: $digests different digests (column digest of results.csv)." | tee -a "$out/notes.txt" >&2
fi
bench/plot.sh "$out"
echo "Wrote $out: results.csv, cs_timeline.csv, host.txt, report.md and the plots."
[ "$digests" -le 1 ] || exit 1
