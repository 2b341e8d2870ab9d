#!/usr/bin/env bash
# Times `bond_risk import bonds` of N generated lines (default 100,000): a
# CSV of N bonds (ISINs with their check digits, names, coupons, maturities
# to 50 years, the three conventions of the market preset, four in five
# quoted) imported into a fresh copy of a small market data set. Prints the
# command's own report (its clock: from opening the database to the
# commit), then the whole process's wall time and peak memory.
set -euo pipefail
# shellcheck source=bench/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

usage="usage: bench/import_bonds.sh [N] [--out DIR]   (default 100000, DIR bench/out/import)"
n=100000 out=bench/out/import
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --help) echo "$usage"; exit 0 ;;
    *) [[ $1 =~ ^[1-9][0-9]*$ ]] || { echo "$usage" >&2; exit 2; }; n=$1; shift ;;
  esac
done
need awk /usr/bin/time
bin=$(bench_binary)
mkdir -p "$out"
db=$out/market.db
rm -f "$db" "$db"-* "$out/bonds.csv"
"$bin" generate --preset tiny --conventions market --out "$db" > /dev/null

# Line i: an ISIN XS + 9 digits + its Luhn check digit (letters X=33, S=28), a bond of market i % 3.
awk -v n="$n" 'BEGIN {
  print "isin,name,coupon,maturity,dated_date,coupons_per_year,convention,calendar,curve,clean_quote"
  split("UK_GILT US_TREASURY BUND", conv, " "); split("LONDON NEW_YORK TARGET", cal, " ")
  split("GBP-GILT USD-UST EUR-BUND", crv, " "); split("2 2 1", freq, " ")
  srand(7)
  for (i = 1; i <= n; i++) {
    body = sprintf("%09d", 500000000 + i); digits = "3328" body
    sum = 0; twice = 1
    for (k = length(digits); k >= 1; k--) {
      d = substr(digits, k, 1) * (twice ? 2 : 1); sum += int(d / 10) + d % 10; twice = !twice
    }
    m = i % 3 + 1
    year = 2026 + int(rand() * 50); month = 1 + int(rand() * 12); day = 1 + int(rand() * 28)
    quote = rand() < 0.8 ? sprintf("%.3f", 80 + rand() * 40) : ""
    printf "XS%s%d,IMPORTED_%d,%.5f,%04d-%02d-%02d,%04d-%02d-%02d,%s,%s,%s,%s,%s\n", body, (10 - sum % 10) % 10, i,
           int(rand() * 64) / 800, year, month, day, year - 10 - int(rand() * 20), month, day, freq[m], conv[m], cal[m], crv[m], quote
  }
}' > "$out/bonds.csv"

/usr/bin/time -f "whole process: %e s wall, peak RSS %M KB" "$bin" import bonds --db "$db" --csv "$out/bonds.csv" 2>&1 | tee "$out/import.txt"
