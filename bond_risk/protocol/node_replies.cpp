#include "bond_risk/protocol/node_replies.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "bond_risk/model/risk/ladders.h"
#include "bond_risk/model/store/published_values.h"
#include "bond_risk/model/store/reason.h"
#include "bond_risk/protocol/messages.h"

namespace bond_risk::protocol {

base::Json applied_json(const Applied& applied) {
  struct Members {
    const Applied& a;
    base::Json operator()(const CurveRates& w) const { return {{member::curve, w.curve_id}}; }
    base::Json operator()(const CalendarDates& w) const { return {{member::calendars, w.calendar_ids.size()}}; }
    base::Json operator()(const TradeRow& w) const {
      base::Json out = {{member::id, w.id}};
      if (!a.still_failed.empty()) out[member::still_failed] = a.still_failed;
      return out;
    }
    base::Json operator()(const TradeRemoval& w) const { return {{member::id, w.id}, {member::books, a.books}}; }
    base::Json operator()(const BondQuotes& w) const { return {{member::bonds, w.quotes.size()}}; }
    base::Json operator()(const DayStart&) const { return {{member::day_started, true}}; }
    base::Json operator()(const LimitRow& w) const { return {{member::limit_id, w.limit.id}}; }
    base::Json operator()(const LimitRemoval& w) const { return {{member::limit_id, w.id}, {member::removed, true}}; }
    base::Json operator()(const RowsWritten&) const { return base::Json::object(); }
  };
  return std::visit(Members{applied}, applied.write);
}

base::Json changed_values_json(const Store& store, const engine::Graph& graph, const Applied& applied) {
  const TradeRow* row = std::get_if<TradeRow>(&applied.write);
  const NodeRef* trade = row ? store.by_id.find(row->id) : nullptr;
  if (!trade) return base::Json::object();
  base::Json books = base::Json::array();
  for (NodeRef book : graph.subscribers(*trade)) books.push_back(node_json(store, graph, book, Ladder::without));
  return {{member::trade, node_json(store, graph, *trade, Ladder::without)}, {member::books, books}};
}

base::Json recalculation_json(const std::array<std::size_t, kKindCount>& nodes, double seconds) {
  base::Json counts = base::Json::object();
  for (std::size_t k = 0; k < kKindCount; ++k) counts[std::string(kind_name(static_cast<Kind>(k)))] = nodes[k];
  return {{member::recalculated, counts}, {member::recalc_us, seconds * 1e6}};
}

base::Json node_json(const Store& s, const engine::Graph& graph, NodeRef n, Ladder with_ladder) {
  base::Json out = {{member::id, s.id(n)},
                    {member::type, kind_name(kind_of(n))},
                    {member::status, status_name(s.state(n).status)},
                    {member::reason, reason(s, graph, n)}};
  switch (kind_of(n)) {
    case Kind::calendar: out[member::today] = format_date(s.calendars[n.index].today); return out;
    case Kind::ir_curve: out[member::points] = s.curves[n.index].points.size(); return out;
    default: break;
  }
  const PublishedValues values = published_values(s, n);
  const auto names = value_names(kind_of(n));
  for (std::size_t k = 0; k < values.count; ++k) {
    const double v = values.values[k];
    if (is_date_value(names[k]) && !std::isnan(v)) {
      out[std::string(names[k])] = format_date(static_cast<Date>(v));
    } else {
      out[std::string(names[k])] = v;
    }
  }
  if (kind_of(n) == Kind::outright_book) out[member::members] = s.outright_books[n.index].members.size();
  if (kind_of(n) == Kind::repo_book) out[member::members] = s.repo_books[n.index].members.size();
  if (with_ladder == Ladder::without) return out;
  const std::vector<KeyRate> ladder = key_rate_ladder(s, n);
  if (!ladder.empty()) {
    base::Json points = base::Json::array();
    const auto kr_names = key_rate_names(kind_of(n));
    for (const KeyRate& kr : ladder) {
      base::Json point = {{member::ir_curve_id, kr.ir_curve_id}, {member::idx, kr.idx}, {member::days_forward, kr.days_forward}};
      for (std::size_t v = 0; v < kr_names.size(); ++v) point[std::string(kr_names[v])] = kr.kr01[v];
      points.push_back(std::move(point));
    }
    out[member::key_rates] = std::move(points);
  }
  return out;
}

base::Json inputs_json(const Store& s, const engine::Graph& graph, NodeRef n) {
  const auto named = [&](Kind kind, NodeIndex i) {
    const NodeRef node = ref(kind, i);
    return base::Json{{member::id, s.id(node)}, {member::name, s.name_of(node)}};
  };
  const auto books_of = [&](NodeRef trade) {  // a trade's subscribers are its books
    base::Json books = base::Json::array();
    for (NodeRef book : graph.subscribers(trade)) books.push_back(named(kind_of(book), book.index));
    return books;
  };
  const auto side = [](int dir) { return dir > 0 ? word::buy : word::sell; };
  // A row that could not be read whole names nothing for certain (an unknown reference is left unresolved).
  if (s.state(n).error != 0) return {{member::unreadable, s.error(n)}};
  switch (kind_of(n)) {
    case Kind::calendar: return {{member::today, format_date(s.calendars[n.index].today)}};
    case Kind::ir_curve: {
      const IrCurve& c = s.curves[n.index];
      base::Json rates = base::Json::array();
      for (std::size_t k = 0; k < c.points.size(); ++k) {
        rates.push_back({{member::idx, c.point_idx[k]}, {member::days_forward, c.points[k].days_forward}, {member::value, c.points[k].value}});
      }
      return {{member::rates, std::move(rates)}};
    }
    case Kind::bond: {
      const Bond& b = s.bonds[n.index];
      return {{member::start_date, format_date(b.start)}, {member::maturity_date, format_date(b.maturity)}, {member::coupon, b.coupon},
              {member::coupons_per_year, b.coupons_per_year}, {member::quote, b.quote}, {member::calendar, named(Kind::calendar, b.calendar)},
              {member::ir_curve, named(Kind::ir_curve, b.curve)}, {member::today, format_date(s.calendars[b.calendar].today)}};
    }
    case Kind::outright_trade: {
      const OutrightTrade& t = s.outright_trades[n.index];
      return {{member::bond_id, s.id(ref(Kind::bond, t.bond))}, {member::quantity, t.quantity}, {member::trade_price, t.trade_price},
              {member::buy_sell, side(t.dir)}, {member::books, books_of(n)},
              {member::today, format_date(s.calendars[s.bonds[t.bond].calendar].today)}};
    }
    case Kind::repo_trade: {
      const RepoTrade& t = s.repo_trades[n.index];
      return {{member::bond_id, s.id(ref(Kind::bond, t.bond))}, {member::end_date, format_date(t.end)}, {member::notional, t.notional},
              {member::start_cash, t.start_cash}, {member::rate, t.rate}, {member::calendar, named(Kind::calendar, t.calendar)},
              {member::ir_curve, named(Kind::ir_curve, t.curve)}, {member::books, books_of(n)},
              {member::today, format_date(s.calendars[t.calendar].today)}};
    }
    case Kind::outright_book:
    case Kind::repo_book: break;  // its members (node_json's count) are its inputs
  }
  return base::Json::object();
}

base::Json positions_json(const Store& s, const engine::Graph& graph, NodeRef book, std::size_t count) {
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
    positions.push_back({{member::trade, node_json(s, graph, trade(*it), Ladder::without)},
                         {member::bond, node_json(s, graph, ref(Kind::bond, s.outright_trades[*it].bond), Ladder::without)}});
  }
  return {{member::id, s.id(book)}, {member::positions, std::move(positions)}};
}

base::Json books_json(const Store& s) {
  std::map<std::string_view, NodeRef> by_name;
  for (const auto& [name, node] : s.names) {
    if (is_book(kind_of(node)) && s.state(node).status != Status::removed) by_name.emplace(name, node);
  }
  base::Json books = base::Json::array();
  for (const auto& [name, node] : by_name) books.push_back(encode(BookEntry{s.id(node), std::string(name), std::string(kind_name(kind_of(node)))}));
  return books;
}

}  // namespace bond_risk::protocol
