#include "bond_risk/model/conventions/day_count.h"

#include <chrono>
#include <cmath>
#include <stdexcept>

namespace bond_risk {

namespace {

// Days between two dates counted with 30-day months: the day of the month
// of d1 is 30 for a 31st, and that of d2 likewise when `always` or when d1's is then 30.
int thirty_360_days(Date d1, Date d2, bool always) {
  using namespace std::chrono;
  const year_month_day a{sys_days{days{d1}}}, b{sys_days{days{d2}}};
  int dd1 = static_cast<int>(static_cast<unsigned>(a.day())), dd2 = static_cast<int>(static_cast<unsigned>(b.day()));
  if (dd1 == 31) dd1 = 30;
  if (dd2 == 31 && (always || dd1 == 30)) dd2 = 30;
  return 360 * (static_cast<int>(b.year()) - static_cast<int>(a.year())) +
         30 * (static_cast<int>(static_cast<unsigned>(b.month())) - static_cast<int>(static_cast<unsigned>(a.month()))) +
         (dd2 - dd1);
}

// ACT/ACT-ICMA: within its reference period, the period's length in months
// / 12 times the fraction of its days; a span before the period (a long
// first coupon) counts the notional periods before it, one after it the
// whole periods after it, each against itself.
double icma_fraction(Date d1, Date d2, Date ref_start, Date ref_end) {
  if (d1 == d2) return 0.0;
  if (d2 < d1) return -icma_fraction(d2, d1, ref_start, ref_end);
  int months = static_cast<int>(std::lround(12 * static_cast<double>(ref_end - ref_start) / 365));
  if (months == 0) {  // a period of under half a month: measure against the year from d1
    ref_start = d1, ref_end = add_months(d1, 12), months = 12;
  }
  const double period = months / 12.0;
  if (d2 <= ref_end) {
    if (d1 >= ref_start) return period * static_cast<double>(d2 - d1) / static_cast<double>(ref_end - ref_start);
    const Date previous = add_months(ref_start, -months);
    if (d2 > ref_start) return icma_fraction(d1, ref_start, previous, ref_start) + icma_fraction(ref_start, d2, ref_start, ref_end);
    return icma_fraction(d1, d2, previous, ref_start);
  }
  if (d1 < ref_start) throw std::logic_error("year_fraction: a span beginning before and ending after its reference period");
  double sum = icma_fraction(d1, ref_end, ref_start, ref_end);
  int i = 0;
  for (; d2 >= add_months(ref_end, months * (i + 1)); ++i) sum += period;
  const Date from = add_months(ref_end, months * i);
  return sum + icma_fraction(from, d2, from, add_months(ref_end, months * (i + 1)));
}

}  // namespace

double year_fraction(DayCount count, Date d1, Date d2, Date ref_start, Date ref_end) {
  switch (count) {
    case DayCount::thirty_360: return thirty_360_days(d1, d2, false) / 360.0;
    case DayCount::thirty_e_360: return thirty_360_days(d1, d2, true) / 360.0;
    case DayCount::act_act_icma: return icma_fraction(d1, d2, ref_start, ref_end);
  }
  return 0.0;
}

}  // namespace bond_risk
