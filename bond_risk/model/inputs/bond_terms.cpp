#include "bond_risk/model/inputs/bond_terms.h"

namespace bond_risk {

std::string bond_terms_problem(Date start, Date maturity, std::int64_t coupons_per_year, std::string_view start_name,
                               std::string_view maturity_name) {
  if (coupons_per_year != 1 && coupons_per_year != 2 && coupons_per_year != 4) {
    return "coupons_per_year " + std::to_string(coupons_per_year) + " is not 1, 2 or 4";
  }
  if (maturity <= start) {
    return std::string(maturity_name) + " " + format_date(maturity) + " is not after " + std::string(start_name) + " " +
           format_date(start);
  }
  return "";
}

}  // namespace bond_risk
