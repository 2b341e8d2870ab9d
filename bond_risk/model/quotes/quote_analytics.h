// Quote analytics (docs/model.md "Quote analytics"): what a desk reads beside a
// bond's model price, settling today: accrued, clean price, yield,
// durations and convexity; and, against a market quote, z-spread and cs01.
//
// Model. The yield is the root of price = sum CF_j v^(j + w) over the
// bond's remaining flows (model/quotes/remaining_flows.h), v = 1 / (1 + y/f): a
// sum of exponentials in u = ln v (model/quotes/exp_sum.h) with non-negative
// exponents, increasing and convex in u, with a root exactly when the
// price is above what falls today. The z-spread is the root of P(x) =
// market dirty price, P(x) the flows discounted on the curve at a spread x
// over its zero rates: the same kind of sum, decreasing in x. The curve's
// running sums over the coupon grids (model/quotes/grid_moments.h) give P's
// moments at 0 and the yield's start, the flows' zero rates weighted by
// CF df t, without a walk; one walk over the flows takes the yield sum's
// moments at that start. Each solve then ends at its first evaluation for
// nearly every bond (exp_sum.h). Durations, convexity and cs01 are the
// sums' derivatives at the roots, which the solves return.
//
// The quote yield starts at the textbook approximation of the yield at the
// quote (textbook_yield_start) and is solved on the flows' closed form
// (model/quotes/stream_roots.h; walked only where that does not converge):
// it depends on the quote and the flows alone, never on the curve, so a
// bond whose quote and flows did not move may keep it
// (BondInputs::quote_yield) with the bits a solve would give.
//
// A figure not published is NaN: null in every reply and table. Pure
// functions on plain values: the flush calls them per bond, from any thread.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>

#include "bond_risk/model/quotes/grid_moments.h"
#include "bond_risk/model/pricing/pricing.h"
#include "bond_risk/model/quotes/remaining_flows.h"

namespace bond_risk {

inline constexpr double kNull = std::numeric_limits<double>::quiet_NaN();
inline bool is_null(double x) { return std::isnan(x); }

// Why a bond that was otherwise OK could not publish its figures.
enum class AnalyticsFailure : std::uint8_t { none, no_yield, no_spread, no_quote_yield };

// What a bond publishes besides price and pv01, NaN when not published.
struct BondFigures {
  double accrued = kNull, clean_price = kNull, yield = kNull;
  double macaulay_duration = kNull, modified_duration = kNull, convexity = kNull;
  double market_dirty = kNull, z_spread = kNull, cs01 = kNull;
  double quote_yield = kNull;  // the yield at market_dirty (docs/model.md "Market quotes and spread")
  // A convention bond's (docs/model.md "Market conventions"): its settlement
  // date as days since 1970-01-01, and its price for a buyer settling then.
  double settlement_date = kNull, dirty_price = kNull;
  AnalyticsFailure failure = AnalyticsFailure::none;
  std::uint8_t yield_steps = 0, spread_steps = 0;  // evaluations the solves took (at most 101 each)
};

// A bond's figures when a solve found no root: every one null, `why` and
// the evaluations the yield's solve took.
BondFigures failed(AnalyticsFailure why, std::uint8_t yield_steps);

// Where a yield's solve starts in u = ln v = -ln(1 + y/f): the textbook
// approximation of the yield at `price`, the annual coupon (per 100) plus
// the pull to par over the `years` left (at least a period), over the
// average of price and par; its logarithm by Pade's approximation (within
// 1e-6 for a yield of 5%, well inside the textbook yield's own error).
double textbook_yield_start(double annual_coupon, double years, double price, int coupons_per_year);

// The yield, compounded f times a year, at u = ln v = -ln(1 + y/f).
inline double yield_of(double u, int coupons_per_year) { return coupons_per_year * std::expm1(-u); }

// P(x) of docs/model.md: the flows on discount factors `df` (by day from today)
// moved by a spread x over their continuously compounded zero rates.
double spread_price(const RemainingFlows& flows, std::span<const double> df, double x);

// Every figure of a bond whose model price on `curve` is `price`, with
// clean market quote `quote` (NaN: none); `rows` are the curve's running
// moments over its flows' grids (sum_grid_moments). Each solve starts from
// values that depend on these inputs alone (never on an earlier solve), so
// the same inputs give the same bits. On failure the figures are null and
// `failure` says which solve found no root.
BondFigures bond_figures(const RemainingFlows& flows, double price, double quote, const CurveArrays& curve,
                         std::span<const MomentSums> rows);

// What one bond's figures come from, as bond_figures takes them.
struct BondInputs {
  RemainingFlows flows;
  double price, quote;
  const CurveArrays* curve;
  std::span<const MomentSums> rows;
  double quote_yield = kNull;  // the quote yield when already solved for this quote and these flows; kNull: solve it
};

// Up to kFiguresBatch bonds' figures at once, each the same bits as alone:
// their solves' polishing runs side by side in lanes that share no
// arithmetic (exp_sum.h, polish_each), so one bond's latency hides
// another's.
inline constexpr std::size_t kFiguresBatch = 16;
void bond_figures(std::span<const BondInputs> bonds, std::span<BondFigures> out);

}  // namespace bond_risk
