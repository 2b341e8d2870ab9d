// Convention bonds' coupon dates (model/conventions/convention_flows.h),
// kept from one recalculation to the next.
//
// Model. A bond's coupon dates are a function of its terms, its calendar's
// holidays and its convention's payment rule and ex-dividend days alone:
// neither a curve's move nor a new day changes them, and a bond's terms
// change only with a reload, which lays every slot out afresh. So each bond
// has a slot sized for its terms, built by the bond's own calculation the
// first time it is asked for after the slot was laid out or marked stale
// (its calendar's holidays or its convention changed). A slot holds the
// dates a buyer may be paid on from the day it was laid out for (a year
// back from it, coupon_dates) to maturity, which serve that day, every
// later one and a few before (serves()): a bond asked for a day they do
// not serve (a date rolled back) is told to build its own. A slot's dates
// are the same whenever they are built: results do not depend on when.
//
// Threading: the calculation of bond i alone reads and writes slot i
// (dates()); lay_out() and mark_stale() are the master's, between flushes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "base/huge_pages.h"
#include "bond_risk/model/conventions/convention_flows.h"

namespace bond_risk {

class CouponSchedules {
 public:
  // One slot per bond, for the day from[i] and of the size
  // coupon_date_count(its terms, from[i]) (0: a bond without a
  // convention), every one stale.
  void lay_out(std::span<const std::size_t> counts, std::span<const Date> from);
  std::size_t size() const { return slots_.size(); }

  // Slot `bond` is to be built again at its next dates().
  void mark_stale(std::size_t bond) { slots_[bond].stale = 1; }

  // Bond `bond`'s coupon dates for `after`, built first if its slot is
  // stale; a view of the slot, valid until it is marked stale or laid out
  // again. None when they do not serve `after`. Throws std::logic_error
  // when its slot was not laid out for `terms`.
  std::optional<CouponDates> dates(std::size_t bond, const BondTerms& terms, const Convention& convention,
                                   const BusinessDays& days, Date after);

 private:
  // Per bond: its slot's day, and where the first of its periods accrues from once built.
  struct Slot {
    Date from, first_start, first_ref_start;
    std::uint8_t stale;
  };
  base::HugeVector<std::uint32_t> begin_;  // per bond, then one past the last: where its slot starts in periods_
  base::HugeVector<CouponDate> periods_;
  base::HugeVector<Slot> slots_;
};

}  // namespace bond_risk
