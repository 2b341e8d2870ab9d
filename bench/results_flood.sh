#!/usr/bin/env bash
# The result writer under a flood of big events: EVENTS curve bumps (+1bp
# and -1bp in turn, on the second curve) or date rolls sent back to back on
# one connection, each as soon as the one before is acknowledged, with a
# `stats` line after every EVERY of them. Prints,
# per sample, the engine's RSS and how far the results database is behind
# (events), then the RSS margin over the sample after the first EVERY, and
# the seconds the results take to catch up once the last event is
# acknowledged (clock: from `send` returning to `stats` showing
# results_as_of equal to the last event, polled every 50 ms).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/common.sh
. bench/common.sh

preset=440k events=2000 every=100 kind=bump bin=bin/bond_risk threads=2
usage() {
  cat <<EOF
usage: bench/results_flood.sh [--preset NAME] [--events N] [--every K] [--kind bump|roll] [--threads T] [--bin PATH]
  --preset NAME  data set (default $preset; data/bond_risk_440k.db is copied when it exists)
  --events N     events sent back to back (default $events)
  --every K      a stats sample after every K events (default $every)
  --kind KIND    bump: bump-curve of the second curve, +1 and -1 in turn; roll: roll-date a day further each time
  --threads T    the engine's workers (default $threads)
  --bin PATH     the bond_risk binary (default $bin)
EOF
}
while [ $# -gt 0 ]; do
  case "$1" in
    --preset) preset=$2; shift 2 ;;
    --events) events=$2; shift 2 ;;
    --every) every=$2; shift 2 ;;
    --kind) kind=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "results_flood: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
case "$kind" in bump|roll) ;; *) echo "results_flood: --kind is bump or roll, not '$kind'" >&2; exit 2 ;; esac

work=$(mktemp -d)
trap 'pkill -9 -f "$work/" 2>/dev/null || true; rm -rf "$work"' EXIT
db=$work/flood.db sock=$work/flood.sock
if [ "$preset" = 440k ] && [ -f data/bond_risk_440k.db ]; then
  cp data/bond_risk_440k.db "$db"
else
  "$bin" generate --preset "$preset" --out "$db" > /dev/null
fi
curve=$(sqlite3 "$db" "SELECT name FROM ir_curve ORDER BY id LIMIT 1 OFFSET 1")
today=$(sqlite3 "$db" "SELECT today FROM calendar ORDER BY id LIMIT 1")
"$bin" run --db "$db" --socket "$sock" --threads "$threads" > "$work/engine.log" 2>&1 &
for _ in $(seq 600); do "$bin" send --socket "$sock" stats > /dev/null 2>&1 && break; sleep 0.1; done


# One connection; each event waits for its reply before the next goes (one
# event a batch, the hardest case for the writer).
coproc CLIENT { "$bin" send --socket "$sock"; }
flood_start=$(date +%s%N)
for i in $(seq "$events"); do
  if [ "$kind" = bump ]; then
    echo "bump-curve $curve $(( i % 2 ? 1 : -1 ))" >&"${CLIENT[1]}"
  else
    echo "roll-date $(date -u -d "$today + $i day" +%F)" >&"${CLIENT[1]}"
  fi
  read -r _ <&"${CLIENT[0]}"
  [ $(( i % every )) -eq 0 ] || continue
  echo stats >&"${CLIENT[1]}"
  read -r sample <&"${CLIENT[0]}"
  echo "$sample" >> "$work/samples"
done
flood_ms=$((($(date +%s%N) - flood_start) / 1000000))
eval "exec ${CLIENT[1]}>&-"  # the client's input closed: send exits
last=$("$bin" send --socket "$sock" stats | field event)
start=$(date +%s%N)
until [ "$("$bin" send --socket "$sock" stats | field results_as_of)" = "$last" ]; do sleep 0.05; done
caught_up_ms=$((($(date +%s%N) - start) / 1000000))

printf '%8s %8s %14s %8s\n' events rss_MB results_as_of behind
n=0 first=0 worst=0
while read -r line; do
  n=$((n + every))
  rss=$(($(echo "$line" | field vm_rss) / 1024))
  event=$(echo "$line" | field event)
  as_of=$(echo "$line" | field results_as_of)
  printf '%8d %8d %14d %8d\n' "$n" "$rss" "$as_of" $((event - as_of))
  [ "$n" -ne "$every" ] || first=$rss
  [ $((rss - first)) -le "$worst" ] || worst=$((rss - first))
done < "$work/samples"
echo "$events events (and $((events / every)) stats) acknowledged in $flood_ms ms: $((events * 1000 / (flood_ms + 1))) events a second"
echo "RSS at most $worst MB above the sample after the first $every events; results caught up $caught_up_ms ms after the last acknowledgement"
"$bin" send --socket "$sock" shutdown > /dev/null
wait
