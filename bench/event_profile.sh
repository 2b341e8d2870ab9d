#!/usr/bin/env bash
# Where a big event's CPU goes, two binaries side by side, by the function
# each sample falls in. For each round, OLD and NEW in turn (ABBA) each
# serve a fresh copy of DB and take EVENTS events one at a time (bump-curve
# CURVE +1 and -1 in turn, roll-date a day further each time, or a
# set-price of 100 quoted bonds: common.sh, send_events), with a
# pause of PAUSE seconds after each, under a sampling profile of every
# thread of the engine (perf, task-clock at 1999 Hz). Each profile starts
# once the start-up flush's results are written and stops once the last
# event's are, so it holds every thread's work for the events and nothing
# else but the idle engine's polls. Prints per class of function the CPU ms
# per event (samples / 1999 Hz / events: the master's, the workers' and the
# result writer's time together), the median over the rounds, and the
# median of the rounds' NEW/OLD. A function is classed by its qualified
# name without its parameters (the first class that matches, in the order
# printed); the kernel and libc by their library; "other" is what no class
# names, and the script lists its largest functions. A binary's own stats
# (bench/event_stages.sh) time stages on the master's clock; this profile
# also covers a binary without per-tier stats, and the writer's thread.
set -euo pipefail
shopt -s inherit_errexit
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common.sh
. "$here/common.sh"

usage="usage: bench/event_profile.sh OLD_BIN NEW_BIN [--db DB] [--rounds N] [--events N] [--pause SECONDS] [--kind bump|roll|quotes] [--curve NAME] [--threads T]
  (default: data/bond_risk_440k.db, 1 round, 20 events, 0.25 s pause, bump of EUR-BUND, 2 worker threads)"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
old=$1 new=$2
shift 2
db=data/bond_risk_440k.db rounds=1 events=20 pause=0.25 kind=bump curve=EUR-BUND threads=2
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || { echo "event_profile.sh: $1 needs a value" >&2; echo "$usage" >&2; exit 2; }
  case $1 in
    --db) db=$2 ;;
    --rounds) rounds=$2 ;;
    --events) events=$2 ;;
    --pause) pause=$2 ;;
    --kind) kind=$2 ;;
    --curve) curve=$2 ;;
    --threads) threads=$2 ;;
    *) echo "event_profile.sh: unknown argument '$1'" >&2; echo "$usage" >&2; exit 2 ;;
  esac
  shift 2
done
check_event_pair "$old" "$new" "$rounds" "$events" "$threads" "$pause" "$kind" "$db"
need awk sqlite3 perf
hz=1999

# The classes, in the order they are tried and printed: "name=regex" on
# "FUNCTION@LIBRARY", the function's qualified name without its parameter
# lists (so a lambda's names the function it is in);
# kernel, libc and other go by library, last.
classes=(
  "result-row copy=ResultRows::(put|fill_row|finish_row|add_rows|reserve_bond_ladders|set_ladder|set_reason|extras_of|clear)|ResultPublisher::(add|add_row|add_all)@|CommandExecutor::(publish_results|unpublished)|ResultMarks::|published_values|^bond_risk::result_row@|key_rate_ladder"
  "result writer=ResultPublisher::|write_rows|write_row|write_key_rates|bind_row|RowWriter::|ResultRows::(row|in_id_order)|sorted_order"
  "SQLite (writer, commits)=@libsqlite|^sqlite3_|base::(Database|Statement|Transaction)::"
  "tier ir_curve=curve_part|sum_over_grids|sum_coupon_grids|sum_grid_|build_key_rates|key_rate_table|build_curve|build_discount|discount_days|Calculator::(curves|calendars)|lay_out_coupon_grids"
  "tier bond=Calculator::(bonds|figures_of|convention_bond|conventions_of|figures_alone)|bond_figures|polish|remaining_flows|CouponStream::|taylor|stream_roots|stream_sums|ExpSum::|convention_(flows|value|key_rates|figures|accrued|yield)|buyers_flows|as_stream|spread_sum|yield_figures|figures_of|BusinessDays::|CouponSchedules::|value_bond|bond_key_rates|icma_fraction|year_fraction|at_root"
  "tier trades=Calculator::(outright_trades|repo_trades|value_repos|repo_inputs_of)"
  "tier books=sum_key_rates|Calculator::(update_book|outright_books|repo_books|book_)|book_rows"
  "graph (marking, order)=engine::Graph::|LiveModel::list_dirty"
)

work=$(mktemp -d)
trap 'pkill -9 -f "$work/" 2>/dev/null || true; rm -rf "$work"' EXIT

# Waits until the engine's results are written up to its last event.
written() {
  local bin=$1 sock=$2 last
  last=$("$bin" send --socket "$sock" stats | field event)
  for _ in $(seq 1200); do
    [ "$("$bin" send --socket "$sock" stats | field results_as_of)" = "$last" ] && return 0
    sleep 0.05
  done
  die "$bin's results did not catch up with event $last in 60 s"
}

# The CPU ms per event of each class (and "all" last), one line, from a profile.
class_ms() {
  perf report -i "$1" -n --no-children --sort dso,symbol --stdio -g none -t '|' 2> "$work/report.log" |
    grep -v '^#' | grep -v '^$' > "$work/report" || die "perf report read nothing from $1 (see $work/report.log)"
  awk -F'|' -v hz="$hz" -v events="$events" -v specs="$(printf '%s\n' "${classes[@]}")" -v others="$work/others" '
    BEGIN {
      n = split(specs, s, "\n")
      for (i = 1; i <= n; i++) { k = index(s[i], "="); name[i] = substr(s[i], 1, k - 1); re[i] = substr(s[i], k + 1) }
      name[n + 1] = "kernel"; name[n + 2] = "libc"; name[n + 3] = "other"
    }
    {
      samples = $2 + 0; dso = $3; fn = $4
      gsub(/^ +| +$/, "", dso); sub(/^\[[^]]*\] /, "", fn); sub(/ +$/, "", fn)
      bare = fn  # without parameter lists (a parameter type names no class); a lambda keeps its function'"'"'s name
      while (gsub(/\([^()]*\)/, "", bare)) {}
      key = bare "@" dso
      c = 0
      for (i = 1; i <= n && !c; i++) if (key ~ re[i]) c = i
      if (!c) c = dso ~ /kernel/ ? n + 1 : dso ~ /^libc/ ? n + 2 : n + 3
      ms[c] += samples; all += samples
      if (c == n + 3) print samples "\t" bare > others
    }
    END {
      if (all == 0) exit 1
      for (i = 1; i <= n + 3; i++) printf "%.3f ", ms[i] / hz * 1000 / events
      printf "%.3f\n", all / hz * 1000 / events
    }' "$work/report" || die "no samples in $1 (see $work/perf.log)"
}

# measure BIN: one profiled engine on a fresh copy; one line of CPU ms per event, a column per class.
measure() {
  local bin=$1 copy=$work/copy.db sock=$work/e.sock perf_pid
  start_engine_on "$bin" "$db" "$copy" "$sock" "$threads" "$work/engine.log"
  written "$bin" "$sock"
  perf record -e task-clock -F "$hz" -p "$engine_pid" -o "$work/perf.data" > "$work/perf.log" 2>&1 &
  perf_pid=$!
  sleep 0.2
  kill -0 "$perf_pid" 2>/dev/null || die "perf could not sample the engine: $(cat "$work/perf.log") (kernel.perf_event_paranoid may forbid it)"
  send_events "$bin" "$sock" "$copy" "$kind" "$events" "$curve" "$pause" "$work/engine.log"
  written "$bin" "$sock"
  kill -INT "$perf_pid" 2>/dev/null || true
  wait "$perf_pid" || true
  "$bin" send --socket "$sock" shutdown > /dev/null || true
  wait "$engine_pid" || true
  class_ms "$work/perf.data"
}

run_abba "$rounds" "$old" "$new" measure "$work/rows"

names=()
for c in "${classes[@]}"; do names+=("${c%%=*}"); done
names+=(kernel libc other all)
echo "CPU ms per $kind event, every thread, by function (medians of $rounds rounds of $events events, $pause s apart, $threads workers)"
pair_table class "$(printf '%s\n' "${names[@]}")" 2 "$work/rows"
echo "The largest functions in \"other\" (the last profile's; CPU ms per event):"
sort -t$'\t' -k2,2 "$work/others" | awk -F'\t' -v hz="$hz" -v events="$events" '
  { if ($2 != last && last != "") { print total "\t" last; total = 0 } total += $1; last = $2 }
  END { if (last != "") print total "\t" last }' | sort -rn | head -5 |
  awk -F'\t' -v hz="$hz" -v events="$events" '{ printf "  %.2f  %s\n", $1 / hz * 1000 / events, $2 }'
