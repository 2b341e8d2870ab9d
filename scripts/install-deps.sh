#!/usr/bin/env bash
# Installs the Debian 12 packages bond_risk builds, tests and plots with.
# Called by make when a pkg-config or header check fails; safe to run twice.
set -euo pipefail

packages=(g++ make pkg-config sqlite3 libsqlite3-dev libeigen3-dev libtbb-dev
          gnuplot-nox libgtest-dev libbenchmark-dev nlohmann-json3-dev libasio-dev libquantlib0-dev clang libfuzzer-14-dev shellcheck
          libcpp-httplib-dev libjs-chart.js chromium chromium-driver curl
          openmpi-bin libopenmpi-dev)

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
