#!/usr/bin/env bash
# Fails when a source file includes a layer ARCHITECTURE.md's may-include
# matrix does not allow it: never one above its own (the layers, from the
# bottom: base/, engine/, then bond_risk/model, db, synth, protocol, live,
# web, lab, cli, mpi), and below it only those its row names. Inside
# bond_risk/model/ the sub-domains are ordered the same way (MODEL_ORDER):
# one includes only itself and those before it. Run by `make test`;
# checks the tree it belongs to, or the one given as its argument.
# One awk reads every file (a process per include line took seconds).
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

mapfile -t files < <(find engine base bond_risk -name '*.h' -o -name '*.cpp' | sort)
# With no files, awk would read its standard input.
if [ "${#files[@]}" -eq 0 ]; then
  echo "check-layers: every include goes to its own layer or one below that its layer may use"
  exit 0
fi

awk '
BEGIN {
  # The layers from the bottom, and those each may include besides its own (ARCHITECTURE.md'"'"'s matrix).
  split("base engine model db synth protocol live web lab cli mpi", order, " ")
  for (i in order) rank[order[i]] = i - 1
  may["base"] = ""
  may["engine"] = "base"
  may["model"] = "engine base"
  may["db"] = "model engine base"
  may["synth"] = "db model engine base"
  may["protocol"] = "model engine base"
  may["live"] = "protocol db model engine base"
  may["web"] = "protocol base"
  may["lab"] = "live protocol db model base"
  may["cli"] = may["mpi"] = "lab web live protocol synth db model engine base cli"
  # bond_risk/model/'"'"'s sub-domains, from the bottom (ARCHITECTURE.md).
  model_order = "pricing quotes conventions inputs store risk nodes pnl limits"
  n = split(model_order, sub_list, " ")
  for (i = 1; i <= n; ++i) sub_rank[sub_list[i]] = i - 1
  status = 0
  for (i = 1; i < ARGC; ++i) {
    if (layer_of(ARGV[i]) == "?") {
      print "check-layers: " ARGV[i] " is in no layer (put it under base/, engine/ or bond_risk/{model,db,synth,protocol,live,web,lab,cli,mpi}/)" > "/dev/stderr"
      status = 1
    }
  }
}

# The layer a path belongs to, or "?".
function layer_of(path) {
  if (path ~ /^base\//) return "base"
  if (path ~ /^engine\//) return "engine"
  if (match(path, /^bond_risk\/(model|db|synth|protocol|live|web|lab|cli|mpi)\//)) return substr(path, 11, RLENGTH - 11)
  return "?"
}

# The rank of a bond_risk/model/ path'"'"'s sub-domain, or "?".
function model_rank(path,   part) {
  part = substr(path, length("bond_risk/model/") + 1)
  part = substr(part, 1, index(part, "/") - 1)
  return (part in sub_rank) ? sub_rank[part] : "?"
}

FNR == 1 { name = layer_of(FILENAME) }

name != "?" && /^[[:space:]]*#[[:space:]]*include[[:space:]]*"/ {
  included = $0
  sub(/^[[:space:]]*#[[:space:]]*include[[:space:]]*"/, "", included)
  if (index(included, "\"") == 0) next
  included = substr(included, 1, index(included, "\"") - 1)
  inc_name = layer_of(included)
  if (inc_name == "?") next  # generated or system headers
  if (rank[inc_name] > rank[name] || (inc_name != name && index(" " may[name] " ", " " inc_name " ") == 0)) {
    print "check-layers: " FILENAME " (" name ") includes " included " (" inc_name "), a layer it may not use" > "/dev/stderr"
    status = 1
  }
  if (name == "model" && inc_name == "model") {
    own = model_rank(FILENAME)
    other = model_rank(included)
    if (own == "?" || other == "?" || other > own) {
      print "check-layers: " FILENAME " includes " included ", a model sub-domain above its own or in none (the order: " model_order ")" > "/dev/stderr"
      status = 1
    }
  }
}

END {
  if (status == 0) print "check-layers: every include goes to its own layer or one below that its layer may use"
  exit status
}
' "${files[@]}"
