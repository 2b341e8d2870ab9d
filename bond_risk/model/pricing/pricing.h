// The formulas of docs/model.md as pure functions on plain values: curve arrays,
// coupon schedules, bond prices, outright and repo trade values.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "base/fast_exp.h"
#include "base/huge_pages.h"
#include "base/lanes.h"
#include "bond_risk/model/pricing/dates.h"
#include "bond_risk/model/pricing/status.h"

namespace bond_risk {

struct CurvePoint {
  int days_forward;
  double value;  // continuously compounded annual rate
};

// The daily arrays an ir_curve publishes, indexed by days from today
// (0 .. H-1, H its horizon: its last input day). cum_df[d] = df[0] + ... +
// df[d-1] (d = 0 .. H), so that a repo's discounted sum is one look-up.
struct CurveArrays {
  Eigen::ArrayXd r, df, df_up, df_dn, cum_df;
};

// Why `points` cannot define a curve, or "" when they can.
std::string check_curve_points(std::span<const CurvePoint> points);

// Fills `out` from valid points (check_curve_points returned "").
void build_curve(std::span<const CurvePoint> points, CurveArrays& out);

// Fills out.r, out.df and out.cum_df only (a curve revalued under a
// scenario needs no bumped copies); the same bits as build_curve's.
void build_discount_factors(std::span<const CurvePoint> points, CurveArrays& out);

// build_curve in pieces, for a curve whose days are shared among threads:
// size_curve sizes r, df, cum_df and (when `bumped`) df_up and df_dn for
// the points' horizon and fills r;
// discount_days then fills df, and bump_days df_up and df_dn from it, on
// days [from, to) (disjoint ranges may run at once, and ranges starting at
// multiples of kAlignedDays give the bits of one range over all days: the
// same vector lanes); sum_discount_factors fills cum_df from all of df.
inline constexpr int kAlignedDays = 64;
void size_curve(std::span<const CurvePoint> points, bool bumped, CurveArrays& out);
void discount_days(CurveArrays& out, int from, int to);
void bump_days(CurveArrays& out, int from, int to);
void sum_discount_factors(CurveArrays& out);

// How many coupon dates a bond's schedule has: maturity, maturity - m
// months, ... while after `start` (m = 12 / coupons_per_year; each date
// computed from maturity by add_months). Requires start < maturity.
std::uint32_t coupon_count(Date start, Date maturity, int coupons_per_year);

// A bond's price and pv01: what its trades value from, every flush (its
// cs01 and quote flag lie apart: Store::bond_cs01).
struct BondValue {
  double price = 0, pv01 = 0;
};

// Whether a bond, or an outright trade's bond, has a market quote: a byte
// of a type of its own, for a store of an unsigned char may alias anything
// and would make a kernel read its arrays' addresses again after each.
enum class Quoted : std::uint8_t { no, yes };

// A bond's discount factors summed over its coupons (or taken at its
// maturity), on the curve and its two bumped copies.
struct CouponSums {
  double df = 0, df_up = 0, df_dn = 0;
};
using CouponSumRows = base::HugeVector<CouponSums>;  // a curve's, over a calendar's coupon grids

// Price per 100 nominal and pv01 from a bond's coupon sums, its coupon per
// period per 100 (c100) and the discount factors at its maturity.
inline BondValue bond_value(double c100, const CouponSums& coupons, const CouponSums& maturity) {
  const double price = c100 * coupons.df + 100.0 * maturity.df;
  const double price_up = c100 * coupons.df_up + 100.0 * maturity.df_up;
  const double price_dn = c100 * coupons.df_dn + 100.0 * maturity.df_dn;
  return {price, (price_up - price_dn) / 2};
}

// Price per 100 nominal and pv01 on `today` from the bond's coupon sums on
// `curve` (model/pricing/coupon_grid.h); requires 0 <= maturity - today < its horizon.
BondValue value_bond(const CouponSums& coupons, Date maturity, double coupon, int coupons_per_year, Date today,
                     const CurveArrays& curve);

// An outright trade's values but its cs01 (Store::outright_cs01); as a
// book's total, cs01 is the book's own (Book::cs01).
struct OutrightValue {
  double pv = 0, pv01 = 0, pnl = 0;
};

// value_bond's price alone, from coupons.df and curve.df (the same bits).
double bond_price(double coupons_df, Date maturity, double coupon, int coupons_per_year, Date today,
                  const CurveArrays& curve);

// dir is +1 for BUY, -1 for SELL.
OutrightValue value_outright(std::int64_t quantity, int dir, double trade_price, const BondValue& bond);
// Its cs01 from its bond's: NaN when the bond's is (no quote).
inline double outright_cs01(std::int64_t quantity, int dir, double bond_cs01) {
  return static_cast<double>(quantity) * bond_cs01 * dir;
}

// A repo's value, of one trade (D = double) or of one in each lane of
// D = base::Doubles (base/lanes.h).
template <class D>
struct RepoValueOf {
  D end_cash{}, margin{}, mtm_pnl{};
};
using RepoValue = RepoValueOf<double>;

// What a repo's value is computed from on a day: its growth exponent is
// rate * days to its end / YEAR_BASIS, cum_df its curve's cum_df at those
// days. Of one trade, of one per lane, or (the repo kernel) by field in columns.
template <class D>
struct RepoInputsOf {
  D start_cash{}, notional{}, growth{}, bond_price{}, cum_df{};
};
using RepoInputs = RepoInputsOf<double>;

inline constexpr double kYearsPerDay = 1 / kYearBasis;

// days_to_end = end_date - today, in 0 .. the curve's horizon.
inline RepoInputs repo_inputs(double start_cash, std::int64_t notional, double rate, int days_to_end,
                              double bond_price, const CurveArrays& curve) {
  return {start_cash, static_cast<double>(notional), rate * days_to_end * kYearsPerDay, bond_price,
          curve.cum_df[days_to_end]};
}

// The formula, the same bits for a trade alone and in a lane. Inline, with
// its exp (base/fast_exp.h): the repo kernel takes one per trade.
template <class D>
inline RepoValueOf<D> value_repo(const RepoInputsOf<D>& in) {
  const D end_cash = in.start_cash * base::fast_exp(in.growth);
  return {end_cash, in.start_cash - in.notional * in.bond_price, end_cash - in.start_cash * in.cum_df * kYearsPerDay};
}

inline RepoValue value_repo(double start_cash, std::int64_t notional, double rate, int days_to_end,
                            double bond_price, const CurveArrays& curve) {
  return value_repo(repo_inputs(start_cash, notional, rate, days_to_end, bond_price, curve));
}

// Whether every value is finite (see the calculations' keep_finite): x * 0
// is 0 for a finite x and NaN for an infinity or a NaN, so one comparison
// and no branch per value. Of a repo's lanes: whether every lane's is.
inline bool all_finite(const BondValue& v) { return v.price * 0 + v.pv01 * 0 == 0; }
inline bool all_finite(const OutrightValue& v) { return v.pv * 0 + v.pv01 * 0 + v.pnl * 0 == 0; }
template <class D>
inline bool all_finite(const RepoValueOf<D>& v) {
  const auto finite = v.end_cash * 0 + v.margin * 0 + v.mtm_pnl * 0 == 0;  // per lane: all ones, or 0
  if constexpr (std::is_same_v<D, double>) {
    return finite;
  } else {
    auto all = finite[0];
    for (std::size_t k = 1; k < base::kLanes; ++k) all &= finite[k];
    return all != 0;
  }
}

}  // namespace bond_risk
