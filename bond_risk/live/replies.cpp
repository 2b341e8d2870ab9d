#include "bond_risk/live/replies.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "base/percentile.h"
#include "base/process_memory.h"
#include "bond_risk/model/risk/ladders.h"
#include "bond_risk/model/store/published_values.h"
#include "bond_risk/model/store/reason.h"
#include "bond_risk/model/store/status_counts.h"
#include "bond_risk/protocol/messages.h"

namespace bond_risk {

namespace member = protocol::member;

base::Json applied_json(const Applied& applied) {
  struct Members {
    const Applied& a;
    base::Json operator()(const CurveRates& w) const { return {{"curve", w.curve_id}}; }
    base::Json operator()(const CalendarDates& w) const { return {{"calendars", w.calendar_ids.size()}}; }
    base::Json operator()(const TradeRow& w) const {
      base::Json out = {{member::id, w.id}};
      if (!a.still_failed.empty()) out["still_failed"] = a.still_failed;
      return out;
    }
    base::Json operator()(const TradeRemoval& w) const { return {{member::id, w.id}, {member::books, a.books}}; }
    base::Json operator()(const BondQuotes& w) const { return {{"bonds", w.quotes.size()}}; }
    base::Json operator()(const DayStart&) const { return {{"day_started", true}}; }
    base::Json operator()(const LimitRow& w) const { return {{"limit_id", w.limit.id}}; }
    base::Json operator()(const LimitRemoval& w) const { return {{"limit_id", w.id}, {"removed", true}}; }
  };
  return std::visit(Members{applied}, applied.write);
}

base::Json changed_values_json(const LiveModel& model, const Applied& applied) {
  const TradeRow* row = std::get_if<TradeRow>(&applied.write);
  const NodeRef* trade = row ? model.store().by_id.find(row->id) : nullptr;
  if (!trade) return base::Json::object();
  base::Json books = base::Json::array();
  for (NodeRef book : model.graph().subscribers(*trade)) books.push_back(node_json(model, book, Ladder::without));
  return {{member::trade, node_json(model, *trade, Ladder::without)}, {member::books, books}};
}

base::Json recalculation_json(const LiveModel::Recalculation& r) {
  base::Json nodes = base::Json::object();
  for (std::size_t k = 0; k < kKindCount; ++k) nodes[std::string(kind_name(static_cast<Kind>(k)))] = r.nodes[k];
  return {{"recalculated", nodes}, {member::recalc_us, r.seconds * 1e6}};
}

base::Json node_json(const LiveModel& model, NodeRef n, Ladder with_ladder) {
  const Store& s = model.store();
  base::Json out = {{member::id, s.id(n)},
                    {member::type, kind_name(kind_of(n))},
                    {member::status, status_name(s.state(n).status)},
                    {member::reason, reason(s, model.graph(), n)}};
  switch (kind_of(n)) {
    case Kind::calendar: out["today"] = format_date(s.calendars[n.index].today); return out;
    case Kind::ir_curve: out["points"] = s.curves[n.index].points.size(); return out;
    default: break;
  }
  const PublishedValues values = published_values(s, n);
  const auto names = value_names(kind_of(n));
  for (std::size_t k = 0; k < values.count; ++k) out[std::string(names[k])] = values.values[k];
  if (kind_of(n) == Kind::outright_book) out[member::members] = s.outright_books[n.index].members.size();
  if (kind_of(n) == Kind::repo_book) out[member::members] = s.repo_books[n.index].members.size();
  if (with_ladder == Ladder::without) return out;
  const std::vector<KeyRate> ladder = key_rate_ladder(s, n);
  if (!ladder.empty()) {
    base::Json points = base::Json::array();
    const auto kr_names = key_rate_names(kind_of(n));
    for (const KeyRate& kr : ladder) {
      base::Json point = {{"ir_curve_id", kr.ir_curve_id}, {"idx", kr.idx}, {"days_forward", kr.days_forward}};
      for (std::size_t v = 0; v < kr_names.size(); ++v) point[std::string(kr_names[v])] = kr.kr01[v];
      points.push_back(std::move(point));
    }
    out[member::key_rates] = std::move(points);
  }
  return out;
}

base::Json inputs_json(const LiveModel& model, NodeRef n) {
  const Store& s = model.store();
  const auto named = [&](Kind kind, NodeIndex i) {
    const NodeRef node = ref(kind, i);
    return base::Json{{member::id, s.id(node)}, {member::name, s.name_of(node)}};
  };
  const auto books_of = [&](NodeRef trade) {  // a trade's subscribers are its books
    base::Json books = base::Json::array();
    for (NodeRef book : model.graph().subscribers(trade)) books.push_back(named(kind_of(book), book.index));
    return books;
  };
  const auto side = [](int dir) { return dir > 0 ? "BUY" : "SELL"; };
  // A row that could not be read whole names nothing for certain (an unknown reference is left unresolved).
  if (s.state(n).error != 0) return {{"unreadable", s.error(n)}};
  switch (kind_of(n)) {
    case Kind::calendar: return {{"today", format_date(s.calendars[n.index].today)}};
    case Kind::ir_curve: {
      const IrCurve& c = s.curves[n.index];
      base::Json rates = base::Json::array();
      for (std::size_t k = 0; k < c.points.size(); ++k) {
        rates.push_back({{"idx", c.point_idx[k]}, {"days_forward", c.points[k].days_forward}, {"value", c.points[k].value}});
      }
      return {{"rates", std::move(rates)}};
    }
    case Kind::bond: {
      const Bond& b = s.bonds[n.index];
      return {{"start_date", format_date(b.start)}, {"maturity_date", format_date(b.maturity)}, {"coupon", b.coupon},
              {"coupons_per_year", b.coupons_per_year}, {"quote", b.quote}, {"calendar", named(Kind::calendar, b.calendar)},
              {"ir_curve", named(Kind::ir_curve, b.curve)}, {"today", format_date(s.calendars[b.calendar].today)}};
    }
    case Kind::outright_trade: {
      const OutrightTrade& t = s.outright_trades[n.index];
      return {{"bond_id", s.id(ref(Kind::bond, t.bond))}, {"quantity", t.quantity}, {"trade_price", t.trade_price},
              {"buy_sell", side(t.dir)}, {"books", books_of(n)},
              {"today", format_date(s.calendars[s.bonds[t.bond].calendar].today)}};
    }
    case Kind::repo_trade: {
      const RepoTrade& t = s.repo_trades[n.index];
      return {{"bond_id", s.id(ref(Kind::bond, t.bond))}, {"end_date", format_date(t.end)}, {"notional", t.notional},
              {"start_cash", t.start_cash}, {"rate", t.rate}, {"calendar", named(Kind::calendar, t.calendar)},
              {"ir_curve", named(Kind::ir_curve, t.curve)}, {"books", books_of(n)},
              {"today", format_date(s.calendars[t.calendar].today)}};
    }
    case Kind::outright_book:
    case Kind::repo_book: break;  // its members (node_json's count) are its inputs
  }
  return base::Json::object();
}

base::Json positions_json(const LiveModel& model, NodeRef book, std::size_t count) {
  const Store& s = model.store();
  const auto trade = [](NodeIndex t) { return ref(Kind::outright_trade, t); };
  std::vector<NodeIndex> members;
  for (NodeIndex t : s.outright_books[book.index].members) {
    if (s.state(trade(t)).status != Status::removed) members.push_back(t);
  }
  // |pv01| of an OK trade; -1 ranks the others after every OK one.
  const auto size = [&](NodeIndex t) {
    const double pv01 = s.outright_values[t].pv01;
    return s.state(trade(t)).status == Status::ok && std::isfinite(pv01) ? std::abs(pv01) : -1.0;
  };
  const auto end = members.begin() + static_cast<std::ptrdiff_t>(std::min(count, members.size()));
  std::partial_sort(members.begin(), end, members.end(), [&](NodeIndex a, NodeIndex b) {
    const double x = size(a), y = size(b);
    return x != y ? x > y : s.id(trade(a)) < s.id(trade(b));
  });
  base::Json positions = base::Json::array();
  for (auto it = members.begin(); it != end; ++it) {
    positions.push_back({{member::trade, node_json(model, trade(*it), Ladder::without)},
                         {member::bond, node_json(model, ref(Kind::bond, s.outright_trades[*it].bond), Ladder::without)}});
  }
  return {{member::id, s.id(book)}, {member::positions, std::move(positions)}};
}

base::Json books_json(const Store& s) {
  std::map<std::string_view, NodeRef> by_name;
  for (const auto& [name, node] : s.names) {
    if (is_book(kind_of(node)) && s.state(node).status != Status::removed) by_name.emplace(name, node);
  }
  base::Json books = base::Json::array();
  for (const auto& [name, node] : by_name) books.push_back(protocol::encode(protocol::BookEntry{s.id(node), std::string(name), std::string(kind_name(kind_of(node)))}));
  return books;
}

namespace {

// Each book's {"id","name"}, in ScenarioBase order.
std::vector<base::Json> book_heads(const ScenarioBase& base) {
  std::vector<base::Json> heads;
  for (std::size_t b = 0; b < base.books(); ++b) {
    heads.push_back({{member::id, base.book_id(b)}});
    if (!base.book_name(b).empty()) heads.back()[member::name] = base.book_name(b);
  }
  return heads;
}

}  // namespace

base::Json scenario_json(const ScenarioBase& base, const Scenario& scenario, const std::string& set, const ScenarioPnl& pnl) {
  std::vector<base::Json> heads = book_heads(base);
  base::Json books = base::Json::array();
  for (std::size_t b = 0; b < base.books(); ++b) {
    if (!base.publishes(b)) continue;
    base::Json& book = heads[b];
    book["pnl"] = pnl.pnl[b];
    if (kind_of(base.book(b)) == Kind::repo_book) book["margin_change"] = pnl.margin[b];
    books.push_back(std::move(book));
  }
  return {{member::name, scenario.name}, {member::id, scenario.id}, {"set", set}, {member::total, pnl.total}, {member::books, std::move(books)}};
}

base::Json var_json(const ScenarioBase& base, const ScenarioSet& set, const std::vector<ScenarioPnl>& pnl) {
  if (const std::string why = no_var_reason(set, pnl); !why.empty()) throw CommandError(why);
  const SetRisk risk = set_risk(base.books(), pnl);
  auto risk_json = [](const TailRisk& r) { return base::Json{{"var_99", r.var_99}, {"es_975", r.es_975}}; };
  std::vector<base::Json> heads = book_heads(base);
  base::Json books = base::Json::array();
  for (std::size_t b = 0; b < base.books(); ++b) {
    if (!base.publishes(b)) continue;
    base::Json& book = heads[b];
    book.update(risk_json(risk.books[b]));
    books.push_back(std::move(book));
  }
  base::Json reply = {{"set", set.name}, {"scenarios", risk.scenarios}, {member::total, risk_json(risk.total)}, {member::books, std::move(books)}};
  if (const std::vector<std::string> out = left_out(set, pnl); !out.empty()) reply["left_out"] = out;
  if (const std::string note = few_scenarios_note(risk.scenarios); !note.empty()) reply["note"] = note;
  return reply;
}

base::Json stats_json(const LiveModel& model, const std::array<std::size_t, kCommandCount>& answered,
                      const PhaseTimes& phases) {
  base::Json commands = base::Json::object();
  for (const CommandInfo& c : command_table()) commands[std::string(c.name)] = answered[static_cast<std::size_t>(c.id)];
  base::Json latency = nullptr;
  if (!model.latencies_us().empty()) {
    latency = base::Json::object();
    const char* names[] = {"min", "p50", "p90", "p99", "p99.9", "max"};
    const double points[] = {0, 50, 90, 99, 99.9, 100};
    const std::vector<double> values = base::percentiles(model.latencies_us(), points);  // one sort
    for (std::size_t k = 0; k < values.size(); ++k) latency[names[k]] = values[k];
  }
  base::Json time_us = {{"batches", phases.batches}};
  for (std::size_t i = 0; i < kPhaseNames.size(); ++i) time_us[std::string(kPhaseNames[i])] = phases.seconds[i] * 1e6;
  const base::ProcessMemory memory = base::process_memory();
  return {{member::counts, status_counts_json(model.store())},
          {member::events, model.events()},
          {member::commands, commands},
          {member::recalc_us, latency},
          {member::recalc_seconds, protocol::histogram_json(model.latency_histogram())},
          {member::commit_seconds, protocol::histogram_json(phases.commits)},
          {member::time_us, time_us},
          {member::memory_kb, {{member::vm_peak, memory.vm_peak_kb}, {member::vm_rss, memory.vm_rss_kb}}}};
}

}  // namespace bond_risk
