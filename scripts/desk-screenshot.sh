#!/usr/bin/env bash
# Saves a screenshot of the desk page (bond_risk web) as a PNG: headless
# Chromium driven through ChromeDriver's WebDriver API, once the page shows
# its books (its values arrive on its stream after the page loads, so
# `chromium --screenshot` alone would catch an empty table).
set -euo pipefail

if [ $# -lt 2 ] || [ "$1" = --help ]; then
  echo "usage: scripts/desk-screenshot.sh URL OUT.png [WIDTH,HEIGHT]   (default 1400,900)" >&2
  exit 2
fi
url=$1 out=$2 size=${3:-1400,900}
# The URL and size go into WebDriver's JSON: refuse what would end its string.
case "$url$size" in *[\"\\]*|*[[:cntrl:]]*) echo "desk-screenshot.sh: the URL and size may hold no quote, backslash or control character" >&2; exit 2 ;; esac
command -v chromedriver >/dev/null || { echo "desk-screenshot.sh: chromedriver is missing: run scripts/install-deps.sh" >&2; exit 1; }

work=$(mktemp -d)
driver=
# Stops chromedriver (its browser with it) and removes the browser's profile
# and temporary files (chromedriver and the browser get $work as TMPDIR);
# the script's exit status stays its own (a killed chromedriver's 143 is not).
# The browser may outlive its driver for a moment, and remove its
# scoped_dir only as it ends: its processes (their command lines name the
# profile in $work) are waited for, 5 s at most, then killed.
cleanup() {
  local status=$?
  kill "$driver" 2>/dev/null || true
  wait "$driver" 2>/dev/null || true
  for _ in $(seq 50); do
    pgrep -f -- "$work/" >/dev/null || break
    sleep 0.1
  done
  pkill -9 -f -- "$work/" 2>/dev/null || true
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
# chromedriver on a random port; another one when that port is taken (its
# process ends at once) or it does not answer within 10 s.
up=0
for _ in 1 2 3 4 5; do
  port=$((20000 + RANDOM % 20000))
  TMPDIR=$work chromedriver --port="$port" > "$work/chromedriver.log" 2>&1 &
  driver=$!
  api="http://127.0.0.1:$port"
  for _ in $(seq 100); do
    curl -sf "$api/status" >/dev/null && { up=1; break; }
    kill -0 "$driver" 2>/dev/null || break
    sleep 0.1
  done
  [ "$up" = 1 ] && break
  kill "$driver" 2>/dev/null || true
  wait "$driver" 2>/dev/null || true
done
[ "$up" = 1 ] || { echo "desk-screenshot.sh: chromedriver did not start: $(tail -3 "$work/chromedriver.log")" >&2; exit 1; }

# POST PATH JSON: the reply's body.
post() { curl -sf -X POST "$api$1" -H 'Content-Type: application/json' -d "$2"; }
# The flags of a browser on a closed network: no background connections, no sandbox as root.
session=$(post /session '{"capabilities":{"alwaysMatch":{"goog:chromeOptions":{"binary":"/usr/bin/chromium","args":[
  "--headless","--no-sandbox","--disable-gpu","--disable-quic","--no-first-run","--disable-background-networking",
  "--disable-component-update","--disable-sync","--window-size='"$size"'","--user-data-dir='"$work/chromium"'"]}}}}' |
  sed -n 's/.*"sessionId":"\([0-9a-f]*\)".*/\1/p')
[ -n "$session" ] || { echo "desk-screenshot.sh: chromedriver started no browser: $(tail -3 "$work/chromedriver.log")" >&2; exit 1; }
post "/session/$session/url" "{\"url\":\"$url\"}" >/dev/null
shown='{"script":"return document.querySelectorAll(\"tr[data-book]\").length > 0 && !!document.body.dataset.event","args":[]}'
ready=0
for _ in $(seq 300); do
  post "/session/$session/execute/sync" "$shown" | grep -q '"value":true' && { ready=1; break; }
  sleep 0.1
done
[ "$ready" = 1 ] || { echo "desk-screenshot.sh: the page at $url showed no books within 30 s (is its engine serving?)" >&2; exit 1; }
sleep 1.5  # the ladder's chart draws after the first message
curl -sf "$api/session/$session/screenshot" | sed 's/^{"value":"\(.*\)"}$/\1/' | base64 -d > "$out"
curl -sf -X DELETE "$api/session/$session" >/dev/null || true
echo "wrote $out"
