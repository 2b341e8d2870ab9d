#include "bond_risk/model/pricing/coupon_grid.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "bond_risk/model/pricing/status.h"

namespace bond_risk {

namespace {

using namespace std::chrono;

// Grids are numbered step by step (12, 6, then 3 months), then by day of
// the month, then by month modulo the step.
constexpr int kSteps[] = {12, 6, 3};
constexpr int kDaysOfMonth = 31;
constexpr int kGrids = kDaysOfMonth * (12 + 6 + 3);

int first_grid(int step) {
  int first = 0;
  for (int s : kSteps) {
    if (s == step) return first;
    first += kDaysOfMonth * s;
  }
  throw std::invalid_argument("a coupon step of " + std::to_string(step) + " months has no grid");
}

// The months from `first` on, each as its first day and its length, so
// that a date in one is an addition.
class Months {
 public:
  Months(std::int32_t first, std::size_t count) : first_(first) {
    for (std::int32_t m = first; m < first + static_cast<std::int32_t>(count); ++m) {
      const year_month ym{year{m / 12}, month{static_cast<unsigned>(m % 12) + 1}};
      start_.push_back(sys_days{ym / 1}.time_since_epoch().count());
      length_.push_back(static_cast<unsigned>(year_month_day_last{ym.year(), month_day_last{ym.month()}}.day()));
    }
  }
  // The date in `month` (year * 12 + month - 1) on `day_of_month`, or the month's last day.
  Date date_in(std::int32_t month, unsigned day_of_month) const {
    const auto k = static_cast<std::size_t>(month - first_);
    return start_[k] + static_cast<Date>(std::min(day_of_month, length_[k])) - 1;
  }

 private:
  std::int32_t first_;
  std::vector<Date> start_;
  std::vector<unsigned> length_;
};

}  // namespace

GridPlace grid_place(Date maturity, int coupons_per_year) {
  const year_month_day ymd{sys_days{days{maturity}}};
  const int step = 12 / coupons_per_year;
  const std::int32_t month = month_number(maturity);
  const int grid = first_grid(step) + (static_cast<int>(static_cast<unsigned>(ymd.day())) - 1) * step + month % step;
  return {static_cast<std::uint16_t>(grid), month / step};
}

void lay_out_coupon_grids(Date today, int horizon, CouponGridDays& out) {
  out.first_period.assign(kGrids, 0);
  out.first_fraction.assign(kGrids, 0);
  out.begin.assign(kGrids + 1, 0);
  out.days.clear();
  const std::int32_t today_month = month_number(today);
  // The months from the year before today (a first date's previous) to a year past the horizon.
  const Months months(today_month - 12, static_cast<std::size_t>(12 * (horizon / 365 + 3)));
  int grid = 0;
  for (int step : kSteps) {
    for (unsigned dom = 1; dom <= kDaysOfMonth; ++dom) {
      for (int phase = 0; phase < step; ++phase, ++grid) {
        // The grid's first month on or after today's month, then on or after today.
        std::int32_t month = today_month + ((phase - today_month % step) % step + step) % step;
        if (months.date_in(month, dom) < today) month += step;
        out.first_period[static_cast<std::size_t>(grid)] = month / step;
        const Date first = months.date_in(month, dom);
        out.first_fraction[static_cast<std::size_t>(grid)] =
            static_cast<double>(first - today) / static_cast<double>(first - months.date_in(month - step, dom));
        out.begin[static_cast<std::size_t>(grid)] = static_cast<std::uint32_t>(out.days.size());
        for (Date d = months.date_in(month, dom); d - today < horizon;
             month += step, d = months.date_in(month, dom)) {
          out.days.push_back(static_cast<std::uint16_t>(d - today));
        }
      }
    }
  }
  out.begin[kGrids] = static_cast<std::uint32_t>(out.days.size());
}

GridSpan grid_part(const CouponGridDays& grids, std::size_t part, std::size_t parts) {
  const std::size_t count = grids.begin.size() - 1, rows = grid_rows(grids);
  // The first grid whose rows start at or after the k-th part's share of them (grid g's start at begin[g] + g).
  const auto cut = [&](std::size_t k) {
    std::size_t low = 0, high = count;
    while (low < high) {
      const std::size_t g = low + (high - low) / 2;
      if (grids.begin[g] + g < rows * k / parts) low = g + 1; else high = g;
    }
    return low;
  };
  return {cut(part), part + 1 == parts ? count : cut(part + 1)};
}

void sum_coupon_grids(const CouponGridDays& grids, const CurveArrays& curve, bool bumped, GridSpan span,
                      std::span<CouponSums> sums) {
  sum_over_grids(grids, static_cast<int>(curve.df.size()), span, sums, [&](CouponSums& sum, std::uint16_t i) {
    sum.df += curve.df[i];
    if (bumped) {
      sum.df_up += curve.df_up[i];
      sum.df_dn += curve.df_dn[i];
    }
  });
}

void sum_coupon_grids(const CouponGridDays& grids, const CurveArrays& curve, bool bumped,
                      CouponSumRows& sums) {
  sums.resize(grid_rows(grids));
  sum_coupon_grids(grids, curve, bumped, all_grids(grids), std::span(sums));
}

}  // namespace bond_risk
