#!/usr/bin/env bash
# Installs the Debian 12 packages bond_risk needs. `install-deps.sh run`:
# what building and running bin/bond_risk need (make, make run, make web);
# `install-deps.sh test` (the default): those and what the tests, the fuzz
# targets, the benchmarks and bin/bond_risk_mpi need (make test).
# Called by make when one of its checks fails; safe to run twice.
set -euo pipefail

mode=${1:-test}
run=(g++ make pkg-config sqlite3 libsqlite3-dev libeigen3-dev libtbb-dev nlohmann-json3-dev libasio-dev
     libcpp-httplib-dev libjs-chart.js gnuplot-nox)
test=(libgtest-dev libbenchmark-dev libquantlib0-dev clang libfuzzer-14-dev shellcheck
      chromium chromium-driver curl openmpi-bin libopenmpi-dev linux-perf)
case "$mode" in
  run) packages=("${run[@]}") ;;
  test) packages=("${run[@]}" "${test[@]}") ;;
  *) echo "install-deps: unknown mode '$mode': use run (build and run) or test (also the tests)" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: missing Debian packages: ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: not root; run: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
