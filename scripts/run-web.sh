#!/usr/bin/env bash
# `make web`: an engine serving DB and the desk page's gateway following it;
# prints the page's URL. Ctrl-C stops both (an engine that was already
# serving DB is followed, and left running).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 2 ]; then
  echo "usage: scripts/run-web.sh BIN DB   (WEB_LISTEN=ADDR:PORT, default 127.0.0.1:8080; WEB_TOKEN off loopback)" >&2
  exit 2
fi
bin=$1 db=$2
listen=${WEB_LISTEN:-127.0.0.1:8080}
engine_pid=""
stop() {
  if [ -n "$engine_pid" ]; then
    "$bin" send --db "$db" shutdown >/dev/null 2>&1 || kill "$engine_pid" 2>/dev/null || true
    wait "$engine_pid" 2>/dev/null || true
  fi
}
trap stop EXIT

if "$bin" send --db "$db" stats >/dev/null 2>&1; then
  echo "run-web.sh: following the engine already serving $db"
else
  "$bin" run --db "$db" > "$db.engine.log" 2>&1 &
  engine_pid=$!
  echo "run-web.sh: starting an engine on $db (log: $db.engine.log)"
  for _ in $(seq 600); do "$bin" send --db "$db" stats >/dev/null 2>&1 && break; sleep 0.1; done
fi
echo "run-web.sh: commands (bin/bond_risk send ...) change $db for good; make reset-data generates it afresh"
echo "run-web.sh: the desk page is at the URL below; Ctrl-C stops the gateway and the engine"
"$bin" web --db "$db" --listen "$listen" || true
