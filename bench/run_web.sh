#!/usr/bin/env bash
# Does the desk page slow the engine down? One engine on a copy of the
# database, one `bond_risk web` gateway following it, and single amendments
# sent open loop through the engine's socket (`bench-load roundtrip`: each
# latency from the command's due time to its reply, the durable commit
# included), in rounds that alternate between no browser stream open on the
# gateway and --streams of them (curl reading /stream, each following
# another book's ladder, as a browser's page does), and a third setting with
# no gateway at all (what following the engine costs it). Writes web_streams.csv
# (one row per round), web_delay.csv (how long after its acknowledgement
# each of --delay-events amendments reached a stream), host.txt and report.md.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'USAGE'
usage: bench/run_web.sh [options]

  --db PATH        database (default data/bond_risk_440k.db, generated if missing)
  --out DIR        output directory (default bench/out/web-<date-time>)
  --streams N      browser streams open in the rounds with streams (default 50)
  --rate R         amendments per second, open loop (default 1000)
  --seconds S      seconds per round (default 10)
  --rounds N       rounds of each setting, interleaved (default 3)
  --threads N      the engine's worker threads (default 2)
  --delay-events N amendments timed from acknowledgement to stream (default 40)

Set BOND_RISK_BIN to benchmark a given binary instead of building one.
USAGE
}

# shellcheck source=bench/common.sh
. bench/common.sh

db=data/bond_risk_440k.db
out="bench/out/web-$(date +%Y%m%d-%H%M%S)"
streams=50
rate=1000
seconds=10
rounds=3
threads=2
delay_events=40
while [ $# -gt 0 ]; do
  case "$1" in
    --db) db=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --streams) streams=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --delay-events) delay_events=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run_web.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
need curl sqlite3
bin=$(bench_binary)
ensure_database "$bin" "$db"

mkdir -p "$out"
rm -f "$out/roundtrip.csv" "$out/roundtrip_histogram.csv"
work=$(mktemp -d)
engine_pid="" web_pid="" stream_pids=()
close_streams() {
  [ ${#stream_pids[@]} -gt 0 ] || return 0  # (a bare `wait` would wait for the engine)
  kill "${stream_pids[@]}" 2>/dev/null || true
  wait "${stream_pids[@]}" 2>/dev/null || true
  stream_pids=()
}
cleanup() {
  close_streams
  [ -z "$web_pid" ] || { kill "$web_pid" 2>/dev/null || true; wait "$web_pid" 2>/dev/null || true; }
  [ -z "$engine_pid" ] || { "$bin" send --socket "$work/engine.sock" shutdown >/dev/null 2>&1 || kill "$engine_pid" 2>/dev/null || true; wait "$engine_pid" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT

cp "$db" "$work/engine.db"
"$bin" run --db "$work/engine.db" --socket "$work/engine.sock" --threads "$threads" > "$work/engine.log" 2>&1 &
engine_pid=$!
for _ in $(seq 600); do "$bin" send --socket "$work/engine.sock" stats >/dev/null 2>&1 && break; sleep 0.1; done
"$bin" send --socket "$work/engine.sock" stats >/dev/null 2>&1 || die "the engine did not start: $(tail -3 "$work/engine.log")"
# The gateway, following the engine; sets web_pid and url.
start_gateway() {
  : > "$work/web.out"
  "$bin" web --socket "$work/engine.sock" --listen 127.0.0.1:0 --max-streams "$((streams + 10))" > "$work/web.out" 2> "$work/web.log" &
  web_pid=$!
  for _ in $(seq 100); do [ -s "$work/web.out" ] && break; sleep 0.1; done
  url=$(head -1 "$work/web.out")
  [ -n "$url" ] || die "the gateway did not start: $(cat "$work/web.log")"
  sleep 2  # it has listed and watched every book
}
stop_gateway() {
  kill "$web_pid" 2>/dev/null || true
  wait "$web_pid" 2>/dev/null || true
  web_pid=""
}
start_gateway
mapfile -t books < <(sqlite3 "$work/engine.db" "SELECT name FROM outright_book UNION ALL SELECT name FROM repo_book ORDER BY 1 LIMIT $streams")

# CPU seconds a process has used (user + system).
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"; }

{
  bench/host_info.sh
  echo "engine: $bin run --threads $threads; gateway: $bin web"
  echo "database: $db ($(sqlite3 "$db" 'SELECT (SELECT count(*) FROM outright_book) + (SELECT count(*) FROM repo_book)') books)"
} > "$out/host.txt"
echo "round,streams,p50_us,p99_us,p99.9_us,max_us,stream_messages_per_s,gateway_cpu_s" > "$out/web_streams.csv"
for round in $(seq "$rounds"); do
  for n in none 0 "$streams"; do
    [ "$n" != none ] || stop_gateway
    if [ "$n" != none ] && [ "$n" -gt 0 ]; then
      for ((i = 0; i < n; i++)); do
        curl -sN "${url}stream?ladder=${books[i % ${#books[@]}]}" > "$work/stream.$i" &
        stream_pids+=($!)
      done
      sleep 2  # every stream has its first, full message
    fi
    open=$n
    [ "$n" != none ] || open=0
    rm -f "$work"/stream.*.mark
    for ((i = 0; i < open; i++)); do grep -c '^data: ' "$work/stream.$i" > "$work/stream.$i.mark" || true; done
    gateway_before=$([ -z "$web_pid" ] || cpu_seconds "$web_pid")
    echo "== round $round, streams: $n"
    started=$EPOCHREALTIME
    "$bin" bench-load roundtrip --socket "$work/engine.sock" --db "$work/engine.db" --out "$work" --label "$n" \
      --count "$((rate * seconds))" --rate "$rate" --repeats 1 --seed "$round" > /dev/null
    elapsed=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')
    gateway_cpu=0
    [ -z "$web_pid" ] || gateway_cpu=$(awk -v a="$gateway_before" -v b="$(cpu_seconds "$web_pid")" 'BEGIN { printf "%.2f", b - a }')
    messages=0
    for ((i = 0; i < open; i++)); do
      messages=$((messages + $(grep -c '^data: ' "$work/stream.$i" || true) - $(cat "$work/stream.$i.mark")))
    done
    per_stream=$(awk -v m="$messages" -v n="$open" -v s="$elapsed" 'BEGIN { printf "%.1f", n ? m / n / s : 0 }')
    tail -1 "$work/roundtrip.csv" | awk -F, -v r="$round" -v n="$n" -v m="$per_stream" -v c="$gateway_cpu" \
      '{ print r "," n "," $9 "," $12 "," $13 "," $15 "," m "," c }' >> "$out/web_streams.csv"
    close_streams
    [ -n "$web_pid" ] || start_gateway
  done
done

# How long after its acknowledgement an event reaches a browser's stream:
# amendments sent one at a time on one connection, about 4 a second at no
# fixed phase; for each, the clock when the shell read its reply (sent after
# the durable commit) and when it read the first stream message as of that
# event (both read by the shell as the lines arrive, on this machine's clock).
echo "== delay from acknowledgement to the stream, $delay_events events"
curl -sN "${url}stream?ladder=${books[0]}" > >(while IFS= read -r line; do echo "$EPOCHREALTIME $line"; done > "$work/stamped") &
stream_pid=$!
sleep 2
mapfile -t trades < <(sqlite3 "$work/engine.db" "SELECT id FROM outright_trade ORDER BY id LIMIT $delay_events")
: > "$work/acks"
# One connection to the engine, kept open: `send` prints each reply as it reads it.
coproc SENDER { "$bin" send --socket "$work/engine.sock"; }
for ((i = 0; i < delay_events; i++)); do
  echo "amend-trade ${trades[i]} quantity=$((1000 + i))" >&"${SENDER[1]}"
  IFS= read -r reply <&"${SENDER[0]}"
  echo "$EPOCHREALTIME $(sed -n 's/.*"event":\([0-9]*\)}$/\1/p' <<< "$reply")" >> "$work/acks"
  sleep "0.$((150 + RANDOM % 200))"
done
sender_in=${SENDER[1]}
exec {sender_in}>&-  # send ends with its input
sleep 1
kill "$stream_pid" 2>/dev/null || true
wait "$stream_pid" 2>/dev/null || true
sleep 0.2  # the stamping loop writes its last lines
echo "event,ack_s,stream_s,delay_ms" > "$out/web_delay.csv"
awk 'NR == FNR { if (match($0, /"as_of_event":[0-9]+/)) { n++; t[n] = $1; e[n] = substr($0, RSTART + 14, RLENGTH - 14) + 0 } next }
     { for (i = 1; i <= n; i++) if (e[i] >= $2) { printf "%d,%.6f,%.6f,%.1f\n", $2, $1, t[i], (t[i] - $1) * 1000; break } }' \
  "$work/stamped" "$work/acks" >> "$out/web_delay.csv"

# The report: medians per setting, and their ratio.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
column_of() { awk -F, -v n="$1" -v c="$2" 'NR > 1 && $2 == n { print $c }' "$out/web_streams.csv" | median; }
{
  echo "# Single amendments with and without browser streams on the gateway"
  echo
  echo "Command: \`bench/run_web.sh --streams $streams --rate $rate --seconds $seconds --rounds $rounds\`."
  echo "Amendments open loop at $rate a second for $seconds s per round, rounds of each setting interleaved;"
  echo "latency from each command's due time to its reply read back through the engine's socket (durable commit included)."
  echo
  echo "| streams on the gateway | p50 µs | p99 µs | p99.9 µs | max µs | messages per stream per s | gateway CPU s per round |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
  for n in none 0 "$streams"; do
    echo "| $([ "$n" = none ] && echo "no gateway" || echo "$n") | $(column_of "$n" 3) | $(column_of "$n" 4) | $(column_of "$n" 5) | $(column_of "$n" 6) | $(column_of "$n" 7) | $(column_of "$n" 8) |"
  done
  echo
  ratio() { awk -v a="$(column_of "$1" 3)" -v b="$(column_of "$2" 3)" -v c="$(column_of "$1" 4)" -v d="$(column_of "$2" 4)" \
    'BEGIN { printf "p50 %.2fx, p99 %.2fx", b / a, d / c }'; }
  echo "Medians over the rounds. $streams streams against none: $(ratio 0 "$streams"); the gateway with no stream against no gateway: $(ratio none 0)."
  echo
  echo "## From acknowledgement to a browser's stream"
  echo
  echo "$delay_events amendments one at a time, 0.15-0.35 s apart; from the moment the shell read each reply (after the"
  echo "durable commit) to the moment it read the first stream message as of that event (web_delay.csv):"
  awk -F, 'NR > 1 { print $4 }' "$out/web_delay.csv" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR) printf "median %.1f ms, 90th percentile %.1f ms, max %.1f ms over %d events.\n", v[int((NR + 1) / 2)], v[int(NR * 0.9 + 0.5)], v[NR], NR }'
  echo
  bench/host_info.sh --table "$out/host.txt"
} > "$out/report.md"
cat "$out/report.md"
