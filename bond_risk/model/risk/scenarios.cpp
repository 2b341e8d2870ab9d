#include "bond_risk/model/risk/scenarios.h"

#include <algorithm>
#include <cmath>
#include <exception>

#include "bond_risk/model/conventions/convention_flows.h"
#include "bond_risk/model/pricing/status.h"

namespace bond_risk {

namespace {

// Sorts `positions` by key and adds up the weights of equal keys.
template <class Position, class Key>
void merge_equal(std::vector<Position>& positions, std::size_t from, Key key) {
  const auto first = positions.begin() + static_cast<std::ptrdiff_t>(from);
  std::sort(first, positions.end(), [&](const Position& a, const Position& b) { return key(a) < key(b); });
  auto out = first;
  for (auto in = first; in != positions.end(); ++in) {
    if (out != first && key(*(out - 1)) == key(*in)) {
      (out - 1)->weight += in->weight;
    } else {
      *out++ = *in;
    }
  }
  positions.erase(out, positions.end());
}

}  // namespace

ScenarioBase::ScenarioBase(const Store& s)
    : outright_books_(s.outright_books.size()), repo_books_(s.repo_books.size()), book_names_(books()) {
  market_.calendars = s.calendars;
  market_.curves = s.curves;
  market_.bonds = s.bonds;
  market_.bond_values = s.bond_values;
  // Statuses and ids of what revaluation and the replies read; no trade's.
  for (Kind kind : {Kind::calendar, Kind::ir_curve, Kind::bond, Kind::outright_book, Kind::repo_book}) {
    market_.states[static_cast<std::size_t>(kind)] = s.states[static_cast<std::size_t>(kind)];
    market_.ids[static_cast<std::size_t>(kind)] = s.ids[static_cast<std::size_t>(kind)];
  }
  for (const auto& [name, node] : s.names) {
    if (node.type == static_cast<engine::TypeId>(Kind::outright_book)) book_names_[node.index] = name;
    if (node.type == static_cast<engine::TypeId>(Kind::repo_book)) book_names_[outright_books_ + node.index] = name;
  }
  const auto ok = [&s](Kind kind, NodeIndex i) { return s.states[static_cast<std::size_t>(kind)][i].status == Status::ok; };
  for (NodeIndex b = 0; b < s.bonds.size(); ++b) {
    flow_begin_.push_back(static_cast<std::uint32_t>(convention_flows_.size()));
    const Bond& bond = s.bonds[b];
    if (bond.convention == kNoConvention || !ok(Kind::bond, b)) continue;
    const Calendar& calendar = s.calendars[bond.calendar];
    ConventionFlows flows;
    convention_flows(terms_of(bond), *s.conventions[bond.convention].parsed.convention, calendar.business_days,
                     calendar.today, flows);
    for (const CouponFlow& f : flows) convention_flows_.push_back({f.pay - calendar.today, f.amount});
    if (flows.redemption_pay > calendar.today) convention_flows_.push_back({flows.redemption_pay - calendar.today, 100.0});
  }
  flow_begin_.push_back(static_cast<std::uint32_t>(convention_flows_.size()));
  const auto bond_key = [](const BondPosition& p) { return p.bond; };
  const auto cash_key = [](const CashPosition& p) { return std::pair(p.curve, p.days); };
  const std::size_t outright = s.outright_books.size();
  for (std::size_t b = 0; b < outright; ++b) {
    bond_begin_.push_back(static_cast<std::uint32_t>(bond_positions_.size()));
    cash_begin_.push_back(static_cast<std::uint32_t>(cash_positions_.size()));
    if (!publishes(b)) continue;
    const std::size_t from = bond_positions_.size();
    for (NodeIndex m : s.outright_books[b].members) {
      const OutrightTrade& t = s.outright_trades[m];
      if (ok(Kind::outright_trade, m)) bond_positions_.push_back({t.bond, static_cast<double>(t.quantity) * t.dir});
    }
    merge_equal(bond_positions_, from, bond_key);
  }
  for (std::size_t b = 0; b < s.repo_books.size(); ++b) {
    bond_begin_.push_back(static_cast<std::uint32_t>(bond_positions_.size()));
    cash_begin_.push_back(static_cast<std::uint32_t>(cash_positions_.size()));
    if (!publishes(outright + b)) continue;
    const std::size_t bonds_from = bond_positions_.size(), cash_from = cash_positions_.size();
    for (NodeIndex m : s.repo_books[b].members) {
      if (!ok(Kind::repo_trade, m)) continue;
      const RepoTrade& t = s.repo_trades[m];
      bond_positions_.push_back({t.bond, -static_cast<double>(t.notional)});
      cash_positions_.push_back({t.curve, t.end - s.calendars[t.calendar].today, -t.start_cash / kYearBasis});
    }
    merge_equal(bond_positions_, bonds_from, bond_key);
    merge_equal(cash_positions_, cash_from, cash_key);
  }
  bond_begin_.push_back(static_cast<std::uint32_t>(bond_positions_.size()));
  cash_begin_.push_back(static_cast<std::uint32_t>(cash_positions_.size()));
}

BookList ScenarioBase::book_list() const {
  BookList list;
  for (std::size_t b = 0; b < books(); ++b) list.push_back(book_id(b), kind_of(book(b)), publishes(b));
  return list;
}

NodeRef ScenarioBase::book(std::size_t b) const {
  const std::size_t outright = outright_books_;
  return b < outright ? ref(Kind::outright_book, static_cast<NodeIndex>(b))
                      : ref(Kind::repo_book, static_cast<NodeIndex>(b - outright));
}

ScenarioRevaluer::ScenarioRevaluer(const ScenarioBase& base)
    : base_(base),
      points_(base.market().curves.size()),
      curves_(base.market().curves.size()),
      grids_(base.market().curves.size()),
      shifted_(base.market().curves.size()),
      price_change_(base.market().bonds.size()) {}

ScenarioPnl ScenarioRevaluer::revalue(const Scenario& scenario) {
  const Store& s = base_.market();
  ScenarioPnl out;
  // The shifted curves, built again from their points.
  std::ranges::fill(shifted_, 0);
  for (const Shift& shift : scenario.shifts) {
    if (s.state(ref(Kind::ir_curve, shift.curve)).status != Status::ok) continue;  // nothing on it is OK
    if (!shifted_[shift.curve]) points_[shift.curve] = s.curves[shift.curve].points;
    points_[shift.curve][shift.point].value += shift.bp * kBump;
    shifted_[shift.curve] = 1;
  }
  for (NodeIndex c = 0; c < s.curves.size(); ++c) {
    if (!shifted_[c]) continue;
    if (const std::string problem = check_curve_points(points_[c]); !problem.empty()) {
      out.error = "ir_curve " + std::to_string(s.ids[static_cast<std::size_t>(Kind::ir_curve)][c]) + " shifted: " + problem;
      return out;
    }
    build_discount_factors(points_[c], curves_[c]);
    const std::vector<CurveGrid>& base = s.curves[c].grids;  // the same calendars, on the shifted curve
    grids_[c].resize(base.size());
    for (std::size_t g = 0; g < base.size(); ++g) {
      CurveGrid& shifted = grids_[c][g];
      shifted.calendar = base[g].calendar;
      shifted.sums.clear();
      if (!base[g].sums.empty()) sum_coupon_grids(s.calendars[shifted.calendar].grid_days, curves_[c], false, shifted.sums);
    }
  }
  // Every OK bond on a shifted curve repriced; the others do not move.
  for (NodeIndex b = 0; b < s.bonds.size(); ++b) {
    const Bond& bond = s.bonds[b];
    price_change_[b] = 0;
    if (!shifted_[bond.curve] || s.state(ref(Kind::bond, b)).status != Status::ok) continue;
    if (bond.convention != kNoConvention) {  // its flows, valued as the flush values them (convention_figures)
      double price = 0;
      for (std::uint32_t f = base_.flow_begin_[b]; f < base_.flow_begin_[b + 1]; ++f) {
        price += base_.convention_flows_[f].amount * curves_[bond.curve].df[base_.convention_flows_[f].day];
      }
      price_change_[b] = price - s.bond_values[b].price;
      continue;
    }
    const double coupons_df = coupon_sums(s.calendars[bond.calendar].grid_days, grid_for(grids_[bond.curve], bond.calendar).sums,
                                          bond.place, bond.coupons)
                                  .df;
    price_change_[b] = bond_price(coupons_df, bond.maturity, bond.coupon, bond.coupons_per_year,
                                  s.calendars[bond.calendar].today, curves_[bond.curve]) -
                       s.bond_values[b].price;
  }
  const std::size_t books = base_.books(), outright = base_.outright_books_;
  out.pnl.assign(books, 0.0);
  out.margin.assign(books, 0.0);
  for (std::size_t k = 0; k < books; ++k) {
    double bonds = 0, cash = 0;
    for (std::uint32_t p = base_.bond_begin_[k]; p < base_.bond_begin_[k + 1]; ++p) {
      const ScenarioBase::BondPosition& pos = base_.bond_positions_[p];
      bonds += pos.weight * price_change_[pos.bond];
    }
    for (std::uint32_t p = base_.cash_begin_[k]; p < base_.cash_begin_[k + 1]; ++p) {
      const ScenarioBase::CashPosition& pos = base_.cash_positions_[p];
      if (!shifted_[pos.curve]) continue;
      cash += pos.weight * (curves_[pos.curve].cum_df[pos.days] - s.curves[pos.curve].arrays.cum_df[pos.days]);
    }
    if (k < outright) {
      out.pnl[k] = bonds;
    } else {
      out.pnl[k] = cash;
      out.margin[k] = bonds;
    }
    out.total += out.pnl[k];
  }
  return out;
}

std::vector<ScenarioPnl> revalue_all(const ScenarioBase& base, std::span<const Scenario> scenarios,
                                     engine::Scheduler& scheduler, const std::function<void(std::size_t)>& progress) {
  std::vector<ScenarioPnl> out(scenarios.size());
  const std::size_t jobs = std::max<std::size_t>(1, scheduler.parallelism());
  std::vector<ScenarioRevaluer> revaluers(jobs, ScenarioRevaluer(base));
  // Rounds of a few scenarios per job, so that progress shows between them.
  const std::size_t round = 4 * jobs;
  for (std::size_t first = 0; first < scenarios.size(); first += round) {
    const std::size_t last = std::min(scenarios.size(), first + round);
    scheduler.run(jobs, [&](std::size_t j) {  // jobs must not throw: a failure is the scenario's error
      for (std::size_t k = first + j; k < last; k += jobs) {
        try {
          out[k] = revaluers[j].revalue(scenarios[k]);
        } catch (const std::exception& e) {
          out[k].error = e.what();
        }
      }
    });
    if (progress) progress(last);
  }
  return out;
}

namespace {

// How many of n ascending P&Ls ES 97.5% averages: ceil(0.025 n).
std::size_t es_tail(std::size_t n) { return (n + 39) / 40; }

}  // namespace

TailRisk tail_risk(std::span<const double> pnl) {
  if (pnl.empty()) return {};
  std::vector<double> sorted(pnl.begin(), pnl.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  const std::size_t j = (n + 99) / 100;  // ceil(0.01 n)
  const std::size_t m = es_tail(n);
  double worst = 0;
  for (std::size_t k = 0; k < m; ++k) worst += sorted[k];
  return {-sorted[j - 1], -worst / static_cast<double>(m)};
}
std::string few_scenarios_note(std::size_t scenarios) {
  if (scenarios >= 100) return "";
  const std::string n = std::to_string(scenarios), m = std::to_string(es_tail(scenarios));
  return "only " + n + " scenarios: fewer than 100 leave less than one in the 1% tail, so VaR 99% is the worst loss of the " +
         n + " and ES 97.5% the mean of the worst " + m + "; a 99% quantile needs at least 100 days";
}

SetRisk set_risk(std::size_t books, std::span<const ScenarioPnl> pnl) {
  std::vector<std::vector<double>> by_book(books);
  std::vector<double> total;
  for (const ScenarioPnl& p : pnl) {
    if (!p.error.empty()) continue;
    total.push_back(p.total);
    for (std::size_t b = 0; b < by_book.size(); ++b) by_book[b].push_back(p.pnl[b]);
  }
  SetRisk risk{{}, tail_risk(total), total.size()};
  for (const std::vector<double>& book : by_book) risk.books.push_back(tail_risk(book));
  return risk;
}

std::vector<std::string> left_out(std::span<const Scenario> scenarios, std::span<const ScenarioPnl> pnl) {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < pnl.size(); ++k) {
    if (!pnl[k].error.empty()) out.push_back("scenario " + scenarios[k].name + " left out: " + pnl[k].error);
  }
  return out;
}

std::vector<std::string> left_out(const ScenarioSet& set, std::span<const ScenarioPnl> pnl) {
  std::vector<std::string> out = set.problems;
  std::ranges::copy(left_out(set.scenarios, pnl), std::back_inserter(out));
  return out;
}

std::string no_var_reason(const ScenarioSet& set, std::span<const ScenarioPnl> pnl) {
  if (std::ranges::any_of(pnl, [](const ScenarioPnl& p) { return p.error.empty(); })) return "";
  const std::vector<std::string> out = left_out(set, pnl);
  return "scenario set '" + set.name + "' has no usable scenario, so no VaR or ES: " +
         (out.empty() ? "it has no scenarios"
                      : "all " + std::to_string(out.size()) + " of its scenarios were left out (the first: " + out.front() +
                            "); correct or remove their rows in scenario_shift");
}

}  // namespace bond_risk
