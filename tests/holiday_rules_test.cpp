// The holidays `generate` writes (synth/holiday_rules.h) against QuantLib
// 1.29, the suite's independent oracle: the same business days as its
// UnitedKingdom (Settlement), UnitedStates (GovernmentBond) and TARGET,
// day by day over 1950-2150 (the presets' dates and 50-year maturities lie
// well within), and Easter as its table of Easter Mondays, 1901-2199.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>

#include "bond_risk/model/pricing/dates.h"
#include "bond_risk/synth/holiday_rules.h"
#include "tests/quantlib_support.h"

using namespace bond_risk;
using test::ql_date;
using test::quantlib_calendar;

namespace {

// QuantLib keeps its Easter Mondays in a protected table; a subclass reads it.
struct Western : QuantLib::Calendar {
  static QuantLib::Day easter_monday(QuantLib::Year y) { return WesternImpl::easterMonday(y); }
};

}  // namespace

TEST(HolidayRules, EasterIsTheDayBeforeQuantLibsEasterMonday) {
  ASSERT_EQ(ql_date(*parse_date("1970-01-01")), QuantLib::Date(1, QuantLib::January, 1970));
  for (int y = 1901; y <= 2199; ++y) {
    const QuantLib::Date sunday = ql_date(easter_sunday(y));
    EXPECT_EQ(sunday.year(), y);
    EXPECT_EQ(sunday.weekday(), QuantLib::Sunday) << y;
    EXPECT_EQ(sunday.dayOfYear() + 1, Western::easter_monday(y)) << y;
  }
}

TEST(HolidayRules, EachCalendarHasQuantLibsBusinessDaysFrom1950To2150) {
  const Date first = *parse_date("1950-01-01"), last = *parse_date("2150-12-31");
  for (HolidayRules rules : kHolidayRules) {
    const std::vector<Date> listed = holidays(rules, 1950, 2150);
    ASSERT_TRUE(std::is_sorted(listed.begin(), listed.end())) << holiday_rules_name(rules);
    const std::set<Date> holiday(listed.begin(), listed.end());
    const QuantLib::Calendar calendar = quantlib_calendar(rules);
    std::size_t differ = 0, business = 0;
    for (Date d = first; d <= last; ++d) {
      const QuantLib::Date q = ql_date(d);
      const bool ours = !calendar.isWeekend(q.weekday()) && !holiday.count(d);
      business += ours ? 1 : 0;
      if (ours != calendar.isBusinessDay(q) && ++differ <= 10) {
        ADD_FAILURE() << holiday_rules_name(rules) << " " << format_date(d) << ": ours " << ours << ", QuantLib's "
                      << calendar.isBusinessDay(q);
      }
    }
    EXPECT_EQ(differ, 0u) << holiday_rules_name(rules);
    std::printf("%-20s %zu days compared, %zu weekday holidays listed, %zu business days, %zu differ from QuantLib's\n",
                std::string(holiday_rules_name(rules)).c_str(), static_cast<std::size_t>(last - first + 1), listed.size(),
                business, differ);
    // From 2 (TARGET before 2000) to 11 weekday holidays a year: a list that is not empty, nor every weekday.
    EXPECT_GT(listed.size(), 201u * 3) << holiday_rules_name(rules);
    EXPECT_LT(listed.size(), 201u * 12) << holiday_rules_name(rules);
    EXPECT_GT(business, 201u * 240) << holiday_rules_name(rules);
  }
}
