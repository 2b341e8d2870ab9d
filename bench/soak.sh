#!/usr/bin/env bash
# kill -9 soak: N trials, each killing a running engine at a random moment
# while several clients stream state-changing commands at it. After each
# kill, every command acknowledged with {"ok":true} must be in event_log, in
# each client's order; and once a restarted engine's result writer has
# caught up, its result tables must equal a fresh `run --batch` of a copy.
# Exits 1 at the first trial that breaks either.
set -euo pipefail
cd "$(dirname "$0")/.."

trials=10 preset=100 clients=3 bin=bin/bond_risk
usage() {
  cat <<EOF
usage: bench/soak.sh [--trials N] [--preset NAME] [--clients K] [--bin PATH]
  --trials N     kill -9 trials (default $trials)
  --preset NAME  data set (default $preset; see bond_risk generate --help)
  --clients K    clients streaming commands at once (default $clients)
  --bin PATH     the bond_risk binary (default $bin)
EOF
}
while [ $# -gt 0 ]; do
  case "$1" in
    --trials) trials=$2; shift 2 ;;
    --preset) preset=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "soak: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done

work=$(mktemp -d)
trap 'pkill -9 -f "$work/" 2>/dev/null || true; rm -rf "$work"' EXIT
db=$work/soak.db sock=$work/soak.sock
"$bin" generate --preset "$preset" --out "$db" --book-size 20 > /dev/null
sqlite3 "$db" "SELECT id FROM outright_trade UNION ALL SELECT id FROM repo_trade" > "$work/trades"
sqlite3 "$db" "SELECT id FROM bond" > "$work/bonds"

# Waits until the engine on $sock answers; fails after 30 s.
wait_ready() {
  for _ in $(seq 300); do
    "$bin" send --socket "$sock" stats > /dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "soak: the engine did not start (see $work/engine.log)" >&2
  return 1
}

# The commands of client $1 in trial $2: amendments, bumps, bookings, removals.
commands() {
  awk -v seed="$(( $2 * 100 + $1 ))" -v trades="$work/trades" -v bonds="$work/bonds" 'BEGIN {
    srand(seed)
    while ((getline id < trades) > 0) t[++nt] = id
    while ((getline id < bonds) > 0) b[++nb] = id
    for (i = 0; i < 3000; i++) {
      r = rand()
      if (r < 0.6) printf "amend-trade %s quantity=%d\n", t[int(rand() * nt) + 1], 1 + int(rand() * 999)
      else if (r < 0.7) printf "bump-curve %s %d\n", (rand() < 0.5 ? "GBP-GILT" : "EUR-BUND"), int(rand() * 5) - 2
      else if (r < 0.85) printf "add-outright bond_id=%s trade_price=99 quantity=10 buy_sell=BUY\n", b[int(rand() * nb) + 1]
      else printf "remove-trade %s\n", t[int(rand() * nt) + 1]
    }
  }'
}

for trial in $(seq "$trials"); do
  "$bin" run --db "$db" --socket "$sock" --threads 2 > "$work/engine.log" 2>&1 &
  engine=$!
  wait_ready
  pids=()
  for c in $(seq "$clients"); do
    commands "$c" "$trial" > "$work/commands.$c"
    "$bin" send --socket "$sock" < "$work/commands.$c" > "$work/replies.$c" 2> /dev/null &
    pids+=($!)
  done
  sleep "0.$(( RANDOM % 5 ))$(( RANDOM % 10 ))"
  kill -9 "$engine"
  wait "$engine" 2> /dev/null || true
  for p in "${pids[@]}"; do wait "$p" 2> /dev/null || true; done

  # Every acknowledged command is in event_log, in its client's order.
  sqlite3 "$db" "SELECT command FROM event_log ORDER BY seq" > "$work/logged"
  acknowledged=0
  for c in $(seq "$clients"); do
    paste -d '\t' "$work/replies.$c" <(head -n "$(wc -l < "$work/replies.$c")" "$work/commands.$c") |
      awk -F '\t' 'index($1, "{\"ok\":true") == 1 { print $2 }' > "$work/acked.$c"
    acknowledged=$(( acknowledged + $(wc -l < "$work/acked.$c") ))
    if ! awk 'NR == FNR { logged[++n] = $0; next } { while (++i <= n && logged[i] != $0) {} if (i > n) { print; exit 1 } }' \
         "$work/logged" "$work/acked.$c" > "$work/missing"; then
      echo "soak: trial $trial: an acknowledged command is not in event_log: $(cat "$work/missing")" >&2
      exit 1
    fi
  done

  # A restart's results, once written, equal a fresh batch run of a copy.
  "$bin" run --db "$db" --socket "$sock" --threads 2 > "$work/engine.log" 2>&1 &
  engine=$!
  wait_ready
  for _ in $(seq 600); do
    stats=$("$bin" send --socket "$sock" stats)
    event=$(echo "$stats" | grep -o '"event":[0-9]*' | tail -1 | cut -d: -f2)
    as_of=$(echo "$stats" | grep -o '"results_as_of":-\?[0-9]*' | cut -d: -f2)
    [ "$event" = "$as_of" ] && break
    sleep 0.05
  done
  "$bin" send --socket "$sock" shutdown > /dev/null
  wait "$engine"
  cp "$db" "$work/fresh.db"
  "$bin" run --db "$work/fresh.db" --batch --threads 0 > /dev/null
  for table in bond_result outright_trade_result repo_trade_result outright_book_result repo_book_result; do
    diff=$(sqlite3 "$work/soak.results.db" "ATTACH '$work/fresh.results.db' AS fresh;
      SELECT (SELECT count(*) FROM (SELECT * FROM main.$table EXCEPT SELECT * FROM fresh.$table))
           + (SELECT count(*) FROM (SELECT * FROM fresh.$table EXCEPT SELECT * FROM main.$table))")
    if [ "$diff" != 0 ]; then
      echo "soak: trial $trial: $diff rows of $table differ from a fresh flush after the restart" >&2
      exit 1
    fi
  done
  rm -f "$work/fresh.db" "$work/fresh.results.db"
  echo "trial $trial: $acknowledged commands acknowledged before kill -9, all in event_log; results equal a fresh flush"
done
echo "soak: $trials trials passed"
