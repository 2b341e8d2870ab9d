// Quote analytics (MODEL.md "Quote analytics"): what a desk reads beside a
// bond's model price, settling today: accrued, clean price, yield,
// durations and convexity; and, against a market quote, z-spread and cs01.
//
// Model. A bond's remaining cash flows fall on its coupon dates on or after
// today (the days of its coupon grid, model/coupon_grid.h): 100 c each, plus
// 100 on the last, its maturity. w is the fraction of a period from today to
// the first of them (0 on a coupon date, above 1 before the first period
// begins), so cash flow j falls j + w periods from today. The yield is the
// root of price = sum CF_j v^(j + w), v = 1 / (1 + y/f): a sum of
// exponentials in u = ln v with non-negative exponents, so increasing and
// convex in u, and so is its logarithm. Newton's method on the logarithm
// therefore converges from any start where a root exists (after at most
// one step it approaches from above, in few steps even from far out); a
// root exists exactly when the price is above what falls today. The
// z-spread is the same for P(x), decreasing in x.
//
// A figure not published is NaN: null in every reply and table. Pure
// functions on plain values: the flush calls them per bond, from any thread.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>

#include "bond_risk/model/coupon_grid.h"
#include "bond_risk/model/dates.h"

namespace bond_risk {

inline constexpr double kNull = std::numeric_limits<double>::quiet_NaN();
inline bool is_null(double x) { return std::isnan(x); }

// A bond's cash flows from today on.
struct RemainingFlows {
  std::span<const std::uint16_t> days;  // its coupon dates on or after today, as days from today, ascending; last: maturity
  double c100 = 0;                      // coupon per period per 100 nominal
  int coupons_per_year = 0;
  double w = 0;                         // (next - today) / (next - prev), in days
};

// The flows of a bond paying on `place`'s grid whose schedule has `coupons`
// dates (coupon_count), on the grids' `today`. Requires its maturity on or
// after today and within a curve's days.
RemainingFlows remaining_flows(const CouponGridDays& grids, Date today, GridPlace place, std::uint32_t coupons,
                               Date maturity, int coupons_per_year, double coupon);

// Why a bond that was otherwise OK could not publish its figures.
enum class AnalyticsFailure : std::uint8_t { none, no_yield, no_spread };

// What a bond publishes besides price and pv01, NaN when not published.
struct BondFigures {
  double accrued = kNull, clean_price = kNull, yield = kNull;
  double macaulay_duration = kNull, modified_duration = kNull, convexity = kNull;
  double market_dirty = kNull, z_spread = kNull, cs01 = kNull;
  AnalyticsFailure failure = AnalyticsFailure::none;
  std::uint8_t yield_steps = 0, spread_steps = 0;  // evaluations the solves took (at most 100 each)
};

// P(x) of MODEL.md: the flows on discount factors `df` (by day from today)
// moved by a spread x over their continuously compounded zero rates.
double spread_price(const RemainingFlows& flows, std::span<const double> df, double x);

// Every figure of a bond whose model price on `curve` is `price`, with
// clean market quote `quote` (NaN: none); each solve starts from a guess
// that depends on these inputs alone (never on an earlier solve), so the
// same inputs give the same bits. On failure the figures are null and
// `failure` says which solve found no root.
BondFigures bond_figures(const RemainingFlows& flows, double price, double quote, const CurveArrays& curve);

}  // namespace bond_risk
