// QuantLib as the test suite's independent oracle: MODEL.md's curves as
// daily discount factors written out from the formulas, and its bonds as
// QuantLib FixedRateBonds priced off them.
#pragma once

#include <ql/instruments/bonds/fixedratebond.hpp>

#include <memory>
#include <vector>

#include "bond_risk/model/dates.h"
#include "bond_risk/model/pricing.h"

namespace test {

// Discount factors of MODEL.md for `points` (days 0 .. NUM_FORWARD_DAYS-1),
// written out here from the formulas (not with build_curve).
std::vector<double> discount_factors(const std::vector<bond_risk::CurvePoint>& points);

// The same with point `bumped` moved by `shift`.
std::vector<double> bumped_discount_factors(std::vector<bond_risk::CurvePoint> points, std::size_t bumped, double shift);

// The bond of MODEL.md in QuantLib: a FixedRateBond on a backward,
// unadjusted schedule whose first period starts a whole number of periods
// before maturity, so that every coupon is a full period's (ActualActual
// ISMA on regular periods), priced off a curve of daily discount factors.
class QuantLibBond {
 public:
  QuantLibBond(bond_risk::Date start, bond_risk::Date maturity, int coupons_per_year, double coupon, bond_risk::Date today);
  // Price per 100 nominal off daily discount factors from today.
  double price(const std::vector<double>& df) const;

 private:
  QuantLib::Date today_;
  std::unique_ptr<QuantLib::FixedRateBond> bond_;
};

}  // namespace test
