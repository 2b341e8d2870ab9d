// An ISIN (ISO 6166): two letters (the issuing country), nine letters or
// digits, and a check digit: the Luhn checksum of the other eleven with
// each letter written as the number 10 (A) .. 35 (Z).
#pragma once

#include <string>
#include <string_view>

namespace bond_risk {

// Why `isin` is not a valid ISIN ("isin 'GB0009997998': check digit 8, not
// 9"), or "" when it is.
std::string isin_problem(std::string_view isin);

// The check digit of the first eleven characters of an ISIN (capital
// letters and digits): '0' .. '9'.
char isin_check_digit(std::string_view first_eleven);

}  // namespace bond_risk
