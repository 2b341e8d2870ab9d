#!/usr/bin/env bash
# shellcheck disable=SC2016  # md_table's last argument is awk code: its $N are awk's fields, not the shell's
# Draws the plots and writes report.md of a directory written by
# bench/run_events.sh, from its CSVs and host.txt (so a report can be
# redrawn without measuring again).
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: bench/events_report.sh DIR (a directory written by bench/run_events.sh)" >&2; exit 2; }
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
for f in rates patterns memory roundtrip roundtrip_histogram capacity quotes; do
  [ -s "$dir/$f.csv" ] || { echo "events_report.sh: $dir/$f.csv is missing; is $dir a directory of bench/run_events.sh?" >&2; exit 1; }
done
command -v gnuplot >/dev/null || { echo "events_report.sh: gnuplot is missing: run scripts/install-deps.sh" >&2; exit 1; }

# Commands per second by workload, one column per synchronous setting (the capacity plot's data).
awk -F, 'NR > 1 { if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } v[$2, $1] = $5 }
  END { print "workload,FULL,NORMAL,OFF"; for (i = 1; i <= n; i++) print order[i] "," v[order[i], "FULL"] "," v[order[i], "NORMAL"] "," v[order[i], "OFF"] }' \
  "$dir/capacity.csv" > "$dir/capacity_by_sync.csv"
(cd "$dir" && gnuplot -c "$here/events.gp")  # no path reaches gnuplot (events.gp)

# A CSV's rows as a Markdown table: md_table FILE "heading|heading|..." AWK-EXPRESSION. The
# expression may call largest(): the name of the capacity row's largest phase (the *_us columns
# from parse_us to before engine_us, named by the header).
md_table() {
  echo "| ${2//|/ | } |"
  echo "|$(echo "$2" | awk -F'|' '{ for (i = 1; i <= NF; i++) printf " --- |" }')"
  awk -F, "function largest(  i, b) {
      b = first
      for (i = first + 1; i < last; i++) if (\$i + 0 > \$b + 0) b = i
      return names[b]
    }
    NR == 1 { for (i = 1; i <= NF; i++) { names[i] = \$i; sub(/_us\$/, \"\", names[i]); if (\$i == \"parse_us\") first = i; if (\$i == \"engine_us\") last = i } }
    NR > 1 { print \"| \" $3 \" |\" }" "$1"
}

{
  echo "# Event benchmark"
  echo
  echo "Every latency is end to end: from the moment a command was due to be sent to the moment its reply"
  echo "was read back through the engine's Unix socket. A state-changing command's reply leaves the engine"
  echo "only after its input row and event_log row are committed (synchronous=FULL, except where the"
  echo "capacity table says otherwise). Commands are sent open loop, on a schedule that does not wait for"
  echo "replies, so a stall is charged to every command it delayed (no coordinated omission). Each"
  echo "experiment runs against a fresh engine on a fresh copy of the database. Microseconds throughout."
  echo
  "$here/host_info.sh" --table "$dir/host.txt"
  echo
  echo "## 1. Latency at offered rates (amendments, open loop)"
  echo
  md_table "$dir/rates.csv" "offered/s|achieved/s|kept up|commands|p50|p90|p99|p99.9|p99.99|max" \
    '$2 " | " $3 " | " ($4 ? "yes" : "no") " | " $5 " | " $6 " | " $7 " | " $8 " | " $9 " | " $10 " | " $11'
  echo
  echo "Achieved: the rate replies came at, first to last; kept up: at least 95% of the offered rate."
  echo
  awk -F, 'NR > 1 && $4 == 1 { if ($8 < 1000 && $2 > one) one = $2; if ($8 < 10000 && $2 > ten) ten = $2 }
    NR > 1 && $2 == 10000 { at = sprintf("p50 %s, p99.9 %s", $6, $9) }
    END {
      printf "**Highest offered rate kept up with p99 under 1 ms:** %s/s; **under 10 ms:** %s/s.", (one ? one : "none"), (ten ? ten : "none")
      if (at != "") printf " **At 10,000/s:** %s.", at
      print ""
    }' "$dir/rates.csv"
  echo
  echo "![latency against offered rate](rates.png)"
  echo
  echo "## 2. Bursts and slow rates, WAIT_POLICY=block and busy side by side"
  echo
  echo "A burst's commands are all due at its start (one write); bookings are removed in a burst of the"
  echo "same size after each booking burst. Slow rates send amendments one at a time on a schedule."
  echo
  echo "| pattern | command | wait | commands | p50 | p75 | p90 | p99 | p99.9 | p99.99 | three worst |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  awk -F, 'NR > 1 { k = $2 SUBSEP $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
      row[k] = row[k] sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s, %s, %s |\n", $2, $3, $1, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) }
    END { for (i = 1; i <= n; i++) printf "%s", row[order[i]] }' "$dir/patterns.csv"
  echo
  awk -F, 'NR > 1 && $3 == "amendment" && ($2 == "burst 1" || $2 == "burst 10000") { printf "- %s amendments, %s: p50 %s, p99 %s\n", $2, $1, $5, $8 }' "$dir/patterns.csv"
  echo
  echo "## 3. Memory growth while booking outright trades"
  echo
  md_table "$dir/memory.csv" "trades booked|VmPeak MiB|VmRSS MiB|database MiB|WAL MiB|last event|seconds for the step" \
    '$2 " | " sprintf("%.1f", $3 / 1024) " | " sprintf("%.1f", $4 / 1024) " | " sprintf("%.1f", $5 / 1048576) " | " sprintf("%.1f", $6 / 1048576) " | " $7 " | " sprintf("%.2f", $8)'
  echo
  echo "Each row is taken once the result writer has caught up. The WAL is not truncated after its"
  echo "checkpoints, so its size is the largest it has been, not a size per trade."
  echo
  awk -F, 'NR == 2 { t0 = $2; r0 = $4; d0 = $5 } NR > 2 { t = $2; r = $4; d = $5 }
    END { if (t > t0) printf "**Bytes per booked trade:** %.0f of resident memory (VmRSS), %.0f of database file (over %d trades).\n", (r - r0) * 1024 / (t - t0), (d - d0) / (t - t0), t - t0 }' "$dir/memory.csv"
  echo
  echo "![memory growth](memory.png)"
  echo
  echo "## 4. Round trips, repeated"
  echo
  awk -F, 'NR == 2 { printf "Amendments at %s/s offered (the highest offered rate of section 1 kept up with p99 under 10 ms, at most --max-rate (50,000/s by default), unless the run was given --rate), %s per repeat.\n", $3, $5 }' "$dir/roundtrip.csv"
  echo
  md_table "$dir/roundtrip.csv" "repeat|achieved/s|min|median|average|p50|p75|p90|p99|p99.9|p99.99|max" \
    '$2 " | " $4 " | " $6 " | " $7 " | " sprintf("%.1f", $8) " | " $9 " | " $10 " | " $11 " | " $12 " | " $13 " | " $14 " | " $15'
  echo
  echo "![round-trip histogram](roundtrip_histogram.png)"
  echo
  echo "## 5. Capacity per workload"
  echo
  echo "Commands sent as fast as the engine takes them (at most 4,096 unanswered) for the run's seconds;"
  echo "the last row waits for each reply before sending the next. Microseconds per command by phase,"
  echo "from the engine's own clocks (\`stats\` before and after): parse, apply (model, input row and"
  echo "event_log row), recalculate (the batch's changes, and the values the replies carry), pnl_explain"
  echo "(the P&L explain's bookkeeping of the events and their moves), read (get,"
  echo "book), commit (the batch's transaction, fsync included), reply (the JSON lines), publish (the"
  echo "event loop handing recalculated rows to the result writer between batches). Before each mix the"
  echo "result writer has caught up. \"wall\" is the client's time per command; wall less the engine's"
  echo "phases is the socket, the event loop's waits, the result writer's share of the two cores and,"
  echo "one at a time, the client's own turn."
  echo
  md_table "$dir/capacity.csv" "workload|synchronous|commands/s|batches per 1,000|parse|apply|recalculate|pnl_explain|read|commit|reply|publish|engine|wall|largest phase" \
    '$2 " | " $1 " | " $5 " | " sprintf("%.1f", $6) " | " $7 " | " $8 " | " $9 " | " $10 " | " $11 " | " $12 " | " $13 " | " $14 " | " sprintf("%.1f", $15) " | " sprintf("%.1f", $16) " | " largest()'
  echo
  echo "What each setting risks (SQLite in WAL mode; the engine's SYNCHRONOUS setting):"
  echo
  echo "- FULL (the default): the WAL is fsynced at every commit; an acknowledged change survives the"
  echo "  engine's crash and a power loss or operating-system crash."
  echo "- NORMAL: no fsync at commit (only at checkpoints); an acknowledged change survives the engine's"
  echo "  crash (kill -9), but a power loss or OS crash can roll back the last acknowledged changes. The"
  echo "  database stays consistent."
  echo "- OFF: no fsync at all; as NORMAL for the engine's crash, and a power loss or OS crash may also"
  echo "  corrupt the database."
  echo
  echo "![capacity](capacity.png)"
  echo
  echo "## 6. Quote ticks (set-price, open loop)"
  echo
  echo "Each tick sets the clean prices of that many quoted bonds, each within 0.05 of its loaded quote;"
  echo "the engine re-solves their z-spreads and cs01 and the cs01 of the trades and books on them."
  echo
  md_table "$dir/quotes.csv" "offered/s|achieved/s|kept up|ticks|bonds per tick|p50|p90|p99|p99.9|max" \
    '$2 " | " $3 " | " ($4 == 1 ? "yes" : "no") " | " $5 " | " $6 " | " $7 " | " $8 " | " $9 " | " $10 " | " $11'
} > "$dir/report.md"
echo "Wrote $dir/report.md and the plots."
