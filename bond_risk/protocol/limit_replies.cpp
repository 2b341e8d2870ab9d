#include "bond_risk/protocol/limit_replies.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "bond_risk/protocol/members.h"

namespace bond_risk::protocol {

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

// The name a limit's book goes by: "total", its name, or its id as stored.
std::string book_name(const Store& s, const std::optional<std::int64_t>& book_id, const std::string& book_text) {
  if (!book_id) return book_text.empty() ? std::string(word::total) : book_text;
  const NodeRef* book = s.by_id.find(*book_id);
  return book ? s.name_of(*book) : std::to_string(*book_id);
}

base::Json optional_id(const std::optional<std::int64_t>& id) { return id ? base::Json(*id) : base::Json(nullptr); }

}  // namespace

base::Json alert_json(const Store& s, const StoredAlert& a) {
  return {{member::id, a.id},
          {member::seq, a.seq},
          {member::time, a.time},
          {member::cause, alert_cause_name(a.cause)},
          {member::limit_id, a.alert.limit_id},
          {member::book_id, optional_id(a.alert.book_id)},
          {member::book_name, book_name(s, a.alert.book_id, "")},
          {member::measure, limit_measure_name(a.alert.measure)},
          {member::from, limit_state_name(a.alert.from)},
          {member::to, limit_state_name(a.alert.to)},
          {member::value, a.alert.value},
          {member::bound, a.alert.bound}};
}

base::Json limits_json(const Store& s, const PnlDay& day, std::span<const RiskLimit> limits, const LimitsOf& which) {
  std::vector<Listed> listed;
  for (const RiskLimit& l : limits) {
    if (which.total && !l.of_total()) continue;
    if (which.book_id && l.book_id != which.book_id) continue;
    listed.push_back({&l, read_limit(s, day, l)});
  }
  base::Json states = base::Json::object();
  for (const Listed& l : listed) {
    const std::string state(limit_state_name(l.reading.state));
    states[state] = states.value(state, 0) + 1;
  }
  const std::size_t count = which.count == 0 ? listed.size() : std::min(which.count, listed.size());
  std::partial_sort(listed.begin(), listed.begin() + static_cast<std::ptrdiff_t>(count), listed.end(), worse);
  listed.resize(count);
  base::Json out = base::Json::array();
  for (const auto& [l, r] : listed) {
    base::Json j = {{member::id, l->id},
                    {member::book_name, book_name(s, l->book_id, l->book_text)},
                    {member::book_id, optional_id(l->book_id)},
                    {member::measure, l->measure},
                    {member::value, r.value},  // a non-finite number is written as null
                    {member::lower, l->lower},
                    {member::upper, l->upper},
                    {member::bound, r.bound},
                    {member::utilization, r.utilization},
                    {member::state, limit_state_name(r.state)}};
    if (parse_limit_measure(l->measure) == LimitMeasure::kr01) {
      j[member::ir_curve_id] = optional_id(l->ir_curve_id);
      j[member::idx] = optional_id(l->idx);
    }
    if (r.state == LimitState::failed) j[member::reason] = r.error;
    out.push_back(std::move(j));
  }
  return {{member::risk_limits, std::move(out)}, {member::states, std::move(states)}};
}

}  // namespace bond_risk::protocol
