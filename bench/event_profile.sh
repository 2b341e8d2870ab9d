#!/usr/bin/env bash
# Where a big event's CPU goes, two binaries side by side, by what the
# sampled code does: for OLD and NEW in turn, an engine serves a fresh copy
# of DB, and a sampling profile (perf, 1999 Hz, every thread of the engine)
# runs while it takes EVENTS events one at a time (bump-curve CURVE +1 and
# -1 in turn, or roll-date a day further each time) with a pause of 0.25 s
# after each, the pause included, so each event's result writing falls
# within it. Prints, per class of sampled code, the CPU ms per event of each
# binary (samples / 1999 Hz / events: every thread's time, the master's,
# the workers' and the result writer's), and NEW/OLD. Classes go by the
# sampled function's name: the tiers' kernels, the graph's marking and
# ordering, the copy of result rows, the result writer (SQLite), the kernel
# and libc. A binary's own stats (bench/event_stages.sh) time stages on the
# master's clock; this profile is what a binary without per-tier stats can
# still show, and what runs off the master (the writer).
set -euo pipefail
shopt -s inherit_errexit
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common.sh
. "$here/common.sh"

usage="usage: bench/event_profile.sh OLD_BIN NEW_BIN [--db DB] [--events N] [--kind bump|roll] [--curve NAME] [--threads T]
  (default: data/bond_risk_440k.db, 20 events, bump of EUR-BUND, 2 threads)"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
old=$1 new=$2
shift 2
db=data/bond_risk_440k.db events=20 kind=bump curve=EUR-BUND threads=2
while [ $# -gt 0 ]; do
  case $1 in
    --db) db=$2; shift 2 ;;
    --events) events=$2; shift 2 ;;
    --kind) kind=$2; shift 2 ;;
    --curve) curve=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    *) echo "event_profile.sh: unknown argument '$1'" >&2; echo "$usage" >&2; exit 2 ;;
  esac
done
for bin in "$old" "$new"; do [ -x "$bin" ] || die "$bin is not an executable"; done
[[ $events =~ ^[1-9][0-9]*$ && $threads =~ ^[0-9]+$ ]] || die "--events takes a positive whole number, --threads a whole number"
case $kind in bump|roll) ;; *) die "--kind is bump or roll, not '$kind'" ;; esac
ensure_database "$old" "$db"
need awk sqlite3 perf
hz=1999

work=$(mktemp -d)
trap 'pkill -9 -f "$work/" 2>/dev/null || true; rm -rf "$work"' EXIT

# profile BIN OUT: the events on a fresh engine of BIN, sampled into OUT.
profile() {
  local bin=$1 out=$2 copy=$work/copy.db sock=$work/e.sock pid perf_pid i today
  rm -f "$work"/copy.*
  cp "$db" "$copy"
  "$bin" run --db "$copy" --socket "$sock" --threads "$threads" > "$work/engine.log" 2>&1 &
  pid=$!
  for _ in $(seq 1200); do "$bin" send --socket "$sock" stats > /dev/null 2>&1 && break; sleep 0.1; done
  "$bin" send --socket "$sock" stats > /dev/null || die "the engine did not start; see $work/engine.log"
  sleep 2  # the start-up flush's results written
  perf record -F "$hz" -p "$pid" -o "$out" > "$work/perf.log" 2>&1 &
  perf_pid=$!
  sleep 0.5
  today=$(sqlite3 "$copy" "SELECT today FROM calendar ORDER BY id LIMIT 1")
  for i in $(seq "$events"); do
    if [ "$kind" = bump ]; then
      "$bin" send --socket "$sock" bump-curve "$curve" $((i % 2 ? 1 : -1)) > /dev/null
    else
      "$bin" send --socket "$sock" roll-date "$(date -u -d "$today + $i day" +%F)" > /dev/null
    fi || die "$bin refused an event; see $work/engine.log"
    sleep 0.25
  done
  kill -INT "$perf_pid"
  wait "$perf_pid" || true
  [ -s "$out" ] || die "perf recorded nothing (see $work/perf.log; kernel.perf_event_paranoid may forbid it)"
  "$bin" send --socket "$sock" shutdown > /dev/null || true
  wait "$pid" || true
}

# CPU ms per event by class, as "class<TAB>ms" lines, from a profile.
classes() {
  perf report -i "$1" -n --no-children --sort dso,symbol --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' |
    awk -v hz="$hz" -v events="$events" '
      function class(s) {
        if (s ~ /ResultPublisher::add_row|publish_results|unpublished|ResultRows|published_values/) return "result-row copy (publish)"
        if (s ~ /libsqlite|ResultPublisher|ResultWriter|write_rows|write_row|write_key_rates/) return "result writer (SQLite)"
        if (s ~ /curve_part|sum_over_grids|sum_grid|build_key_rates|key_rate_table|build_curve|build_discount|discount_days/) return "tier ir_curve"
        if (s ~ /Calculator::bonds|Calculator::figures_of|key_rate_ladder|bond_figures|polish|remaining_flows|CouponStream|taylor|stream_roots|ExpSum|convention/) return "tier bond"
        if (s ~ /outright_trades|repo_trades|value_repos/) return "tier trades"
        if (s ~ /sum_key_rates|update_book|_books|book_rows/) return "tier books"
        if (s ~ /engine::Graph|list_dirty/) return "graph (dirty marking, order)"
        if (s ~ /kernel\.kallsyms/) return "kernel (file writes, faults, scheduling)"
        if (s ~ /libc\.so/) return "libc (malloc, memmove)"
        return "other"
      }
      { n = $2; $1 = ""; $2 = ""; ms[class($0)] += n; all += n }
      END {
        for (c in ms) printf "%s\t%.2f\n", c, ms[c] / hz * 1000 / events
        printf "all\t%.2f\n", all / hz * 1000 / events
      }'
}

for side in old new; do
  bin=$old
  [ "$side" = new ] && bin=$new
  echo "profiling $side ($bin)" >&2
  profile "$bin" "$work/$side.data"
  classes "$work/$side.data" > "$work/$side.ms"
done

echo "CPU ms per $kind event, every thread, by sampled code ($events events, $threads threads, $hz Hz)"
echo "| class | old | new | new/old |"
echo "| --- | --- | --- | --- |"
awk -F'\t' 'FNR == NR { o[$1] = $2; next } { w[$1] = $2 }
  END {
    for (c in o) if (!(c in w)) w[c] = 0
    for (c in w) {
      if (!(c in o)) o[c] = 0
      printf "| %s | %.2f | %.2f | %s |\n", c, o[c], w[c], (o[c] > 0 ? sprintf("%.2f", w[c] / o[c]) : "-")
    }
  }' "$work/old.ms" "$work/new.ms" | sort
