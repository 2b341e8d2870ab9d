#!/usr/bin/env bash
# Replays one scripted desk session on two binaries and compares what they
# say: each serves its own copy of DB (default data/bond_risk_50k.db, whose
# ids the session names), takes the session's commands one at a time with
# `bond_risk send --raw` (each alone in its batch), and is shut down. The
# replies are compared byte for byte with their clock figures (recalc_us,
# engine_us, time) masked, then the result tables and their ladders, the
# P&L moves and the limit alerts. Exit 1 when anything differs.
#
#   bench/compare_replies.sh OLD_BIN NEW_BIN [DB]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/compare_replies.sh OLD_BIN NEW_BIN [DB]" >&2; exit 2; }
old=$1 new=$2 db=${3:-data/bond_risk_50k.db}
[ -f "$db" ] || { echo "compare_replies.sh: $db does not exist (make run generates the sets)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Every kind of change, and the reads, in an order that makes each matter.
session=(
  "get 5004" "book OB_GBP-GILT_1" "bump-curve GBP-GILT 1.5" "amend-trade 5004 quantity=321" "set-price 4 99.5"
  "roll-date 2025-06-30" "add-outright bond_id=4 trade_price=98 quantity=10 buy_sell=BUY book=OB_GBP-GILT_1"
  "set-limit OB_GBP-GILT_1 pv01 -1 1" "set-limit total pv01 none 1e12" "bump-curve GBP-GILT -0.5"
  "bump-curve EUR-BUND 0.7" "clear-price 4" "start-day" "bump-curve GBP-GILT 2" "remove-trade 5013" "remove-limit 1"
  "get 5004" "get 4" "book OB_GBP-GILT_1" "top-positions OB_GBP-GILT_1 5" "list-books" "explain OB_GBP-GILT_1"
  "explain-events OB_GBP-GILT_1 10" "limits" "last-events 0"
)

# run NAME BIN: NAME.replies (masked) and NAME.tables, one line per table.
run() {
  local name=$1 bin=$2 dir="$work/$1"
  mkdir "$dir"
  cp "$db" "$dir/d.db"
  NUM_THREADS=2 "$bin" run --db "$dir/d.db" > "$dir/engine.log" 2>&1 &
  local pid=$!
  for _ in $(seq 300); do [ -S "$dir/d.db.sock" ] && break; sleep 0.1; done
  for line in "${session[@]}"; do
    # shellcheck disable=SC2086 # each command's words go as arguments
    "$bin" send --db "$dir/d.db" --raw $line >> "$dir/replies" || true
  done
  "$bin" send --db "$dir/d.db" shutdown > /dev/null || true
  wait "$pid" || true
  sed -E 's/"(recalc_us|engine_us|time)":[^,}]*/"\1":X/g' "$dir/replies" > "$work/$name.replies"
  for t in bond_result outright_trade_result repo_trade_result outright_book_result repo_book_result bond_key_rate \
           outright_book_key_rate repo_book_key_rate; do
    echo "$t $(sqlite3 "$dir/d.results.db" "SELECT * FROM $t ORDER BY 1, 2" | md5sum)"
  done > "$work/$name.tables"
  echo "pnl_move, limit_alert $(sqlite3 "$dir/d.db" "SELECT id, day, seq, cause, curve_id, hex(moves) FROM pnl_move ORDER BY 1;
    SELECT id, seq, cause, limit_id, book_id, measure, from_state, to_state, value FROM limit_alert ORDER BY 1" | md5sum)" \
    >> "$work/$name.tables"
}

run old "$old"
run new "$new"
status=0
if cmp -s "$work/old.replies" "$work/new.replies"; then
  echo "replies: the same, $(wc -l < "$work/new.replies") of ${#session[@]}"
else
  echo "replies differ:"; diff "$work/old.replies" "$work/new.replies" | head -20; status=1
fi
if cmp -s "$work/old.tables" "$work/new.tables"; then
  echo "result tables, ladders, P&L moves and alerts: the same"
else
  echo "tables differ:"; diff "$work/old.tables" "$work/new.tables"; status=1
fi
exit "$status"
