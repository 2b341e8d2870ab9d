#include "bond_risk/live/limit_replies.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace bond_risk {

namespace {

struct Listed {
  const RiskLimit* limit;
  LimitReading reading;
};

bool worse(const Listed& a, const Listed& b) {
  if (a.reading.state != b.reading.state) return a.reading.state < b.reading.state;
  const double ua = std::isnan(a.reading.utilization) ? -INFINITY : a.reading.utilization;
  const double ub = std::isnan(b.reading.utilization) ? -INFINITY : b.reading.utilization;
  if (ua != ub) return ua > ub;
  return a.limit->id < b.limit->id;
}

}  // namespace

base::Json limits_json(const Store& s, const PnlDay& day, std::span<const RiskLimit> limits, const LimitsOf& which) {
  std::vector<Listed> listed;
  for (const RiskLimit& l : limits) {
    if (which.total && !l.of_total()) continue;
    if (which.book_id && l.book_id != which.book_id) continue;
    listed.push_back({&l, read_limit(s, day, l)});
  }
  std::sort(listed.begin(), listed.end(), worse);
  base::Json out = base::Json::array();
  for (const auto& [l, r] : listed) {
    const NodeRef* book = l->book_id ? s.by_id.find(*l->book_id) : nullptr;
    base::Json j = {{"id", l->id},
                    {"book_name", l->of_total()  ? "total"
                                  : !l->book_id  ? l->book_text
                                  : book         ? s.name_of(*book)
                                                 : std::to_string(*l->book_id)},
                    {"book_id", l->book_id ? base::Json(*l->book_id) : base::Json(nullptr)},
                    {"measure", l->measure},
                    {"value", r.value},  // a non-finite number is written as null
                    {"lower", l->lower},
                    {"upper", l->upper},
                    {"bound", r.bound},
                    {"utilization", r.utilization},
                    {"state", limit_state_name(r.state)}};
    if (parse_limit_measure(l->measure) == LimitMeasure::kr01) {
      j["ir_curve_id"] = l->ir_curve_id ? base::Json(*l->ir_curve_id) : base::Json(nullptr);
      j["idx"] = l->idx ? base::Json(*l->idx) : base::Json(nullptr);
    }
    if (r.state == LimitState::failed) j["reason"] = r.error;
    out.push_back(std::move(j));
  }
  return {{"risk_limits", std::move(out)}};
}

}  // namespace bond_risk
