// The rules a bond row's terms must keep (docs/model.md "bond"), said once
// for the loader and `import bonds`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "bond_risk/model/pricing/dates.h"

namespace bond_risk {

// Why these terms cannot make a bond ("coupons_per_year 3 is not 1, 2 or
// 4", "maturity_date 2020-01-01 is not after start_date 2021-01-01"), or "";
// the dates named as the caller's columns call them.
std::string bond_terms_problem(Date start, Date maturity, std::int64_t coupons_per_year,
                               std::string_view start_name = "start_date", std::string_view maturity_name = "maturity_date");

}  // namespace bond_risk
