#!/usr/bin/env bash
# Times the full flush for several NUM_THREADS values, each run a fresh
# bin/bond_risk process, interleaving thread counts so that machine noise
# falls on all of them alike. Prints one CSV line per run and a summary of
# the median per thread count.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'USAGE'
usage: bench/run_benchmark.sh [--db PATH] [--threads "0 1 2 4"] [--repeat K] [--grain N]

  --db PATH        database (default data/bond_risk_440k.db, generated if missing)
  --threads LIST   NUM_THREADS values, space separated (default "0 1 2 4 8 64 1024")
  --repeat K       runs per thread count (default 5)
  --grain N        nodes per chunk (default: the conf file's GRAIN)
USAGE
}

db=data/bond_risk_440k.db
threads="0 1 2 4 8 64 1024"
repeat=5
grain=()
while [ $# -gt 0 ]; do
  case "$1" in
    --db) db=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
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

results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "threads,run,flush_seconds,load_seconds,voluntary_cs,involuntary_cs"
for run in $(seq 1 "$repeat"); do
  for t in $threads; do
    out=$(bin/bond_risk run --db "$db" --threads "$t" "${grain[@]}")
    echo "$out" | awk -v t="$t" -v run="$run" '
      /^Loaded / { load = $(NF-1) }
      /^All tiers ran / { flush = $(NF-1) }
      /^Context switches during the flush:/ { vol = $6; invol = $8 }
      END { printf "%s,%s,%s,%s,%s,%s\n", t, run, flush, load, vol, invol }' | tee -a "$results"
  done
done

echo
echo "median over $repeat runs:"
printf "%8s %14s %14s %10s\n" threads flush_seconds load_seconds cs_per_run
for t in $threads; do
  awk -F, -v t="$t" '$1 == t { print $3, $4, $5 + $6 }' "$results" | sort -n | awk -v t="$t" '
    { flush[NR] = $1; load[NR] = $2; cs[NR] = $3 }
    END { m = int((NR + 1) / 2); printf "%8s %14s %14s %10s\n", t, flush[m], load[m], cs[m] }'
done
