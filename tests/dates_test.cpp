#include <gtest/gtest.h>

#include "bond_risk/model/pricing/dates.h"
#include "bond_risk/model/pricing/pricing.h"
#include "tests/quantlib_support.h"
#include "tests/test_support.h"

using namespace bond_risk;

namespace {
Date d(const char* text) { return parse_date(text).value(); }
}  // namespace

TEST(Dates, ParsesAndFormatsIsoDates) {
  EXPECT_EQ(d("1970-01-01"), 0);
  EXPECT_EQ(d("1970-01-02"), 1);
  EXPECT_EQ(d("2000-03-01") - d("2000-02-28"), 2);  // 2000 is a leap year
  EXPECT_EQ(d("1900-03-01") - d("1900-02-28"), 1);  // 1900 is not
  EXPECT_EQ(format_date(d("2031-03-31")), "2031-03-31");
}

TEST(Dates, RejectsAnythingButAValidYyyyMmDd) {
  for (const char* bad : {"", "2025-1-01", "2025-13-01", "2025-02-29", "2025-04-31", "20250101", "2025/01/01",
                          "2025-01-01x", "abcd-ef-gh", " 2025-01-01"}) {
    EXPECT_FALSE(parse_date(bad).has_value()) << bad;
  }
}

TEST(Dates, AddMonthsClampsToTheMonthsLastDay) {
  EXPECT_EQ(format_date(add_months(d("2031-03-31"), -3)), "2030-12-31");
  EXPECT_EQ(format_date(add_months(d("2031-03-31"), -6)), "2030-09-30");
  EXPECT_EQ(format_date(add_months(d("2031-03-31"), -1)), "2031-02-28");
  EXPECT_EQ(format_date(add_months(d("2024-08-31"), -6)), "2024-02-29");
  EXPECT_EQ(format_date(add_months(d("2025-01-15"), 13)), "2026-02-15");
}

// A schedule's dates stepped from one date are QuantLib's Date + n Months
// (which also ends a short month on its last day), on every day of the
// month of each sample and both ways up to 60 years.
TEST(Dates, MonthStepsAreQuantLibsMonthArithmetic) {
  for (const char* month : {"2024-01-01", "2024-02-01", "2025-02-01", "2030-08-01", "2099-12-01", "1971-03-01"}) {
    for (Date date = d(month); date < add_months(d(month), 1); ++date) {
      const MonthSteps steps(date);
      for (int n = -720; n <= 720; n += 1 + (n > -700 && n < 700) * 6) {
        ASSERT_EQ(test::ql_date(steps(n)), test::ql_date(date) + n * QuantLib::Months)
            << format_date(date) << " + " << n << " months";
      }
    }
  }
}

TEST(CouponSchedule, GoesBackFromMaturityComputingEachDateFromMaturity) {
  // MODEL.md's example: a 31 March maturity paying quarterly.
  const std::vector<Date> dates = test::coupon_schedule(d("2030-01-01"), d("2031-03-31"), 4);
  std::vector<std::string> text;
  for (Date x : dates) text.push_back(format_date(x));
  EXPECT_EQ(text, (std::vector<std::string>{"2031-03-31", "2030-12-31", "2030-09-30", "2030-06-30", "2030-03-31"}));
}

TEST(CouponSchedule, KeepsOnlyDatesStrictlyAfterStart) {
  const std::vector<Date> dates = test::coupon_schedule(d("2024-01-01"), d("2026-01-01"), 1);
  ASSERT_EQ(dates.size(), 2u);  // 2026-01-01, 2025-01-01; 2024-01-01 is the start itself
  EXPECT_EQ(dates[1], d("2025-01-01"));
  // Semi-annual from a 31 August maturity: February coupons fall on the last day of February.
  const std::vector<Date> feb = test::coupon_schedule(d("2022-12-31"), d("2024-08-31"), 2);
  ASSERT_EQ(feb.size(), 4u);
  EXPECT_EQ(format_date(feb[1]), "2024-02-29");
  EXPECT_EQ(format_date(feb[2]), "2023-08-31");
  EXPECT_EQ(format_date(feb[3]), "2023-02-28");
}
