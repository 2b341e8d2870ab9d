#!/usr/bin/env bash
# Fails when a source file includes a layer ARCHITECTURE.md's may-include
# matrix does not allow it: never one above its own (the layers, from the
# bottom: base/, engine/, then bond_risk/model, db, synth, protocol, live,
# web, lab, cli, mpi), and below it only those its row names. Run by `make test`;
# checks the tree it belongs to, or the one given as its argument.
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

# The layer a path belongs to, as "rank name".
layer_of() {
  case "$1" in
    base/*) echo "0 base" ;;
    engine/*) echo "1 engine" ;;
    bond_risk/model/*) echo "2 model" ;;
    bond_risk/db/*) echo "3 db" ;;
    bond_risk/synth/*) echo "4 synth" ;;
    bond_risk/protocol/*) echo "5 protocol" ;;
    bond_risk/live/*) echo "6 live" ;;
    bond_risk/web/*) echo "7 web" ;;
    bond_risk/lab/*) echo "8 lab" ;;
    bond_risk/cli/*) echo "9 cli" ;;
    bond_risk/mpi/*) echo "10 mpi" ;;
    *) echo "? unknown" ;;
  esac
}

# The layers each layer may include besides its own (ARCHITECTURE.md's matrix).
may_include() {
  case "$1" in
    base) echo "" ;;
    engine) echo "base" ;;
    model) echo "engine base" ;;
    db) echo "model engine base" ;;
    synth) echo "db model engine base" ;;
    protocol) echo "model base" ;;
    live) echo "protocol db model engine base" ;;
    web) echo "protocol base" ;;
    lab) echo "live protocol db model base" ;;
    cli | mpi) echo "lab web live protocol synth db model engine base cli" ;;
  esac
}

status=0
while IFS= read -r file; do
  read -r rank name < <(layer_of "$file")
  if [ "$rank" = "?" ]; then
    echo "check-layers: $file is in no layer (put it under base/, engine/ or bond_risk/{model,db,synth,protocol,live,web,lab,cli,mpi}/)" >&2
    status=1
    continue
  fi
  while IFS= read -r included; do
    read -r inc_rank inc_name < <(layer_of "$included")
    if [ "$inc_rank" = "?" ]; then continue; fi  # generated or system headers
    if [ "$inc_rank" -gt "$rank" ] || { [ "$inc_name" != "$name" ] && [[ " $(may_include "$name") " != *" $inc_name "* ]]; }; then
      echo "check-layers: $file ($name) includes $included ($inc_name), a layer it may not use" >&2
      status=1
    fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(find engine base bond_risk -name '*.h' -o -name '*.cpp' | sort)

if [ "$status" -eq 0 ]; then echo "check-layers: every include goes to its own layer or one below that its layer may use"; fi
exit "$status"
