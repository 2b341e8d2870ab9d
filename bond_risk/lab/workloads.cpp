#include "bond_risk/lab/workloads.h"

#include <algorithm>
#include <stdexcept>

namespace bond_risk {

Workload::Workload(const Store& store, std::uint64_t seed) : rng_(seed) {
  const auto& trade_ids = store.ids[static_cast<std::size_t>(Kind::outright_trade)];
  const auto& bond_ids = store.ids[static_cast<std::size_t>(Kind::bond)];
  trades_.assign(trade_ids.begin(), trade_ids.end());
  bonds_.assign(bond_ids.begin(), bond_ids.end());
  next_removal_ = trades_.size() / 2;
  for (std::size_t i = 0; i < store.bonds.size(); ++i) {
    if (!is_null(store.bonds[i].quote)) quotes_.emplace_back(bonds_[i], store.bonds[i].quote);
  }
  std::vector<std::pair<NodeIndex, std::string>> curves;
  for (const auto& [name, node] : store.names) {
    if (kind_of(node) == Kind::ir_curve) curves.emplace_back(node.index, name);
    if (kind_of(node) == Kind::outright_book) books_.push_back(name);
  }
  std::ranges::sort(curves);  // index order, not the hash map's
  std::ranges::sort(books_);
  for (const auto& [index, name] : curves) {
    Curve c{name, {}};
    for (const CurvePoint& p : store.curves[index].points) c.values.push_back(p.value);
    curves_.push_back(std::move(c));
  }
  if (trades_.size() < 2 || curves_.empty() || books_.empty() || store.calendars.empty()) {
    throw std::invalid_argument("the database needs outright trades, a curve, an outright book and a calendar to draw commands from");
  }
  today_ = store.calendars.front().today;
}

Change Workload::amendment() {
  return AmendTrade{std::to_string(trades_[below(trades_.size() / 2)]),
                    {{"quantity", static_cast<std::int64_t>(1 + below(5000))}}};
}

Change Workload::booking() {
  return AddTrade{Kind::outright_trade,
                  {{"bond_id", bonds_[below(bonds_.size())]},
                   {"trade_price", 90 + static_cast<double>(below(2000)) / 100},
                   {"quantity", static_cast<std::int64_t>(1 + below(5000))},
                   {"buy_sell", Side{below(2) ? 1 : -1}}},
                  books_[below(books_.size())]};
}

Change Workload::removal() {
  if (next_removal_ == trades_.size()) throw std::out_of_range("every trade of the second half has been removed");
  return RemoveTrade{std::to_string(trades_[next_removal_++])};
}

Change Workload::tick() {
  const Curve& c = curves_[below(curves_.size())];
  SetCurve tick{c.name, {}};
  for (double v : c.values) tick.values.push_back(v + 1e-5 * static_cast<double>(below(100)) / 100);
  return tick;
}

Change Workload::bump() {
  const double bp = static_cast<double>(1 + below(5));
  return BumpCurve{curves_[below(curves_.size())].name, below(2) ? bp : -bp};
}

Change Workload::quote_tick(std::size_t bonds) {
  if (quotes_.empty()) throw std::invalid_argument("the database quotes no bond to tick (bond_quote is empty)");
  SetPrices tick;
  for (std::size_t i = 0; i < bonds; ++i) {
    const auto& [bond, price] = quotes_[below(quotes_.size())];
    tick.quotes.emplace_back(std::to_string(bond), price + 0.001 * (static_cast<double>(below(101)) - 50));
  }
  return tick;
}

Command Workload::read() {
  if (below(2)) return Get{std::to_string(trades_[below(trades_.size() / 2)])};
  return ShowBook{books_[below(books_.size())]};
}

std::string Workload::desk_line() {
  const std::size_t r = below(100);
  if (r < 60) return format_command(read());
  if (r < 85) return format_command(amendment());
  if (r < 93) return format_command(booking());
  if (r < 98 && next_removal_ < trades_.size()) return format_command(removal());
  return format_command(tick());
}

}  // namespace bond_risk
