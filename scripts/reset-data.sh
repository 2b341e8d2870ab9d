#!/usr/bin/env bash
# `make reset-data`: the demo data set as generated, again. Live commands
# (make web, bond_risk send) change the database for good; this deletes it
# with its results (live and scenario), journals and logs, and generates it
# afresh (the same seed: the same rows, the same results digest). Refuses
# while an engine serves it.
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: scripts/reset-data.sh BIN DB [PRESET]   (PRESET default 440k)" >&2
  exit 2
fi
bin=$1 db=$2 preset=${3:-440k}
# The engine holds an flock on the database while it runs (also while it starts).
if "$bin" send --db "$db" stats >/dev/null 2>&1 || { [ -f "$db" ] && ! flock -n "$db" true; }; then
  echo "reset-data.sh: an engine is serving $db; stop it first (bin/bond_risk send --db $db shutdown, or Ctrl-C in make web)" >&2
  exit 1
fi
base=${db%.db}
rm -f "$db" "$db-wal" "$db-shm" "$db-journal" "$db.engine.log" \
  "$base.results.db" "$base.results.db-wal" "$base.results.db-shm" "$base.results.db-journal" \
  "$base.scenarios.db" "$base.scenarios.db-wal" "$base.scenarios.db-shm" "$base.scenarios.db-journal"
"$bin" generate --preset "$preset" --out "$db"
echo "reset-data.sh: $db is the $preset preset as generated"
