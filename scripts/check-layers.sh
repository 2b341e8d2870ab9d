#!/usr/bin/env bash
# Fails when a source file includes a layer ARCHITECTURE.md's may-include
# matrix does not allow it: never one above its own (the layers, from the
# bottom: base/, engine/, then bond_risk/model, db, synth, protocol, live,
# web, lab, cli, mpi), and below it only those its row names. Inside
# bond_risk/model/ the sub-domains are ordered the same way (MODEL_ORDER):
# one includes only itself and those before it. Run by `make test`;
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
    protocol) echo "model engine base" ;;
    live) echo "protocol db model engine base" ;;
    web) echo "protocol base" ;;
    lab) echo "live protocol db model base" ;;
    cli | mpi) echo "lab web live protocol synth db model engine base cli" ;;
  esac
}

# bond_risk/model/'s sub-domains, from the bottom (ARCHITECTURE.md).
MODEL_ORDER=(pricing quotes conventions inputs store risk nodes pnl limits)

# The rank of a path's model sub-domain, or nothing outside bond_risk/model/.
model_rank() {
  local i sub
  [[ "$1" == bond_risk/model/* ]] || return 0
  sub=${1#bond_risk/model/}
  sub=${sub%%/*}
  for i in "${!MODEL_ORDER[@]}"; do
    if [ "${MODEL_ORDER[$i]}" = "$sub" ]; then echo "$i"; return 0; fi
  done
  echo "?"
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
    if [ "$name" = model ] && [ "$inc_name" = model ]; then
      own=$(model_rank "$file")
      other=$(model_rank "$included")
      if [ "$own" = "?" ] || [ "$other" = "?" ] || [ "$other" -gt "$own" ]; then
        echo "check-layers: $file includes $included, a model sub-domain above its own or in none (the order: ${MODEL_ORDER[*]})" >&2
        status=1
      fi
    fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(find engine base bond_risk -name '*.h' -o -name '*.cpp' | sort)

if [ "$status" -eq 0 ]; then echo "check-layers: every include goes to its own layer or one below that its layer may use"; fi
exit "$status"
