#!/usr/bin/env bash
# Compares full flushes side by side: runs `A run --batch --flushes F` and
# `B run --batch --flushes F` alternately (ABBA), ROUNDS times each, and
# prints each one's median over the rounds of its run's median flush
# (seconds, in process: the clock starts before a flush's first tier and
# stops after its last), and the median of the rounds' ratios B/A. A and B
# are each a binary and a database: two binaries on one database (a
# change's cost), or one binary on two databases (a data set's cost).
set -euo pipefail
# shellcheck source=bench/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

usage="usage: bench/pair_flush.sh A_BIN A_DB B_BIN B_DB [--rounds N] [--flushes F] [-- RUN OPTIONS...]
  (default: 5 rounds of 15 flushes, options --threads 1)"
[ $# -ge 4 ] || { echo "$usage" >&2; exit 2; }
a_bin=$1 a_db=$2 b_bin=$3 b_db=$4
shift 4
rounds=5 flushes=15
options=(--threads 1)
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --flushes) flushes=$2; shift 2 ;;
    --) shift; options=("$@"); break ;;
    *) echo "pair_flush.sh: unknown argument '$1'" >&2; echo "$usage" >&2; exit 2 ;;
  esac
done
for bin in "$a_bin" "$b_bin"; do
  [ -x "$bin" ] || { echo "pair_flush.sh: $bin is not an executable (build it, e.g. in a git worktree of the older commit)" >&2; exit 2; }
done
for db in "$a_db" "$b_db"; do
  [ -f "$db" ] || { echo "pair_flush.sh: no database $db (bond_risk generate makes one)" >&2; exit 2; }
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "pair_flush.sh: --rounds takes a positive whole number, not '$rounds'" >&2; exit 2; }
[[ $flushes =~ ^[1-9][0-9]*$ ]] || { echo "pair_flush.sh: --flushes takes a positive whole number, not '$flushes'" >&2; exit 2; }

# The median flush of one run, from its report's "Full flush repeated" line.
median_of() {
  "$1" run --db "$2" --batch --flushes "$flushes" "${options[@]}" 2>&1 |
    awk '/^Full flush repeated/ { for (i = 1; i <= NF; i++) if ($i == "median") { sub(",", "", $(i + 1)); print $(i + 1) } }'
}

a_list="" b_list="" ratios=""
for r in $(seq "$rounds"); do
  for side in $(abba_sides "$r"); do
    if [ "$side" = old ]; then bin=$a_bin db=$a_db; else bin=$b_bin db=$b_db; fi
    m=$(median_of "$bin" "$db")
    [ -n "$m" ] || { echo "pair_flush.sh: $bin run --db $db printed no flush median (run it alone to see why)" >&2; exit 1; }
    if [ "$side" = old ]; then a=$m a_list="$a_list $m"; else b=$m b_list="$b_list $m"; fi
  done
  ratios="$ratios $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", b / a }')"
  echo "round $r of $rounds: A $a s, B $b s" >&2
done
awk -v a="$a_list" -v b="$b_list" -v q="$ratios" -v rounds="$rounds" -v flushes="$flushes" "$(median_awk)"'
  BEGIN {
    printf "full flush, median of %d rounds of each run'\''s median of %d: A %.6f s, B %.6f s, B/A %.3f\n",
           rounds, flushes, median(a), median(b), median(q)
  }'
