#include "bond_risk/model/pricing/dates.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace bond_risk {

namespace {

using namespace std::chrono;

year_month_day to_ymd(Date date) { return year_month_day{sys_days{days{date}}}; }
Date to_date(const year_month_day& ymd) { return sys_days{ymd}.time_since_epoch().count(); }

bool parse_digits(std::string_view text, int& out) {
  if (text.empty()) return false;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');  // at most 4 digits here
  }
  out = value;
  return true;
}

}  // namespace

std::optional<Date> parse_date(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  int y = 0, m = 0, d = 0;
  if (!parse_digits(text.substr(0, 4), y) || !parse_digits(text.substr(5, 2), m) ||
      !parse_digits(text.substr(8, 2), d)) {
    return std::nullopt;
  }
  const year_month_day ymd{year{y}, month{static_cast<unsigned>(m)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) return std::nullopt;
  return to_date(ymd);
}

std::string format_date(Date date) {
  const year_month_day ymd = to_ymd(date);
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  return buf;
}

int month_number(Date date) {
  const year_month_day ymd = to_ymd(date);
  return static_cast<int>(ymd.year()) * 12 + static_cast<int>(static_cast<unsigned>(ymd.month())) - 1;
}

Date add_months(Date date, int months_to_add) { return MonthSteps(date)(months_to_add); }

MonthSteps::MonthSteps(Date date) {
  const year_month_day ymd = to_ymd(date);
  month_number_ = static_cast<int>(ymd.year()) * 12 + static_cast<int>(static_cast<unsigned>(ymd.month())) - 1;
  day_ = static_cast<unsigned>(ymd.day());
}

Date MonthSteps::operator()(int months_to_add) const {
  const int target = month_number_ + months_to_add;
  const int y = target >= 0 ? target / 12 : (target - 11) / 12;  // floor: the year of a month before year 0 too
  const year_month month{year{y}, std::chrono::month{static_cast<unsigned>(target - 12 * y + 1)}};
  const unsigned last = static_cast<unsigned>(year_month_day_last{month.year(), month_day_last{month.month()}}.day());
  return to_date(year_month_day{month.year(), month.month(), day{std::min(day_, last)}});
}

}  // namespace bond_risk
