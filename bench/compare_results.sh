#!/usr/bin/env bash
# Compares the result tables of two `bond_risk run --batch` runs on the same
# input (DB.results.db; older binaries wrote them into DB itself). Every
# node's status must be the same. For each value column (a bond's quote
# analytics among them; one that a database lacks, an older binary's, is
# skipped) it prints the largest relative difference |a - b| / max(|a|,
# |b|) and the row where it is. A value that is a difference of larger
# terms (pv01 = (price_up - price_dn) / 2, pnl = pv - cost, margin =
# start_cash - notional * price)
# moves far more than its terms when they change in their last bits, so for
# those it also prints the difference relative to the terms' size (a price,
# a pv, an end cash), and that is what the tolerance is checked against.
# Exit 1 when a status differs, a row is in one database only, or a
# difference exceeds --tolerance (default 1e-12).
#
#   bench/compare_results.sh [--tolerance T] OLD.results.db NEW.results.db
set -euo pipefail

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; }

tolerance=1e-12
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tolerance) tolerance="${2:?--tolerance needs a number}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "compare_results: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [[ $# -ne 2 ]]; then
  echo "compare_results: give the two results databases (see --help)" >&2
  exit 2
fi
for db in "$1" "$2"; do
  [[ -f "$db" ]] || { echo "compare_results: no such file: $db" >&2; exit 2; }
done
command -v sqlite3 >/dev/null || { echo "compare_results: needs the sqlite3 shell (scripts/install-deps.sh)" >&2; exit 2; }

# table : key columns : value columns, each COLUMN or COLUMN/TERMS (TERMS: a
# column of the same row as large as the value's terms).
tables=(
  "bond_result:id:price pv01/price accrued clean_price yield macaulay_duration modified_duration convexity market_dirty z_spread cs01 quote_yield dirty_price"
  "outright_trade_result:id:pv pv01/pv pnl/pv"
  "repo_trade_result:id:end_cash margin/end_cash mtm_pnl"
  "outright_book_result:id:pv pv01/pv pnl/pv"
  "repo_book_result:id:margin mtm_pnl"
  "bond_key_rate:id ir_curve_id idx:kr01"
  "outright_book_key_rate:id ir_curve_id idx:kr01"
  "repo_book_key_rate:id ir_curve_id idx:margin_kr01 mtm_pnl_kr01"
)

failed=0
query() { sqlite3 -batch -noheader "file:$2?mode=ro" "ATTACH 'file:$3?mode=ro' AS o;" "$1"; }
count() { query "SELECT count(*) FROM ($1)" "$2" "$3"; }
printf '%-23s %-17s %7s %22s %-14s %22s\n' table column rows "largest relative diff" "(at key)" "relative to terms"
for spec in "${tables[@]}"; do
  IFS=: read -r table keys columns <<<"$spec"
  if [[ $(count "SELECT 1 FROM main.sqlite_schema WHERE name = '$table'
                 UNION ALL SELECT 1 FROM o.sqlite_schema WHERE name = '$table'" "$1" "$2") != 2 ]]; then
    printf '%-23s not in both: skipped\n' "$table"
    continue
  fi
  on="" key=""
  for k in $keys; do
    on+="${on:+ AND }a.$k = b.$k"
    key+="${key:+ || ',' || }a.$k"
  done
  only=$(count "SELECT 1 FROM main.$table a WHERE NOT EXISTS (SELECT 1 FROM o.$table b WHERE $on)
                UNION ALL SELECT 1 FROM o.$table b WHERE NOT EXISTS (SELECT 1 FROM main.$table a WHERE $on)" "$1" "$2")
  if [[ "$only" != 0 ]]; then
    echo "$table: $only rows in one database only" >&2
    failed=1
  fi
  if [[ $(count "SELECT 1 FROM pragma_table_info('$table') WHERE name = 'status'" "$1" "$2") == 1 ]]; then
    differ=$(count "SELECT 1 FROM main.$table a JOIN o.$table b ON $on WHERE a.status <> b.status" "$1" "$2")
    if [[ "$differ" != 0 ]]; then
      echo "$table: $differ statuses differ" >&2
      failed=1
    fi
  fi
  # The columns both tables have, one a line (an older binary's may lack some).
  common=$'\n'$(query "SELECT name FROM pragma_table_info('$table')
                        INTERSECT SELECT name FROM pragma_table_info('$table', 'o')" "$1" "$2")$'\n'
  for spec_column in $columns; do
    c=${spec_column%/*}
    terms=${spec_column#*/}
    [[ "$terms" == "$spec_column" ]] && terms=$c
    if [[ "$common" != *$'\n'"$c"$'\n'* ]]; then
      printf '%-23s %-17s not in both: skipped\n' "$table" "$c"
      continue
    fi
    # 1 when only one of the two is NULL (published by one run only).
    read -r rows diff at diff_terms < <(query "
      WITH d AS (
        SELECT $key AS k,
               CASE WHEN a.$c IS b.$c THEN 0.0 WHEN a.$c IS NULL OR b.$c IS NULL THEN 1.0
                    ELSE abs(a.$c - b.$c) / max(abs(a.$c), abs(b.$c)) END AS plain,
               CASE WHEN a.$c IS b.$c THEN 0.0 WHEN a.$c IS NULL OR b.$c IS NULL THEN 1.0
                    ELSE abs(a.$c - b.$c) / max(abs(a.$c), abs(b.$c), abs(a.$terms), abs(b.$terms)) END AS terms
        FROM main.$table a JOIN o.$table b ON $on)
      SELECT count(*), coalesce(max(plain), 0), coalesce((SELECT k FROM d ORDER BY plain DESC LIMIT 1), '-'),
             coalesce(max(terms), 0)
      FROM d" "$1" "$2" | tr '|' ' ')
    shown_terms=""
    [[ "$terms" != "$c" ]] && shown_terms="$diff_terms (of $terms)"
    printf '%-23s %-17s %7s %22s %-14s %s\n' "$table" "$c" "$rows" "$diff" "$at" "$shown_terms"
    if awk -v d="$diff_terms" -v t="$tolerance" 'BEGIN { exit !(d > t) }'; then failed=1; fi
  done
done
exit "$failed"
