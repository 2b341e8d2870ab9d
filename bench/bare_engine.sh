#!/usr/bin/env bash
# bin/bond_risk with its optional figures off (KEY_RATES=0 QUOTE_ANALYTICS=0):
# the bare model, as one side of a pair, so that a comparison of every
# figure on against the same binary bare is one interleaved run:
#   bench/pair_flush.sh bench/bare_engine.sh DB bin/bond_risk DB
#   bench/pair_events.sh bench/bare_engine.sh bin/bond_risk -- --db DB
# BOND_RISK_BIN names another binary (default: this checkout's bin/bond_risk).
set -euo pipefail
bin=${BOND_RISK_BIN:-$(cd "$(dirname "$0")/.." && pwd)/bin/bond_risk}
[ -x "$bin" ] || { echo "bare_engine.sh: $bin is not an executable (make bin/bond_risk builds it)" >&2; exit 2; }
KEY_RATES=0 QUOTE_ANALYTICS=0 exec "$bin" "$@"
