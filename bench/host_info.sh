#!/usr/bin/env bash
# Prints the machine's lines of a benchmark's host.txt ("key: value"): date,
# CPU, cores, clock, kernel, compiler and SQLite. Each benchmark adds its own.
# With --table FILE, prints a host.txt as a report's "## Host" Markdown section.
set -euo pipefail

if [ "${1:-}" = --table ]; then
  printf '## Host\n\n| | |\n| --- | --- |\n'
  sed 's/^\([^:]*\): \(.*\)$/| \1 | \2 |/' "$2"
  exit 0
fi

echo "date: $(date -Is)"
echo "cpu: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
echo "cores: $(nproc)"
echo "ghz: $(awk -F': ' '/^cpu MHz/ { printf "%.2f", $2 / 1000; exit }' /proc/cpuinfo)"
echo "memory GiB: $(awk '/^MemTotal/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)"
echo "kernel: $(uname -sr)"
echo "compiler: $("${CXX:-g++}" --version | head -1)"
echo "sqlite: $(pkg-config --modversion sqlite3)"
