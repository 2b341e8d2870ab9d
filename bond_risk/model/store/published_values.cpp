#include "bond_risk/model/store/published_values.h"

#include <algorithm>
#include <vector>

#include "base/fnv1a.h"
#include "bond_risk/model/store/layout.h"

namespace bond_risk {

std::size_t published_values(const Store& s, NodeRef n, std::span<double> out) {
  auto of = [&](std::initializer_list<double> v) {
    std::copy(v.begin(), v.end(), out.begin());
    return v.size();
  };
  switch (kind_of(n)) {
    case Kind::bond: {
      const BondValue& v = s.bond_values[n.index];
      const BondFigures& f = s.bond_figures[n.index];
      return of({v.price, v.pv01, f.accrued, f.clean_price, f.yield, f.macaulay_duration, f.modified_duration,
                 f.convexity, f.market_dirty, f.z_spread, f.cs01, f.settlement_date, f.dirty_price, f.quote_yield});
    }
    case Kind::outright_trade: {
      const OutrightValue& v = s.outright_values[n.index];
      return of({v.pv, v.pv01, v.pnl, s.outright_cs01[n.index]});
    }
    case Kind::repo_trade: {
      const RepoValue& v = s.repo_values[n.index];
      return of({v.end_cash, v.margin, v.mtm_pnl});
    }
    case Kind::outright_book: {
      const OutrightBook& b = s.outright_books[n.index];
      return of({b.total.pv, b.total.pv01, b.total.pnl, b.cs01, static_cast<double>(b.excluded),
                 static_cast<double>(b.unquoted)});
    }
    case Kind::repo_book: {
      const RepoBook& b = s.repo_books[n.index];
      return of({b.total.margin, b.total.mtm_pnl, static_cast<double>(b.excluded)});
    }
    default: return 0;
  }
}

PublishedValues published_values(const Store& s, NodeRef n) {
  PublishedValues p;
  p.count = published_values(s, n, p.values);
  return p;
}

std::span<const std::string_view> value_names(Kind kind) {
  static constexpr std::string_view bond[] = {"price",          "pv01",         "accrued",  "clean_price",
                                              "yield",          "macaulay_duration", "modified_duration",
                                              "convexity",      "market_dirty", "z_spread", "cs01",
                                              "settlement_date", "dirty_price", "quote_yield"};
  static constexpr std::string_view outright[] = {"pv", "pv01", "pnl", "cs01"};
  static constexpr std::string_view repo[] = {"end_cash", "margin", "mtm_pnl"};
  static constexpr std::string_view outright_book[] = {"pv", "pv01", "pnl", "cs01", "excluded", "unquoted"};
  static constexpr std::string_view repo_book[] = {"margin", "mtm_pnl", "excluded"};
  switch (kind) {
    case Kind::bond: return bond;
    case Kind::outright_trade: return outright;
    case Kind::repo_trade: return repo;
    case Kind::outright_book: return outright_book;
    case Kind::repo_book: return repo_book;
    default: return {};
  }
}

bool is_date_value(std::string_view name) { return name == "settlement_date"; }

std::uint64_t results_digest(const Store& store) {
  // In id order: node indices are the process's own (model/store/layout.h).
  std::array<std::vector<NodeIndex>, kKindCount> by_id;
  for (std::size_t k = 0; k < kKindCount; ++k) by_id[k] = in_id_order(store, static_cast<Kind>(k));
  base::Fnv1a h;
  for (std::size_t k = 0; k < kKindCount; ++k) {
    for (NodeIndex i : by_id[k]) h.add(Status{store.states[k][i].status});
  }
  for (std::size_t k = 0; k < kKindCount; ++k) {
    for (NodeIndex i : by_id[k]) {
      const PublishedValues values = published_values(store, ref(static_cast<Kind>(k), i));
      std::span<const double> hashed = values.span();
      // The values conventions added are a convention bond's alone: a database without conventions hashes as before them.
      if (static_cast<Kind>(k) == Kind::bond && store.bonds[i].convention == kNoConvention) hashed = hashed.first(kTrad4BondValues);
      for (double v : hashed) h.add(v);
    }
  }
  return h.value();
}

bool publishes_values(Kind kind, Status status) {
  return status == Status::ok || status == Status::expired || (is_book(kind) && status == Status::stale);
}

}  // namespace bond_risk
