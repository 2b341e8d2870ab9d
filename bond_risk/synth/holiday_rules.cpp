#include "bond_risk/synth/holiday_rules.h"

#include <chrono>

namespace bond_risk {

namespace {

using namespace std::chrono;

// One weekday of a year, as the rules read it.
struct Day {
  int y;
  unsigned m, d;
  weekday w;
  bool good_friday, easter_monday;
};

bool england_and_wales(const Day& x) {
  const auto [y, m, d, w, good_friday, easter_monday] = x;
  const bool monday = w == Monday, tuesday = w == Tuesday;
  return ((d == 1 || ((d == 2 || d == 3) && monday)) && m == 1)  // New Year's Day, or the Monday after
         || good_friday || easter_monday
         // Early May bank holiday: the first Monday, on 8 May in 1995 and 2020 (VE day)
         || (d <= 7 && monday && m == 5 && y != 1995 && y != 2020) || (d == 8 && m == 5 && (y == 1995 || y == 2020))
         // Spring bank holiday: the last Monday of May, moved for the jubilees of 2002, 2012 and 2022
         || (d >= 25 && monday && m == 5 && y != 2002 && y != 2012 && y != 2022) ||
         ((d == 3 || d == 4) && m == 6 && y == 2002) || ((d == 4 || d == 5) && m == 6 && y == 2012) ||
         ((d == 2 || d == 3) && m == 6 && y == 2022)
         || (d >= 25 && monday && m == 8)  // Summer bank holiday: the last Monday of August
         // One-off: the royal wedding, the Queen's funeral, the coronation
         || (d == 29 && m == 4 && y == 2011) || (d == 19 && m == 9 && y == 2022) || (d == 8 && m == 5 && y == 2023)
         || ((d == 25 || (d == 27 && (monday || tuesday))) && m == 12)  // Christmas, or the next Monday or Tuesday
         || ((d == 26 || (d == 28 && (monday || tuesday))) && m == 12)  // Boxing Day, likewise
         || (d == 31 && m == 12 && y == 1999);
}

bool us_government_bond(const Day& x) {
  const auto [y, m, d, w, good_friday, easter_monday] = x;
  const bool monday = w == Monday, friday = w == Friday;
  const bool third_monday = d >= 15 && d <= 21 && monday;
  return ((d == 1 || (d == 2 && monday)) && m == 1)  // New Year's Day, or the Monday after
         || (third_monday && m == 1 && y >= 1983)      // Martin Luther King's birthday
         // Washington's birthday: the third Monday of February; before 1971 the 22nd, to the nearest weekday
         || (y >= 1971 ? third_monday && m == 2 : (d == 22 || (d == 23 && monday) || (d == 21 && friday)) && m == 2)
         || (good_friday && y != 2015)  // (a half day in 2015)
         // Memorial Day: the last Monday of May; before 1971 the 30th, to the nearest weekday
         || (y >= 1971 ? d >= 25 && monday && m == 5 : (d == 30 || (d == 31 && monday) || (d == 29 && friday)) && m == 5)
         || ((d == 19 || (d == 20 && monday) || (d == 18 && friday)) && m == 6 && y >= 2022)  // Juneteenth
         || ((d == 4 || (d == 5 && monday) || (d == 3 && friday)) && m == 7)                   // Independence Day
         || (d <= 7 && monday && m == 9)                                                      // Labor Day
         || (d >= 8 && d <= 14 && monday && m == 10 && y >= 1971)                              // Columbus Day
         // Veterans Day: 11 November, or the Monday after (no Friday before); 1971-1977 the fourth Monday of October
         || ((y <= 1970 || y >= 1978) ? (d == 11 || (d == 12 && monday)) && m == 11 : d >= 22 && d <= 28 && monday && m == 10)
         || (d >= 22 && d <= 28 && w == Thursday && m == 11)                      // Thanksgiving
         || ((d == 25 || (d == 26 && monday) || (d == 24 && friday)) && m == 12)  // Christmas, to the nearest weekday
         // One-off closings: President Bush's funeral, Hurricane Sandy, President Reagan's funeral
         || (y == 2018 && m == 12 && d == 5) || (y == 2012 && m == 10 && d == 30) || (y == 2004 && m == 6 && d == 11);
}

bool target(const Day& x) {
  const auto [y, m, d, w, good_friday, easter_monday] = x;
  return (d == 1 && m == 1) || (good_friday && y >= 2000) || (easter_monday && y >= 2000) ||
         (d == 1 && m == 5 && y >= 2000)  // Labour Day
         || (d == 25 && m == 12) || (d == 26 && m == 12 && y >= 2000) ||
         (d == 31 && m == 12 && (y == 1998 || y == 1999 || y == 2001));
}

}  // namespace

std::string_view holiday_rules_name(HolidayRules rules) {
  switch (rules) {
    case HolidayRules::england_and_wales: return "england_and_wales";
    case HolidayRules::us_government_bond: return "us_government_bond";
    case HolidayRules::target: return "target";
  }
  return "";
}

Date easter_sunday(int y) {
  const int a = y % 19, b = y / 100, c = y % 100, d = b / 4, e = b % 4, f = (b + 8) / 25, g = (b - f + 1) / 3;
  const int h = (19 * a + b - d - g + 15) % 30, i = c / 4, k = c % 4, l = (32 + 2 * e + 2 * i - h - k) % 7;
  const int m = (a + 11 * h + 22 * l) / 451, n = h + l - 7 * m + 114;
  const year_month_day sunday{year{y}, month{static_cast<unsigned>(n / 31)}, day{static_cast<unsigned>(n % 31 + 1)}};
  return sys_days{sunday}.time_since_epoch().count();
}

std::vector<Date> holidays(HolidayRules rules, int first_year, int last_year) {
  const auto is_holiday = rules == HolidayRules::england_and_wales    ? england_and_wales
                          : rules == HolidayRules::us_government_bond ? us_government_bond
                                                                      : target;
  std::vector<Date> out;
  for (int y = first_year; y <= last_year; ++y) {
    const Date easter = easter_sunday(y);
    const sys_days first{year_month_day{year{y}, January, day{1}}}, end{year_month_day{year{y + 1}, January, day{1}}};
    for (sys_days s = first; s < end; s += days{1}) {
      const weekday w{s};
      if (w == Saturday || w == Sunday) continue;
      const year_month_day ymd{s};
      const Date date = s.time_since_epoch().count();
      const Day x{y, static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()), w, date == easter - 2,
                  date == easter + 1};
      if (is_holiday(x)) out.push_back(date);
    }
  }
  return out;
}

}  // namespace bond_risk
