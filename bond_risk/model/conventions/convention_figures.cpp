#include "bond_risk/model/conventions/convention_figures.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "bond_risk/model/conventions/day_count.h"
#include "bond_risk/model/quotes/exp_sum.h"
#include "bond_risk/model/quotes/grid_moments.h"
#include "bond_risk/model/quotes/stream_roots.h"

namespace bond_risk {

namespace {

// The flows a buyer settling takes, timed for the yield: amount (0 for a
// coupon gone ex), years from settlement along the coupon dates, and days
// from today to its payment for the curve.
struct TimedFlow {
  double amount, years;
  int pay_day;
};

// A buyer's flows, and what the yields ask of them, found as they are built.
struct BuyersFlows {
  std::array<TimedFlow, ConventionFlows::kCapacity + 1> flow;
  std::size_t count = 0;
  std::size_t coupon_dates = 0;  // coupons not yet paid at settlement, ex ones included
  double received = 0;           // the amounts a buyer takes, the redemption included
  double paid_now = 0;           // the amounts timed at settlement: no rate discounts them
  bool rate_enters = false;      // some positive amount is timed after settlement
  bool even_coupons = true;      // each coupon after the second a whole period (in u) after the one before, of the second's amount
};

// `coupons_per_year`: the bond's, which times the flows in u for the
// stream's test (even_coupons: read only where a yield is solved).
BuyersFlows buyers_flows(const ConventionFlows& flows, const Convention& c, int coupons_per_year, Date today,
                         Date settlement) {
  BuyersFlows out;
  const double f_per_year = coupons_per_year;
  const auto add = [&](double amount, double years, int pay_day) {
    out.flow[out.count++] = {amount, years, pay_day};
    out.received += amount;
    out.paid_now += years > 0 ? 0 : amount;
    out.rate_enters = out.rate_enters || (years > 0 && amount > 0);
  };
  double t = 0;
  Date last = settlement;  // the coupon date the time has reached
  for (const CouponFlow& f : flows) {
    if (f.pay <= settlement) continue;
    // The unexpired part of the first coupon's period, then each period against itself.
    const double step =
        last != f.accrual_start ? f.fraction - year_fraction(c.day_count, f.accrual_start, last, f.ref_start, f.ref_end)
                                : f.fraction;
    t += step;
    last = f.accrual_end;
    const double amount = f.ex <= settlement ? 0.0 : f.amount;
    const std::size_t j = out.count;
    if (j >= 2 && (std::abs(f_per_year * t - f_per_year * out.flow[j - 1].years - 1) > 1e-9 ||
                   amount != out.flow[1].amount)) {
      out.even_coupons = false;
    }
    add(amount, t, f.pay - today);
    ++out.coupon_dates;
  }
  if (flows.redemption_pay > settlement) add(100.0, t, flows.redemption_pay - today);  // paid with the last coupon, at its time
  return out;
}

// The flows in u = ln v, v = 1 / (1 + y/f): a_j = CF_j, b_j = f t_j >= 0,
// increasing in u.
ExpSum yield_sum(const BuyersFlows& flows, int coupons_per_year) {
  const double f = coupons_per_year;
  return {flows.count, [&](std::size_t j) { return flows.flow[j].amount; },
          [&](std::size_t j) { return f * flows.flow[j].years; }};
}

// P(x): the flows on the curve discounted to settlement, in the spread x
// (a_j = CF_j df_j / df_settlement, b_j = -(years from settlement to pay_j)).
ExpSum spread_sum(const BuyersFlows& flows, const Eigen::ArrayXd& df, int settle_day) {
  const double to_settlement = 1 / df[settle_day];
  return {flows.count, [&](std::size_t j) { return flows.flow[j].amount * df[flows.flow[j].pay_day] * to_settlement; },
          [&](std::size_t j) { return -((flows.flow[j].pay_day - settle_day) * kYearsPerDay); }};
}

// The flows in u as a regular stream (model/quotes/stream_roots.h), where
// they are one: the coupons after the first a whole period apart and of one
// amount, the redemption with the last; the first (short, or gone ex)
// apart. Else none: an irregular last period, or coupon steps another day
// count makes uneven.
std::optional<StreamSolve> as_stream(const BuyersFlows& flows, int coupons_per_year, double target, double start) {
  const std::size_t coupons = flows.coupon_dates;
  if (coupons == 0 || flows.count != coupons + 1 || !flows.even_coupons) return std::nullopt;
  const double f = coupons_per_year;
  const auto b = [&](std::size_t j) { return f * flows.flow[j].years; };
  const TimedFlow& redemption = flows.flow[coupons];
  if (redemption.amount != 100 || redemption.years != flows.flow[coupons - 1].years) return std::nullopt;
  const TimedFlow& first = flows.flow[0];
  if (coupons == 1) return StreamSolve{0, b(0), 0, target, start, first.amount + 100, b(0), 0};
  return StreamSolve{static_cast<double>(coupons - 1), b(1), flows.flow[1].amount, target, start, first.amount, b(0), 100};
}

// Whether a yield at `dirty` is to be solved at all: a rate enters and the
// price is above what no rate discounts (else it is null).
bool has_yield(const BuyersFlows& flows, double dirty) {
  return flows.rate_enters && dirty > flows.paid_now && std::isfinite(dirty);
}

// A yield's figures from its root u and the yield sum's slope and
// curvature in u there (QuantLib's CashFlows::duration and convexity with
// the bond's compounding). With b_j = f t_j: sum t CF v^(f t) is the slope
// over f, sum t (t + 1/f) CF v^(f t) the curvature and the slope over f^2.
YieldFigures at_root(double u, const Sums& at, double dirty, int coupons_per_year) {
  YieldFigures y;
  const double f = coupons_per_year, per_period = std::expm1(-u), v = 1 / (1 + per_period);
  y.yield = f * per_period;
  y.macaulay = at.slope / (f * dirty);
  y.modified = y.macaulay * v;
  y.convexity = (at.curvature + at.slope) * (v * v) / (f * f * dirty);
  return y;
}

// A stream's sum and its first two derivatives in u (model/quotes/stream_roots.h):
// its coupons and redemption walked as a geometric sequence (CouponStream),
// its first flow apart.
Sums stream_sums(const StreamSolve& s, double u) {
  Moments m{};
  if (s.n > 0) {
    if (s.redemption != 100) throw std::logic_error("stream_sums: a stream whose redemption is not 100");
    CouponStream(static_cast<std::size_t>(s.n), s.w, s.c).at<2>(u, m);
  }
  const double first = s.first * std::exp(s.first_b * u);
  return {m.m[0] + first, m.m[1] + first * s.first_b, m.m[2] + first * s.first_b * s.first_b, kNull};
}

// P(x)'s cs01 at a spread z proven at once from its moments at 0:
// (P(s + h) - P(s - h)) / 2 = sum a e^(bs) sinh(bh), whose series h P' + h^3 P^(3) / 6 + h^5 P^(5) / 120
// is within (bh)^6 / 5040 of it (60 years x 1bp: 1e-17 relative), without the cancellation of two
// prices. P^(5)(s) from the moments at 0 the root was proven from, as P' and P^(3) were.
double cs01_at_once(const Moments& at_zero, const Root& z) {
  double fifth = 0, term = 1;
  for (int k = 0; 5 + k <= at_zero.order; ++k) fifth += at_zero.m[5 + k] * term, term *= z.x / (k + 1);
  const double h = kBump, h3 = h * h * h;
  return h * z.at.slope + h3 * z.at.third / 6 + h3 * h * h * fifth / 120;
}

// A yield's figures and the walks its solve took (0: none ran).
struct YieldRoot {
  YieldFigures figures;
  int steps = 0;
};

// The yield at which `flows` (`sum` in u) are worth `dirty`, from u =
// `from`, and its durations and convexity (QuantLib's CashFlows::yield,
// duration and convexity with the bond's compounding); null yields when no
// rate enters or none reprices. Order: of the moments each walk takes, the
// higher the farther from its root a start is proven there at once
// (model/quotes/exp_sum.h); `exact`: the moments proven at the root (2 for
// the durations and convexity; 0 where only the yield is read).
template <int Order>
YieldRoot yield_figures(const BuyersFlows& flows, const ExpSum& sum, const Convention& c, int coupons_per_year,
                        double dirty, double from, int exact) {
  YieldRoot out;
  YieldFigures& y = out.figures;
  if (!has_yield(flows, dirty)) return out;
  if (c.yield_compounding == YieldCompounding::simple_in_last_period && flows.coupon_dates == 1) {
    const double t = flows.flow[0].years;  // one date: every flow's time
    y.yield = (flows.received / dirty - 1) / t;
    const double b = 1 / (1 + y.yield * t);
    y.macaulay = t, y.modified = t * b, y.convexity = 2 * t * t * b * b;
    return out;
  }
  if (exact == 0) {  // the yield alone: in closed form where the flows are a regular stream
    if (const std::optional<StreamSolve> stream = as_stream(flows, coupons_per_year, dirty, from)) {
      double u = kNull;
      stream_roots({&*stream, 1}, {&u, 1});
      if (!is_null(u)) {
        y.yield = yield_of(u, coupons_per_year);
        return out;
      }
    }
  }
  const auto walk = [&](double u) { return sum.at<Order>(u); };
  const Moments first = walk(from);
  const Root root = solve(walk, true, dirty, from, exact, first, polish(first, from, dirty, exact));
  out.steps = root.steps;
  if (is_null(root.x)) return out;
  y = at_root(root.x, root.at, dirty, coupons_per_year);
  return out;
}

// The z-spread at which P(x) (`spread`, with its moments at 0 `at_zero`)
// is the market dirty price, with its steps and cs01; false when none is.
bool spread_figures(const ExpSum& spread, const Moments& at_zero, BondFigures& o) {
  const auto walk = [&](double x) { return spread.at<kSpreadOrder>(x); };
  const Root z = solve(walk, false, o.market_dirty, 0.0, 1, at_zero, polish(at_zero, 0.0, o.market_dirty, 1));
  if (is_null(z.x)) return false;
  o.spread_steps = static_cast<std::uint8_t>(z.steps);
  o.z_spread = z.x;
  if (z.steps == 1) {
    o.cs01 = cs01_at_once(at_zero, z);
  } else {
    o.cs01 = (spread.at<0>(z.x + kBump).m[0] - spread.at<0>(z.x - kBump).m[0]) / 2;
  }
  return true;
}

// u = ln v of the yield f (e^(r/f) - 1) that compounds as r does continuously; 0.05 where r is not finite.
double u_of_rate(double r, int coupons_per_year) {
  return std::isfinite(r) ? -r / coupons_per_year : -std::log1p(0.05 / coupons_per_year);
}

}  // namespace

double convention_accrued(const ConventionFlows& flows, const Convention& c, Date settlement) {
  const double coupon = flows.rate;
  for (const CouponFlow& f : flows) {
    if (f.pay <= settlement) continue;
    if (settlement <= f.accrual_start) return 0.0;
    if (f.ex <= settlement) {
      return -100 * coupon * year_fraction(c.day_count, settlement, std::max(settlement, f.accrual_end), f.ref_start, f.ref_end);
    }
    return 100 * coupon * year_fraction(c.day_count, f.accrual_start, std::min(settlement, f.accrual_end), f.ref_start, f.ref_end);
  }
  return 0.0;
}

YieldFigures convention_yield(const ConventionFlows& flows, const Convention& convention, int coupons_per_year,
                              Date settlement, double dirty) {
  const BuyersFlows buyers = buyers_flows(flows, convention, coupons_per_year, settlement, settlement);
  if (buyers.count == 0) return {};
  return yield_figures<kMaxOrder>(buyers, yield_sum(buyers, coupons_per_year), convention, coupons_per_year, dirty,
                                  u_of_rate(kNull, coupons_per_year), 2).figures;
}

double dirty_at_spread(const ConventionFlows& flows, const Convention& convention, Date today, Date settlement,
                       const CurveArrays& curve, double x) {
  const BuyersFlows buyers = buyers_flows(flows, convention, 0, today, settlement);  // no yield: no timing in u
  if (buyers.count == 0) return 0.0;
  return spread_sum(buyers, curve.df, settlement - today).at<0>(x).m[0];
}

namespace {

// The holder's value summed flow by flow: the price, and the prices on the
// curve moved up and down.
struct ValueSums {
  const CurveArrays& curve;
  double price = 0, up = 0, down = 0;
  void add(double amount, std::size_t day) {
    const auto d = static_cast<Eigen::Index>(day);
    price += amount * curve.df[d], up += amount * curve.df_up[d], down += amount * curve.df_dn[d];
  }
  BondValue value() const { return {price, (up - down) / 2}; }
};

// A key-rate ladder summed flow by flow. The flows come in date order, so
// their segments never go back: the two entries a segment moves stay in
// registers until the next segment (the same subtractions in the same order
// as entry by entry in memory, which made each flow wait for the last
// one's store).
struct LadderSums {
  const KeyRateArrays& curve;
  std::span<double> ladder;
  std::size_t k = 0;
  double at_k = 0, at_next = 0;  // ladder[k], ladder[k + 1]
  LadderSums(const KeyRateArrays& c, std::span<double> l, std::size_t points) : curve(c), ladder(l) {
    std::fill(ladder.begin(), ladder.begin() + static_cast<std::ptrdiff_t>(points), 0.0);
  }
  void add(double amount, std::size_t d) {
    const std::size_t segment = curve.segment[d];
    if (segment != k) {
      ladder[k] = at_k, ladder[k + 1] = at_next;
      at_k = segment == k + 1 ? at_next : ladder[segment];
      at_next = ladder[segment + 1];
      k = segment;
    }
    at_k -= amount * curve.days[d].lo;
    at_next -= amount * curve.days[d].hi;
  }
  void finish() { ladder[k] = at_k, ladder[k + 1] = at_next; }  // a curve has two points at least
};

// Each flow paid after today (those of `flows`, then the redemption if it
// is) added to every one of `sums`, by its days from today.
template <class... Sums>
void add_flows(const ConventionFlows& flows, Date today, Sums&... sums) {
  for (const CouponFlow& f : flows) (sums.add(f.amount, static_cast<std::size_t>(f.pay - today)), ...);
  if (flows.redemption_pay > today) (sums.add(100.0, static_cast<std::size_t>(flows.redemption_pay - today)), ...);
}

}  // namespace

BondValue convention_value(const ConventionFlows& flows, Date today, const CurveArrays& curve) {
  ValueSums sums{curve};
  add_flows(flows, today, sums);
  return sums.value();
}

BondValue convention_value_and_key_rates(const ConventionFlows& flows, Date today, const CurveArrays& curve,
                                         const KeyRateArrays& key_rates, std::size_t points, std::span<double> ladder) {
  ValueSums value{curve};
  LadderSums sums(key_rates, ladder, points);
  add_flows(flows, today, value, sums);
  sums.finish();
  return value.value();
}

namespace {

// convention_figures, or, given `start` and where the flows are a regular
// stream, everything but the yields' solves, which it says in *start.
// `value`: the holder's value.
ConventionFigures figures_of(const ConventionFlows& flows, const BondValue& value, const Convention& convention,
                             int coupons_per_year, Date today, Date settlement, double quote, const CurveArrays& curve,
                             double quote_yield, ConventionStart* start) {
  ConventionFigures out;
  out.value = value;
  out.quoted = !is_null(quote);
  const BuyersFlows buyers = buyers_flows(flows, convention, coupons_per_year, today, settlement);
  const int settle_day = settlement - today;
  BondFigures& o = out.figures;
  o.settlement_date = settlement;
  if (buyers.count == 0) {  // nothing left for a buyer: no rate enters
    o.dirty_price = 0, o.accrued = 0, o.clean_price = 0;
    if (out.quoted) o.market_dirty = quote;
    return out;
  }
  // P(x)'s moments at 0: the dirty price, and the z-spread's start.
  const ExpSum spread = spread_sum(buyers, curve.df, settle_day);
  const Moments at_zero = spread.at<kSpreadOrder>(0.0);
  o.dirty_price = at_zero.m[0];
  o.accrued = convention_accrued(flows, convention, settlement);
  o.clean_price = o.dirty_price - o.accrued;
  // The yield starts at the curve's zero rate to the last flow (within about a percent of the yield: one walk
  // of kMaxOrder moments proves it, exp_sum.h), the quote's at the textbook yield at the quote, which
  // depends on the quote and the flows alone.
  const TimedFlow& last = buyers.flow[buyers.count - 1];
  const double years = (last.pay_day - settle_day) * kYearsPerDay;
  const double zero = years > 0 ? std::log(curve.df[settle_day] / curve.df[last.pay_day]) / years : kNull;
  const auto quote_start = [&] {
    return textbook_yield_start(100 * flows.rate, last.years, quote + o.accrued, coupons_per_year);
  };
  if (start != nullptr && has_yield(buyers, o.dirty_price) &&
      !(convention.yield_compounding == YieldCompounding::simple_in_last_period && buyers.coupon_dates == 1)) {
    const std::optional<StreamSolve> yield =
        as_stream(buyers, coupons_per_year, o.dirty_price, u_of_rate(zero, coupons_per_year));
    const bool quote_solve = out.quoted && is_null(quote_yield);
    // A quote no yield reprices is left to the walk, which says so (no_quote_yield).
    if (yield && (!quote_solve || has_yield(buyers, quote + o.accrued))) {
      StreamSolve quoted = *yield;  // the same flows: as_stream's at the quote
      if (quote_solve) quoted.target = quote + o.accrued, quoted.start = quote_start();
      if (out.quoted) o.market_dirty = quote + o.accrued;
      start->figures = out;
      start->solve = {*yield, quoted};
      start->solves = quote_solve ? 2 : 1;
      start->at_zero = at_zero;
      start->quote_yield = quote_yield;
      start->coupons_per_year = coupons_per_year;
      return out;
    }
  }
  const ExpSum in_u = yield_sum(buyers, coupons_per_year);
  const YieldRoot model = yield_figures<kMaxOrder>(buyers, in_u, convention, coupons_per_year, o.dirty_price,
                                                   u_of_rate(zero, coupons_per_year), 2);
  const bool no_rate = !buyers.rate_enters;
  if (is_null(model.figures.yield) && !no_rate) {
    o = failed(AnalyticsFailure::no_yield, o.yield_steps);
    return out;
  }
  o.yield_steps = static_cast<std::uint8_t>(model.steps);
  o.yield = model.figures.yield, o.macaulay_duration = model.figures.macaulay;
  o.modified_duration = model.figures.modified, o.convexity = model.figures.convexity;
  if (!out.quoted) return out;
  o.market_dirty = quote + o.accrued;
  if (no_rate) return out;
  if (is_null(quote_yield)) {
    quote_yield = yield_figures<kMaxOrder>(buyers, in_u, convention, coupons_per_year, o.market_dirty, quote_start(), 0)
                      .figures.yield;
  }
  o.quote_yield = quote_yield;
  if (is_null(o.quote_yield)) {
    o = failed(AnalyticsFailure::no_quote_yield, o.yield_steps);
    return out;
  }
  if (!spread_figures(spread, at_zero, o)) o = failed(AnalyticsFailure::no_spread, o.yield_steps);
  return out;
}

}  // namespace

ConventionFigures convention_figures(const ConventionFlows& flows, const Convention& convention,
                                     int coupons_per_year, Date today, Date settlement, double quote,
                                     const CurveArrays& curve, double quote_yield) {
  return figures_of(flows, convention_value(flows, today, curve), convention, coupons_per_year, today, settlement,
                    quote, curve, quote_yield, nullptr);
}

ConventionStart start_convention_figures(const ConventionFlows& flows, const BondValue& value,
                                         const Convention& convention, int coupons_per_year, Date today,
                                         Date settlement, double quote, const CurveArrays& curve,
                                         double quote_yield) {
  ConventionStart start;
  const ConventionFigures figures =
      figures_of(flows, value, convention, coupons_per_year, today, settlement, quote, curve, quote_yield, &start);
  if (start.solves == 0) start.figures = figures;
  return start;
}

void finish_convention_figures(std::span<const ConventionStart> starts, std::span<Finished> out) {
  if (starts.size() > kConventionBatch || out.size() != starts.size()) {
    throw std::logic_error("finish_convention_figures: more starts than a batch, or spans of different sizes");
  }
  // The yields' solves, side by side.
  std::array<StreamSolve, 2 * kConventionBatch> solves;
  std::array<double, 2 * kConventionBatch> roots;
  std::size_t n = 0;
  for (const ConventionStart& start : starts) {
    for (std::size_t j = 0; j < start.solves; ++j) solves[n++] = start.solve[j];
  }
  stream_roots(std::span(solves).first(n), std::span(roots).first(n));
  // The figures from the roots; the z-spreads' polishes gathered.
  std::array<Moments, kConventionBatch> at;
  std::array<double, kConventionBatch> zero{}, target;
  std::array<std::size_t, kConventionBatch> spread_of;
  std::size_t spreads = 0;
  n = 0;
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const ConventionStart& start = starts[k];
    const std::span<const double> root = std::span(roots).subspan(n, start.solves);
    n += start.solves;
    out[k] = {start.figures, Unfinished::everything};
    if (start.solves == 0) {
      out[k].left = Unfinished::nothing;
      continue;
    }
    if (is_null(root[0])) continue;
    ConventionFigures& f = out[k].figures;
    BondFigures& o = f.figures;
    const StreamSolve& yield = start.solve[0];
    const YieldFigures y = at_root(root[0], stream_sums(yield, root[0]), yield.target, start.coupons_per_year);
    o.yield_steps = 1;
    o.yield = y.yield, o.macaulay_duration = y.macaulay, o.modified_duration = y.modified, o.convexity = y.convexity;
    if (!f.quoted) {
      out[k].left = Unfinished::nothing;
      continue;
    }
    o.quote_yield = start.solves == 2 ? (is_null(root[1]) ? kNull : yield_of(root[1], start.coupons_per_year))
                                      : start.quote_yield;
    if (is_null(o.quote_yield)) continue;
    out[k].left = Unfinished::spread;
    at[spreads] = start.at_zero, target[spreads] = o.market_dirty, spread_of[spreads++] = k;
  }
  std::array<Polished, kConventionBatch> polished;
  polish_each(std::span(at).first(spreads), std::span(zero).first(spreads), std::span(target).first(spreads), 1,
              std::span(polished).first(spreads));
  for (std::size_t j = 0; j < spreads; ++j) {
    if (!polished[j].root) continue;  // left to the walk
    Finished& f = out[spread_of[j]];
    const Root z{polished[j].root->x, 1, polished[j].root->at};
    f.figures.figures.spread_steps = 1;
    f.figures.figures.z_spread = z.x;
    f.figures.figures.cs01 = cs01_at_once(at[j], z);
    f.left = Unfinished::nothing;
  }
}

void finish_convention_spread(const ConventionStart& start, const ConventionFlows& flows,
                              const Convention& convention, Date today, Date settlement, const CurveArrays& curve,
                              Finished& finished) {
  if (finished.left != Unfinished::spread) throw std::logic_error("finish_convention_spread: a bond not left its spread");
  // P(x) as figures_of builds it, from the flows the start was built from: its moments at 0 are the start's.
  const BuyersFlows buyers = buyers_flows(flows, convention, start.coupons_per_year, today, settlement);
  BondFigures& o = finished.figures.figures;
  if (!spread_figures(spread_sum(buyers, curve.df, settlement - today), start.at_zero, o)) {
    o = failed(AnalyticsFailure::no_spread, o.yield_steps);
  }
  finished.left = Unfinished::nothing;
}

}  // namespace bond_risk
