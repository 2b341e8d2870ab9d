#!/usr/bin/env bash
# Prints the include graph of a source tree by layer: for each folder, how
# many #include lines go to each other folder (a layer's own are left out),
# then the largest source files. Usage: scripts/include-graph.sh [TREE]
# (default: the tree this script belongs to), e.g. on a checkout of an
# older commit to compare the structure before and after a change.
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

# A file's folder as its layer: base, engine, bond_risk/NAME as NAME, and
# bond_risk/model/SUB (the model's sub-domains) as model/SUB.
folder_of() {
  case "$1" in
    bond_risk/model/*/*) local rest="${1#bond_risk/}"; echo "${rest%/*}" ;;
    bond_risk/*/*) local rest="${1#bond_risk/}"; echo "${rest%%/*}" ;;
    base/* | engine/*) echo "${1%%/*}" ;;
    *) echo "" ;;
  esac
}

echo "includes from a folder to another (count of #include lines):"
while IFS= read -r file; do
  from=$(folder_of "$file")
  while IFS= read -r included; do
    to=$(folder_of "$included")
    if [ -n "$to" ] && [ "$to" != "$from" ]; then echo "$from -> $to"; fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(find base engine bond_risk -name '*.h' -o -name '*.cpp' | sort) | sort | uniq -c | sort -k2,2 -k4,4 | awk '{printf "  %-14s -> %-14s %4d\n", $2, $4, $1}'

echo "files and lines per folder:"
for dir in base engine $(find bond_risk -mindepth 1 -type d | sort); do
  files=$(find "$dir" -maxdepth 1 \( -name '*.h' -o -name '*.cpp' \) | wc -l)
  [ "$files" -gt 0 ] || continue
  lines=$(find "$dir" -maxdepth 1 \( -name '*.h' -o -name '*.cpp' \) -exec cat {} + | wc -l)
  printf "  %-20s %3d files %6d lines\n" "$dir" "$files" "$lines"
done

echo "the ten largest source files:"
find base engine bond_risk \( -name '*.h' -o -name '*.cpp' \) -exec wc -l {} + | grep -v ' total$' | sort -rn | head -10 | awk '{printf "  %5d %s\n", $1, $2}'
