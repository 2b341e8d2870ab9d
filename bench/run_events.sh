#!/usr/bin/env bash
# The running engine measured as trading systems report it: latency at
# offered rates without coordinated omission, bursts and slow rates per wait
# policy, memory growth with bookings, repeated round-trip runs and capacity
# per workload mix with each synchronous setting, and set-price ticks of
# 100 quoted bonds at 1,000 a second. Each experiment is a
# `bond_risk bench-load` run against a fresh engine on a fresh copy of the
# database; every latency runs from a command's due time to its reply read
# back through the socket, the durable commit included. Writes the CSVs,
# host.txt, the plots and report.md (bench/events_report.sh) to --out.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'USAGE'
usage: bench/run_events.sh [--quick] [options]

  --db PATH          database (default data/bond_risk_440k.db, generated if missing)
  --out DIR          output directory (default bench/out/events-<date-time>)
  --threads N        the engine's worker threads (default 2)
  --quick            the 50k preset with shorter runs (a few minutes)
  --only LIST        run only these experiments of "rates roundtrip patterns memory capacity quotes" (the
                     CSVs of the others already in --out are kept; without --rate, roundtrip reads
                     rates.csv), or "day": a desk's day after start-day (bench-load day), with the
                     total's and the largest book's explain waterfalls (day-*.png)
Sizes (defaults of a full run; --quick's in brackets):
  --rates LIST       offered amendments per second, open loop ("1000 5000 10000 20000 50000"; the same),
                     then doubled until the engine no longer keeps up
  --seconds S        seconds per offered rate, per capacity point and of quote ticks (5 [2])
  --window N         capacity: commands in flight at most (4096); the client stops sending after
                     --seconds and waits for the replies, so a slow (instrumented) build wants fewer
  --tick-rate R      set-price ticks offered per second (1000), --tick-bonds N bonds each (100)
  --bursts LIST      burst sizes ("1 10 100 1000 10000 100000" ["1 10 100 1000 10000"]); a size
                     repeats until --burst-commands N commands (1000), at most 200 times
  --slow LIST        slow rates per second ("1 2 10"), --slow-events N events each (60 [5])
  --trades N         trades booked for the memory table, --step N between samples (2000000, 100000
                     [200000, 20000])
  --count N          amendments per round-trip repeat, --repeats N repeats (1000000, 5 [100000, 5]);
                     their rate: --rate R, else the highest offered rate with p99 under 10 ms, at
                     most --max-rate (default 50000); give --rate to compare two commits alike

Set BOND_RISK_BIN to benchmark a given binary instead of building one. Compare two runs (two
commits) with bench/compare.sh OLD_DIR NEW_DIR.
USAGE
}

# shellcheck source=bench/common.sh
. bench/common.sh

db=data/bond_risk_440k.db
out="bench/out/events-$(date +%Y%m%d-%H%M%S)"
threads=2
rates="1000 5000 10000 20000 50000"
seconds=5
window=4096
bursts="1 10 100 1000 10000 100000"
burst_commands=1000
slow="1 2 10"
slow_events=60
trades=2000000
step=100000
count=1000000
repeats=5
max_rate=50000
rate=""
tick_rate=1000
tick_bonds=100
only="rates roundtrip patterns memory capacity quotes"
while [ $# -gt 0 ]; do
  case "$1" in
    --db) db=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --rates) rates=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --window) window=$2; shift 2 ;;
    --bursts) bursts=$2; shift 2 ;;
    --burst-commands) burst_commands=$2; shift 2 ;;
    --slow) slow=$2; shift 2 ;;
    --slow-events) slow_events=$2; shift 2 ;;
    --trades) trades=$2; shift 2 ;;
    --step) step=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --max-rate) max_rate=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --tick-rate) tick_rate=$2; shift 2 ;;
    --tick-bonds) tick_bonds=$2; shift 2 ;;
    --quick) db=data/bond_risk_50k.db; seconds=2; bursts="1 10 100 1000 10000"; slow_events=5
             trades=200000; step=20000; count=100000; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run_events.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
need gnuplot sqlite3
bin=$(bench_binary)
ensure_database "$bin" "$db"

for e in $only; do
  case "$e" in rates|roundtrip|patterns|memory|capacity|quotes|day) ;; *) die "unknown experiment '$e' in --only (rates, roundtrip, patterns, memory, capacity, quotes, day)" ;; esac
done
wanted() { [[ " $only " == *" $1 "* ]]; }

mkdir -p "$out"
for e in $only; do rm -f "$out/$e.csv"; done
wanted roundtrip && rm -f "$out/roundtrip_histogram.csv"
work=$(mktemp -d)
engine_pid=""
stop_engine() {
  [ -n "$engine_pid" ] || return 0
  "$bin" send --socket "$work/engine.sock" shutdown >/dev/null 2>&1 || kill "$engine_pid" 2>/dev/null || true
  wait "$engine_pid" 2>/dev/null || true
  engine_pid=""
}
trap 'stop_engine; rm -rf "$work"' EXIT

# A fresh engine on a fresh copy of the database, with the extra run options given.
start_engine() {
  stop_engine
  rm -f "$work"/engine.*
  cp "$db" "$work/engine.db"
  "$bin" run --db "$work/engine.db" --socket "$work/engine.sock" --threads "$threads" "$@" > "$work/engine.log" 2>&1 &
  engine_pid=$!
}

# One experiment against the engine running: bench-load EXPERIMENT LABEL [options].
load() {
  local experiment=$1 label=$2
  shift 2
  echo "== $experiment ($label)"
  "$bin" bench-load "$experiment" --socket "$work/engine.sock" --db "$work/engine.db" --out "$out" --label "$label" "$@" ||
    die "$experiment ($label) failed; the engine's log: $(tail -5 "$work/engine.log")"
}

# The host of the whole run (kept when --only leaves rates out and a run wrote it before).
if wanted rates || [ ! -f "$out/host.txt" ]; then {
  bench/host_info.sh
  echo "engine: $bin run --threads $threads (WAIT_POLICY and SYNCHRONOUS as each table says)"
  echo "database: $db ($(sqlite3 "$db" 'SELECT (SELECT count(*) FROM bond) || " bonds, " || (SELECT count(*) FROM outright_trade) || " outright trades, " || (SELECT count(*) FROM repo_trade) || " repo trades"'))"
  echo "disk: $(df -h "$work" | awk 'NR == 2 { print $1 " (" $2 ")" }')"
} > "$out/host.txt"; fi

if wanted rates; then
  start_engine --wait block
  load rates block --rates "$rates" --seconds "$seconds"
fi

if wanted roundtrip; then
  if [ -z "$rate" ]; then
    [ -s "$out/rates.csv" ] || die "roundtrip takes its rate from $out/rates.csv: run rates first, or give --rate"
    # The round trips at the highest offered rate the engine kept up with, its p99 under 10 ms.
    rate=$(awk -F, -v cap="$max_rate" 'NR > 1 && $4 == 1 && $8 < 10000 && $2 > best { best = $2 }
      END { print (best == "" ? 1000 : (best > cap ? cap : best)) }' "$out/rates.csv")
  fi
  start_engine --wait block
  load roundtrip block --count "$count" --rate "$rate" --repeats "$repeats"
fi

if wanted patterns; then
  for wait in block busy; do
    start_engine --wait "$wait"
    load patterns "$wait" --bursts "$bursts" --burst-commands "$burst_commands" --slow "$slow" --slow-events "$slow_events"
  done
fi

if wanted memory; then
  start_engine --wait block
  load memory block --trades "$trades" --step "$step"
fi

if wanted capacity; then
  for sync in FULL NORMAL OFF; do
    start_engine --wait block --synchronous "$sync"
    load capacity "$sync" --seconds "$seconds" --window "$window"
  done
fi
if wanted quotes; then
  start_engine --wait block
  load quotes block --tick-rate "$tick_rate" --tick-bonds "$tick_bonds" --seconds "$seconds"
fi
if wanted day; then
  rm -f "$out/day.csv"
  start_engine --wait block
  load day block
  stop_engine
  "$bin" plot explain --db "$work/engine.db" --out "$out/day-total.png"
  "$bin" plot explain "$(cat "$out/day-book.txt")" --db "$work/engine.db" --out "$out/day-book.png"
  "$bin" explain --db "$work/engine.db" > "$out/day-explain.txt"
fi
stop_engine

for e in rates roundtrip patterns memory capacity quotes; do
  if [ ! -s "$out/$e.csv" ]; then
    echo "Wrote the CSVs of \"$only\" to $out; report.md needs all six experiments there ($e.csv is missing)."
    exit 0
  fi
done
bench/events_report.sh "$out"
echo "Wrote $out: rates.csv, patterns.csv, memory.csv, roundtrip.csv, roundtrip_histogram.csv, capacity.csv, quotes.csv, host.txt, report.md and the plots."
