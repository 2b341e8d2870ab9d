#include "bond_risk/model/store/end_date.h"

namespace bond_risk {

EndDate end_date(const Bond& bond, const Calendar& calendar, const Convention& convention, int horizon) {
  const Date pay = calendar.business_days.adjust(bond.maturity, convention.payment);
  const Date settlement = calendar.business_days.advance(calendar.today, convention.settlement_days);
  if (pay < calendar.today || pay >= settlement) return {"redemption payment", pay, horizon - 1, horizon};
  return {"settlement_date", settlement, horizon - 1, horizon};
}

std::string end_reason(const EndDate& end, Date today) {
  const std::string what = std::string(end.field) + " " + format_date(end.date);
  switch (end_status(end, today)) {
    case Status::expired: return what + " is before today " + format_date(today);
    case Status::failed:
      return what + " is beyond the curve horizon of " + std::to_string(end.horizon) + " days from today " +
             format_date(today);
    default: return "";
  }
}

}  // namespace bond_risk
