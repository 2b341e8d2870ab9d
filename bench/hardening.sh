#!/usr/bin/env bash
# Hardening check: tries each class of misuse of the last hardening round
# against freshly generated databases (the 100 preset, and 50k for the
# watches) and running engines, and prints PASS or FAIL per class with the
# figure that decided it. Exits 1 if any class fails. Under a minute;
# not run in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/common.sh
. bench/common.sh

bin=bin/bond_risk mpi_bin=bin/bond_risk_mpi
usage() {
  cat <<EOF
usage: bench/hardening.sh [--bin PATH] [--mpi-bin PATH]
  --bin PATH      the bond_risk binary (default $bin)
  --mpi-bin PATH  the bond_risk_mpi binary (default $mpi_bin; its class is skipped without mpirun)
EOF
}
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --mpi-bin) mpi_bin=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "hardening: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
need sqlite3 gnuplot
[ -x "$bin" ] || die "$bin is missing: run make"

work=$(mktemp -d)
started=()  # processes this script started, killed by id at exit
trap 'for p in "${started[@]}"; do kill -9 "$p" 2> /dev/null || true; done; rm -rf "$work"' EXIT

failed=0
# verdict CLASS OK FIGURE: one line, PASS when OK is 0.
verdict() {
  if [ "$2" = 0 ]; then
    printf 'PASS  %-34s %s\n' "$1" "$3"
  else
    printf 'FAIL  %-34s %s\n' "$1" "$3"
    failed=1
  fi
}

# start_engine DB SOCK: a serving engine, its pid in $engine once it answers (30 s at most).
start_engine() {
  "$bin" run --db "$1" --socket "$2" --threads 2 > "$1.log" 2>&1 &
  engine=$!
  started+=("$engine")
  for _ in $(seq 300); do
    "$bin" send --socket "$2" stats > /dev/null 2>&1 && return 0
    sleep 0.1
  done
  die "the engine on $1 did not start (see $1.log)"
}

# gone PID: whether the process has exited (a zombie counts).
gone() {
  local state
  state=$(ps -o stat= -p "$1" 2> /dev/null || true)
  [ -z "$state" ] || [ "${state:0:1}" = Z ]
}

# ms_since START: milliseconds since START (date +%s%N).
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# stat_field SOCK NAME: an integer field of the engine's stats.
stat_field() { "$bin" send --socket "$1" stats | grep -o "\"$2\":-\?[0-9]*" | head -1 | cut -d: -f2; }

db=$work/h.db sock=$work/h.sock
"$bin" generate --preset 100 --book-size 10 --out "$db" > /dev/null
curve=$(sqlite3 "$db" "SELECT min(ir_curve_id) FROM ir_curve_input_rate")
idx=$(sqlite3 "$db" "SELECT min(idx) FROM ir_curve_input_rate WHERE ir_curve_id = $curve")
book=$(sqlite3 "$db" "SELECT min(id) FROM outright_book")
bond=$(sqlite3 "$db" "SELECT min(id) FROM bond")

# 1. A book name and an --out path that would end gnuplot's string and run a
# shell command making the file $PLOT_MARKER names (a path has no slash in it).
marker=$work/PWNED
# shellcheck disable=SC2016 # $PLOT_MARKER is for the shell gnuplot would start
touch_it='system "touch $PLOT_MARKER"'
sqlite3 "$db" "UPDATE outright_book SET name = 'x''' || char(10) || '$touch_it' || char(10) || '''\"' || char(10)
  || '$touch_it' || char(10) || '\"' || id"
"$bin" run --batch --threads 2 --db "$db" > /dev/null
out="$work/x'"$'\n'"$touch_it"$'\n'"'"
plot_rc=0
PLOT_MARKER=$marker "$bin" plot ladder "$book" --db "$db" --out "$out" > /dev/null 2> "$work/plot.err" || plot_rc=$?
if [ ! -e "$marker" ] && [ "$plot_rc" = 0 ] && [ -s "$out" ]; then ok=0; else ok=1; fi
verdict "gnuplot injection" "$ok" "plot exit $plot_rc, marker file $([ -e "$marker" ] && echo made || echo absent)"

# 2. Scenario rows of the wrong type: the scenario is left out with a warning naming the row.
bad_row=$(sqlite3 "$db" "INSERT INTO scenario_set VALUES ('typed', 'stress');
  INSERT INTO scenario (id, name, set_name) VALUES (990101, 'idx-text', 'typed'), (990102, 'good', 'typed');
  INSERT INTO scenario_shift VALUES (990102, $curve, $idx, 1), (990101, $curve, 'abc', 1);
  SELECT last_insert_rowid();
  INSERT INTO scenario_set VALUES ('spoiled', 'historical');
  INSERT INTO scenario (id, name, set_name) VALUES (990201, 'spoiled-1', 'spoiled'), (990202, 'spoiled-2', 'spoiled');
  INSERT INTO scenario_shift VALUES (990201, 999999, 0, 10), (990202, 999999, 0, -15);")
typed_rc=0
"$bin" scenarios --set typed --threads 2 --db "$db" > /dev/null 2> "$work/typed.err" || typed_rc=$?
warning=$(grep -o "idx-text (id 990101) left out: .*" "$work/typed.err" || true)
if [ "$typed_rc" = 0 ] && [[ "$warning" == *"scenario_shift rowid $bad_row)"* ]]; then ok=0; else ok=1; fi
verdict "scenario rows of the wrong type" "$ok" "exit $typed_rc: ${warning:-no warning}"

# 3. generate --desks past what the preset allows: a usage error, no file left.
mkdir "$work/desks"
desks_rc=0
"$bin" generate --preset tiny --desks 4 --out "$work/desks/x.db" > /dev/null 2>&1 || desks_rc=$?
left=$(find "$work/desks" -type f | wc -l)
if [ "$desks_rc" = 2 ] && [ "$left" = 0 ]; then ok=0; else ok=1; fi
verdict "generate --desks too many" "$ok" "exit $desks_rc, $left files left"

# 4. A dangling symlink at the results database's path: refused, nothing created.
cp "$db" "$work/sym.db"
ln -s "$work/elsewhere.db" "$work/sym.results.db"
sym_rc=0
"$bin" run --batch --db "$work/sym.db" > /dev/null 2> "$work/sym.err" || sym_rc=$?
if [ "$sym_rc" != 0 ] && grep -q "is a symbolic link" "$work/sym.err" && [ ! -e "$work/elsewhere.db" ]; then ok=0; else ok=1; fi
verdict "symlink at the results path" "$ok" "exit $sym_rc, target $([ -e "$work/elsewhere.db" ] && echo created || echo not created)"

# 5 and 6, on a running engine: VaR over a set with no usable scenario, and
# the results database deleted under it.
start_engine "$db" "$sock"
var_reply=$("$bin" send --socket "$sock" var spoiled 2>&1 || true)
if [[ "$var_reply" == *'"ok":false'*"no usable scenario"* ]]; then ok=0; else ok=1; fi
verdict "VaR with no usable scenario" "$ok" "$(echo "$var_reply" | grep -o '"error":"[^,]*' | head -1)"

for _ in $(seq 300); do
  [ "$(stat_field "$sock" results_as_of)" = "$(stat_field "$sock" event)" ] && break
  sleep 0.1
done
rm -f "$work/h.results.db" "$work/h.results.db-wal" "$work/h.results.db-shm"
start=$(date +%s%N) back="never within 10 s"
for _ in $(seq 100); do
  if "$bin" show --db "$db" "$bond" 2> /dev/null | grep -q ": OK price="; then
    back="after $(ms_since "$start") ms"
    break
  fi
  sleep 0.1
done
as_of=$(stat_field "$sock" results_as_of) event=$(stat_field "$sock" event)
if [[ "$back" == after* ]] && [ "$as_of" = "$event" ]; then ok=0; else ok=1; fi
verdict "results database deleted" "$ok" "show found the results again $back; results_as_of $as_of, event $event"
"$bin" send --socket "$sock" shutdown > /dev/null
wait "$engine" || true

# 7 and 8, on an engine serving the 50k preset: a watch past a connection's
# bound, then shutdown with 20 connections that each asked to watch 10,000
# trades and closed without reading.
big=$work/big.db big_sock=$work/big.sock
"$bin" generate --preset 50k --seed 3 --out "$big" > /dev/null
watch_line() { echo "watch $(sqlite3 "$big" "SELECT group_concat(id, ' ') FROM (SELECT id FROM outright_trade ORDER BY id LIMIT $1)")"; }
watch_line 10000 > "$work/watch"
watch_line 10001 > "$work/watch_too_many"
start_engine "$big" "$big_sock"
refused=$("$bin" send --socket "$big_sock" < "$work/watch_too_many" 2>&1 | head -c 300 || true)
if [[ "$refused" == *"watch refused"* ]]; then ok=0; else ok=1; fi
verdict "watch past the bound" "$ok" "$(echo "$refused" | grep -o 'watch refused[^;]*' | head -1)"

watchers=()
for _ in $(seq 20); do
  "$bin" send --socket "$big_sock" < "$work/watch" > >(sleep 3) 2> /dev/null &
  watchers+=($!)
  started+=($!)
done
sleep 3
for p in "${watchers[@]}"; do kill -9 "$p" 2> /dev/null || true; done
sleep 1
start=$(date +%s%N) stopped="is still running 10 s after shutdown"
"$bin" send --socket "$big_sock" shutdown > /dev/null 2>&1 || true
for _ in $(seq 100); do
  if gone "$engine"; then
    stopped="exited $(ms_since "$start") ms after shutdown"
    break
  fi
  sleep 0.1
done
if [[ "$stopped" == exited* ]]; then ok=0; else ok=1; fi
verdict "shutdown under 20 watchers" "$ok" "the engine $stopped"

# 9. MPI ranks reading different databases: the job ends non-zero, naming the rank.
if command -v mpirun > /dev/null && [ -x "$mpi_bin" ]; then
  cp "$db" "$work/r1.db"
  sqlite3 "$work/r1.db" "UPDATE scenario_shift SET shift_bp = shift_bp + 1 WHERE scenario_id =
    (SELECT max(id) FROM scenario WHERE set_name = 'historical')"
  mpi_rc=0
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 mpirun --oversubscribe \
    -np 1 "$mpi_bin" scenarios --set historical --db "$db" : -np 1 "$mpi_bin" scenarios --set historical --db "$work/r1.db" \
    > "$work/mpi.log" 2>&1 < /dev/null || mpi_rc=$?
  named=$(grep -o "rank 1 of 2 read other inputs than rank 0" "$work/mpi.log" | head -1 || true)
  if [ "$mpi_rc" != 0 ] && [ -n "$named" ]; then ok=0; else ok=1; fi
  verdict "MPI ranks on different databases" "$ok" "exit $mpi_rc: ${named:-no rank named}"
else
  echo "SKIP  MPI ranks on different databases   (no mpirun or no $mpi_bin)"
fi
exit "$failed"
