#!/usr/bin/env bash
# Times the full flush for every combination of scheduler, wait policy and
# NUM_THREADS, each run a fresh bin/bond_risk process. Runs are interleaved
# (repeat, then thread count, then series) so that the noise of a shared
# machine falls on every variant alike. Every run's results digest must be
# the same: the check that results are bit-identical for every variant.
# Prints one CSV line per run, then the median run per series and thread count.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'USAGE'
usage: bench/run_benchmark.sh [--db PATH] [--threads LIST] [--repeat K] [--schedulers LIST] [--wait LIST] [--grain N]

  --db PATH          database (default data/bond_risk_440k.db, generated if missing)
  --threads LIST     NUM_THREADS values, space separated (default "0 1 2 4 8 64 1024 4096")
  --repeat K         runs per point (default 5)
  --schedulers LIST  pthreads and/or tbb (default "pthreads tbb")
  --wait LIST        wait policies of the pthreads series (default "block busy hybrid")
  --grain N          work per chunk (default: the conf file's GRAIN)
USAGE
}

db=data/bond_risk_440k.db
threads="0 1 2 4 8 64 1024 4096"
repeat=5
schedulers="pthreads tbb"
waits="block busy hybrid"
grain=()
while [ $# -gt 0 ]; do
  case "$1" in
    --db) db=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --schedulers) schedulers=$2; shift 2 ;;
    --wait) waits=$2; shift 2 ;;
    --grain) grain=(--grain "$2"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run_benchmark.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done

make -s bin/bond_risk
if [ ! -f "$db" ]; then
  if [ "$db" = data/bond_risk_440k.db ]; then
    bin/bond_risk generate --preset 440k --out "$db"
  else
    echo "run_benchmark.sh: database $db does not exist (make one with bin/bond_risk generate)" >&2
    exit 1
  fi
fi

series=()
for s in $schedulers; do
  case "$s" in
    pthreads) for w in $waits; do series+=("pthreads/$w"); done ;;
    tbb) series+=("tbb") ;;
    *) echo "run_benchmark.sh: unknown scheduler $s (pthreads or tbb)" >&2; exit 2 ;;
  esac
done

results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "series,threads,run,flush_seconds,load_seconds,voluntary_cs,involuntary_cs,digest"
for run in $(seq 1 "$repeat"); do
  for t in $threads; do
    for s in "${series[@]}"; do
      args=(--scheduler "${s%%/*}")
      [ "$s" != tbb ] && args+=(--wait "${s#*/}")
      out=$(TIMING_DEBUG=0 bin/bond_risk run --db "$db" --threads "$t" "${args[@]}" "${grain[@]}")
      echo "$out" | awk -v s="$s" -v t="$t" -v run="$run" '
        /^Loaded / { load = $(NF-1) }
        /^All tiers ran / { flush = $(NF-1) }
        /^Context switches during the flush:/ { vol = $6; invol = $8 }
        /^Results digest:/ { digest = $3 }
        END { printf "%s,%s,%s,%s,%s,%s,%s,%s\n", s, t, run, flush, load, vol, invol, digest }' | tee -a "$results"
    done
  done
done

echo
echo "median run (by flush time) of $repeat:"
printf "%-16s %8s %14s %12s %12s\n" series threads flush_seconds cs_per_run vs_best
best=$(awk -F, '{ print $4 }' "$results" | sort -g | head -1)
for s in "${series[@]}"; do
  for t in $threads; do
    awk -F, -v s="$s" -v t="$t" '$1 == s && $2 == t { print $4, $6 + $7 }' "$results" | sort -g | awk \
      -v s="$s" -v t="$t" -v best="$best" '
      { flush[NR] = $1; cs[NR] = $2 }
      END { m = int((NR + 1) / 2); printf "%-16s %8s %14s %12s %11.2fx\n", s, t, flush[m], cs[m], flush[m] / best }'
  done
done

digests=$(awk -F, '{ print $8 }' "$results" | sort -u | wc -l)
if [ "$digests" -ne 1 ]; then
  echo "run_benchmark.sh: RESULTS DIFFER between runs ($digests different digests); see the digest column" >&2
  exit 1
fi
echo "All $(wc -l < "$results") runs gave the same results digest $(head -1 "$results" | cut -d, -f8)."
