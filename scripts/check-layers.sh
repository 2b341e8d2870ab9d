#!/usr/bin/env bash
# Fails when a source file includes a layer above its own. The layers, from
# the bottom: engine/ and base/ (each includes only itself), then
# bond_risk/model, bond_risk/db, bond_risk/live, bond_risk/web, bond_risk/cli, bond_risk/mpi; a file may
# include its own layer and any below it. Run by `make test`; checks the
# tree it belongs to, or the one given as its argument.
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

# The layer a path belongs to, as "rank name"; engine and base are both at
# the bottom but must not include each other.
layer_of() {
  case "$1" in
    engine/*) echo "0 engine" ;;
    base/*) echo "0 base" ;;
    bond_risk/model/*) echo "1 model" ;;
    bond_risk/db/*) echo "2 db" ;;
    bond_risk/live/*) echo "3 live" ;;
    bond_risk/web/*) echo "4 web" ;;
    bond_risk/cli/*) echo "5 cli" ;;
    bond_risk/mpi/*) echo "6 mpi" ;;
    *) echo "? unknown" ;;
  esac
}

status=0
while IFS= read -r file; do
  read -r rank name < <(layer_of "$file")
  if [ "$rank" = "?" ]; then
    echo "check-layers: $file is in no layer (put it under engine/, base/ or bond_risk/{model,db,live,web,cli,mpi}/)" >&2
    status=1
    continue
  fi
  while IFS= read -r included; do
    read -r inc_rank inc_name < <(layer_of "$included")
    if [ "$inc_rank" = "?" ]; then continue; fi  # generated or system headers
    if [ "$inc_rank" -gt "$rank" ] || { [ "$inc_rank" -eq 0 ] && [ "$rank" -eq 0 ] && [ "$inc_name" != "$name" ]; }; then
      echo "check-layers: $file ($name) includes $included ($inc_name), a layer it may not use" >&2
      status=1
    fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(find engine base bond_risk -name '*.h' -o -name '*.cpp' | sort)

if [ "$status" -eq 0 ]; then echo "check-layers: every include goes to the same layer or one below"; fi
exit "$status"
