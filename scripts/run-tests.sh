#!/usr/bin/env bash
# Runs the test binary as TEST_SHARDS processes at once (GoogleTest's own
# sharding: each test runs in exactly one of them), so the suite's waits
# (engines starting, deadlines, sockets) overlap. Each output line goes out
# as it comes, prefixed with its shard; the run ends with the failed tests
# of every shard and one line of totals. Exits non-zero if a shard failed.
# usage: scripts/run-tests.sh TEST_BINARY [GTEST_FLAGS...]   (TEST_SHARDS, default 2; 1 = one process, as is)
set -uo pipefail

test_bin=${1:?usage: scripts/run-tests.sh TEST_BINARY [GTEST_FLAGS...]}
shift
shards=${TEST_SHARDS:-2}
if ! [[ $shards =~ ^[1-9][0-9]?$ ]]; then
  echo "run-tests: TEST_SHARDS must be a number from 1 to 99, not '$shards'" >&2
  exit 2
fi
if [ "$shards" -eq 1 ]; then exec "$test_bin" "$@"; fi

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
pids=()
for ((i = 0; i < shards; i++)); do
  (GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "$test_bin" "$@" 2>&1 |
    tee "$logs/$i.log" | sed -u "s/^/[$((i + 1))\/$shards] /"
   exit "${PIPESTATUS[0]}") &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done

# Totals from each shard's last line ("tests: N passed, M failed[, K skipped ...]").
passed=0 failed=0 skipped=0
for ((i = 0; i < shards; i++)); do
  line=$(grep '^tests: ' "$logs/$i.log" | tail -1)
  if [ -z "$line" ]; then
    echo "run-tests: shard $((i + 1)) of $shards ended without its totals (it crashed: its output is above)" >&2
    status=1
    continue
  fi
  read -r p f s < <(sed -E 's/^tests: ([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped.*)?$/\1 \2 \4/' <<<"$line")
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
  grep -hE '^\[  FAILED  \] [A-Za-z][^ ]*$' "$logs/$i.log"
done
summary="tests: $passed passed, $failed failed"
if [ "$skipped" -gt 0 ]; then summary+=", $skipped skipped (the reason is printed above)"; fi
echo "$summary ($shards shards)"
exit "$status"
