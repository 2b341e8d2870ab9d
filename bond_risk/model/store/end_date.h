// The one rule for the status a bond's maturity or a repo's end date gives
// it on a day: past the date the node is EXPIRED; beyond the last day its
// curve covers it is FAILED (its cash flows cannot be discounted). The
// calculations decide by end_status and the reasons describe by
// end_reason, so the two never disagree.
#pragma once

#include <string>

#include "bond_risk/model/store/store.h"

namespace bond_risk {

struct EndDate {
  const char* field;  // its column: maturity_date, end_date
  Date date;
  int last_day;       // the furthest day from today the calculation can value
  int horizon;        // its curve's (IrCurve::horizon), for the reason
};

// A bond's last coupon falls on maturity: days 0 .. horizon - 1.
inline EndDate end_date(const Bond& bond, int horizon) { return {"maturity_date", bond.maturity, horizon - 1, horizon}; }
// A convention bond's (docs/model.md "Market conventions"): EXPIRED once its
// redemption's payment is before today; its settlement and that payment,
// the last days it reads, within its curve. Requires a valid convention.
EndDate end_date(const Bond& bond, const Calendar& calendar, const Convention& convention, int horizon);
// A repo discounts up to its end date inclusive: days 0 .. horizon.
inline EndDate end_date(const RepoTrade& repo, int horizon) { return {"end_date", repo.end, horizon, horizon}; }

// OK, EXPIRED (before today) or FAILED (beyond the last day). Inline: the
// flush asks it of every bond and repo.
inline Status end_status(const EndDate& end, Date today) {
  const int days = end.date - today;
  return days < 0 ? Status::expired : days > end.last_day ? Status::failed : Status::ok;
}

// Why end_status is not OK on `today`, in words; "" when it is.
std::string end_reason(const EndDate& end, Date today);

}  // namespace bond_risk
