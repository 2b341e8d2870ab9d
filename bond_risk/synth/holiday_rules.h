// The holidays of three real calendars, by rule, for `generate` to write as
// a calendar's calendar_holiday rows (docs/model.md "Market conventions"):
// England and Wales bank holidays, the US government bond market's, and
// TARGET's. The rules are QuantLib 1.29's (ql/time/calendars/
// unitedkingdom.cpp UnitedKingdom::Settlement, unitedstates.cpp
// UnitedStates::GovernmentBond, target.cpp TARGET), one-off closings
// included; QuantLib is the suite's oracle for them. Only weekdays are
// listed: a Saturday or Sunday is never a business day. Plain functions:
// any thread.
#pragma once

#include <array>
#include <string_view>
#include <vector>

#include "bond_risk/model/pricing/dates.h"

namespace bond_risk {

enum class HolidayRules { england_and_wales, us_government_bond, target };
inline constexpr std::array<HolidayRules, 3> kHolidayRules = {HolidayRules::england_and_wales,
                                                              HolidayRules::us_government_bond, HolidayRules::target};

// "england_and_wales", "us_government_bond", "target".
std::string_view holiday_rules_name(HolidayRules rules);

// The weekdays of years first_year .. last_year (inclusive) that are
// holidays under `rules`, in date order.
std::vector<Date> holidays(HolidayRules rules, int first_year, int last_year);

// Easter Sunday of Gregorian year `year` (the anonymous algorithm published
// by Meeus, Astronomical Algorithms, chapter 8).
Date easter_sunday(int year);

}  // namespace bond_risk
