// What a convention bond publishes (docs/model.md "Market conventions"), from
// its flows (model/conventions/convention_flows.h) on a curve's daily
// discount factors.
//
// Model. Two dates matter: today, from which the curve discounts and after
// which a flow still counts in `price` (the holder's value, what trades and
// books use), and the settlement date, at which a buyer takes the flows
// paid after it that are not ex-dividend. The dirty price is those flows
// discounted to settlement; accrued is the next coupon's, negative once it
// is ex. The yield reproduces the dirty price (quote_yield the market's
// dirty price) timing each flow, as QuantLib's CashFlows do, step by step
// along its unadjusted coupon dates: the unexpired part of the current
// period, then whole periods, each measured in the day count against its
// own reference period; an ex-dividend coupon still marks its period with
// an amount of 0. With SIMPLE_IN_LAST_PERIOD and one coupon date left the
// yield is simple. The z-spread moves every discount factor by a spread
// over its continuously compounded zero rate, both sides at settlement.
// Both are sums of exponentials, solved as the trad4 bond's are
// (model/quotes/exp_sum.h): a root's price within 1e-12 of its target,
// proven from one walk's moments where the start is near; where a buyer's
// flows are a regular stream, the yields in closed form
// (model/quotes/stream_roots.h), many bonds' side by side.
//
// Pure functions on plain values, any thread; nothing allocated.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "bond_risk/model/conventions/convention_flows.h"
#include "bond_risk/model/pricing/key_rates.h"
#include "bond_risk/model/pricing/pricing.h"
#include "bond_risk/model/quotes/exp_sum.h"
#include "bond_risk/model/quotes/quote_analytics.h"
#include "bond_risk/model/quotes/stream_roots.h"

namespace bond_risk {

struct ConventionFigures {
  BondValue value;      // convention_value's
  bool quoted = false;  // it has a market quote
  BondFigures figures;  // settlement_date, dirty_price, accrued .. quote_yield; all null with `failure` when a solve has no root
};

// A yield and its risk figures; all null when no rate enters or no yield
// reprices the price.
struct YieldFigures {
  double yield = kNull, macaulay = kNull, modified = kNull, convexity = kNull;
};

// The next coupon's accrued interest per 100 at `settlement` (QuantLib's
// BondFunctions::accruedAmount): negative once the coupon is ex.
double convention_accrued(const ConventionFlows& flows, const Convention& convention, Date settlement);

// The yield at which the flows a buyer settling on `settlement` takes are
// worth `dirty` (per 100, at settlement), with its durations and convexity.
YieldFigures convention_yield(const ConventionFlows& flows, const Convention& convention, int coupons_per_year,
                              Date settlement, double dirty);

// The flows a buyer settling on `settlement` takes, discounted to it on the
// curve moved by a spread x over its zero rates: P(x) of docs/model.md
// (dirty_price at x = 0; a generated quote's dirty price at a spread).
double dirty_at_spread(const ConventionFlows& flows, const Convention& convention, Date today, Date settlement,
                       const CurveArrays& curve, double x);

// A bond's value to its holder today, every flow of `flows` paid after
// today (ex or not) on `curve`: price and pv01.
BondValue convention_value(const ConventionFlows& flows, Date today, const CurveArrays& curve);

// convention_value's value, and, in the same walk over the flows,
// ladder[0 .. points) set to the kr01 per 100 nominal of the flows paid
// after today (price's), on the curve's key-rate arrays `key_rates`.
BondValue convention_value_and_key_rates(const ConventionFlows& flows, Date today, const CurveArrays& curve,
                                         const KeyRateArrays& key_rates, std::size_t points, std::span<double> ladder);

// Every figure of a bond with `flows` (convention_flows after today)
// settling on `settlement` (>= today), with clean market quote `quote` (NaN:
// none), on `curve`; requires the settlement and the redemption's payment within the curve's days
// (end_date in model/store/end_date.h). `quote_yield`: the quote yield
// when already solved for this quote, these flows and this settlement
// (NaN: solve it; its solve starts from the quote and the flows alone, as
// a trad4 bond's does).
ConventionFigures convention_figures(const ConventionFlows& flows, const Convention& convention,
                                     int coupons_per_year, Date today, Date settlement, double quote,
                                     const CurveArrays& curve, double quote_yield = kNull);

// The same for many bonds, their yields solved side by side. Where a
// buyer's flows are a regular stream (whole ICMA periods after the first)
// and both yields have a root to find, start_convention_figures computes
// every figure but the yield, durations, convexity, quote yield, z-spread
// and cs01, and says the yields' solves; finish_convention_figures runs a
// batch's together (stream_roots and polish_each, whose lanes share no
// arithmetic) and completes the figures. The yield is then the closed
// form's root (yield_steps 1), which reprices the price within 1e-12 as
// the walk's does but may differ from it in the last bits; the durations
// and convexity come from the stream's sum and its derivatives at that
// root (within about 5e-12 relative of the walk's). A bond whose spread
// its first evaluation does not prove is left to finish_convention_spread
// (its flows walked for the spread alone); one whose yield or quote yield
// the closed form does not reach, to convention_figures. Any thread;
// nothing allocated. ConventionStart is opaque but for `solves` (0:
// `figures` complete).
struct ConventionStart {
  ConventionFigures figures;  // complete unless `solves` > 0
  std::array<StreamSolve, 2> solve;  // the yield's, then the quote yield's
  std::size_t solves = 0;            // 0: complete; 1: the yield's (the quote yield known, or no quote); 2: both
  Moments at_zero;                   // P's moments at 0: the z-spread's start
  double quote_yield = kNull;        // the quote yield already known
  int coupons_per_year = 0;
};
// `value`: the bond's convention_value on `curve`, found already.
ConventionStart start_convention_figures(const ConventionFlows& flows, const BondValue& value,
                                         const Convention& convention, int coupons_per_year, Date today,
                                         Date settlement, double quote, const CurveArrays& curve,
                                         double quote_yield = kNull);
// What finish_convention_figures leaves to do of a bond.
enum class Unfinished : std::uint8_t {
  nothing,    // `figures` complete
  spread,     // all but the z-spread, its steps and cs01: finish_convention_spread
  everything  // convention_figures, the bond alone
};
struct Finished {
  ConventionFigures figures;
  Unfinished left = Unfinished::everything;
};
// Each start's figures (out[k] for starts[k]), and what is left of them
// (out[k].left; the figures mean nothing while it is `everything`). At most
// kConventionBatch starts (std::logic_error otherwise); out as many.
inline constexpr std::size_t kConventionBatch = 8;  // two solves each: 16, stream_roots' group of 4 vectors of 4 lanes
void finish_convention_figures(std::span<const ConventionStart> starts, std::span<Finished> out);
// Completes `finished` (left: spread; std::logic_error otherwise) with the
// z-spread and cs01 by walking the bond's flows; requires the flows and
// arguments `start` was built from. They are the bits convention_figures
// gives where it reaches the spread. A spread no walk finds fails the
// figures (no_spread), keeping the batch's yield steps.
void finish_convention_spread(const ConventionStart& start, const ConventionFlows& flows,
                              const Convention& convention, Date today, Date settlement, const CurveArrays& curve,
                              Finished& finished);

}  // namespace bond_risk
