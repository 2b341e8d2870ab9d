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
