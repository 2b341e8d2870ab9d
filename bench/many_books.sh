#!/usr/bin/env bash
# Reads and limit changes on a desk of many books and limits, two binaries
# side by side: for each round, OLD and NEW in turn (ABBA) each serve a copy
# of DB and answer, through `bond_risk send`:
#   explain          every book's explain and the total (whole process: start, connect, reply, exit)
#   limits all       every limit (a reply too long to send: refused, or the connection closed)
#   limits all 1000  the 1,000 worst limits, each of them read and sorted
#   set-limit        --limits set-limit lines of one book, pipelined on one connection, then
#                    remove-limit of each: the whole process over the lines, and the engine's
#                    own time in its limit checks (stats' time_us.limit_checks) per line
# and prints the median over the rounds of each, and of the rounds' NEW/OLD.
# The data set: bin/bond_risk generate --preset 440k --book-size 18 --out DB
# (22,223 books and, at 5 generated limits a book, 111,118 limits).
set -euo pipefail
shopt -s inherit_errexit  # a failure inside $(...) fails the script
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common.sh
. "$here/common.sh"

usage="usage: bench/many_books.sh OLD_BIN NEW_BIN --db DB [--rounds N] [--limits N]"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
old=$1 new=$2
shift 2
db="" rounds=3 limits=200
while [ $# -gt 0 ]; do
  case $1 in
    --db) db=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --limits) limits=$2; shift 2 ;;
    *) echo "many_books.sh: unknown argument '$1'" >&2; echo "$usage" >&2; exit 2 ;;
  esac
done
[ -n "$db" ] || { echo "$usage" >&2; exit 2; }
[ -f "$db" ] || die "database $db does not exist (make one with: bin/bond_risk generate --preset 440k --book-size 18 --out $db)"
for bin in "$old" "$new"; do [ -x "$bin" ] || die "$bin is not an executable"; done
[[ $rounds =~ ^[1-9][0-9]*$ && $limits =~ ^[1-9][0-9]*$ ]] || die "--rounds and --limits take positive whole numbers"
need sqlite3 awk

work=$(mktemp -d)
trap 'pkill -9 -f "$work/" 2>/dev/null || true; rm -rf "$work"' EXIT
book=$(sqlite3 "$db" "SELECT name FROM outright_book ORDER BY id LIMIT 1")

seconds() { local t0 t1; t0=$(date +%s.%N); "$@" > /dev/null 2>&1 || true; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }'; }
checks_us() {
  local us
  us=$("$1" send --socket "$2" stats | grep -o '"limit_checks":[0-9.e+-]*' | cut -d: -f2)
  [ -n "$us" ] || die "$1's stats give no time_us.limit_checks"
  echo "$us"
}

# measure BIN: one engine on a fresh copy, one row "explain all worst set_limit_s checks_us_per_line".
measure() {
  local bin=$1 copy=$work/copy.db sock=$work/e.sock pid ids
  rm -f "$work"/copy.*
  cp "$db" "$copy"
  "$bin" run --db "$copy" --socket "$sock" --threads 2 > "$work/engine.log" 2>&1 &
  pid=$!
  for _ in $(seq 1200); do "$bin" send --socket "$sock" stats > /dev/null 2>&1 && break; sleep 0.1; done
  "$bin" send --socket "$sock" stats > /dev/null || die "the engine did not start; see $work/engine.log"
  local explain all worst before after set_s
  explain=$(seconds "$bin" send --socket "$sock" explain)
  all=$(seconds "$bin" send --socket "$sock" limits all)
  worst=$(seconds "$bin" send --socket "$sock" limits all 1000)
  before=$(checks_us "$bin" "$sock")
  for k in $(seq "$limits"); do echo "set-limit $book pv01 -1e15 $k"; done > "$work/set.txt"
  set_s=$(seconds "$bin" send --socket "$sock" < "$work/set.txt")
  after=$(checks_us "$bin" "$sock")
  ids=$(sqlite3 "$copy" "SELECT id FROM risk_limit ORDER BY id DESC LIMIT $limits")
  for id in $ids; do echo "remove-limit $id"; done | "$bin" send --socket "$sock" > /dev/null ||
    die "$bin refused a remove-limit; see $work/engine.log"
  "$bin" send --socket "$sock" shutdown > /dev/null || true
  wait "$pid" || true
  awk -v e="$explain" -v x="$all" -v l="$worst" -v s="$set_s" -v b="$before" -v a="$after" -v n="$limits" \
    'BEGIN { printf "%s %s %s %s %.2f\n", e, x, l, s, (a - b) / n }'
}

run_abba "$rounds" "$old" "$new" measure "$work/rows"

awk -v lines="$limits" "$(median_awk)"'
  { for (c = 2; c <= 6; c++) v[$1, c] = v[$1, c] " " $c }
  END {
    split("explain (s, whole process)|limits all (s, whole process)|limits all 1000 (s, whole process)|" lines " set-limit lines pipelined (s, whole process)|limit checks per set-limit (us, in the engine)", name, "|")
    printf "| %s | %s | %s | %s |\n| --- | --- | --- | --- |\n", "figure", "old", "new", "new/old"
    for (c = 2; c <= 6; c++) {
      o = median(v["old", c]); n = median(v["new", c])
      printf "| %s | %s | %s | %.3f |\n", name[c - 1], o, n, (o > 0 ? n / o : 0)
    }
  }' "$work/rows"
