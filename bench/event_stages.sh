#!/usr/bin/env bash
# Where a big event's time goes in the engine, two binaries side by side:
# for each round, OLD and NEW in turn (ABBA) each serve a fresh copy of DB
# and take EVENTS events one at a time (bump-curve CURVE +1 and -1 in turn,
# roll-date a day further each time, or a set-price of 100 quoted bonds:
# common.sh, send_events), with a pause of PAUSE seconds (0.25) after each
# so that little of an event's result writing falls on the next (a roll's
# 440,000 rows may still be being written). The engine's own time per stage of a batch of
# changes (stats' time_us: apply, recalculate (to the reply), recalculate_rest (after it), pnl_explain, limit_checks,
# commit, reply, publish; clock: in process, around each stage on the
# master thread) is read before and after and divided by the events, and
# so is the recalculation's time per tier (stats' recalculate_tiers_us).
# Prints per stage the median over the rounds of each binary's ms per
# event, and the median of the rounds' NEW/OLD. The same binary twice with
# different settings: bench/bare_engine.sh as one side.
set -euo pipefail
shopt -s inherit_errexit  # a failure inside $(...) fails the script
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common.sh
. "$here/common.sh"

usage="usage: bench/event_stages.sh OLD_BIN NEW_BIN [--db DB] [--rounds N] [--events N] [--pause SECONDS] [--kind bump|roll|quotes] [--curve NAME] [--threads T]
  (default: data/bond_risk_440k.db, 3 rounds, 40 events, 0.25 s pause, bump of EUR-BUND, 2 threads)"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
old=$1 new=$2
shift 2
db=data/bond_risk_440k.db rounds=3 events=40 pause=0.25 kind=bump curve=EUR-BUND threads=2
while [ $# -gt 0 ]; do
  case $1 in
    --db) db=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --events) events=$2; shift 2 ;;
    --pause) pause=$2; shift 2 ;;
    --kind) kind=$2; shift 2 ;;
    --curve) curve=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    *) echo "event_stages.sh: unknown argument '$1'" >&2; echo "$usage" >&2; exit 2 ;;
  esac
done
check_event_pair "$old" "$new" "$rounds" "$events" "$threads" "$pause" "$kind" "$db"
need awk sqlite3

work=$(mktemp -d)
trap 'pkill -9 -f "$work/" 2>/dev/null || true; rm -rf "$work"' EXIT
stages="apply recalculate recalculate_rest pnl_explain limit_checks commit reply publish"
# Within recalculate, per tier (stats' recalculate_tiers_us; a roll's calendar tier too).
stages="$stages tier:calendar tier:ir_curve tier:bond tier:outright_trade+repo_trade tier:outright_book+repo_book"

# The stats' time_us sums (and batches), and its recalculate_tiers_us
# prefixed "tier:", as "name value" lines.
sums() {
  local stats
  stats=$("$1" send --socket "$2" stats)
  grep -o '"time_us":{[^}]*}' <<< "$stats" | sed 's/[{,]/\n/g' | tr -d '"}' | tr ':' ' ' | grep -v time_us
  grep -o '"recalculate_tiers_us":{[^}]*}' <<< "$stats" | sed 's/[{,]/\n/g' | tr -d '"}' | tr ':' ' ' |
    grep -v recalculate_tiers_us | sed 's/^/tier:/' || true  # none before the first recalculation
}

# measure BIN: one engine on a fresh copy; one row of ms per event, a column per stage.
measure() {
  local bin=$1 copy=$work/copy.db sock=$work/e.sock
  start_engine_on "$bin" "$db" "$copy" "$sock" "$threads" "$work/engine.log"
  sums "$bin" "$sock" > "$work/before" || die "the engine gave no stats; see $work/engine.log"
  send_events "$bin" "$sock" "$copy" "$kind" "$events" "$curve" "$pause" "$work/engine.log"
  sums "$bin" "$sock" > "$work/after" || die "$bin gave no stats after the events; see $work/engine.log"
  "$bin" send --socket "$sock" shutdown > /dev/null || true
  wait "$engine_pid" || true
  awk -v stages="$stages" -v events="$events" '
    FNR == NR { before[$1] = $2; next }
    { after[$1] = $2 }
    END {
      n = split(stages, s, " ")
      for (i = 1; i <= n; i++) printf "%s%.3f", (i > 1 ? " " : ""), (after[s[i]] - before[s[i]]) / events / 1000
      printf "\n"
    }' "$work/before" "$work/after"
}

run_abba "$rounds" "$old" "$new" measure "$work/rows"

echo "ms per $kind event (in process, per stage; medians of $rounds rounds of $events events, $pause s apart, $threads threads)"
pair_table stage "$(tr ' ' '\n' <<< "$stages")" 3 "$work/rows"
