#include "bond_risk/model/inputs/isin.h"

namespace bond_risk {

namespace {

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

char isin_check_digit(std::string_view body) {
  std::string digits;
  for (char c : body) digits += is_digit(c) ? std::string(1, c) : std::to_string(c - 'A' + 10);
  int sum = 0;
  bool twice = true;  // the rightmost digit of the body is doubled
  for (auto it = digits.rbegin(); it != digits.rend(); ++it, twice = !twice) {
    const int d = (*it - '0') * (twice ? 2 : 1);
    sum += d / 10 + d % 10;
  }
  return static_cast<char>('0' + (10 - sum % 10) % 10);
}

std::string isin_problem(std::string_view isin) {
  const std::string what = "isin '" + std::string(isin.substr(0, 40)) + "'";
  if (isin.size() != 12) return what + " has " + std::to_string(isin.size()) + " characters, not 12";
  if (!is_upper(isin[0]) || !is_upper(isin[1])) return what + " does not begin with two capital letters (its country)";
  for (std::size_t i = 2; i < 11; ++i) {
    if (!is_upper(isin[i]) && !is_digit(isin[i])) return what + " has '" + std::string(1, isin[i]) + "' at " + std::to_string(i + 1) + ": only capital letters and digits";
  }
  if (!is_digit(isin[11])) return what + " does not end in a check digit";
  const int expected = isin_check_digit(isin.substr(0, 11)) - '0';
  if (isin[11] - '0' != expected) {
    return what + ": check digit " + std::string(1, isin[11]) + ", not " + std::to_string(expected) +
           " (ISO 6166's Luhn checksum)";
  }
  return "";
}

}  // namespace bond_risk
