#!/usr/bin/env bash
# Sourced by the bench scripts: their error exit, the tools they need, the
# binary they measure and the data set they run on.

# Prints "SCRIPT: MESSAGE" on standard error and exits 1.
die() { echo "$(basename "$0"): $*" >&2; exit 1; }

# Dies unless every COMMAND given is installed.
need() {
  local c
  for c in "$@"; do command -v "$c" >/dev/null || die "$c is missing: run scripts/install-deps.sh"; done
}

# The binary to measure: $BOND_RISK_BIN, else bin/bond_risk, built first.
bench_binary() {
  if [ -n "${BOND_RISK_BIN:-}" ]; then
    echo "$BOND_RISK_BIN"
  else
    make -s bin/bond_risk >&2 && echo bin/bond_risk
  fi
}

# ensure_database BIN DB: generates DB with BIN when it is a preset's default
# path and missing; dies for any other path that is missing.
ensure_database() {
  [ -f "$2" ] && return 0
  case "$2" in
    data/bond_risk_440k.db) "$1" generate --preset 440k --out "$2" ;;
    data/bond_risk_50k.db) "$1" generate --preset 50k --out "$2" ;;
    *) die "database $2 does not exist (make one with: bin/bond_risk generate --preset 440k --out $2)" ;;
  esac
}

# check_event_pair OLD NEW ROUNDS EVENTS THREADS PAUSE KIND DB: the options
# of a pair of binaries' events (event_stages.sh, event_profile.sh), checked;
# dies naming the first that is wrong, else makes DB if it is a preset's.
check_event_pair() {
  local bin
  for bin in "$1" "$2"; do [ -x "$bin" ] || die "$bin is not an executable"; done
  [[ $3 =~ ^[1-9][0-9]*$ && $4 =~ ^[1-9][0-9]*$ && $5 =~ ^[0-9]+$ ]] ||
    die "--rounds and --events take positive whole numbers, --threads a whole number"
  [[ $6 =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--pause takes seconds, e.g. 0.25, not '$6'"
  case $7 in bump|roll|quotes) ;; *) die "--kind is bump, roll or quotes, not '$7'" ;; esac
  ensure_database "$1" "$8"
}

# The two sides of round R of a pair of binaries, in the order they run:
# odd rounds "old new", even rounds "new old" (ABBA), so that what one run
# leaves the next (a warm cache, dirty pages being written back) falls on
# both alike.
abba_sides() { if [ $(($1 % 2)) -eq 0 ]; then echo "new old"; else echo "old new"; fi; }

# run_abba ROUNDS OLD_BIN NEW_BIN MEASURE ROWS: ROUNDS rounds of both
# binaries in abba_sides order, each appending "old|new OUTPUT" of
# `MEASURE BIN` (one line) to the file ROWS; a failing MEASURE ends the script.
run_abba() {
  local rounds=$1 old=$2 new=$3 measure=$4 rows=$5 r side bin row
  for r in $(seq "$rounds"); do
    for side in $(abba_sides "$r"); do
      bin=$old
      [ "$side" = new ] && bin=$new
      echo "round $r of $rounds: $side ($bin)" >&2
      row=$("$measure" "$bin")
      echo "$side $row" >> "$rows"
    done
  done
}

# The text of bench/median.awk (median(list)), to put before an awk program:
#   awk "$(median_awk)"' { ... median(list) ... }'
median_awk() { cat "$(dirname "${BASH_SOURCE[0]}")/median.awk"; }

# A number of a stats reply on standard input: field NAME (the first after "NAME":).
field() { grep -o "\"$1\":[0-9-]*" | head -1 | cut -d: -f2; }

# start_engine_on BIN DB COPY SOCK THREADS LOG: BIN serving a fresh copy
# of DB at COPY on SOCK with THREADS workers, its output to LOG, once it
# answers; its pid in engine_pid (a child of the calling shell: wait works).
start_engine_on() {
  local bin=$1 db=$2 copy=$3 sock=$4 threads=$5 log=$6
  rm -f "${copy%.db}".*  # the copy, its results and journals
  cp "$db" "$copy"
  "$bin" run --db "$copy" --socket "$sock" --threads "$threads" > "$log" 2>&1 &
  # shellcheck disable=SC2034  # the caller's: wait "$engine_pid"
  engine_pid=$!
  for _ in $(seq 1200); do "$bin" send --socket "$sock" stats > /dev/null 2>&1 && return 0; sleep 0.1; done
  die "the engine did not start; see $log"
}

# send_events BIN SOCK COPY KIND EVENTS CURVE PAUSE LOG: EVENTS events one
# at a time, each followed by PAUSE seconds: bump-curve CURVE +1 and -1 in
# turn (KIND bump), roll-date a day further each time from COPY's today
# (KIND roll), or set-price of 100 quoted bonds of COPY, a different
# hundred each time (picked by a hash of id and event), each a
# thousandth up or down in turn (KIND quotes).
send_events() {
  local bin=$1 sock=$2 copy=$3 kind=$4 events=$5 curve=$6 pause=$7 log=$8 i today prices
  today=$(sqlite3 "$copy" "SELECT today FROM calendar ORDER BY id LIMIT 1")
  for i in $(seq "$events"); do
    case $kind in
      bump) "$bin" send --socket "$sock" bump-curve "$curve" $((i % 2 ? 1 : -1)) > /dev/null ;;
      roll) "$bin" send --socket "$sock" roll-date "$(date -u -d "$today + $i day" +%F)" > /dev/null ;;
      quotes)
        prices=$(sqlite3 "$copy" "SELECT group_concat(bond_id || ' ' || printf('%.4f', clean_price + $((i % 2 ? 1 : -1)) * 0.001), ' ')
          FROM (SELECT * FROM bond_quote ORDER BY (bond_id * 2654435761 + $i * 40503) % 1000003 LIMIT 100)")
        # shellcheck disable=SC2086  # the pairs are separate arguments
        "$bin" send --socket "$sock" set-price $prices > /dev/null ;;
    esac || die "$bin refused an event; see $log"
    sleep "$pause"
  done
}

# pair_table TITLE NAMES DECIMALS ROWS: the table of run_abba's ROWS
# ("old|new v1 v2 ..." lines), a row per name of NAMES (one a line, in
# column order) under the heading TITLE: per column the median over the
# rounds of each side, and the median of the rounds' own new/old.
pair_table() {
  printf '%s\n' "$2" | awk -v title="$1" -v decimals="$3" "$(median_awk)"'
    FNR == NR { name[++n] = $0; next }
    { for (c = 2; c <= NF; c++) v[$1, c] = v[$1, c] " " $c }
    END {
      f = "%." decimals "f"
      printf "| %s | old | new | new/old |\n| --- | --- | --- | --- |\n", title
      for (c = 2; c <= n + 1; c++) {
        rounds = split(v["old", c], o, " "); split(v["new", c], w, " ")
        q = ""  # per round: its new over its old
        for (k = 1; k <= rounds; k++) if (o[k] > 0) q = q " " w[k] / o[k]
        printf "| %s | " f " | " f " | %s |\n", name[c - 1], median(v["old", c]), median(v["new", c]),
          (q == "" ? "-" : sprintf(f, median(q)))
      }
    }' - "$4"
}
